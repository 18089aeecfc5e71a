"""The setup layer (recode_tui/setup): what the user typed is parsed once into frozen settings, and the
commands read argparse's namespace only at the top (commands/arguments.py). No agent starts here."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agent.sessions.header import JOURNAL_VERSION
from recode_tui.commands.arguments import console_options, eval_options, run_options
from recode_tui.commands.parser import build_parser
from envs.registry import EpisodeRef
from recode_tui.setup.build import episode_ref, parse_episode
from recode_tui.setup.usage import UsageError


def parsed(*argv: str, llm_given: bool | None = None):
    args = build_parser().parse_args(list(argv))
    if llm_given is not None:
        args.llm_given = llm_given
    return args


def test_an_episode_is_parsed_once_into_its_environment_its_id_and_the_one_text_naming_it() -> None:
    assert parse_episode(None, None) == EpisodeRef("alfworld", "put-01", "put-01")
    assert parse_episode("sciworld", "boil/0") == EpisodeRef("sciworld", "boil/0", "sciworld:boil/0")
    assert parse_episode(None, "sciworld:boil/0") == EpisodeRef("sciworld", "boil/0", "sciworld:boil/0")
    assert str(parse_episode(None, "clean-01")) == episode_ref(None, "clean-01") == "clean-01"
    with pytest.raises(UsageError, match="belongs to 'sciworld' but --env is 'alfworld'"):
        parse_episode("alfworld", "sciworld:boil/0")


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Every episode text parsed into an `EpisodeRef` while the test runs."""
    seen: list[str] = []
    parse = EpisodeRef.parse.__func__

    def counted(cls, text, env=None):
        seen.append(str(text))
        return parse(cls, text, env)

    monkeypatch.setattr(EpisodeRef, "parse", classmethod(counted))
    return seen


async def test_a_console_start_up_parses_its_episode_once_and_journals_it(tmp_path: Path, parses: list[str],
                                                                         node_code_in_process) -> None:
    """`--game` is parsed at the edge; the step limit, the journal's header, the session's folder and the
    status line all take the typed episode instead of splitting its text again."""
    from agent.sessions.journal_read import read_journal
    from recode_tui.commands.cli import console_app
    from tests.console.page import ConsolePage

    app = console_app(parsed("tui", "--game", "put-01", "--llm", "human", "--sessions", str(tmp_path)))
    async with ConsolePage.open(app, size=(120, 40)):
        session = app.session_control.session
        assert session is not None
        header = read_journal(session.folder).header
    assert parses == ["put-01"]
    assert (header.game, header.run.env.name, header.episode) == ("put-01", "alfworld", "put-01")


def test_a_run_parses_its_episode_once(tmp_path: Path, parses: list[str], capsys, node_code_in_process) -> None:
    from recode_tui.commands.cli import main

    assert main(["run", "--env", "alfworld", "--game", "put-01", "--llm", "demo", "--sessions", str(tmp_path)]) == 0
    assert parses == ["put-01"]
    assert "WON" in capsys.readouterr().out.upper()


