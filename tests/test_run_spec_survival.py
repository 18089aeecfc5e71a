"""Every leaf of a run's record (`RunSpec`), given a non-default value at the edge, survives run -> journal ->
resume -> fork -> replay -> eval -> report, and `compare` of two evaluations that differ in it names it.

The test is generated from the record's fields: each leaf (`agent.run.spec.leaves`) is one case, and
`TABLE` says how a user gives it a value other than the default (the flags) and what it must then hold.
A leaf added to the record without a row here fails its case, naming it: a new setting must be made to
survive, with no new test written. Everything is played once, on the toy world with scripted answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Callable

import pytest

from agent.eval.compare import compare_pair
from agent.eval.loaded_report import load_report
from agent.eval.report import EvalReport
from agent.llm.profiles import spec_endpoint
from agent.run.spec import RunSpec, leaves
from agent.runtime.prompt_hashes import file_hashes
from agent.runtime.prompts import PromptSet
from agent.sandbox.settings import RunnerSettings
from agent.sandbox.walls import SandboxPolicy
from agent.sessions.journal_read import read_journal
from agent.sessions.replay import NoLiveLLM
from agent.sessions.session import branch_session
from mockllm.openai_server import OpenAICompatibleServer
from recode_tui.commands.cli import main
from recode_tui.setup.build import episode_of
from tests import toyenv
from tests.toyenv import options as toy_options

ROOT = Path(__file__).resolve().parents[1]
REACT_PROMPTS = ROOT / "agent" / "agents" / "react" / "prompts"


@dataclass
class Played:
    """What the fixture played: the folders and files the cases read, and what the edge was given."""

    prompts: Path
    profiles: Path
    run: Path  # the session `run` journaled with every table flag
    fork: Path  # a fork of it
    replay: Path  # its replay from the last good point (`--from-last-good`)
    default_eval: Path
    changed_eval: Path

    def header(self, folder: Path) -> RunSpec:
        return _header_of(folder)

    def eval_journal(self) -> RunSpec:
        report = EvalReport.read(self.changed_eval / "report.json")
        return _header_of(Path(report.episodes[0].journal))

    @cached_property
    def stages(self) -> dict[str, dict[str, Any]]:
        """Each stage's record, leaf by leaf: read once for all the cases (they only read it)."""
        return {
            "run": dict(leaves(self.header(self.run))),
            "resume": dict(leaves(self.header(self.run))),  # resumed in place: the header it goes on under
            "fork": dict(leaves(self.header(self.fork))),
            "replay": dict(leaves(self.header(self.replay))),
            "eval journal": dict(leaves(self.eval_journal())),
        }

    @cached_property
    def reports(self) -> tuple[Any, Any, list[str]]:
        """The default and the changed evaluation's reports, and the settings `compare` names between them."""
        base, other = load_report(self.default_eval), load_report(self.changed_eval)
        return base, other, [name for name, _, _ in compare_pair(base, other).differences]


@cache
def _header_of(folder: Path) -> RunSpec:
    return read_journal(folder).header.run


Check = Callable[[Any, Played, str], bool]  # (value, what was played, the stage: "run", "fork", ..., "report")


@dataclass(frozen=True)
class Row:
    flags: tuple[str, ...]  # what the user types for a value other than the default
    holds: Check  # what the leaf must then hold
    console_only: str = ""  # a leaf only the console gives (its survival is that test's)
    env: tuple[tuple[str, str], ...] = ()  # variables the edge reads for it (the sandbox's), set for the changed runs


def _is(value: Any) -> Check:
    return lambda got, played, stage: got == value


