"""The `recode-tui` argument parser: every command's options, defaults and help text, and nothing else.

`recode-tui --help` (and `recode-tui COMMAND --help`) builds this parser and
exits, so this module imports only what the help text shows: the names and
defaults of the environments, agents, presets and limits (their light
registries), never a command's own module, the agent, the agents or the
evaluation code. Each command imports those when it runs (see `cli.main`);
tests/test_help_imports.py holds this.
"""

from __future__ import annotations

import argparse
from typing import Any

from recode_tui.commands.cache_options import add_cache_options
from recode_tui.commands.options import add_env_option, add_preset_options
from recode_tui.setup.usage import DEFAULT_GAME

ROOT_STUB = "solve(instruction, observation)"  # `prompt show --stub`'s default: the root of every ReCode tree


def _add_run_options(parser: argparse.ArgumentParser, default_llm: str | None) -> None:
    add_env_option(parser)
    parser.add_argument("--game", default=None,
                        help=f"episode: {DEFAULT_GAME}, valid_seen/3, a .tw-pddl path, sciworld:boil/0, or boil/0 with "
                             f"--env sciworld (default {DEFAULT_GAME}, or the environment's first episode)")
    llm_default = "human" if default_llm == "human" else "human on a terminal, else demo"
    parser.add_argument("--llm", default=default_llm,
                        help=f"human | demo | gold | scripted:FILE | profile:NAME (default: {llm_default})")
    parser.add_argument("--profiles", default=None, help="LLM profiles file (YAML)")
    add_preset_options(parser)
    parser.add_argument("--trusted", action="store_true",
                        help="run node code without the sandbox's checks (process isolation and limits stay)")
    parser.add_argument("--node-timeout", type=float, default=5.0, help="seconds of running time per node")
    add_sandbox_option(parser)
    parser.add_argument("--sessions", default=None, help="sessions folder (default: $RECODE_TUI_SESSIONS or the user data dir)")
    parser.add_argument("--resume", nargs="?", const="", default=None, metavar="SESSION",
                        help="resume a session (id or path; no value: the one with the latest activity) "
                             "with the LLM it recorded, unless --llm is given")
    parser.add_argument("--from-last-good", action="store_true",
                        help="with --resume: a session whose replay fails (corrupt line, mismatch) goes on from "
                             "the last point that replayed cleanly, as a new branch session")


