"""The edge: argparse's namespace turned into the setup layer's typed settings, one function per command.

Each handler calls its function first and passes the settings down; nothing
below reads the namespace. Bad input is refused here, in the order the
commands always refused it, as one-line `UsageError`s.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields

from recode_tui.setup.build import cache_settings, episode_of, parse_episode, preset_env, settings_of
from agent.sandbox.walls import SandboxPolicy
from recode_tui.setup.sessions import (check_recorded_profiles, find_resume, journal_llm_note, recorded_llm,
                                       recorded_review, session_game)
from agent.run.spec import RunFlags, RunSpec
from envs.registry import EpisodeRef
from recode_tui.setup.settings import (
    CacheSettings,
    ConsoleOptions,
    EvalOptions,
    ExportOptions,
    LLMSettings,
    RunOptions,
    Selection,
)
from recode_tui.setup.usage import UsageError


def run_flags(args: argparse.Namespace) -> RunFlags:
    """`--agent`, `--agent-option`, `--preset`, the limits' flags, `--prompts`, `--trusted` and
    `--node-timeout` of run, tui and eval, as typed."""
    typed = {spec.name: vars(args)[spec.name] for spec in fields(RunFlags) if spec.name != "sandbox"}  # by name, whole
    return RunFlags(**{**typed, "agent_option": tuple(args.agent_option) if args.agent_option is not None else None},
                    sandbox=sandbox_of(args))


def sandbox_of(args: argparse.Namespace) -> SandboxPolicy:
    """The sandbox's policy, read here at the edge from `RECODE_SANDBOX*` with `--sandbox` over it, and handed
    down in the settings (never written back to the environment for workers to inherit); one line for a
    value that is none of its choices."""
    from agent.sandbox.walls import SandboxSettingError

    try:
        return SandboxPolicy.from_environment(os.environ, vars(args).get("sandbox"))
    except SandboxSettingError as exc:
        raise UsageError(str(exc)) from None


def agent_settings_of(args: argparse.Namespace) -> RunSpec:
    """The run's settings from its flags (`run_flags`), resolved; bad input is one line."""
    return settings_of(run_flags(args))


def cache_of(args: argparse.Namespace) -> CacheSettings:
    """`--cache` / `--no-cache` / `--cache-ttl` / `--cache-dir`; a bad expiry is a usage error."""
    return cache_settings(args.cache, args.cache_ttl, args.cache_dir)


def _default_llm() -> str:
    """`run` without --llm: the person at a terminal (like `tui`), else the demo script, said on screen."""
    return "human" if sys.stdin.isatty() and sys.stdout.isatty() else "demo"


def _llm_of(args: argparse.Namespace, defaulted_to: str | None, command: str = "run") -> tuple[LLMSettings, str]:
    """The LLM a run goes on with, and a note to say: `--resume` without --llm keeps the spec the session
    recorded last, read from the user's own profiles (never the journal's file); no --llm at all:
    `defaulted_to` (None: the parser's default)."""
    spec, profiles, note = args.llm, args.profiles, ""
    recorded = recorded_llm(args.sessions, args.resume)
    if recorded is not None:
        if not args.llm_given:
            check_recorded_profiles(recorded, args.profiles, command, args.resume)
            spec = recorded[0]
            note = journal_llm_note(recorded, args.profiles)
        elif args.llm != recorded[0]:
            note = f"--llm {args.llm} given: it answers instead of the session's {recorded[0]}"
    defaulted = spec is None and defaulted_to is not None
    if spec is None:
        spec = defaulted_to or "human"
    return LLMSettings(spec, profiles, given=args.llm_given, defaulted=defaulted), note


