"""The `recode-tui` command line.

Exit codes: 0 success, 1 an unsuccessful episode, 2 bad usage, 3 paused (the session is saved: `--resume` continues it).

The parser lives in `commands.parser`; everything a command needs beyond it is
imported inside the function that runs the command, so `recode-tui --help`
loads neither the agent nor the agents (tests/test_help_imports.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Sequence

from recode_tui.commands.parser import build_parser
from recode_tui.setup.usage import DEFAULT_GAME, UsageError

if TYPE_CHECKING:
    from agent.runtime.stepper import Stepper
    from recode_tui.console.app import RecodeApp
    from recode_tui.console.run.run_builder import LoadedRun
    from recode_tui.setup.env_host import EnvHost
    from recode_tui.setup.settings import ExportOptions, RunOptions

__all__ = ["command_argv", "console_app", "console_host", "eval_worker", "main", "nothing_opened", "read_keymap"]


def read_keymap(path: str) -> dict[str, str]:
    """`binding-id = key[,key]` per line (see `recode_tui.commands.arguments.read_keymap`)."""
    from recode_tui.commands.arguments import read_keymap as read

    return read(path)


async def _run_headless(options: RunOptions) -> int:
    """`run`: the person at a terminal in the plain mode, else the API's `play`, one line per event."""
    from agent.runtime.event_text import MainCall, log_line
    from agent.runtime.safe_text import for_terminal
    from recode_tui.api import play

    if options.llm.spec == "human":
        from recode_tui.plain.terminal import run_plain

        return await run_plain(options)  # the plain-terminal front end (prompt-toolkit)
    main = [MainCall()]  # the agent's own words for its main call, once it is built

    def started(agent: Stepper) -> None:
        main[0] = MainCall(agent.traits.main_purpose, agent.traits.answer_words.noun)

    outcome = await play(options, on_event=None if options.quiet else lambda e: print(log_line(e, main[0]), flush=True),
                         on_note=lambda note: print(f"note: {for_terminal(note)}", file=sys.stderr), on_start=started)
    if options.quiet and outcome.finished is not None:
        print(log_line(outcome.finished, main[0]))
    return 0 if outcome.success else 1


def _run_console(args: argparse.Namespace) -> int:
    if args.open_tree:
        from recode_tui.console.viewers.tree_file import run_tree_file

        return run_tree_file(args.open_tree)
    if args.open:
        from recode_tui.console.viewers.journal_file import run_journal_file

        return run_journal_file(args.open, args.sessions)
    if args.diff:
        from recode_tui.console.viewers.diff_file import run_diff_file

        return run_diff_file(args.diff[0], args.diff[1], args.sessions)
    # On a terminal the first frame is drawn before the run is built; elsewhere (a pipe, a test)
    # nothing is drawn for a person to wait on, and a bad flag is reported before Textual starts.
    defer = sys.stdin.isatty() and sys.__stderr__ is not None and sys.__stderr__.isatty()
    host = console_host(args) if defer else None  # started now: its engine import overlaps Textual's and the screen's
    try:
        app = console_app(args, defer=defer, host=host)
        app.run()
    finally:
        if host is not None:
            host.close()
    if app.load_error is not None:  # building the run failed: the same report as before the app existed
        raise app.load_error
    control = app.session_control
    code = app.return_code or 0
    if code:  # an unhandled exception ended the app: one line, never exit 0
        print(app.crash_line or "recode-tui: the console stopped on an error", file=sys.stderr)
        return code
    if control is not None and args.resume is not None and control.session is None:
        print(nothing_opened(control.failure or "the session was not opened", args.resume), file=sys.stderr)
        return 1
    hint = app.resume_hint() if control is not None else ""
    if hint:  # quit before the end: the session is kept, as the plain mode says (and its exit status)
        from recode_tui.plain.terminal import EXIT_PAUSED

        # The command on a line of its own, whole: copied with a triple click, never broken after "with:".
        print(f"The run is not finished; its session is saved. Continue it with:\n{hint}")
        return EXIT_PAUSED
    return 0


def console_host(args: argparse.Namespace) -> EnvHost | None:
    """The environment worker the console starts before anything else, started (None: the run's environment is
    not hosted, or a session is resumed, whose agent the replay replaces)."""
    if args.resume is not None or os.environ.get("RECODE_CONSOLE_ENV_WORKER", "1") == "0":
        return None
    from recode_tui.setup.env_host import EnvHost

    host = EnvHost.for_arguments(args.env, args.game)
    if host is not None:
        host.start()
    return host


