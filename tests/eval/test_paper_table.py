"""`recode-tui compare --format markdown|csv|latex`: the paper's per-agent x per-task-type success table."""

from __future__ import annotations

import csv
import io
import json
import re
import sys

import pytest

from recode_tui.commands.cli import main

TYPES = ("put", "clean", "heat", "cool", "examine", "puttwo")


def episode(episode_ref: str, task_type: str, success: bool) -> dict:
    return {"game": episode_ref, "task_type": task_type, "success": success, "reason": "" if success else "task not done",
            "steps": 10, "llm_calls": 3, "input_tokens": 100, "output_tokens": 20, "cost": 0.0, "seconds": 1.0,
            "journal": ""}


def write_report(folder, agent: str, wins: set[str]) -> str:
    """An ALFWorld report of two games per task type; `wins` are the games this agent won."""
    games = [(f"{t}-0{i}", t) for t in TYPES for i in (1, 2, 3)]
    data = {"version": "recode.eval.v1", "status": "complete",
            "plan": {"llm": "demo", "env": "alfworld", "max_steps": 80, "preset": "default", "agent": agent,
                     "games": [{"id": g, "task_type": t} for g, t in games]},
            "episodes": [episode(g, t, g in wins) for g, t in games]}
    folder.mkdir(parents=True)
    (folder / "report.json").write_text(json.dumps(data))
    return str(folder)


@pytest.fixture
def three_agents(tmp_path):
    recode = write_report(tmp_path / "recode_run", "recode",
                          {"put-01", "put-02", "clean-01", "heat-01", "heat-02", "heat-03", "cool-01", "puttwo-02"})
    react = write_report(tmp_path / "react_run", "react", {"put-01", "clean-02", "examine-01", "examine-03"})
    codeact = write_report(tmp_path / "codeact_run", "codeact", {"put-03", "heat-01", "cool-01", "cool-02"})
    return recode, react, codeact


def text_rates(out: str) -> dict[tuple[int, str], tuple[str, str]]:
    """From the text tables: (comparison index, task type) -> (baseline %, other %) as printed."""
    found = {}
    for index, part in enumerate(out.split("compared: ")[1:]):
        for line in part.splitlines():
            cells = [c.strip() for c in line.split("│")]
            if len(cells) > 4 and cells[1] and "→" in cells[3]:
                before, after = re.findall(r"([\d.]+)%", cells[3])
                found[(index, cells[1])] = (before, after)
    return found