def run_options(args: argparse.Namespace) -> RunOptions:
    """`recode-tui run`: the flags first, then the episode (the recorded one for `--resume`), then the LLM."""
    settings = agent_settings_of(args)  # bad flags are refused before anything starts
    env = preset_env(args.env, settings.preset)
    resumed = None
    episode: EpisodeRef | None
    if args.resume is None:
        episode = parse_episode(env, args.game)
    else:  # the recorded episode (an LLM such as gold needs it)
        resumed = find_resume(args.sessions, args.resume)
        episode_ref = session_game(resumed) if resumed is not None else ""
        episode_ref = episode_ref or args.game
        episode = episode_of(episode_ref) if episode_ref else None
    llm, note = _llm_of(args, _default_llm())
    llm = LLMSettings(llm.spec, llm.profiles, llm.given, llm.defaulted, cache_of(args))
    return RunOptions("run", episode, llm, settings, sessions=args.sessions, resume=args.resume, resumed=resumed,
                      from_last_good=args.from_last_good, recorded_note=note, quiet=args.quiet)


def read_keymap(path: str) -> dict[str, str]:
    """`binding-id = key[,key]` per line; `#` starts a comment."""
    keymap: dict[str, str] = {}
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as exc:
        raise UsageError(f"cannot read keymap {path}: {exc.strerror}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        binding_id, sep, key = line.partition("=")
        if not sep or not binding_id.strip() or not key.strip():
            raise UsageError(f"keymap {path} line {number}: write `binding-id = key`")
        keymap[binding_id.strip()] = key.strip()
    return keymap


def console_options(args: argparse.Namespace) -> ConsoleOptions:
    """`recode-tui tui` (a run in the console): the same settings as `run`, and the console's own."""
    if args.at and args.resume is None:
        raise UsageError("--at NODE needs --resume SESSION: the node is one of that session's")
    keymap = read_keymap(args.keymap) if args.keymap else None
    settings = agent_settings_of(args)
    episode = parse_episode(preset_env(args.env, settings.preset), args.game)
    recorded = recorded_llm(args.sessions, args.resume) if not args.llm_given else None
    if recorded is not None:  # the console goes on with it (`SessionControl.live_llm`): usable, or one line now
        check_recorded_profiles(recorded, args.profiles, "tui", args.resume)
    llm = LLMSettings(args.llm, args.profiles, given=args.llm_given)
    resumed = find_resume(args.sessions, args.resume)
    run = RunOptions("tui", episode, llm, settings, sessions=args.sessions, resume=args.resume,
                     resumed=resumed, from_last_good=args.from_last_good)
    review = args.review or recorded_review(resumed)  # a review session goes on in review
    return ConsoleOptions(run, keymap, breakpoints=() if args.no_break else None, review=review, at=args.at)


def eval_options(args: argparse.Namespace) -> EvalOptions:
    """`recode-tui eval`: every flag, typed; what they mean together is checked where the plan is built."""
    from recode_tui.setup.eval_plan import check_eval_counts  # the plan's module: only `eval` loads the eval code

    check_eval_counts(args.concurrency, args.repeat, args.episode_timeout)
    return EvalOptions(
        selection=Selection(args.env, args.split, args.task_types, args.games, args.per_task),
        llm=args.llm, flags=run_flags(args),
        concurrency=args.concurrency, out=args.out, sessions=args.sessions, resume=args.resume,
        no_progress=args.no_progress, repeat=args.repeat, ray=args.ray, cache=cache_of(args), profiles=args.profiles,
        episode_timeout=args.episode_timeout,
    )


def export_options(args: argparse.Namespace) -> ExportOptions:
    """`recode-tui export`: the one form the parser let through, and the filters that need --sft refused without it."""
    form = next(name for name in ("tree", "trace", "sft", "markdown", "otel", "otlp") if vars(args)[name])
    if (args.won_only or args.corrected_only) and not args.sft:
        raise UsageError("--won-only and --corrected-only filter SFT pairs: add --sft")
    if args.trusted and not args.exec:
        raise UsageError("--trusted replays the session's code without the checks: add --exec (by default "
                         "export runs nothing)")
    return ExportOptions(args.session, args.sessions, form, args.otel or args.otlp, args.won_only,
                         args.corrected_only, args.output, args.trusted, no_exec=not args.exec,
                         sandbox=sandbox_of(args))