def eval_worker(args: argparse.Namespace) -> EnvHost | None:
    """The ALFWorld worker `eval` starts before anything else, for its pool, started (None: a resumed or
    Ray evaluation, whose environment the report or the cluster decides, or another environment: a
    ScienceWorld worker starts a JVM, which outlives a worker closed while it boots)."""
    if args.resume is not None or args.ray is not None or args.env not in (None, "alfworld"):
        return None
    from recode_tui.setup.env_host import EnvHost

    host = EnvHost("alfworld")
    host.start()
    return host


def console_app(args: argparse.Namespace, *, defer: bool = False, host: EnvHost | None = None) -> RecodeApp:
    """The console `tui` opens for these arguments (not yet running; tests drive it with Pilot).

    `defer` (what `recode-tui tui` does on a terminal): the app draws its first
    frame before anything else is imported, then reads the arguments and builds
    the run behind that frame (an error is the app's `load_error`); otherwise
    the run is built here and an error is raised here. `host`: the early environment
    worker the deferred run's episode opens in (`console_host`).
    """
    if defer:
        from recode_tui.console.app import RecodeApp

        def load() -> LoadedRun:
            from recode_tui.commands.arguments import console_options
            from recode_tui.console.run.run_builder import load_run

            return load_run(console_options(args), env_maker=host.make_env if host is not None else None)

        first = args.game or (f"{args.env} (its first episode)" if args.env else DEFAULT_GAME)
        return RecodeApp(loader=load, episode=first, profiles=args.profiles, review=args.review)
    from recode_tui.commands.arguments import console_options
    from recode_tui.console.app import build_app

    return build_app(console_options(args))


def nothing_opened(why: str, ref: str) -> str:
    """One line for a resume that opened nothing, naming the flag that goes on from the last good point."""
    target = f"--resume {ref}" if ref else "--resume"
    return (f"recode-tui: nothing was opened: {why}; to go on from the last point that replayed cleanly, "
            f"run `recode-tui tui {target} --from-last-good`")


SESSIONS_HEADER = f"{'SESSION':<48} {'GAME':<12} {'AGENT':<12} {'RESULT':<10} {'LAST ACTIVE':<16}  <- BRANCHED FROM"


def _sessions_list(args: argparse.Namespace) -> int:
    """One row per session; a corrupt journal is listed as such and said on stderr (exit 2)."""
    import time

    from agent.runtime.safe_text import for_terminal
    from agent.sessions.listing import last_activity, list_sessions
    from recode_tui.setup.places import sessions_dir_from

    journals = sorted(list_sessions(sessions_dir_from(args.sessions)), key=lambda j: last_activity(j.folder))
    header = False
    for journal in journals:
        finished = journal.finished
        state = "corrupt" if journal.problem else "unfinished" if finished is None else (
            "won" if finished.get("success") else "failed")
        if args.unfinished and finished is not None:
            continue
        parent = journal.header.parent
        branch = f"  <- {parent.session or '?'} at {parent.at or '?'}" if parent is not None else ""
        active = time.strftime("%Y-%m-%d %H:%M", time.localtime(last_activity(journal.folder)))
        agent_name = journal.header.run.agent.name
        if not header:  # what each column is, above the first row
            print(SESSIONS_HEADER)
            header = True
        row = f"{journal.session_id:<48} {journal.header.game or '?':<12} {agent_name!s:<12} {state:<10} {active}{branch}"
        print(for_terminal(row, newlines=False))
    corrupt = [j for j in journals if j.problem]
    for journal in corrupt:
        then = ("nothing before its first line can be replayed" if journal.corrupt_line == 1 else
                f"`recode-tui run --resume {journal.session_id} --from-last-good` goes on from its last good point")
        print(for_terminal(f"recode-tui: error: {journal.folder / 'journal.jsonl'} {journal.problem}; listed as "
                           f"corrupt: {then}", newlines=False), file=sys.stderr)
    return 2 if corrupt else 0