TABLE: dict[str, Row] = {
    "agent.name": Row(("--agent", "react"), _is("react")),
    "agent.options": Row(("--agent-option", "window=5"), lambda got, played, stage: dict(got).get("window") == 5),
    "preset": Row(("--preset", "paper"), _is("paper")),
    "max_steps": Row(("--max-steps", "7"), _is(7)),
    "max_steps_given": Row(("--max-steps", "7"), _is(True)),
    "limits.max_depth": Row(("--max-depth", "3"), _is(3)),
    "limits.max_rewrite": Row(("--max-rewrite", "2"), _is(2)),
    "limits.max_retry": Row(("--max-retry", "1"), _is(1)),
    "limits.end_on_error": Row(("--preset", "paper"), _is(True)),
    "prompts.path": Row(("--prompts", "{prompts}"), lambda got, played, stage: Path(got).resolve() == played.prompts.resolve()),
    "prompts.hash": Row(("--prompts", "{prompts}"), lambda got, played, stage: got == PromptSet(played.prompts).content_hash()),
    "prompts.files": Row(("--prompts", "{prompts}"), lambda got, played, stage: dict(got) == file_hashes(played.prompts)),
    "model.llm": Row(("--llm", "profile:local"), _is("profile:local")),
    "model.profile": Row(("--llm", "profile:local"), _is("local")),
    "model.profiles": Row(("--profiles", "{profiles}"), lambda got, played, stage: got == str(played.profiles.resolve())),
    "model.model": Row(("--llm", "profile:local"), _is("local-test-model")),
    "model.base_url": Row(("--llm", "profile:local"),
                          lambda got, played, stage: got == spec_endpoint("profile:local", str(played.profiles))[0]),
    "model.key_env": Row(("--llm", "profile:local"),
                         lambda got, played, stage: got is not None
                         and got == spec_endpoint("profile:local", str(played.profiles))[1]),
    "model.review": Row((), _is(True), console_only="tui --review: tests/console/test_resume_as_it_ran.py"),
    "runner.trusted": Row(("--trusted",), _is(True)),
    "runner.node_timeout": Row(("--node-timeout", "2"), _is(2.0)),
    # each run draws its own; a resume, fork and replay keep the recorded one
    "runner.seed": Row((), lambda got, played, stage: isinstance(got, int) and (
        stage == "eval journal" or got == played.header(played.run).runner.seed)),
    "runner.sandbox.python_layers": Row((), _is(False), env=(("RECODE_SANDBOX_LAYERS", "os"),)),
    "runner.sandbox.walls": Row((), lambda got, played, stage: set(got) == {"namespaces", "seccomp"},
                                env=(("RECODE_SANDBOX_WALLS", "namespaces,seccomp"),)),
    "runner.sandbox.weak_ok": Row(("--sandbox", "weak"), _is(True)),
    "sandbox": Row(("--trusted",), _is("trusted: no checks, no walls")),
    "env.name": Row(("--env", toy_options.NAME), _is(toy_options.NAME)),
    "env.options": Row(("--env", toy_options.NAME), _is({"toy_scale": "large"})),
}
LEAVES = [name for name, _ in leaves(RunSpec())]
CHANGED_ENV = {name: value for row in TABLE.values() for name, value in row.env}
SETTINGS = {name for name, _ in leaves(RunSpec(), settings_only=True)}


