"""CodeAct: write a code cell, run it, see what it printed or raised, repeat (the paper's second baseline).

Each LLM call sees the task, the few-shot examples for the environment and
task type, the variables the cells have kept, and the history of cells with
their output and errors; it answers with a thought and one cell
(`agent.agents.codeact.answer`). The cell runs in the same sandboxed runner
as ReCode's nodes: one persistent namespace, `run(action)` for environment
actions, and every action its own pair of events, so the debugger stops
between two actions of a loop exactly as it does in ReCode.

The rule about functions is the runner's own (the sandbox keeps only data
between nodes, spec §2): a cell may define and use functions, but they are
gone in the next cell, as are imported modules' names other than the
allowed imports it re-binds. A later cell that calls one gets a NameError,
which, like every error, is shown to the next call; nothing is refused for
calling an undefined name before it runs.

Structure: the turn loop's (`agent.agents.turns`), each cell a node under the task,
`cell N` while it is asked for, then labelled with its code:

    cell:  (ActionSent -> ObservationReceived)* -> VariablesChanged? -> NodeCompleted | NodeError

The run ends when the environment is done; after `limits.max_retry + 1`
cells in a row that raised (or the first, with `end_on_error`); after
`max_cells` cells (`--agent-option max_cells=N`; 0, the default, allows as
many cells as the environment has steps); or after too many invalid answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from agent.agents.codeact.answer import SKELETON, parse_cell
from agent.agents.codeact.gold import gold_cells
from agent.agents.outcome import action_failed, failed_mark
from agent.agents.turns import TurnAgent, turn_at_hand, turn_prompt, windowed
from agent.runtime.answer_words import AnswerWords
from agent.runtime.traits import AgentTraits
from agent.runtime.capabilities import ScriptedAnswer, bundled_demos
from agent.runtime.cut import through_last
from agent.runtime.event_text import first_line
from agent.runtime.events import Event, ObservationReceived
from agent.runtime.prompts import rejected_code
from agent.runtime.runner import NodeOutcome, code_check_of
from agent.runtime.agent_view import AgentView, ViewLine, ViewSection
from agent.runtime.costs import MAIN_ROLE
from agent.runtime.tree import Node
from agent.runtime.verdict import Verdict

PROMPTS = Path(__file__).parent / "prompts"
VIEW_OUTPUT_LINES = 6  # a cell's last output lines the console's view shows
OUTPUT_LIMIT = 2000  # characters of a cell's output the next prompts show (the end is kept)


@dataclass(frozen=True)
class Cell:
    """One cell that ran, as later prompts show it."""

    thought: str
    code: str
    output: str
    error: str
    answers: tuple[tuple[str, str], ...] = ()  # (action, observation) of each run() in the cell


def shown_output(output: str, answers: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> str:
    """A cell's output as later prompts show it: each action's answer once (a `print` of the
    observation `run()` just added is not repeated) and a failed action's answer marked."""
    lines = output.rstrip("\n").split("\n") if output else []
    shown: list[str] = []
    at = 0
    for number, (_, observation) in enumerate(answers):
        obs = observation.rstrip("\n").split("\n")
        start = next((i for i in range(at, len(lines) - len(obs) + 1) if lines[i:i + len(obs)] == obs), -1)
        if start < 0:  # cut from the output (too long): nothing to match
            continue
        shown += lines[at:start]
        shown += failed_mark("\n".join(obs)).split("\n") if action_failed(observation) else obs
        at = start + len(obs)
        following = answers[number + 1][1] if number + 1 < len(answers) else None
        while following != observation and lines[at:at + len(obs)] == obs:  # printed again by the cell
            at += len(obs)
    shown += lines[at:]
    return "\n".join(shown)


def _cut(text: str, limit: int = OUTPUT_LIMIT) -> str:
    text = text.rstrip("\n")
    if len(text) <= limit:
        return text
    return f"[... the first {len(text) - limit} characters are cut]\n{text[-limit:]}"