def test_settings_are_frozen() -> None:
    options = run_options(parsed("run", "--game", "clean-01", "--llm", "demo", "--max-depth", "3"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(options, "quiet", True)
    assert options.episode == EpisodeRef("alfworld", "clean-01", "clean-01")
    assert options.settings.limits.max_depth == 3 and options.settings.agent.name == "recode"
    assert options.llm.spec == "demo" and not options.llm.defaulted


async def test_the_flags_reach_the_agent_through_one_settings_object() -> None:
    """`--trusted`, `--node-timeout` and a typed `--max-steps` travel in the run's `RunSpec`, the one
    object `make_agent` takes; a preset's step limit is the settings' too, but not typed."""
    from agent.sandbox.settings import RunnerSettings
    from recode_tui.setup.build import agent_for, llm_for, step_limit_of

    options = run_options(parsed("run", "--game", "put-01", "--llm", "demo", "--agent", "react", "--max-steps", "7",
                                 "--trusted", "--node-timeout", "2.5"))
    settings = options.settings
    assert (settings.runner.trusted, settings.runner.node_timeout, settings.max_steps, settings.max_steps_given) == (True, 2.5, 7, True)
    agent = agent_for(options, llm_for(options))
    try:
        assert agent.name == "react" and agent.env.max_steps == 7
        assert RunnerSettings.of_runner(agent.runner) == RunnerSettings(trusted=True, node_timeout=2.5, seed=agent.runner.seed)
    finally:
        await agent.close()
    paper = run_options(parsed("run", "--game", "put-01", "--llm", "demo", "--preset", "paper")).settings
    assert paper.max_steps == 50 and not paper.max_steps_given and step_limit_of(parse_episode(None, "put-01"), paper) == 50


def test_run_without_llm_and_without_a_terminal_plays_the_demo_and_says_so_later() -> None:
    options = run_options(parsed("run", "--game", "put-01"))  # pytest's stdin is no terminal
    assert options.llm.spec == "demo" and options.llm.defaulted


def test_a_resume_without_llm_goes_on_with_the_recorded_one(tmp_path: Path) -> None:
    folder = tmp_path / "sessions" / "s1"
    folder.mkdir(parents=True)
    header = {"type": "session", "version": JOURNAL_VERSION, "game": "clean-01",
              "run": {"model": {"llm": "scripted:x.yaml"}}, "created": 1.0}
    (folder / "journal.jsonl").write_text(json.dumps(header) + "\n", encoding="utf-8")
    options = run_options(parsed("run", "--resume", "s1", "--sessions", str(tmp_path / "sessions"), llm_given=False))
    assert options.resumed == folder and options.episode == EpisodeRef("alfworld", "clean-01", "clean-01")
    assert options.llm.spec == "scripted:x.yaml" and options.recorded_note.startswith("resuming with the session's LLM")
    given = run_options(parsed("run", "--resume", "s1", "--llm", "demo", "--sessions", str(tmp_path / "sessions"),
                               llm_given=True))
    assert given.llm.spec == "demo" and given.recorded_note.startswith("--llm demo given")


def test_the_console_refuses_at_without_resume_before_anything_is_built() -> None:
    with pytest.raises(UsageError, match="--at NODE needs --resume"):
        console_options(parsed("tui", "--at", "n3"))
    options = console_options(parsed("tui", "--no-break", "--review", "--preset", "paper"))
    assert options.breakpoints == () and options.review and options.run.settings.preset == "paper"
    assert options.run.llm.given  # the parser's default, as `main` would set it for `--llm` typed


def test_eval_options_type_every_flag_and_check_the_counts_first() -> None:
    options = eval_options(parsed("eval", "--llm", "demo", "--games", "3", "--split", "valid_seen", "--cache-ttl", "2h"))
    assert options.selection.games == "3" and options.selection.split == "valid_seen"
    assert options.cache.plan_fields() == {"cache_ttl": 7200.0}
    with pytest.raises(UsageError, match="-c/--concurrency must be 1 or more"):
        eval_options(parsed("eval", "--llm", "demo", "-c", "0"))
    with pytest.raises(UsageError, match="--cache-ttl"):
        eval_options(parsed("eval", "--llm", "demo", "--cache-ttl", "soon"))


def test_the_command_line_probes_no_namespace_and_says_why_it_probes_anything() -> None:
    """Below the edge nothing asks argparse's namespace what it has; a `getattr`/`hasattr` left in
    recode_tui/commands or recode_tui/setup is a truly dynamic name, and its line says so."""
    import re

    root = Path(__file__).resolve().parent.parent
    probes, unexplained = [], []
    for folder in ("recode_tui/commands", "recode_tui/setup"):
        for path in sorted((root / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                where = f"{path.relative_to(root)}:{number}"
                if re.search(r"\b(getattr|hasattr)\(args\b", line):
                    probes.append(where)
                elif re.search(r"\b(getattr|hasattr)\(", line) and "# dynamic:" not in line:
                    unexplained.append(where)
    assert probes == [] and unexplained == []