def _changed_flags(played_files: dict[str, Path]) -> list[str]:
    """Every row's flags once, in order (`--env` is the caller's: run names the game, eval the env)."""
    flags: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for row in TABLE.values():
        if row.flags and row.flags not in seen and row.flags[0] != "--env":
            seen.add(row.flags)
            flags += [flag.format(**played_files) for flag in row.flags]
    return flags


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Played:
    root = tmp_path_factory.mktemp("survival")
    prompts = root / "prompts"
    shutil.copytree(REACT_PROMPTS, prompts)
    main_file = next(p for p in sorted(prompts.rglob("*")) if p.is_file())
    main_file.write_text(main_file.read_text(encoding="utf-8") + "\n(an edited line)\n", encoding="utf-8")
    sessions = root / "sessions"
    saved = dict(os.environ)
    os.environ.update(RECODE_TUI_PLUGINS=f"{toyenv.PLUGIN},{toy_options.PLUGIN}", RECODE_TUI_SESSIONS=str(sessions),
                      PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), saved.get("PYTHONPATH")])),
                      XDG_CONFIG_HOME=str(root / "config"), RECODE_TUI_PROMPTS=str(root / "user-prompts"),
                      SURVIVAL_KEY="sk-test")
    toyenv.register()
    try:
        with OpenAICompatibleServer(lambda prompt: "Thought: I look.\nAction: look") as server:
            profiles = root / "profiles.yaml"
            profiles.write_text(f"models:\n  local:\n    base_url: {server.base_url}\n    model: local-test-model\n"
                                "    api_key_env: SURVIVAL_KEY\n    max_retries: 0\n    timeout: 10\n")
            files = {"prompts": prompts, "profiles": profiles}
            changed = _changed_flags(files)
            common = ["--quiet", "--sessions", str(sessions)]
            yours = ["--trusted", "--node-timeout", "2", "--sandbox", "weak", "--profiles", str(profiles)]  # the user's own, repeated
            os.environ.update(CHANGED_ENV)
            # the episode is lost (the server's answers do not solve it): the settings are what is looked at
            assert main(["run", "--game", f"{toy_options.NAME}:vase-1", *changed, *common]) in (0, 1)
            [run] = [f for f in sessions.iterdir() if f.is_dir()]
            # resume: what protects the machine and where a key goes are the user's, repeated; the rest the journal's
            assert main(["run", "--resume", run.name, *yours, *common]) in (0, 1)
            fork, _ = asyncio.run(_fork(run, sessions))
            before = set(sessions.iterdir())
            assert main(["run", "--resume", run.name, "--from-last-good", *yours, *common]) in (0, 1)
            [replay] = [f for f in set(sessions.iterdir()) - before if f.is_dir()]
            default_eval, changed_eval = root / "default-eval", root / "changed-eval"
            for name in CHANGED_ENV:
                del os.environ[name]
            assert main(["eval", "--env", "toy", "--games", "vase-1", "--llm", "gold", "-c", "1", "-o",
                         str(default_eval), "--no-progress", "--sessions", str(sessions)]) == 0
            os.environ.update(CHANGED_ENV)
            assert main(["eval", "--env", toy_options.NAME, "--games", "vase-1", *changed, "-c", "1", "-o",
                         str(changed_eval), "--no-progress", "--sessions", str(sessions)]) in (0, 1)
    finally:
        toyenv.unregister()
        os.environ.clear()
        os.environ.update(saved)
    return Played(prompts, profiles, run, fork, replay, default_eval, changed_eval)


async def _fork(run: Path, sessions: Path) -> tuple[Path, None]:
    session, _ = await branch_session(run, None, NoLiveLLM(), lambda ref, steps: episode_of(ref).make_env(steps),
                                      sessions, "fork", runs_with=RunnerSettings(
                                          trusted=True, node_timeout=2.0,
                                          sandbox=SandboxPolicy.from_environment(os.environ, "weak")))
    session.writer.close()
    await session.agent.close()
    return session.folder, None


@pytest.mark.parametrize("leaf", LEAVES)
def test_every_leaf_of_the_record_survives_from_the_edge_to_the_report_and_compare_names_it(
        leaf: str, played: Played) -> None:
    row = TABLE.get(leaf)
    assert row is not None, (f"`{leaf}` of RunSpec has no row in TABLE: say which flags give it a value other "
                             "than the default and what it must hold, and make it survive")
    if row.console_only:
        pytest.skip(f"`{leaf}` is given in the console only ({row.console_only})")
    for stage, found in played.stages.items():
        assert row.holds(found[leaf], played, stage), f"`{leaf}` after {stage}: {found[leaf]!r}"
    _, other, named = played.reports
    if leaf in SETTINGS:
        reported = other.settings().get(leaf)
        assert row.holds(reported, played, "report"), f"`{leaf}` in the report: {reported!r}"
        assert leaf in named, f"compare does not name `{leaf}`: {named}"
    else:  # not a setting (where a set was found, a run's own seed): never a difference
        assert leaf not in named


def test_the_report_holds_the_record_whole() -> None:
    """The plan writes its record as one object, every field whatever its value."""
    from agent.eval.results import EvalPlan

    written = json.loads(json.dumps(EvalPlan(games=[]).to_dict()))
    assert sorted(written["run"]) == sorted(name for name in RunSpec.__dataclass_fields__)
