"""The `recode-tui` command line.

Exit codes: 0 success, 1 an unsuccessful episode, 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Sequence

from agent.engine import Limits
from recode_tui.factory import DEFAULT_GAME, UsageError


def _add_run_options(parser: argparse.ArgumentParser, default_llm: str) -> None:
    parser.add_argument("--env", default="alfworld", choices=["alfworld"], help="environment")
    parser.add_argument("--game", default=DEFAULT_GAME, help="bundled game id, split id or .tw-pddl path")
    parser.add_argument("--llm", default=default_llm, help="human | demo | scripted:FILE | profile:NAME")
    parser.add_argument("--profiles", default=None, help="LLM profiles file (YAML)")
    parser.add_argument("--max-steps", type=int, default=80, help="environment step limit")
    parser.add_argument("--max-depth", type=int, default=Limits.max_depth)
    parser.add_argument("--max-rewrite", type=int, default=Limits.max_rewrite)
    parser.add_argument("--max-retry", type=int, default=Limits.max_retry, help="repairs of a node that raised")
    parser.add_argument("--prompts", default=None, help="prompt set folder (default: the bundled one)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="recode-tui", description="ReCode agent and debugging console")
    commands = parser.add_subparsers(dest="command")

    run = commands.add_parser("run", help="play one episode headless, one line per event")
    _add_run_options(run, default_llm="demo")
    run.add_argument("--quiet", action="store_true", help="print only the result line")

    games = commands.add_parser("games", help="bundled and dataset games")
    games_commands = games.add_subparsers(dest="games_command")
    listing = games_commands.add_parser("list", help="list games with task type and task text")
    listing.add_argument("--task-type", default=None, help="comma-separated: put,clean,heat,cool,examine,puttwo")
    listing.add_argument("--split", default=None, help="a split of $ALFWORLD_DATA, e.g. valid_seen")
    return parser


def _limits(args: argparse.Namespace) -> Limits:
    for name in ("max_depth", "max_rewrite", "max_retry", "max_steps"):
        if getattr(args, name) < 0:
            raise UsageError(f"--{name.replace('_', '-')} must be 0 or more")
    return Limits(max_depth=args.max_depth, max_rewrite=args.max_rewrite, max_retry=args.max_retry)


async def _run_headless(args: argparse.Namespace) -> int:
    from recode_tui.eventline import event_line
    from recode_tui.factory import make_engine, make_llm

    if args.llm == "human":
        raise UsageError("`run --llm human` needs a screen: use `recode-tui tui --llm human`")
    limits = _limits(args)
    llm = make_llm(args.llm, args.profiles)
    engine = make_engine(args.game, llm, limits, args.max_steps, args.prompts)
    try:
        result = await engine.run(None if args.quiet else lambda e: print(event_line(e), flush=True))
    finally:
        await engine.close()
    if args.quiet:
        print(event_line(result))
    return 0 if result.success else 1


def _games_list(args: argparse.Namespace) -> int:
    from envs.alfworld.catalog import list_games, list_split
    from envs.base import EnvError

    types = args.task_type.split(",") if args.task_type else None
    try:
        games = list_split(args.split, types) if args.split else list_games(types)
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    for game in games:
        print(f"{game.id:<22} {game.task_type:<8} {game.task}")
    if not games:
        print("no games match", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            return asyncio.run(_run_headless(args))
        if args.command == "games":
            if args.games_command != "list":
                parser.parse_args(["games", "--help"])
            return _games_list(args)
        parser.print_help()
        return 2
    except UsageError as exc:
        print(f"recode-tui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("recode-tui: interrupted", file=sys.stderr)
        return 130