def add_sandbox_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sandbox", choices=("strict", "weak"), default=None,
                        help="strict (default): model code runs only behind the kernel's walls (namespaces, "
                             "Landlock, seccomp); weak: also where some are missing (`recode-tui sandbox` lists them)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="recode-tui", description="ReCode agent and debugging console")
    commands = parser.add_subparsers(dest="command")

    run = commands.add_parser("run", help="play one episode headless, one line per event")
    _add_run_options(run, default_llm=None)
    run.add_argument("--quiet", action="store_true", help="print only the result line")
    run.set_defaults(llm_given=False)  # `main` says whether --llm was typed (a resume keeps the recorded LLM otherwise)
    add_cache_options(run)

    tui = commands.add_parser("tui", help="open the debugging console (the default command)")
    _add_run_options(tui, default_llm="human")
    tui.set_defaults(llm_given=True)  # as `main` sets it; a test building the console from parsed arguments may clear it
    tui.add_argument("--keymap", default=None, help="file of `binding-id = key` lines (see ? in the console)")
    tui.add_argument("--no-break", action="store_true", help="start without the every-stub breakpoint")
    tui.add_argument("--at", default=None, metavar="NODE",
                     help="with --resume: put the tree's cursor on this node (eval prints it for each failure)")
    tui.add_argument("--open-tree", default=None, metavar="FILE",
                     help="view an exported tree (recode-tui export --tree) read-only")
    tui.add_argument("--open", default=None, metavar="JOURNAL",
                     help="view a recorded session (id, folder or journal file) read-only, running none of its code")
    tui.add_argument("--diff", nargs=2, default=None, metavar=("A", "B"),
                     help="two runs side by side (sessions or evaluation folders), read-only: recode-tui diff's screen")
    tui.add_argument("--review", action="store_true",
                     help="hybrid mode: the model proposes each expansion, you accept, edit, regenerate or reject")

    sessions = commands.add_parser("sessions", help="recorded sessions")
    sessions_commands = sessions.add_subparsers(dest="sessions_command")
    session_list = sessions_commands.add_parser("list", help="list sessions with game, result and branches")
    session_list.add_argument("--sessions", default=None)
    session_list.add_argument("--unfinished", action="store_true", help="only sessions whose game has not ended")

    export = commands.add_parser("export", help="export a session: tree or trace JSON, SFT pairs or Markdown")
    export.add_argument("session", nargs="?", default=None,
                        help="session id or path, or an eval folder for --sft (default: the latest session)")
    export.add_argument("--sessions", default=None)
    kind = export.add_mutually_exclusive_group(required=True)
    kind.add_argument("--tree", action="store_true", help="recode.plan.v1 JSON (ReCode: the agent with a code tree)")
    kind.add_argument("--trace", action="store_true",
                      help="recode.trace.v1 JSON, any agent: nodes, then every LLM call, action and decision in order")
    kind.add_argument("--sft", action="store_true", help="chat-format JSON Lines, one line per expansion")
    kind.add_argument("--markdown", action="store_true", help="a readable transcript")
    kind.add_argument("--otel", default=None, metavar="FILE",
                      help="OpenTelemetry spans (GenAI conventions) of a session or every episode of an eval folder, "
                           "as an OTLP JSON file for trace viewers (needs the [otel] extra)")
    kind.add_argument("--otlp", default=None, metavar="URL",
                      help="the same spans sent to an OTLP/HTTP endpoint, e.g. http://localhost:4318/v1/traces")
    add_sandbox_option(export)
    export.add_argument("--won-only", action="store_true", help="--sft: only episodes and branches that won")
    export.add_argument("--corrected-only", action="store_true", help="--sft: only answers a person typed or edited")
    export.add_argument("-o", "--output", default=None, help="file to write (default: standard output)")
    replay = export.add_mutually_exclusive_group()
    replay.add_argument("--exec", action="store_true",
                        help="--tree, --trace, --markdown: replay the session's code in the sandbox to show what only "
                             "running shows (printed output, errors, variable values); by default nothing runs")
    replay.add_argument("--no-exec", action="store_true",
                        help="run nothing (the default): the tree, trace or transcript from the journal's records")
    export.add_argument("--trusted", action="store_true",
                        help="with --exec: replay the session's code without the sandbox's checks "
                             "(for a run recorded --trusted)")

    games = commands.add_parser("games", help="bundled and dataset games")
    games_commands = games.add_subparsers(dest="games_command")
    listing = games_commands.add_parser("list", help="list games with task type and task text")
    add_env_option(listing)
    listing.add_argument("--task-type", default=None,
                         help="comma-separated: put,clean,heat,cool,examine,puttwo (ScienceWorld: task names)")
    listing.add_argument("--split", default=None,
                         help="a split of $ALFWORLD_DATA, e.g. valid_seen; ScienceWorld: train, dev or test (lists episodes)")

    serve = commands.add_parser("serve", help="the console in a browser (needs the web extra)",
                                description="Serve the console to a browser: each page opens `recode-tui tui` "
                                            "with the arguments after --.")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1; any other needs --token)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument("--token", default=None,
                       help="the secret the page's address must carry (?token=SECRET); default: one made up "
                            "and printed in the address at each start")
    serve.add_argument("--no-token", action="store_true",
                       help="on 127.0.0.1 only: no token (the Host and Origin checks stay)")
    serve.add_argument("--max-consoles", type=int, default=4,
                       help="consoles (browser pages) running at once; one more is refused (default 4)")
    serve.add_argument("--allow-host", action="append", default=None, metavar="NAME",
                       help="another address browsers reach this server by, as the address bar shows it "
                            "(NAME, or NAME:PORT when it has a port), e.g. behind a reverse proxy; repeatable")
    serve.add_argument("tui_args", nargs=argparse.REMAINDER, metavar="-- TUI-ARGUMENTS",
                       help="the console's arguments, e.g. -- --game put-01 --llm human")

    commands.add_parser("sandbox", help="the walls this machine puts around model code, each shown by a real attempt")

    add_eval_parser(commands)
    add_prompt_parser(commands)
    add_compare_parser(commands)
    add_diff_parser(commands)
    return parser