async def _export(options: ExportOptions) -> int:
    from agent.runtime.safe_text import for_terminal
    from agent.eval.journals import eval_folder
    from agent.sessions.journal_read import JournalError

    if options.form in ("otel", "otlp"):
        from recode_tui.commands.export import otel_export

        try:
            return otel_export(options)
        except JournalError as exc:
            raise UsageError(str(exc)) from None
    try:
        if options.form == "sft":
            from recode_tui.commands.export import sft_text

            text = sft_text(options)
        else:
            if eval_folder(options.session):
                raise UsageError(f"{options.session} is an evaluation: export it with --sft, or give one episode's "
                                 f"journal for --tree, --trace or --markdown ({options.session}/journals/<game>)")
            from recode_tui.commands.export import records_text, replayed_text

            text = records_text(options) if options.no_exec else await replayed_text(options)
    except JournalError as exc:
        raise UsageError(str(exc)) from None
    if options.form == "markdown":  # a readable transcript: a lone surrogate from a model is shown as `\ud800`
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if options.output:
        with open(options.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        sys.stdout.write(for_terminal(text) if sys.stdout.isatty() else text)
    return 0


def _games_list(args: argparse.Namespace) -> int:
    from envs import registry
    from envs.base import EnvError

    types = [t.strip() for t in args.task_type.split(",") if t.strip()] if args.task_type else None
    try:
        provider = registry.provider(args.env or registry.default_env())
        rows = None if args.split else provider.overview(types)  # many variations per task: one row a task
        if rows is not None:
            for row in rows:
                print(row)
            return 0
        games = provider.episodes(args.split, types)
    except EnvError as exc:
        raise UsageError(str(exc)) from None
    from agent.runtime.safe_text import for_terminal

    width = max([22, *(len(g.id) + 1 for g in games)])
    for game in games:  # a split's game files are data: their task text is shown, never sent
        print(for_terminal(f"{game.id:<{width}} {game.task_type or '?':<8} {game.task}", newlines=False))
    if not games:
        print("no games match", file=sys.stderr)
    return 0


def command_argv(argv: Sequence[str]) -> list[str]:
    """The arguments as the parser reads them: bare `recode-tui` (or one starting with a flag) is `tui`."""
    argv = list(argv)
    if not argv or argv[0].startswith("--") and argv[0] not in ("--help", "-h"):
        return ["tui", *argv]  # bare `recode-tui` opens the console
    return argv


def sandbox_preflight(args: argparse.Namespace) -> None:
    """Before a command that runs model code: the walls its `--sandbox` and `RECODE_SANDBOX*` ask for, checked.

    The policy itself travels in the command's settings (`arguments.sandbox_of`), never through the
    environment. A missing kernel wall is a one-line refusal here, not an error at the first node;
    with `--sandbox weak` it is a one-line note of what is missing.
    """
    options = vars(args)
    if args.command not in ("run", "tui", "eval", "export") or options.get("trusted"):
        return
    if args.command == "export" and not options.get("exec"):
        return  # an export runs none of a journal's code unless --exec
    from agent.sandbox.walls import missing_walls, refusal
    from recode_tui.commands.arguments import sandbox_of

    policy = sandbox_of(args)
    refused = refusal(policy)
    if refused:
        raise UsageError(refused)
    absent = [wall for wall in missing_walls() if wall in policy.walls]
    if absent:
        print(f"note: model code runs without these kernel walls: {', '.join(absent)} "
              "(recode-tui sandbox says why)", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; a reader that stops early (`| head`) ends it quietly, as it would `cat`."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit, where a closed pipe would print a traceback
        return code
    except BrokenPipeError:
        # What was not read is not written: stdout goes to /dev/null so the exit's flush is quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader left


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = command_argv(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.llm_given = any(a == "--llm" or a.startswith("--llm=") for a in argv)  # a resume keeps the recorded LLM otherwise
    try:
        sandbox_preflight(args)
        if args.command == "sandbox":
            from agent.sandbox.probe import run_probe

            print(run_probe())
            return 0
        if args.command == "tui":
            return _run_console(args)
        if args.command == "run":
            import asyncio

            from recode_tui.commands.arguments import run_options

            return asyncio.run(_run_headless(run_options(args)))
        if args.command == "serve":
            from recode_tui.web.serve import run_serve

            return run_serve(args, lambda tui_args: build_parser().parse_known_args(["tui", *tui_args])[1])
        if args.command == "sessions":
            return _sessions_list(args)
        if args.command == "export":
            import asyncio

            from recode_tui.commands.arguments import export_options

            return asyncio.run(_export(export_options(args)))
        if args.command == "prompt":
            from recode_tui.commands.prompt import run_prompt

            return run_prompt(args)
        if args.command == "eval":
            early = eval_worker(args)  # before the imports below: the agent's import overlaps them
            from recode_tui.commands.evaluate import run_eval

            return run_eval(args, early)
        if args.command == "compare":
            from recode_tui.commands.compare import run_compare

            return run_compare(args)
        if args.command == "diff":
            from recode_tui.commands.diff import run_diff

            return run_diff(args)
        if args.command == "games":
            if args.games_command != "list":
                parser.parse_args(["games", "--help"])
            return _games_list(args)
        parser.print_help()
        return 2
    except UsageError as exc:
        from agent.runtime.safe_text import for_terminal

        print(f"recode-tui: error: {for_terminal(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("recode-tui: interrupted", file=sys.stderr)
        return 130
