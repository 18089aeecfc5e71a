"""Episode references as the layers above envs/ use them: qualified names, journal headers, step limits."""

from __future__ import annotations

import pytest

from agent.sessions.header import JournalHeader
from envs import registry
from envs.base import EnvError
from recode_tui.setup.build import episode_ref
from recode_tui.setup.usage import UsageError


def test_the_default_environment_stays_bare_and_others_carry_their_name() -> None:
    assert registry.qualify("alfworld:put-01") == registry.qualify("put-01", "alfworld") == "put-01"
    assert registry.qualify("boil/0", "sciworld") == registry.qualify("sciworld:boil/0") == "sciworld:boil/0"
    assert episode_ref("sciworld", "boil/3") == "sciworld:boil/3" and episode_ref(None, None) == "put-01"
    with pytest.raises(UsageError, match="belongs to 'sciworld' but --env is 'alfworld'"):
        episode_ref("alfworld", "sciworld:boil/0")


def _ref(fields: dict[str, str]) -> str:
    """The episode a journal header with these fields replays (read through the header's loader)."""
    return JournalHeader.from_json({"type": "session", "version": "recode.journal.v1", **fields}).episode_ref


def test_headers_name_the_episode_both_new_and_pre_seam() -> None:
    fields = registry.header_fields("put-01")
    assert (fields["env"], fields["episode"], fields["game"]) == ("alfworld", "put-01", "put-01")
    assert fields["fingerprint"] == fields["game_hash"]  # what pre-seam journals stored
    assert _ref(fields) == "put-01"
    assert _ref({"game": "put-01", "game_path": "/old/put-01.tw-pddl"}) == "/old/put-01.tw-pddl"
    sci = registry.header_fields("sciworld:boil/0")  # no JVM: the fingerprint is the version, task and setting
    assert "game_path" not in sci and _ref(sci) == "sciworld:boil/0"


def test_step_limits_given_then_the_episodes_own_then_the_presets() -> None:
    assert registry.step_limit("put-01", 50, None) == 50
    from envs.sciworld.limits import step_limit

    assert registry.step_limit("sciworld:boil/0", 50, None) == step_limit("boil")
    assert registry.step_limit("sciworld:boil/0", 50, 30) == 30


def test_an_unknown_episode_is_one_line() -> None:
    with pytest.raises(EnvError, match="unknown ScienceWorld task 'boiling'"):
        registry.episode("sciworld:boiling/0")
    assert registry.episode("alfworld:heat-01").task_type == "heat"
    assert registry.label("sciworld:boil/0") == "sciworld boil/0"


def test_a_game_given_by_a_relative_path_is_journaled_by_its_absolute_path(tmp_path, monkeypatch) -> None:
    import shutil

    from envs.alfworld.catalog import resolve_game

    shutil.copy(resolve_game("put-01"), tmp_path / "mine.tw-pddl")
    monkeypatch.chdir(tmp_path)
    fields = registry.header_fields("mine.tw-pddl")
    assert fields["episode"] == str((tmp_path / "mine.tw-pddl").resolve())
    monkeypatch.chdir("/")
    assert registry.fingerprint(_ref(fields)) == fields["fingerprint"]  # resumable from elsewhere
