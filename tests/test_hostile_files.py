"""Reports and prompt files someone sent, with markup and terminal escapes in every string field,
through the commands that print them: shown as text, never interpreted."""

from __future__ import annotations

import io

from recode_tui.commands import cli
from tests.hostile_data import hostile, hostile_prompt_set, hostile_report, shown


def assert_shown_not_sent(out: str) -> None:
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out, repr(out[:2000])


def test_compare_prints_a_crafted_reports_labels_games_and_reasons_as_text(tmp_path, capsys) -> None:
    base, other = hostile_report(tmp_path / "a", True), hostile_report(tmp_path / "b", False)
    assert cli.main(["compare", str(base), str(other)]) == 0
    out = capsys.readouterr().out
    assert_shown_not_sent(out)
    flat = "".join(out.split())  # the table wraps long cells: compare without the line breaks
    for field in ("llm-a", "llm-b", "game", "reason"):
        assert "".join(shown(hostile(field)).split()) in flat, field  # markup shown as written
    assert "won → lost (1)" in out


class FakeTerminal(io.StringIO):
    """Standing in for a terminal (stdout as a person sees it): `isatty` is what the command asks."""

    def isatty(self) -> bool:
        return True


def test_prompt_show_prints_a_crafted_prompt_file_escaped_on_a_terminal(tmp_path, monkeypatch) -> None:
    from agent.runtime.prompts import DEFAULT_PROMPTS

    prompts = hostile_prompt_set(tmp_path / "prompts", DEFAULT_PROMPTS)
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert cli.main(["prompt", "show", "--game", "put-01", "--prompts", str(prompts)]) == 0
    out = terminal.getvalue()
    assert_shown_not_sent(out)
    assert shown(hostile("expand.txt")) in out


def test_an_evaluations_summary_table_shows_a_crafted_reports_labels_as_text(tmp_path) -> None:
    """eval's table at the end (and on `eval --resume` of a report someone sent): the agent, the model
    label and the task types in it are text, on a terminal (Rich's colours are the only escapes)."""
    import json
    import re

    from rich.console import Console

    from agent.eval.report import EvalReport
    from recode_tui.commands.eval_report import results_table
    from recode_tui.commands.fit import print_layout

    folder = hostile_report(tmp_path / "a", False)
    report = EvalReport.from_json(json.loads((folder / "report.json").read_text(encoding="utf-8")))
    out = io.StringIO()
    print_layout(Console(file=out, force_terminal=True, width=400, color_system="standard"), results_table(report))
    printed = out.getvalue()
    assert_shown_not_sent(re.sub(r"\x1b\[[0-9;]*m", "", printed))
    assert shown(hostile("llm-a")) in re.sub(r"\x1b\[[0-9;]*m", "", printed)


def test_compare_format_tables_show_a_crafted_reports_labels_escaped_on_a_terminal(tmp_path, monkeypatch) -> None:
    base, other = hostile_report(tmp_path / "a", True), hostile_report(tmp_path / "b", False)
    terminal = FakeTerminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert cli.main(["compare", str(base), str(other), "--format", "markdown"]) == 0
    out = terminal.getvalue()
    assert_shown_not_sent(out)
    assert "[/oops]" in out
