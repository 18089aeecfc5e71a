"""ReAct: think one step, act one step, observe, repeat (the paper's first baseline).

Each LLM call sees the task, the few-shot examples for the environment and
task type, and the trajectory so far (thought, action and observation of
every turn, or of the last `window` turns); it answers with a thought and
exactly one action (`agent.agents.react.answer`). An answer with no action,
two actions, or an action outside the environment's grammar
(`agent.agents.react.grammar`) is re-asked with the reason, up to
`limits.max_rewrite` times.

The structure it draws is the turn loop's (`agent.agents.turns`): each turn a node
under the task, `turn N` while it is asked for, then labelled with its action.
The run ends when the environment is done (won, lost or the step limit);
neither ALFWorld nor ScienceWorld has a "finish" action, so the model cannot
end it early. Options (`--agent-option`): `window=N` keeps only the last N
turns in the prompt (default 30, stated in the prompt; 0: all of them); `check=grammar|admissible|off`
is how strictly an action is checked before it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator

from agent.agents.react.answer import ACTION_LINE, SKELETON, parse_react
from agent.agents.react.gold import gold_turns
from agent.agents.react.grammar import LEVELS, action_line, action_problem
from agent.agents.turns import TurnAgent, turn_at_hand, turn_prompt, windowed
from agent.runtime.answer_words import AnswerWords
from agent.runtime.traits import AgentTraits
from agent.runtime.capabilities import ScriptedAnswer, bundled_demos
from agent.runtime.cut import through_first_line
from agent.runtime.event_text import first_line
from agent.runtime.events import Event, ObservationReceived
from agent.runtime.agent_view import AgentView, ViewLine, ViewSection
from agent.runtime.costs import MAIN_ROLE
from agent.runtime.tree import Node
from agent.runtime.verdict import Verdict

PROMPTS = Path(__file__).parent / "prompts"
DEFAULT_WINDOW = 30  # turns the prompt shows (the prompt would otherwise grow with the episode)


@dataclass(frozen=True)
class Turn:
    """One finished turn of the trajectory."""

    thought: str
    action: str
    observation: str


def format_trajectory(turns: list[Turn], window: int = 0) -> str:
    """The turns as the prompt shows them, oldest first; with a window, only the last `window`."""
    if not turns:
        return "(no turns yet: this is the first one)"
    lines, shown = windowed(turns, window, "turn")
    for number, turn in shown:
        lines += [f"[turn {number}]", f"Thought: {turn.thought or '(none)'}", f"Action: {turn.action}",
                  f"Observation: {turn.observation.strip()}", ""]
    return "\n".join(lines).rstrip()


class ReActAgent(TurnAgent[Turn]):
    """ReAct over any registered environment: one LLM call and one action per turn."""

    name = "react"
    traits = AgentTraits(
        display_name="ReAct", structure_title="Turns", view_title="Turns",
        variables_note=("ReAct keeps no variables: its state is its trajectory, the thought, action and "
                        "observation of every turn. The Turns tab (a) shows it; the Environment log shows the "
                        "actions and observations."),
        task_code="task: {instruction}", answer_words=AnswerWords(noun="turn"),
        demo_scripts=bundled_demos("react-{env}.jsonl"),
    )
    default_prompts = PROMPTS
    main_prompt_file = "react.txt"
    option_defaults = {"window": DEFAULT_WINDOW, "check": "grammar"}

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """One turn per action of the known path."""
        return gold_turns(actions)

    # -- answers ----------------------------------------------------------------

    def judge(self, text: str, purpose: str, role: str = MAIN_ROLE, *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        verdict = parse_react(text)
        if not verdict.accepted:
            return verdict
        problem = action_problem(self.env, verdict.blocks[0], self.options["check"])
        if problem:
            return Verdict(False, thought=verdict.thought, message=problem, line=action_line(text, "action"))
        return verdict

    def answer_skeleton(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return SKELETON

    def cut_answer(self, text: str, purpose: str, role: str = MAIN_ROLE) -> str | None:
        """A cut answer is usable through its first whole `Action:` line (a model that goes on to imagine
        the observation is cut there anyway); an action line the cut ran into is not whole."""
        return through_first_line(text, ACTION_LINE)

    def cut_missing(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return "before a whole `Action:` line"

    def cut_kept(self, purpose: str, role: str = MAIN_ROLE) -> str:
        return "kept through its first whole `Action:` line"

    def describe_answer(self, verdict: Verdict, purpose: str, role: str = MAIN_ROLE) -> str:
        """The editor's line for an answer it would take."""
        return f"one action: {verdict.blocks[0]}" if verdict.blocks else "no action"

    def view(self) -> AgentView:
        """The turns: thought, action and observation of each, the one at hand marked; turns a
        window keeps out of the prompt are dimmed."""
        window = int(self.options["window"])
        hidden = max(0, len(self.turns) - window) if window > 0 else 0
        lines: list[ViewLine] = []
        for number, turn in enumerate(self.turns, 1):
            out = number <= hidden
            lines.append(ViewLine(f"turn {number}: {turn.action}" + ("  (not in the prompt)" if out else ""),
                                  "muted" if out else "heading"))
            lines.append(ViewLine(f"  thought: {turn.thought or '(none)'}", "muted"))
            whole = f"  => {turn.observation.strip()}"
            if number == len(self.turns):  # the observation the next turn acts on: whole
                lines.append(ViewLine(whole, ""))
            else:
                short = f"  => {first_line(turn.observation, 150)}"
                lines.append(ViewLine(short, "muted" if out else "", full=whole if whole != short else ""))
        at_hand = turn_at_hand(self)
        if at_hand is not None:
            number = len(self.turns) + 1
            doing = "the LLM is asked" if at_hand.code == f"turn {number}" else f"acting: {at_hand.code}"
            lines.append(ViewLine(f"▶ turn {number}: {doing}", "current"))
            if at_hand.thought:
                lines.append(ViewLine(f"  thought: {at_hand.thought}", "muted"))
        kept = f"the prompt keeps the last {window}" if window > 0 else "the prompt shows all"
        return AgentView(self.traits.view_title, (ViewSection(f"Turns ({len(self.turns)} done; {kept})",
                                                       tuple(lines) or (ViewLine("(no turn yet)", "muted"),)),))

    # -- the run ------------------------------------------------------------------

    def option_problem(self) -> str:
        """Why the agent options cannot be used ('' when they can): the run ends at once with it."""
        if self.options["check"] not in LEVELS:
            return f"--agent-option check={self.options['check']}: use one of {', '.join(LEVELS)}"
        if int(self.options["window"]) < 0:
            return f"--agent-option window={self.options['window']}: a number of turns >= 0 (0 keeps them all)"
        return ""

    async def take_turn(self, node: Node, verdict: Verdict) -> AsyncIterator[Event]:
        """Send the turn's action; the turn keeps what the environment answered."""
        observation = ""
        async for event in self.act(node, node.code):
            if isinstance(event, ObservationReceived):
                observation = event.observation
            yield event
        self.turns.append(Turn(verdict.thought, node.code, observation))
        yield self.completed(node, observation)

    # -- the prompt ---------------------------------------------------------------

    def prompt(self) -> str:
        """The whole prompt of the next turn: task, examples, trajectory."""
        window = int(self.options["window"])
        return turn_prompt(self, window, trajectory=format_trajectory(self.turns, window))
