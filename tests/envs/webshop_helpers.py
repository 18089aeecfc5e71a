"""Shared set-up of the WebShop tests: a private index cache and the documented noun fallback."""

from __future__ import annotations

import pytest


@pytest.fixture
def webshop(monkeypatch, tmp_path):
    """The registry's WebShop provider on the bundled catalogue, its index cached under tmp_path."""
    from envs import registry
    from envs.webshop import catalog, provider, reward

    monkeypatch.setenv("RECODE_TUI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("WEBSHOP_NOUNS", "fallback")
    monkeypatch.delenv("WEBSHOP_DATA", raising=False)
    reward._spacy_nouns.cache_clear()
    provider._indexes.clear()  # each test builds (or loads) its index under its own cache folder
    yield registry.provider("webshop")
    reward._spacy_nouns.cache_clear()
    catalog._load.cache_clear()


def clickables(observation: str) -> list[str]:
    return [part.strip() for part in observation.split("[SEP]")]