def format_history(cells: list[Cell], window: int = 0) -> str:
    """The cells so far with their output and errors, oldest first; with a window, the last `window`."""
    if not cells:
        return "(no cells yet: this is the first one)"
    lines, shown = windowed(cells, window, "cell")
    for number, cell in shown:
        lines += [f"[cell {number}]", f"<think>{cell.thought or '(none)'}</think>", "<execute>", cell.code,
                  "</execute>", "Output:", _cut(cell.output) or "(nothing)"]
        if cell.error:
            lines += [f"Error: {cell.error.strip()}"]
        lines.append("")
    return "\n".join(lines).rstrip()


def missing_function_error(name: str) -> str:
    return (f"NameError: name '{name}' is not defined (functions are not kept between cells, only data is: "
            f"define `{name}` in the cell that calls it)")


class CodeActAgent(TurnAgent[Cell]):
    """CodeAct over any registered environment: one LLM call and one code cell per turn."""

    name = "codeact"
    traits = AgentTraits(
        display_name="CodeAct", structure_title="Cells", view_title="Cells", task_code="task: {instruction}",
        answer_words=AnswerWords(
            noun="cell", empty="empty: submitting runs no code",
            empty_root="empty: submitting runs no code",
            confirm_empty="the execute section is empty", gives_up="run no code", gives_up_root="run no code",
            format_hint="<think>/<execute> or plain code",
            skeleton_cursor=(4, 0),  # the empty line inside <execute>
        ),
        answers_are_code=True, demo_scripts=bundled_demos("codeact-{env}.jsonl"),
    )
    default_prompts = PROMPTS
    main_prompt_file = "codeact.txt"
    option_defaults = {"window": 0, "max_cells": 0}

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """One cell per sub-goal of the known path."""
        return gold_cells(actions)

    def __init__(self, *args: Any, code_check: Callable[[str], str | None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The sandbox's static checks, as ReCode's engine takes them: from the runner unless given.
        self.code_check = code_check if code_check is not None else code_check_of(self.runner)
        self.errors_in_a_row = 0

    # -- answers ----------------------------------------------------------------

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        return parse_cell(text, typed=typed, code_check=self.code_check)

    def rejected(self, answer: str, reason: str) -> tuple[str, str]:
        return rejected_code(answer, reason)  # the code numbered from its first line, and the reason so

    def answer_skeleton(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return SKELETON

    def cut_answer(self, text: str, purpose: str, role: str = MAIN_ROLE) -> str | None:
        """A cut answer's code is whole up to its last `</execute>` (what follows is ignored)."""
        return through_last(text, "</execute>")

    def cut_missing(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return "before </execute>"

    def cut_kept(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return "kept up to its last </execute>"

    def describe_answer(self, verdict: Verdict, purpose: str, role: str = MAIN_ROLE) -> str:
        """The editor's line for an answer it would take."""
        lines = len(verdict.blocks[0].splitlines()) if verdict.blocks else 0
        return f"a cell of {lines} line(s), ready to run"

    def limit_reached(self) -> str:
        """`max_cells` cells ran (0: as many cells as the environment has steps)."""
        limit = int(self.options["max_cells"]) or self.env.max_steps
        if len(self.turns) < limit:
            return ""
        return f"cell limit: {len(self.turns)} cells ran and the task is not done (--agent-option max_cells={limit})"

    def view(self) -> AgentView:
        """The cells: code, output (its last lines; every line with `full`) and error of each; the one at hand marked."""
        lines: list[ViewLine] = []
        for number, cell in enumerate(self.turns, 1):
            verdict = f"✗ {first_line(cell.error.strip().splitlines()[-1], 60)}" if cell.error.strip() else "✓"
            lines.append(ViewLine(f"cell {number} {verdict}", "failed" if cell.error.strip() else "heading"))
            if cell.thought:
                lines.append(ViewLine(f"  thought: {cell.thought}", "muted"))
            lines += [ViewLine(f"  │ {code}") for code in cell.code.splitlines()]
            output = cell.output.rstrip("\n").splitlines()
            earlier = output[:-VIEW_OUTPUT_LINES]
            if earlier:  # the console shows them on demand (`full`): a person answering needs the whole output
                lines.append(ViewLine(f"  [... {len(earlier)} earlier output lines]", "muted",
                                      full="\n".join(f"  => {out}" for out in earlier)))
            for out in output[-VIEW_OUTPUT_LINES:]:
                short = f"  => {first_line(out, 150)}"
                whole = f"  => {out}"
                lines.append(ViewLine(short, "muted", full=whole if whole != short else ""))
            if not output:
                lines.append(ViewLine("  => (no output)", "muted"))
        at_hand = turn_at_hand(self)
        if at_hand is not None:
            number = len(self.turns) + 1
            if at_hand.code == f"cell {number}":
                lines.append(ViewLine(f"▶ cell {number}: the LLM is asked", "current"))
            else:
                lines.append(ViewLine(f"▶ cell {number}: running", "current"))
                lines += [ViewLine(f"  │ {code}") for code in at_hand.code.splitlines()]
        return AgentView(self.traits.view_title, (ViewSection(f"Cells ({len(self.turns)} ran)",
                                                       tuple(lines) or (ViewLine("(no cell yet)", "muted"),)),))

    # -- the run ------------------------------------------------------------------

    async def take_turn(self, cell: Node, verdict: Verdict) -> AsyncIterator[Event]:
        """Run the cell; an error counts toward the error limit and is shown to the next call."""
        code = cell.code
        outcome: NodeOutcome | None = None
        answers: list[tuple[str, str]] = []
        async for event in self.run_code(cell, code):
            if isinstance(event, NodeOutcome):
                outcome = event
            else:
                if isinstance(event, ObservationReceived):
                    answers.append((event.action, event.observation))
                yield event
        assert outcome is not None
        output = outcome.output
        cell.observations = output.rstrip("\n").split("\n") if output else []
        error = ""
        if outcome.status == "completed" or (outcome.status == "aborted" and self.env.won):
            self.errors_in_a_row = 0
            yield self.completed(cell, output, seconds=outcome.seconds, restore_seconds=outcome.restore_seconds)
        else:
            if outcome.status == "aborted":
                error = f"the episode ended during this cell: {self.end_reason()}"
            elif outcome.status == "stub":
                error = missing_function_error(outcome.stub_name)
            else:
                error = outcome.error or "the cell failed"
            self.errors_in_a_row += outcome.status != "aborted"
            yield self.failed(cell, error, output=output, seconds=outcome.seconds,
                              restore_seconds=outcome.restore_seconds)
            self._check_error_limits(cell)
        self.turns.append(Cell(verdict.thought, code, shown_output(output, answers), error, tuple(answers)))

    def _check_error_limits(self, cell: Node) -> None:
        if not self.errors_in_a_row or self.env.done:
            return
        last = (cell.error.strip() or "an error").splitlines()[-1]
        if self.limits.end_on_error:
            self.finished_reason = f"cell error: {cell.id} raised {last} (end on error)"
        elif self.errors_in_a_row > self.limits.max_retry:
            self.finished_reason = (f"error limit: {self.errors_in_a_row} cells in a row raised "
                                    f"(max_retry {self.limits.max_retry}); the last: {last}")

    # -- the prompt ---------------------------------------------------------------

    def _without_repeats(self, lines: list[str]) -> list[str]:
        """The variable lines, a text variable that holds an observation the prompt already shows
        (the first one, or an action's answer in the last cell) named as that instead of repeated."""
        shown = {self.first_observation.strip(): "the first observation, shown above"}
        if self.turns:
            number = len(self.turns)
            for action, observation in self.turns[-1].answers:
                shown[observation.strip()] = f"the answer to `{action}`, shown in cell {number}'s output above"
        result = []
        for line in lines:
            head, sep, value = line.partition(" (str): ")
            if sep and value.strip() in shown and value.strip():
                line = f"{head} (str): {shown[value.strip()]}"
            result.append(line)
        return result

    async def prompt(self) -> str:
        """The whole prompt of the next cell: task, examples, variables, history."""
        window = int(self.options["window"])
        names = [v.name for v in await self.runner.variables()]
        lines = self._without_repeats(await self.runner.prompt_lines(names) if names else [])
        return turn_prompt(self, window, variables="\n".join(lines) if lines else "(none)",
                           history=format_history(self.turns, window),
                           max_errors=str(self.limits.max_retry + 1))