def test_every_format_shows_the_text_tables_numbers_in_the_papers_layout(three_agents, capsys):
    assert main(["compare", *three_agents]) == 0
    text = text_rates(capsys.readouterr().out)
    assert text[(0, "heat")] == ("100.0", "0.0") and text[(1, "overall")] == ("44.4", "22.2")

    assert main(["compare", *three_agents, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    lines = markdown.splitlines()
    assert lines[0] == "| Agent | Put | Clean | Heat | Cool | Examine | Put Two | overall |"
    assert lines[1] == "|:---|---:|---:|---:|---:|---:|---:|---:|"
    rows = {cells[0]: cells[1:] for cells in ([c.strip() for c in line.strip("|").split("|")] for line in lines[2:])}
    assert list(rows) == ["recode", "react", "codeact"]  # the baseline first, in the order given

    assert main(["compare", *three_agents, "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["agent"] for r in table] == ["recode", "react", "codeact"] and table[0]["episodes"] == "18"
    by_agent = {r["agent"]: r for r in table}

    columns = ["put", "clean", "heat", "cool", "examine", "puttwo", "overall"]
    for index, other in enumerate(("react", "codeact")):
        for position, task_type in enumerate(columns):
            before, after = text[(index, task_type)]
            assert rows["recode"][position] == before == by_agent["recode"][task_type]
            assert rows[other][position] == after == by_agent[other][task_type]


def test_latex_is_a_booktabs_tabular_with_a_column_per_task_type_and_escaped_names(tmp_path, capsys):
    first = write_report(tmp_path / "prompts_v1", "recode", {"put-01", "clean-01"})
    second = write_report(tmp_path / "prompts_v2", "recode", {"put-01", "clean-01", "cool-02"})
    out = tmp_path / "table.tex"
    assert main(["compare", first, second, "--format", "latex", "-o", str(out)]) == 0
    assert f"wrote latex table: {out}" in capsys.readouterr().out
    latex = out.read_text()
    body = [line for line in latex.splitlines() if not line.startswith("%")]
    assert body[0] == r"\begin{tabular}{lrrrrrrr}"  # the label column, 6 task types and overall
    assert body[1] == r"\toprule" and body[3] == r"\midrule" and body[-2:] == [r"\bottomrule", r"\end{tabular}"]
    assert body[2] == r"Agent & Put & Clean & Heat & Cool & Examine & Put Two & overall \\"
    rows = body[4:-2]
    assert len(rows) == 2
    for row in rows:
        assert row.endswith(r" \\") and row.count("&") == 7  # every row as wide as the column spec
        assert "_" not in row.replace(r"\_", "")  # the folder names' underscores are escaped
    assert rows[0].startswith(r"recode (prompts\_v1) & ")
    assert rows[1].endswith(r"& \textbf{16.7} \\") and rows[0].endswith(r"& 11.1 \\")  # the best in bold
    assert rows[0].split(" & ")[1] == "33.3" and "textbf{0.0}" not in latex  # a column where all tie: no bold
    assert latex.count("{") == latex.count("}")


def test_a_table_file_without_a_format_is_refused_in_one_line(three_agents, tmp_path, capsys):
    assert main(["compare", *three_agents[:2], "-o", str(tmp_path / "t.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("recode-tui: error: -o/--output writes a --format table or --json; add --format markdown, csv or latex, "
                   "or --json")


def test_compare_chart_draws_each_runs_rate_per_task_type_and_plot_writes_an_image(three_agents, tmp_path, capsys):
    pytest.importorskip("plotext")
    pytest.importorskip("matplotlib")
    recode, react, _ = three_agents
    image = tmp_path / "chart.svg"
    assert main(["compare", recode, react, "--chart", "--plot", str(image)]) == 0
    out = capsys.readouterr().out
    chart = out.split("success rate (%) by task type", 1)[1].splitlines()
    axis = next(line for line in chart if "Put Two" in line)  # the task types under their groups
    top = next(line for line in chart if line.lstrip().startswith("100┤"))
    heat = axis.index("Heat")
    filled = [i for i, ch in enumerate(top) if ch == "█"]
    assert filled and all(abs(i - heat) < 10 for i in filled)  # only recode's heat (3 of 3) reaches 100 %
    assert "█ recode   • react" in out and f"plot: {image}" in out
    from xml.etree import ElementTree

    assert ElementTree.parse(image).getroot().tag.endswith("svg")
    png = tmp_path / "chart.png"
    assert main(["compare", recode, react, "--plot", str(png), "--format", "csv"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_chart_without_its_extra_or_an_unknown_image_type_is_refused_in_one_line(three_agents, tmp_path,
                                                                                      monkeypatch, capsys):
    recode, react, _ = three_agents
    assert main(["compare", recode, react, "--plot", str(tmp_path / "chart.jpg")]) == 2
    assert capsys.readouterr().err.strip().endswith("name a .png, .svg or .pdf file")
    monkeypatch.setitem(sys.modules, "plotext", None)
    assert main(["compare", recode, react, "--chart"]) == 2
    assert capsys.readouterr().err.strip() == ("recode-tui: error: --chart draws with plotext: "
                                               "pip install 'recode-tui[plot]'")


def test_one_evaluation_of_several_agents_gives_a_row_per_agent(tmp_path, capsys):
    games = [(f"{t}-01", t) for t in ("put", "clean")]
    episodes = [{**episode(g, t, won), "agent": agent} for agent, wins in (("recode", {"put-01", "clean-01"}),
                                                                         ("plan-execute", {"put-01"}))
                for g, t in games for won in [g in wins]]
    folder = tmp_path / "five"
    folder.mkdir()
    (folder / "report.json").write_text(json.dumps({
        "version": "recode.eval.v1", "status": "complete",
        "plan": {"llm": "demo", "env": "alfworld", "agent": "recode", "agents": ["recode", "plan-execute"],
                 "games": [{"id": g, "task_type": t} for g, t in games]},
        "episodes": episodes}))
    assert main(["compare", str(folder), "--format", "markdown"]) == 0
    assert capsys.readouterr().out.splitlines()[2:] == ["| recode | 100.0 | 100.0 | 100.0 |",
                                                        "| plan-execute | 100.0 | 0.0 | 50.0 |"]
