"""`eval`'s output read in a log or a narrow terminal: per-episode lines keep their columns with ScienceWorld's long
task names, a table split to fit a terminal is split evenly, and a pipe or a log gets every table whole."""

from __future__ import annotations

import io

from agent.eval.results import EpisodeResult, EpisodeSpec
from recode_tui.commands import eval_report
from recode_tui.commands.fit import Col, Layout, output_console, print_layout


def test_long_sciworld_task_names_keep_the_per_episode_columns_aligned() -> None:
    results = [
        EpisodeResult("boil/21", "boil", True, "won", steps=40, score=100),
        EpisodeResult("lifespan-longest-lived/75", "lifespan-longest-lived", False, "step limit", steps=80, score=50),
        EpisodeResult("mendelian-genetics-unknown-plant/3", "mendelian-genetics-unknown-plant", True, "won", steps=9,
                      score=100),
    ]
    widths = eval_report.line_widths([EpisodeSpec(r.game, r.task_type) for r in results])
    lines = [eval_report.result_line(r, widths) for r in results]
    for column in ("score", "steps", "LLM calls", "tokens"):
        assert len({line.index(column) for line in lines}) == 1, (column, lines)
    assert lines[1].count("lifespan-longest-lived") == 1  # the game names its task: said once
    alfworld = [EpisodeSpec("put-01", "put"), EpisodeSpec("pick_two_obj-03", "pick_two")]
    assert eval_report.line_widths(alfworld).task_type >= len("pick_two")  # ALFWorld ids do not name their type: it stays


def wide_layout(columns: int = 9) -> Layout:
    layout = Layout("results", [Col("agent", "left", key=True), *(Col(f"column {i}") for i in range(columns))])
    layout.add_row("react", *(f"{i * 1.5:.1f}" for i in range(columns)))
    layout.add_row("recode", *(f"{i * 2.5:.1f}" for i in range(columns)))
    return layout


def drawn_width(layout: Layout, part: list[int]) -> int:
    """What Rich draws for a bordered table of these columns: a rule and a space each side per column, one edge."""
    return 1 + sum(layout.need(i) + 3 for i in part)


def test_a_table_split_to_fit_is_split_evenly_never_leaving_one_lonely_column() -> None:
    layout = wide_layout()
    full = drawn_width(layout, list(range(len(layout.columns))))
    for width in (full - 2, 80, 60):
        parts = layout.parts(width)
        assert all(drawn_width(layout, part) <= width for part in parts), (width, parts)
        sizes = [len(part) - 1 for part in parts]  # the non-key columns of each part
        assert min(sizes) >= 2 and max(sizes) - min(sizes) <= 1, (width, parts)


def test_a_pipe_or_a_log_gets_every_table_whole(monkeypatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    console = output_console(wide=140)
    assert not console.is_terminal  # pytest captures the output: as a pipe would
    console.file = io.StringIO()
    print_layout(console, wide_layout(columns=30))  # about 300 columns
    text = console.file.getvalue()
    assert "part 1 of" not in text and "column 29" in text and "column 0" in text
    monkeypatch.setenv("COLUMNS", "100")  # a width asked for is kept
    assert output_console(wide=140).width == 100