def add_eval_parser(commands: Any) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        "eval",
        help="evaluate an LLM over many episodes, C at a time; writes a report and one journal per episode",
    )
    add_env_option(parser)
    parser.add_argument("--task-types", default=None,
                        help="comma-separated: put,clean,heat,cool,examine,puttwo (ScienceWorld: task names, e.g. boil)")
    parser.add_argument("--games", default=None,
                        help="N: the first N games, spread evenly over the task types; or comma-separated game ids")
    parser.add_argument("--split", default=None,
                        help="a split of $ALFWORLD_DATA (e.g. valid_unseen) instead of the bundled games; "
                             "ScienceWorld: train, dev or test (the default)")
    parser.add_argument("--per-task", type=int, default=None, metavar="N", help="the first N episodes of each task type")
    parser.add_argument("--llm", default=None, help="profile:NAME | scripted:FILE | demo | gold | journal:DIR")
    parser.add_argument("--profiles", default=None, help="LLM profiles file (YAML)")
    parser.add_argument("-c", "--concurrency", type=int, default=None, help="episodes at a time (default 4)")
    add_preset_options(parser)
    parser.add_argument("--trusted", action="store_true",
                        help="run node code without the sandbox's checks (process isolation and limits stay)")
    parser.add_argument("--node-timeout", type=float, default=None, help="seconds of running time per node (default 5)")
    parser.add_argument("--episode-timeout", type=float, default=None, metavar="SECONDS",
                        help="wall-clock seconds an episode may take; one over it is ended and recorded as failed "
                             "and the evaluation goes on (default 1800; 0: no limit)")
    add_sandbox_option(parser)
    parser.add_argument("-o", "--out", default=None,
                        help="folder for report.json and journals/ (default: <sessions>/evals/<time>)")
    parser.add_argument("--sessions", default=None, help="sessions folder (for the default --out)")
    parser.add_argument("--resume", default=None, metavar="REPORT", help="continue an interrupted evaluation")
    parser.add_argument("--no-progress", action="store_true", help="one line per episode instead of a progress bar")
    add_cache_options(parser)
    parser.add_argument("--repeat", type=int, default=None, metavar="N",
                        help="play every episode N times (a model's calls carry each repeat's seed); the tables "
                             "show the mean success and its 95%% interval. With --resume: raise it to add repeats")
    parser.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                        help="run each episode as a Ray task (the ray extra); no ADDRESS: a local cluster with this "
                             "machine's CPUs; -c defaults to the cluster's CPUs")
    return parser


def add_prompt_parser(commands: Any) -> None:
    prompt = commands.add_parser("prompt", help="prompt sets: print a rendered prompt")
    prompt_commands = prompt.add_subparsers(dest="prompt_command")
    prompt_commands.add_parser("table", help="print the agent table of docs/agents.md: what each agent's prompts get, from the code")
    show = prompt_commands.add_parser("show", help="print the expansion prompt of a stub in a game, or an agent's first prompt")
    show.add_argument("--agent", default=None, metavar="NAME",
                      help="print this agent's first prompt in the game (recode, react, codeact, plan-execute, recap)")
    show.add_argument("--role", default=None, metavar="ROLE",
                      help="with --agent: the first prompt of this role (plan-execute: planner, executor, replanner)")
    show.add_argument("--game", default=DEFAULT_GAME, help="bundled game id, split id or .tw-pddl path")
    show.add_argument("--stub", default=ROOT_STUB, help="the stub's code, e.g. 'obj = find_and_take(kind, places)'")
    show.add_argument("--prompts", default=None, help="prompt set folder (default: the bundled one)")
    show.add_argument("--task-type", default=None, help="few-shot examples of this task type (default: the game's)")
    show.add_argument("--tokens", action="store_true", help="also print token counts per part (to standard error)")
    show.add_argument(
        "--after", action="append", default=[], metavar="ACTION",
        help="play this action first (repeatable); the prompt shows them as the run's recent actions",
    )


def add_compare_parser(commands: Any) -> None:
    parser = commands.add_parser("compare", help="compare evaluations: per task type deltas and flipped episodes")
    parser.add_argument("reports", nargs="+", metavar="REPORT",
                        help="report.json files or eval folders; the first is the baseline")
    parser.add_argument("--format", default=None, choices=("markdown", "csv", "latex"), dest="table_format",
                        help="print only the per-agent x per-task-type table (success %%, and mean score where the "
                             "environment has one), ready to paste")
    parser.add_argument("--json", action="store_true",
                        help="the whole comparison as recode.compare.v1 JSON (rows, paired tests, flips, the table)")
    parser.add_argument("-o", "--output", default=None, metavar="FILE",
                        help="with --format or --json: write it to FILE instead of standard output")
    parser.add_argument("--chart", action="store_true",
                        help="below the tables, success rate by task type per run as a terminal chart ([plot] extra)")
    parser.add_argument("--plot", default=None, metavar="FILE",
                        help="the same chart as a .png, .svg or .pdf file ([plot] extra)")


def add_diff_parser(commands: Any) -> None:
    parser = commands.add_parser("diff", help="two runs side by side: the first divergence and why, the rest aligned")
    parser.add_argument("a", metavar="A", help="a session (id, folder or journal file) or an evaluation folder")
    parser.add_argument("b", metavar="B", help="the other session or evaluation folder")
    parser.add_argument("--sessions", default=None, help="sessions folder the ids are looked up in")
    parser.add_argument("--json", action="store_true", help="the alignment as recode.diff.v1 JSON (see the README)")
    parser.add_argument("-o", "--output", default=None, help="file to write (default: standard output)")
    parser.add_argument("--width", type=int, default=None, help="columns of the side-by-side (default: the terminal's)")
