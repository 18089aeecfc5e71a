"""What WebShop scored with is recorded: the noun finder in journals' headers and eval reports, and a warning
under `--preset paper` when the type factor comes from the word-list fallback rather than spaCy's tagger."""

from __future__ import annotations

import json

import pytest

from envs import registry
from envs.base import EnvError
from recode_tui.commands.cli import main
from recode_tui.setup import build
from tests.envs.test_webshop_real_data import original  # noqa: F401 - the fixture
from tests.envs.webshop_helpers import webshop  # noqa: F401 - the fixture


def test_the_journal_header_names_the_noun_finder_and_the_pages(webshop):
    assert registry.header_fields("webshop:3")["webshop_nouns"] == "fallback"
    assert registry.header_fields("webshop:3")["webshop_pages"] == "faithful"
    assert registry.header_fields("webshop-paper:3")["webshop_pages"] == "recode"  # what --preset paper plays


@pytest.mark.heavy  # eval plays the game in an environment worker process: not in `make quick`
def test_the_eval_report_names_the_noun_finder(webshop, tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["eval", "--env", "webshop", "--agent", "react", "--llm", "demo", "--games", "1", "-c", "1",
                 "--no-progress", "-o", str(out)]) == 0
    capsys.readouterr()
    report = json.loads((out / "report.json").read_text())
    assert report["plan"]["run"]["env"]["options"] == {"webshop_pages": "faithful", "webshop_search": "original",
                                              "webshop_nouns": "fallback"}


def test_the_paper_preset_warns_once_when_the_fallback_scores(original, webshop, capsys, monkeypatch):
    monkeypatch.setattr(build, "_warned", set())
    assert build.preset_env("webshop", "paper") == "webshop-paper"  # the reference's goals and pages
    build.preset_env("webshop", "paper")
    err = capsys.readouterr().err
    assert err.count("word-list noun finder") == 1 and "python -m spacy download en_core_web_sm" in err
    build.preset_env("webshop", "default")
    assert capsys.readouterr().err == ""


def test_the_price_seed_of_the_original_data_is_recorded(original, webshop, monkeypatch):
    from envs.webshop import catalog

    monkeypatch.setenv("WEBSHOP_PRICE_SEED", "5")
    catalog._load.cache_clear()
    assert registry.header_fields("webshop:0")["webshop_price_seed"] == "5"
    monkeypatch.setenv("WEBSHOP_PRICE_SEED", "five")
    catalog._load.cache_clear()
    with pytest.raises(EnvError, match="WEBSHOP_PRICE_SEED='five': give a whole number"):
        webshop.catalogue
    catalog._load.cache_clear()


def test_the_paper_variant_shows_the_references_pages(original, webshop, monkeypatch):
    env = registry.make_env("webshop-paper:0")
    first = env.reset().observation
    assert first.startswith("\n") and first.endswith(" \n[Search] ") and "[SEP]" not in first
    assert env.mode == "recode" and registry.make_env("webshop:0").mode == "faithful"
    monkeypatch.setenv("WEBSHOP_PAGES", "recode")
    assert registry.make_env("webshop:0").mode == "recode"
    monkeypatch.setenv("WEBSHOP_PAGES", "html")
    with pytest.raises(EnvError, match="WEBSHOP_PAGES='html': use one of faithful, recode"):
        registry.make_env("webshop:0")
