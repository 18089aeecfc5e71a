"""An eval says why episodes failed: grouped by the node whose code went wrong, where they ended beside it,
with a command that opens the node that went wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.eval.culprit import NodeFacts, called_names, went_wrong
from agent.eval.failure import ACTION_TASK_TYPES, FailureGroup, group_failures
from recode_tui.commands import cli
from tests.console.page import ConsolePage

from .bugged import bugged_script
from .helpers import read_report, recode

pytestmark = pytest.mark.heavy  # real ALFWorld games, played by the command line


@pytest.fixture(scope="module")
def bugged_eval(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The bugged model's eval, shared by the module's tests: its folder, its report's folder and its output."""
    tmp = tmp_path_factory.mktemp("failures")
    out = tmp / "bugged"
    result = recode(tmp, "eval", "--llm", f"scripted:{bugged_script(tmp)}", "--games", "put-01,clean-01,clean-02",
                    "-c", "1", "--out", str(out), "--no-progress")
    assert result.returncode == 0, result.stderr
    return tmp, out, result.stdout


@pytest.mark.heavy
def test_failures_are_filed_under_the_node_that_went_wrong_and_name_where_they_ended(
        bugged_eval: tuple[Path, Path, str]) -> None:
    _, out, text = bugged_eval
    assert "Failures, by the node whose code went wrong (else where the run ended):" in text
    assert "  went wrong in          ended in       failures" in text
    # the bug is in clean_at_sink's body (it never sends `clean`); the runs end later, in locate_object
    assert ("  clean_at_sink (clean)  locate_object  2/2 failures; no `clean` action sent; "
            "no pending nodes left and the task is not done") in text

    report = read_report(out)
    failed = {e["game"]: e for e in report["episodes"] if not e["success"]}
    assert set(failed) == {"clean-01", "clean-02"}
    for episode in failed.values():
        failure = episode["failure"]
        assert failure["last_steps"] and all(len(step) == 2 for step in failure["last_steps"])
        assert failure["deepest_stub"]["depth"] >= 1 and "clean" not in failure["verbs"]
        assert failure["went_wrong"]["name"] == "clean_at_sink" and "clean_at_sink(" in failure["went_wrong"]["code"]
        command = re.search(rf"{episode['game']}: (recode-tui tui --resume \S+ --at (n\d+))", text)
        assert command and command.group(1).split("--resume ")[1].startswith(episode["journal"])
        assert command.group(2) == failure["went_wrong"]["node"] != failure["deepest_stub"]["node"]
    assert report["failures"][0]["count"] == 2 and report["failures"][0]["task_types"] == ["clean"]
    assert (report["failures"][0]["where"], report["failures"][0]["ended_in"]) == ("clean_at_sink", ["locate_object"])


@pytest.mark.heavy
async def test_the_printed_command_opens_the_console_on_the_node(tmp_path: Path,
                                                                 bugged_eval: tuple[Path, Path, str]) -> None:
    _, _, text = bugged_eval
    command = re.search(r"clean-01: recode-tui (tui --resume \S+ --at (n\d+))", text)
    assert command, text
    args = cli.build_parser().parse_args([*command.group(1).split(), "--sessions", str(tmp_path / "sessions")])
    app = cli.console_app(args)
    async with ConsolePage.open(app) as page:  # the resume replayed and its stop shown
        assert page.screen.tree_view.cursor_node.data == command.group(2)
    from agent.sessions.journal_read import read_journal
    from agent.sessions.journal_view import read_view

    journal = command.group(1).split("--resume ")[1].split()[0]
    assert "clean_at_sink(" in read_view(read_journal(journal)).tree.nodes[command.group(2)].code  # what went wrong


def test_a_group_says_nothing_about_actions_for_task_types_not_named_by_one() -> None:
    class Episode:
        def __init__(self, episode_ref: str, task_type: str) -> None:
            self.game, self.task_type, self.success, self.error = episode_ref, task_type, False, ""
            self.agent = ""  # an evaluation of one agent names none
            self.reason = "no pending nodes left and the task is not done"
            self.failure = {"deepest_stub": {"name": "find_it", "node": "n3", "depth": 1}, "verbs": ["go", "take"]}

    groups = group_failures([Episode("put-01", "put"), Episode("put-02", "put"), Episode("heat-01", "heat")])
    assert len(groups) == 1 and isinstance(groups[0], FailureGroup)
    assert groups[0].line() == ("find_it (heat/put): 3/3 failures; no `heat` action sent by its heat episodes; "
                                "no pending nodes left and the task is not done")


def _facts() -> NodeFacts:
    """solve -> [find_it (expanded, completed), clean_it (expanded: went to the sink, no clean), put_it (failed)]."""
    facts = NodeFacts()
    for node, code, depth in (("n0", "solve(instruction, observation)", 0), ("n1", "obj = find_it(places)", 1),
                              ("n2", "cleaned = clean_it(obj, 'clean (it) now')", 1), ("n3", "put_it(obj)", 1),
                              ("n4", "run('go to sinkbasin 1')", 2), ("n5", "cleaned = True", 2),
                              ("n6", "run('take apple 1 from table 1')", 2)):
        facts.saw(node, code, depth)
    facts.children = {"n0": ["n1", "n2", "n3"], "n1": ["n6"], "n2": ["n4", "n5"]}
    facts.completed = {"n4", "n5", "n6"}
    facts.sent = {"n4": {"go"}, "n6": {"take"}}
    return facts


def test_the_rule_names_the_completed_body_that_never_sent_the_action() -> None:
    facts = _facts()
    found = went_wrong(facts, "clean", {"go", "take"}, ACTION_TASK_TYPES)
    assert found is not None and (found["node"], found["name"]) == ("n2", "clean_it")
    assert found["why"] == "its body ran to the end without sending `clean`"
    assert called_names("cleaned = clean_it(obj, 'clean (it) now')") == ["clean_it"]  # not the word in the string


def test_the_rule_skips_a_body_that_did_not_finish_and_falls_back_to_a_node_that_raised() -> None:
    facts = _facts()
    facts.completed.discard("n5")  # clean_it's body never finished: it did not claim to be done
    facts.errors["n3"] = "NameError: name 'put_it' is not defined"
    found = went_wrong(facts, "clean", {"go", "take"}, ACTION_TASK_TYPES)
    assert found is not None and (found["node"], found["name"]) == ("n3", "put_it(obj)")
    assert found["why"] == "raised: NameError: name 'put_it' is not defined"
    facts.completed.add("n3")  # repaired later: no longer what went wrong
    assert went_wrong(facts, "clean", {"go", "take"}, ACTION_TASK_TYPES) is None
    assert went_wrong(_facts(), "put", {"go", "take"}, ACTION_TASK_TYPES) is None  # put is not named by an action
