"""ReCAP: recursive, context-aware planning in natural language, in one shared conversation.

Each level (a subtask node; the root is the task) asks the LLM for a thought and the
full list of remaining subtasks and commits only to the first: a primitive action is
sent to the environment, a composite subtask becomes a child level solved the same way.
When a child level returns (done or failed), the parent's latest thought and remaining
list are re-injected with the result and the latest observation, and the LLM revises
the list. All calls share one conversation seen through a sliding window (`window`
rounds) that always keeps the path from the root to the current subtask.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, AsyncIterator

from agent.agents.outcome import Holding, UnitOutcome, failed_mark
from agent.agents.react.grammar import LEVELS, action_line, action_problem
from agent.agents.recap.decomposition import (
    DECISION_LINE,
    Decomposition,
    DecompositionError,
    Item,
    parse_decomposition,
)
from agent.agents.recap.gold import gold_levels
from agent.agents.recap.window import Window
from agent.llm import Purpose
from agent.runtime.answer_words import AnswerWords
from agent.runtime.traits import AgentTraits
from agent.runtime.capabilities import ScriptedAnswer, bundled_demos
from agent.runtime.cut import whole_lines
from agent.runtime.events import AgentNote, Event
from agent.runtime.agent_view import AgentView, ViewLine, ViewSection
from agent.runtime.asking import Answer
from agent.runtime.stepper import Stepper
from agent.runtime.tree import Node
from agent.runtime.verdict import Verdict

PROMPTS = Path(__file__).parent / "prompts"
SKELETON = "Thought: \nSubtasks:\n1. action: \n2. subtask: \n"


@dataclass
class Level:
    node: Node
    goal: str
    thought: str = ""
    remaining: tuple[Item, ...] = ()  # the latest list, its first item the one being carried out
    revisions: int = 0
    reinjections: list[str] = field(default_factory=list)  # what was put back at each return, for the console


Outcome = UnitOutcome  # a level's result: the environment's answers in it, what is held, the model's claim


class RecapAgent(Stepper):
    name = "recap"
    traits = AgentTraits(
        display_name="ReCAP", structure_title="Subtasks", view_title="Levels",
        variables_note=("ReCAP keeps no variables: its state is the remaining subtask list of each open level "
                        "and the conversation window the model sees. The Levels tab (a) shows it."),
        task_code="{instruction}", answer_words=AnswerWords(noun="decomposition"),
        demo_scripts=bundled_demos("recap-{env}.jsonl"),
    )
    roles = ("",)
    default_prompts = PROMPTS
    main_prompt_file = "recap.txt"
    # check: how an action item is checked before it is sent, as ReAct's (grammar, admissible, off)
    option_defaults = {"window": 64, "max_revisions": 16, "check": "grammar"}

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """One subtask per sub-goal of the known path, each subtask its actions."""
        return gold_levels(actions)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.window = Window(int(self.options["window"]))
        self.path: list[Level] = []  # from the root level to the current one
        self.levels: dict[str, Level] = {}  # by node id
        self.observation = ""  # the latest one
        self.holding = Holding()  # what the agent holds, read from the observations
        self.exchanges: list[tuple[str, str]] = []  # every action sent and its answer, in order

    # -- judging answers ---------------------------------------------------------------------

    def judge(self, text: str, purpose: str, role: str = "", *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        try:
            decomposition = parse_decomposition(text)
        except DecompositionError as exc:
            return Verdict(False, message=str(exc))
        first = decomposition.items[0] if decomposition.items else None
        problem = action_problem(self.env, first.text, self.options["check"]) if first and first.kind == "action" else ""
        if problem:  # the first item is sent now; the later ones are revised before they are
            return Verdict(False, thought=decomposition.thought, message=f"item 1: {problem}",
                           line=action_line(text, "1"))
        if decomposition.end:
            ends = "is finished" if decomposition.end == "done" else "gives up"
            summary = f"{decomposition.end.capitalize()}: this level {ends} ({decomposition.result})"
        else:
            items = decomposition.items
            summary = f"{len(items)} subtask(s); carried out now: {items[0].label}"
        return Verdict(True, tuple(i.label for i in decomposition.items), decomposition.thought, summary=summary)

    def answer_skeleton(self, purpose: str, role: str = "") -> str:
        """A refine starts from the level's remaining list (what the prompt says was left), so a person
        revises it rather than types it again; a decompose starts from the format."""
        level = self.path[-1] if self.path else None
        rest = level.remaining[1:] if level is not None and purpose == Purpose.REFINE else ()
        if not rest:
            return SKELETON
        return "Thought: \nSubtasks:\n" + "".join(f"{i}. {item.label}\n" for i, item in enumerate(rest, 1))

    def cut_answer(self, text: str, purpose: str, role: str = "") -> str | None:
        """A cut answer is usable through its last whole line when a whole subtask or `Done:`/`Failed:` line
        came before the cut: only the first item is carried out now, the rest is revised after it."""
        whole = whole_lines(text)
        return whole if any(DECISION_LINE.match(line) for line in whole.splitlines()) else None

    def cut_kept(self, purpose: str, role: str = "") -> str:
        return "its whole lines kept (only the first item is carried out now)"

    def cut_missing(self, purpose: str, role: str = "") -> str:
        return "before a whole subtask line"

    def window_text(self) -> str:
        """What the model sees of the conversation now, cuts marked."""
        return self.window.render([level.node.id for level in self.path])

    def view(self) -> AgentView:
        """Each open level's remaining list (the first item is the one being carried out), what was
        re-injected at each return, and the window the model sees now with its cuts marked."""
        levels: list[ViewLine] = []
        for index, level in enumerate(self.path):
            deepest = index == len(self.path) - 1
            levels.append(ViewLine(f"depth {level.node.depth}: {level.goal}  "
                                   f"({level.revisions} revision{'' if level.revisions == 1 else 's'})",
                                   "heading"))
            if level.thought:
                levels.append(ViewLine(f"  thought: {level.thought}", "muted"))
            for number, item in enumerate(level.remaining, 1):
                if number == 1:
                    doing = "current" if deepest else ""
                    levels.append(ViewLine(f"  ▶ {number}. {item.label}" + ("" if deepest else "  (in progress)"), doing))
                else:
                    levels.append(ViewLine(f"    {number}. {item.label}"))
            if not level.remaining:
                levels.append(ViewLine("  (no list yet: the model is asked to decompose)", "muted"))
        sections = [ViewSection("Levels, root to current", tuple(levels) or (ViewLine("(no open level)", "muted"),))]
        returns: list[ViewLine] = []
        for note in (n for n in self.notes if n.label == "re-injection"):
            back = self.levels.get(note.node_id or "")
            where = f"depth {back.node.depth}: {back.goal}" if back else note.node_id
            returns.append(ViewLine(f"back at {note.node_id} ({where})", "heading"))
            returns += [ViewLine(f"  {line}") for line in note.text.splitlines()]
        if returns:
            sections.append(ViewSection("Re-injected at each return", tuple(returns)))
        shown = self.window.visible([level.node.id for level in self.path])
        window = []
        for line in self.window_text().splitlines():
            mark = "cut" if line.startswith("[... ") else ("heading" if line.startswith("## Round") else "")
            window.append(ViewLine(line, mark))
        sections.append(ViewSection(f"Window: what the model sees now ({len(shown)} of {len(self.window.rounds)} "
                                    f"rounds; window {self.window.size})", tuple(window)))
        return AgentView(self.traits.view_title, tuple(sections))

    # -- the run ---------------------------------------------------------------------------------

    def option_problem(self) -> str:
        if self.options["check"] not in LEVELS:
            return f"--agent-option check={self.options['check']}: use one of {', '.join(LEVELS)}"
        return ""

    async def episode(self) -> AsyncIterator[Event]:
        async for event in self.open_episode(start_root=False):  # the root is the task's level
            yield event
        self.observation = self.first_observation
        root = self.tree.root
        outcome = Outcome()
        async for event in self._solve(root, self.task, outcome):
            yield event
        self.current = root
        if self.env.won:
            yield self.finish(True, "won")
        elif self.finished_reason:
            yield self.finish(False, self.finished_reason)
        elif self.env.done:
            yield self.finish(False, self.end_reason())
        else:
            yield self.finish(False, f"the task level ended ({outcome.kind}: {outcome.claim}) but the task is not done")

    async def _solve(self, node: Node, goal: str, out: Outcome) -> AsyncIterator[Event]:
        """One level: decompose, carry out the first item, revise; until done, failed or a limit."""
        level = Level(node, goal)
        start = len(self.exchanges)  # the actions this level (and the levels under it) send
        self.path.append(level)
        self.levels[node.id] = level
        yield self.started(node)
        told, purpose = self._opening(level), Purpose.DECOMPOSE
        while True:
            answer: Answer | None = None
            async for item in self.ask(node, self._prompt(level, told), purpose):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield item
            if answer is None:
                out.kind, out.claim, out.by_harness = "failed", self.finished_reason, True
                break
            text = answer.completion.text
            decomposition = await self.in_env_thread(parse_decomposition, text)  # off the event loop
            self.window.add(node.id, node.depth, goal, told, text)
            level.thought = decomposition.thought
            if decomposition.end:
                yield self.accepted(node, answer, purpose=purpose)
                out.kind, out.claim = decomposition.end, decomposition.result
                break
            level.remaining = decomposition.items
            first = decomposition.items[0]
            child = self.tree.add_children(node, [f"> {first.text}" if first.kind == "action" else first.text])[0]
            yield self.accepted(node, answer, purpose=purpose, child_ids=(child.id,))
            if first.kind == "action":
                async for event in self._primitive(child, first.text):
                    yield event
                told = f"Observation after `{first.text}`:\n{failed_mark(self.observation)}"
            else:
                sub = Outcome()
                if child.depth > self.limits.max_depth:
                    async for event in self._too_deep(child, sub):
                        yield event
                else:
                    async for event in self._solve(child, first.text, sub):
                        yield event
                if self.finished_reason:
                    out.kind, out.claim, out.by_harness = "failed", self.finished_reason, True
                    break
                if self.env.done:  # nothing to revise: the episode is over
                    self._episode_over(out)
                    break
                told = self._reinjection(level, first, sub)
                level.reinjections.append(told)
                yield AgentNote(node.id, label="re-injection", text=told)
            self.current = node
            if self.env.done:
                self._episode_over(out)
                break
            level.revisions += 1
            if level.revisions > self.options["max_revisions"]:
                out.kind, out.by_harness = "failed", True
                out.claim = f"revision limit: {self.options['max_revisions']} revisions at this level"
                break
            purpose = Purpose.REFINE
        self.path.pop()
        out.exchanges, out.holding = self.exchanges[start:], self.holding.text()
        if out.kind == "done":
            node.observations.append(out.text())
            yield self.completed(node, out.text())
        else:
            yield self.failed(node, out.text())

    def _episode_over(self, out: Outcome) -> None:
        out.by_harness = True
        out.kind, out.claim = ("done", "the task is done") if self.env.won else ("failed", self.end_reason())

    async def _primitive(self, child: Node, action: str) -> AsyncIterator[Event]:
        yield self.started(child)
        async for event in self.act(child, action):
            yield event
        self.observation = child.observations[-1] if child.observations else ""
        self.holding.update(self.observation)
        self.exchanges.append((action, self.observation))
        yield self.completed(child, self.observation)

    async def _too_deep(self, child: Node, sub: Outcome) -> AsyncIterator[Event]:
        sub.kind, sub.by_harness = "failed", True
        sub.claim = (f"not started: depth {child.depth} is past the depth limit ({self.limits.max_depth}); "
                    "write it as actions at this level")
        at_work = self.current  # the level's node, which goes on without the child
        yield self.started(child)  # and fails at once
        yield self.failed(child, sub.claim)
        self.current = at_work

    # -- what the model is told --------------------------------------------------------------------

    def _opening(self, level: Level) -> str:
        if level.node.parent is None:
            return "Start: decompose the task."
        return f"New subtask (depth {level.node.depth}): {level.goal}\nDecompose it."

    def _reinjection(self, level: Level, finished: Item, sub: Outcome) -> str:
        rest = "\n".join(f"{i}. {item.label}" for i, item in enumerate(level.remaining[1:], 1)) or "(none)"
        return (f"The subtask `{finished.text}` returned: {sub.text()}\n"
                f"Back at depth {level.node.depth}: {level.goal}\n"
                f"Your latest thought here: {level.thought or '(none)'}\n"
                f"Your remaining subtasks here were:\n{rest}\n"
                f"Latest observation: {self.observation.strip() or '(none)'}\n"
                "Revise the remaining subtasks: drop what is done, change or add what the result calls for.")

    def _prompt(self, level: Level, told: str) -> str:
        env = self.env.name
        where = " > ".join(f"{lv.goal}" for lv in self.path)
        return Template(self.prompts.text("recap.txt")).safe_substitute(
            actions=self.prompts.actions(env) or "(no action list for this environment)",
            facts=self.prompts.facts(env) or "(none)",
            examples=self.prompts.example_file(env, "examples", self.env.task_type) or "(none)",
            task=self.task,
            first_observation=self.first_observation.strip(),
            window=self.window_text(),
            window_size=str(self.window.size),
            depth=str(level.node.depth),
            path=where,
            now=told.strip(),
            steps_left=str(max(0, self.env.max_steps - self.env.steps)),
            max_steps=str(self.env.max_steps),
            max_revisions=str(self.options["max_revisions"]),
            max_depth=str(self.limits.max_depth),
            holding=self.holding.text(),
        )
