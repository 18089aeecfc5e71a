"""What the user typed, parsed once into frozen, typed settings that flow down to the builders.

Each command's handler turns argparse's namespace into one of these at the top
(`recode_tui.commands.arguments`) and passes them on; nothing below reads the
namespace. This module imports no agent, agent or environment: its types are
plain data (`RunSpec` and `EpisodeRef` are light), so the parser path stays light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.run.spec import RunFlags, RunSpec  # what was typed, and the run resolved from it
from agent.sandbox.walls import SandboxPolicy
from envs.registry import EpisodeRef  # one episode, parsed once where its text comes in (`build.parse_episode`)

if TYPE_CHECKING:
    from agent.runtime.breakpoints import Breakpoint

__all__ = ["CacheSettings", "ConsoleOptions", "EvalOptions", "ExportOptions", "LLMSettings", "RunOptions", "Selection"]


@dataclass(frozen=True)
class CacheSettings:
    """`--cache` / `--no-cache` / `--cache-ttl` / `--cache-dir`, checked (a TTL in seconds, a folder made absolute)."""

    mode: str | None = None  # "on", "off", or None: each profile's own `cache:` setting
    ttl: float | None = None
    folder: str | None = None

    def plan_fields(self) -> dict[str, Any]:
        """The evaluation plan's cache fields: only those the user gave."""
        out: dict[str, Any] = {}
        if self.mode:
            out["cache"] = self.mode
        if self.ttl is not None:
            out["cache_ttl"] = self.ttl
        if self.folder:
            out["cache_dir"] = self.folder
        return out


@dataclass(frozen=True)
class LLMSettings:
    """The LLM routing as typed (`--llm`, one spec or one per role), its profiles file and cache flags."""

    spec: str
    profiles: str | None = None
    given: bool = True  # `--llm` was on the command line (a resume keeps the recorded LLM otherwise)
    defaulted: bool = False  # no --llm: `run` chose one (said on screen once the run starts)
    cache: CacheSettings = field(default_factory=CacheSettings)


@dataclass(frozen=True)
class RunOptions:
    """One episode, as `run` and `tui` play it: which episode, with which LLM, under which settings,
    journaled where."""

    command: str  # "run" or "tui": what a hint tells the user to type again
    episode: EpisodeRef | None  # None: a resumed session whose journal names no game
    llm: LLMSettings
    settings: RunSpec  # the agent, its options, limits, step limit, prompt set and runner (`make_agent`'s)
    sessions: str | None = None  # the sessions folder as given (None: $RECODE_TUI_SESSIONS or the user data dir)
    resume: str | None = None  # `--resume [SESSION]`: '' is the latest session
    resumed: Path | None = None  # the session folder `resume` names (the console's start-up replay)
    from_last_good: bool = False
    recorded_note: str = ""  # which LLM a resume goes on with, said once the session opens
    quiet: bool = False

    @property
    def game(self) -> str:
        """The episode reference as text ('' when a resumed session names none)."""
        return self.episode.ref if self.episode is not None else ""


@dataclass(frozen=True)
class ConsoleOptions:
    """`tui`: a run's options and what only the console has (keys, breakpoints, review, the node to show).

    The one argument the console is built from (`recode_tui.console.app.build_app`, `load_run`).
    """

    run: RunOptions
    keymap: dict[str, str] | None = None
    breakpoints: tuple[Breakpoint, ...] | None = None  # None: the debugger's defaults; `--no-break`: none
    review: bool = False
    at: str | None = None  # `--at NODE`: the tree's cursor once the resumed session is shown
    journaled: bool = True  # the run is journaled in the sessions folder (a test may want no session)
    cursor_blink: bool = True  # the editors' cursors blink (tests keep them still for steady screenshots)


@dataclass(frozen=True)
class Selection:
    """Which episodes an evaluation plays: an environment and its filters (see `select_games`)."""

    env: str | None  # None: the default environment
    split: str | None = None
    task_types: str | None = None
    games: str | None = None  # N, or comma-separated ids
    per_task: int | None = None


@dataclass(frozen=True)
class EvalOptions:
    """`eval`, parsed: a new evaluation's settings, or what a `--resume REPORT` may change."""

    selection: Selection
    llm: str | None  # --llm as typed; None: not given (a new evaluation refuses it)
    flags: RunFlags  # the agents (one name, or several to compare), their options, preset, limits and runner
    concurrency: int | None
    out: str | None
    sessions: str | None
    resume: str | None
    no_progress: bool
    repeat: int | None
    ray: str | None
    cache: CacheSettings = field(default_factory=CacheSettings)
    profiles: str | None = None
    episode_timeout: float | None = None  # --episode-timeout; None: not given (a new evaluation's default)


@dataclass(frozen=True)
class ExportOptions:
    """`export`: which session (or eval folder), in which form, filtered how, written where."""

    session: str | None  # id, folder or journal; an eval folder for --sft and --otel (None: the latest session)
    sessions: str | None
    form: str  # "tree", "trace", "sft", "markdown", "otel" (--otel FILE) or "otlp" (--otlp URL)
    target: str | None = None  # --otel's file or --otlp's address
    won_only: bool = False
    corrected_only: bool = False
    output: str | None = None
    trusted: bool = False
    no_exec: bool = False
    sandbox: SandboxPolicy = SandboxPolicy()  # the user's, resolved at the edge (a journal may only add walls)
