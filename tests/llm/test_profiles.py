"""Profiles files: lookup order, environment fallbacks, errors naming line and field."""

from __future__ import annotations

import pytest

from agent.llm.profiles import PriceTable, ProfileError, find_profiles_file, load_profiles, resolve_profile

GOOD = """\
models:
  default:
    model: gpt-4o-mini
    temperature: 0.2
  local:
    base_url: http://127.0.0.1:8000/v1
    model: qwen2.5-7b
    max_tokens: 1024
prices:
  qwen2.5-7b: {input: 0.0, output: 0.0}
"""


def write(tmp_path, text: str):
    path = tmp_path / "profiles.yaml"
    path.write_text(text)
    return path


def test_profiles_read_with_defaults_and_env_fallback_for_default(tmp_path):
    environ = {"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "https://example.test/v1"}
    book = load_profiles(write(tmp_path, GOOD))
    default = resolve_profile("default", book, environ)
    assert (default.model, default.temperature, default.api_key, default.base_url) == (
        "gpt-4o-mini", 0.2, "sk-env", "https://example.test/v1",
    )
    local = resolve_profile("local", book, environ)
    assert local.api_key == "local" and local.max_tokens == 1024  # a local server needs no real key
    assert book.prices.price("qwen2.5-7b") == (0.0, 0.0)


def test_missing_api_key_and_unknown_profile_say_what_to_do(tmp_path):
    book = load_profiles(write(tmp_path, GOOD))
    with pytest.raises(ProfileError, match="profile 'default' has no api_key; set OPENAI_API_KEY, or give it api_key_env"):
        resolve_profile("default", book, {})
    with pytest.raises(ProfileError, match=r"unknown profile 'gpt5' \(known: default, local;"):
        resolve_profile("gpt5", book, {})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("models:\n\ta: {model: x}\n", "is not valid YAML at line 2: found character '\\t'"),
        ("models:\n  a:\n    model: x\n    temperature: hot\n", "models.a.temperature must be a number (line 4)"),
        ("models:\n  a:\n    modle: x\n", "models.a.modle is not a setting"),
        ("models:\n  a:\n    max_tokens: 1.5\n", "models.a.max_tokens must be an integer (line 3)"),
        ("models: [1, 2]\n", "`models` must map profile names to settings (line 1)"),
        ("prices:\n  m: {input: 1}\n", "prices.m must be {input: USD per 1M tokens, output: USD per 1M tokens} (line 2)"),
    ],
)
def test_a_broken_file_names_the_line_and_field(tmp_path, text, message):
    with pytest.raises(ProfileError) as caught:
        load_profiles(write(tmp_path, text))
    assert message in str(caught.value)


def test_lookup_order_explicit_then_project_then_user(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert find_profiles_file() is None
    user = tmp_path / "xdg" / "recode-tui" / "profiles.yaml"
    user.parent.mkdir(parents=True)
    user.write_text(GOOD)
    assert find_profiles_file() == user
    project = tmp_path / "configs" / "profiles.yaml"
    project.parent.mkdir()
    project.write_text(GOOD)
    assert find_profiles_file() == project.relative_to(tmp_path)
    assert find_profiles_file(user) == user
    with pytest.raises(ProfileError, match="does not exist; check --profiles"):
        find_profiles_file(tmp_path / "nope.yaml")


def test_price_table_matches_dated_model_names():
    table = PriceTable()
    assert table.price("gpt-4o-mini-2024-07-18") == (0.15, 0.60)
    assert table.price("gpt-4o-2024-08-06") == (2.50, 10.00)
    assert table.cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert table.price("my-own-model") is None and table.cost("my-own-model", 10, 10) == 0.0
