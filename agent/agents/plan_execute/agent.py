"""Plan-and-Execute: a planner writes a JSON plan once, an executor carries out each step with a
short ReAct loop, a replanner revises the rest when a step fails (or after every step).

The structure drawn is the plan: the root (the task) has one child per plan step, in the
order they were adopted, and each step has one child per executor turn. A replan marks the
steps it drops as skipped and adds the new ones, so every plan the run had stays visible.
Each LLM call names its role (`planner`, `executor`, `replanner`), so each role can be a
different LLM and is counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any, AsyncIterator

from agent.agents.outcome import Holding, UnitOutcome, failed_mark
from agent.agents.plan_execute.gold import gold_plan_and_turns
from agent.agents.plan_execute.plan import PlanError, PlanStep, parse_plan, plan_diff, plan_text
from agent.agents.plan_execute.turn import DECISION_LINE, TurnError, parse_turn
from agent.agents.react.grammar import LEVELS, action_line, action_problem
from agent.llm import Purpose
from agent.runtime.capabilities import ScriptedAnswer, bundled_demos
from agent.runtime.cut import through_first_line
from agent.runtime.event_text import first_line
from agent.runtime.events import AgentNote, Event
from agent.runtime.prompts import format_recent
from agent.runtime.agent_view import AgentView, ViewLine, ViewSection
from agent.runtime.asking import Answer
from agent.runtime.stepper import Stepper
from agent.runtime.traits import AgentTraits
from agent.runtime.tree import Node, NodeStatus
from agent.runtime.verdict import Verdict

PROMPTS = Path(__file__).parent / "prompts"

PLAN_SKELETON = """{
  "thought": "",
  "steps": [
    {"id": "s1", "description": "", "depends_on": []},
    {"id": "s2", "description": "", "depends_on": ["s1"]}
  ]
}"""
TURN_SKELETON = "Thought: \nAction: "
HISTORY_CHARS = 4000  # the replanner sees finished steps in full up to this; older ones are summarised
SUMMARY_CHARS = 160  # a summarised step's outcome line


@dataclass
class StepState:
    step: PlanStep
    node: Node
    status: str = "pending"  # pending, running, done, failed, dropped
    output: str = ""  # what a finished step produced, or why it failed: `outcome.text()`
    outcome: UnitOutcome | None = None  # set when the step settles


class PlanExecuteAgent(Stepper):
    name = "plan-execute"
    traits = AgentTraits(
        display_name="Plan-Exec", structure_title="Plan", view_title="Plan",
        variables_note=("Plan-and-Execute keeps no variables: its state is the plan (each step's status and "
                        "output) and the current step's executor turns. The Plan tab (a) shows it."),
        task_code="{instruction}", demo_scripts=bundled_demos("plan-execute-{env}.jsonl"),
    )
    roles = ("planner", "executor", "replanner")
    default_prompts = PROMPTS
    main_prompt_file = "planner.txt"
    # check: how an executor's action is checked before it is sent, as ReAct's (grammar, admissible, off)
    option_defaults = {"executor_steps": 10, "max_replans": 3, "replan_every_step": False, "check": "grammar",
                       "history_chars": HISTORY_CHARS}

    @classmethod
    def gold_answers(cls, actions: list[str]) -> list[ScriptedAnswer] | None:
        """A plan of one step per sub-goal of the known path; each step's turns its actions, then `Done:`."""
        return gold_plan_and_turns(actions, int(cls.option_defaults["executor_steps"]))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.states: dict[str, StepState] = {}  # by node id, every step ever adopted
        self.plan: list[StepState] = []  # the current plan, finished steps included
        self.replans = 0
        self.observation = ""  # the latest observation (the first one before any action)
        self.holding = Holding()  # what the agent holds, read from the observations
        self.settled: list[StepState] = []  # every step that settled (done or failed), in order
        self._exchanges: list[tuple[str, str]] = []  # the running step's actions and answers

    # -- judging answers (the agent and the console's editor) ---------------------------

    def judge(self, text: str, purpose: str, role: str = "", *, typed: bool = True,
              known: frozenset[str] = frozenset()) -> Verdict:
        if purpose in (Purpose.PLAN, Purpose.REPLAN) or (not purpose and role in ("planner", "replanner")):
            try:
                # `known` (the names a code answer may use) means nothing to a plan: its finished steps do
                plan = parse_plan(text, done=self._done_ids(), allow_empty=purpose == Purpose.REPLAN)
            except PlanError as exc:
                return Verdict(False, message=str(exc))
            ids = ", ".join(step.id for step in plan.steps)
            summary = (f"a plan of {len(plan.steps)} step(s): {ids}" if plan.steps
                       else "an empty plan: the replanner gives up and the run ends")
            return Verdict(True, tuple(s.label for s in plan.steps), plan.thought, summary=summary)
        try:
            turn = parse_turn(text)
        except TurnError as exc:
            return Verdict(False, message=str(exc))
        problem = action_problem(self.env, turn.text, self.options["check"]) if turn.kind == "action" else ""
        if problem:
            return Verdict(False, thought=turn.thought, message=problem, line=action_line(text, "action"))
        summaries = {"action": f"one action: {turn.text}", "done": f"Done: the step is finished ({turn.text})",
                     "failed": f"Failed: the step fails and the replanner is asked ({turn.text})"}
        return Verdict(True, (turn.text,) if turn.kind == "action" else (), turn.thought, summary=summaries[turn.kind])

    def answer_skeleton(self, purpose: str, role: str = "") -> str:
        if purpose in (Purpose.PLAN, Purpose.REPLAN) or role in ("planner", "replanner"):
            return PLAN_SKELETON
        return TURN_SKELETON

    def cut_answer(self, text: str, purpose: str, role: str = "") -> str | None:
        """An executor's cut answer is usable through its first whole `Action:`, `Done:` or `Failed:` line;
        a cut plan never is (its JSON is not whole)."""
        if purpose in (Purpose.PLAN, Purpose.REPLAN):
            return None
        return through_first_line(text, DECISION_LINE)

    def cut_kept(self, purpose: str, role: str = "") -> str:
        return "kept through its first whole `Action:`, `Done:` or `Failed:` line"

    def cut_missing(self, purpose: str, role: str = "") -> str:
        if purpose in (Purpose.PLAN, Purpose.REPLAN):
            return "before the plan's JSON ended"
        return "before a whole `Action:`, `Done:` or `Failed:` line"

    # -- the run -------------------------------------------------------------------------

    def option_problem(self) -> str:
        if self.options["check"] not in LEVELS:
            return f"--agent-option check={self.options['check']}: use one of {', '.join(LEVELS)}"
        return ""

    async def episode(self) -> AsyncIterator[Event]:
        async for event in self.open_episode():
            yield event
        self.observation = self.first_observation
        root = self.tree.root
        async for event in self._make_plan(Purpose.PLAN, "planner", self._planner_prompt(), ""):
            yield event
        while not self.finished_reason and not self.env.done:
            state = self._next_ready()
            if state is None:
                waiting = [s.step.id for s in self.plan if s.status == "pending"]
                why = (f"steps {', '.join(waiting)} wait for steps that did not finish" if waiting
                       else "every step of the plan is finished but the task is not done")
                async for event in self._replan(why):
                    yield event
                continue
            async for event in self._run_step(state):
                yield event
            if self.finished_reason or self.env.done:
                break
            if state.status == "failed":
                why = state.outcome.claim if state.outcome else state.output
                async for event in self._replan(f"step {state.step.id} failed: {why}"):
                    yield event
            elif self.options["replan_every_step"] and self._pending():
                async for event in self._replan(f"step {state.step.id} finished (its outcome is listed below)"):
                    yield event
        # a limit (finished_reason) stops the plan before the environment ends the episode, never after it
        async for event in self.close_root(root, self.finished_reason or "the plan ended before the task was done"):
            yield event

    async def _make_plan(self, purpose: Purpose, role: str, prompt: str, why: str) -> AsyncIterator[Event]:
        """Ask the planner (or replanner) for a plan and adopt it."""
        root = self.tree.root
        answer: Answer | None = None
        async for item in self.ask(root, prompt, purpose, role=role):
            if isinstance(item, Answer):
                answer = item
            else:
                yield item
        if answer is None:
            return
        plan = await self.in_env_thread(  # off the event loop, as its judgement was
            lambda: parse_plan(answer.completion.text, done=self._done_ids(), allow_empty=purpose == Purpose.REPLAN))
        open_states = [s for s in self.plan if s.status in ("pending", "failed")]
        # a pending step the new plan keeps unchanged keeps its node; every other open step is dropped
        kept = {s.step: s for s in open_states if s.status == "pending" and s.step in plan.steps}
        fresh = [step for step in plan.steps if step not in kept]
        new_nodes = self.tree.add_children(root, [step.label for step in fresh])
        made = {step: StepState(step, node) for step, node in zip(fresh, new_nodes)}
        for node, step in zip(new_nodes, fresh):
            node.thought = step.description
        yield self.accepted(root, answer, purpose=purpose, role=role, child_ids=tuple(n.id for n in new_nodes))
        for state in open_states:
            if state.step in kept and kept[state.step] is state:
                continue
            state.status = "dropped"
            if state.node.status is NodeStatus.PENDING:
                yield self.skipped(state.node)
        self.plan = [s for s in self.plan if s.status == "done"] + [kept.get(step) or made[step] for step in plan.steps]
        self.states.update({s.node.id: s for s in made.values()})
        old = [s.step for s in open_states]
        if purpose == Purpose.PLAN:
            yield AgentNote(root.id, label="plan adopted", text=plan_text(plan.steps))
        else:
            yield AgentNote(root.id, label="replan", text=f"why: {why}\n{plan_diff(old, list(plan.steps))}")
            if not plan.steps:
                self.finished_reason = f"the replanner gave up (an empty plan) after: {why}"

    async def _replan(self, why: str) -> AsyncIterator[Event]:
        if self.replans >= self.options["max_replans"]:
            self.finished_reason = f"replan limit: {why} (max_replans {self.options['max_replans']})"
            return
        self.replans += 1
        async for event in self._make_plan(Purpose.REPLAN, "replanner", self._replanner_prompt(why), why):
            yield event

    async def _run_step(self, state: StepState) -> AsyncIterator[Event]:
        """One plan step: executor turns until it says done or failed, or its budget runs out."""
        node, budget = state.node, self.options["executor_steps"]
        state.status = "running"
        yield self.started(node)
        turns: list[tuple[str, str, str]] = []  # (thought, action, observation)
        self._exchanges = []
        for number in range(1, budget + 1):
            answer: Answer | None = None
            prompt = self._executor_prompt(state, turns, budget - number + 1)
            async for item in self.ask(node, prompt, Purpose.ACT, role="executor"):
                if isinstance(item, Answer):
                    answer = item
                else:
                    yield item
            if answer is None:  # too many invalid answers: the run ends (finished_reason says why)
                async for event in self._settle(state, "failed", self.finished_reason, by_harness=True):
                    yield event
                return
            turn = await self.in_env_thread(parse_turn, answer.completion.text)  # off the event loop
            label = f"> {turn.text}" if turn.kind == "action" else f"{turn.kind}: {turn.text}"
            child = self.tree.add_children(node, [label])[0]
            child.thought = turn.thought
            # reported on the step, which made the turn; the thought is the turn's
            yield self.answered(node.id, answer.completion, thought=turn.thought, blocks=answer.verdict.blocks,
                                child_ids=(child.id,), purpose=Purpose.ACT, role="executor")
            yield self.started(child)
            if turn.kind == "action":
                async for event in self.act(child, turn.text):
                    yield event
                self.observation = child.observations[-1] if child.observations else ""
                self.holding.update(self.observation)
                self._exchanges.append((turn.text, self.observation))
                turns.append((turn.thought, turn.text, self.observation))
            yield self.completed(child, "\n".join(child.observations))
            self.current = node
            if self.env.won:
                async for event in self._settle(state, "done", "the task is done", by_harness=True):
                    yield event
                return
            if self.env.done:
                async for event in self._settle(state, "failed", self.end_reason(), by_harness=True):
                    yield event
                return
            if turn.kind != "action":
                async for event in self._settle(state, turn.kind, turn.text):
                    yield event
                return
        async for event in self._settle(state, "failed", f"its budget of {budget} executor turns ran out",
                                        by_harness=True):
            yield event

    async def _settle(self, state: StepState, kind: str, claim: str, by_harness: bool = False) -> AsyncIterator[Event]:
        """End a step. Its output is what the environment answered in it (`UnitOutcome`); the
        executor's `Done:` text is kept as a claim, marked when the environment does not bear it out."""
        outcome = UnitOutcome(kind, claim, list(self._exchanges), self.holding.text(), by_harness)
        state.outcome, state.status, state.output, node = outcome, kind, outcome.text(), state.node
        self.settled.append(state)
        text = state.output
        if kind == "done":
            node.observations.append(text)
            yield self.completed(node, text)
        else:
            yield self.failed(node, text)

    # -- plan bookkeeping -------------------------------------------------------------------

    def _done_ids(self) -> frozenset[str]:
        return frozenset(s.step.id for s in self.plan if s.status == "done")

    def _pending(self) -> list[StepState]:
        return [s for s in self.plan if s.status == "pending"]

    def _next_ready(self) -> StepState | None:
        """The first pending step (in plan order) whose dependencies are all done."""
        done = self._done_ids()
        return next((s for s in self._pending() if all(d in done for d in s.step.depends_on)), None)

    def plan_status(self) -> str:
        """The current plan, one `[status] id: description [after ...] -> output` line per step
        (the replanner's and executor's view, and the console's)."""
        lines = []
        for s in self.plan:
            detail = f" -> {s.output.removeprefix(s.status + '; ')}" if s.output else ""
            lines.append(f"[{s.status}] {s.step.label}{detail}")
        return "\n".join(lines) or "(no plan yet)"

    # -- the console's view -----------------------------------------------------------------

    def view(self) -> AgentView:
        """The plan with dependencies and status, the current step's executor turns, and each
        replan as a diff against the plan it replaced."""
        icons = {"done": "✓", "running": "▶", "failed": "✗", "pending": "·", "dropped": "-"}
        marks = {"done": "done", "running": "current", "failed": "failed"}
        plan: list[ViewLine] = []
        for s in self.plan:
            plan.append(ViewLine(f"{icons.get(s.status, '?')} {s.step.label}  [{s.status}]", marks.get(s.status, "")))
            if s.output:
                plan.append(ViewLine(f"    -> {first_line(s.output, 70)}", "muted"))
        limit = self.options["max_replans"]
        sections = [ViewSection(f"Plan ({self.replans} of {limit} replans used)",
                                tuple(plan) or (ViewLine("(no plan yet: the planner is asked first)", "muted"),))]
        running = next((s for s in self.plan if s.status == "running"), None)
        if running is not None:
            turns = [ViewLine(f"{c.code}" + (f"  => {first_line(c.observations[-1], 70)}" if c.observations
                                             and c.code.startswith(">") else ""),
                              "current" if c.status is NodeStatus.RUNNING else "")
                     for c in running.node.children]
            budget = self.options["executor_steps"]
            sections.append(ViewSection(f"Executor turns of {running.step.id} ({len(turns)} of {budget})",
                                        tuple(turns) or (ViewLine("(none yet)", "muted"),)))
        replans = [n for n in self.notes if n.label == "replan"]
        for number, note in enumerate(replans, 1):
            why, _, diff = note.text.partition("\n")
            lines = [ViewLine(line, {"-": "removed", "+": "added", "~": "changed"}.get(line[:1], ""))
                     for line in diff.splitlines()]
            sections.append(ViewSection(f"Replan {number}: {why.removeprefix('why: ')}", tuple(lines)))
        return AgentView(self.traits.view_title, tuple(sections))

    # -- prompts ------------------------------------------------------------------------------

    def _fields(self) -> dict[str, str]:
        env = self.env.name
        return {
            "task": self.task,
            "observation": failed_mark(self.observation.strip()) or "(none)",
            "actions": self.prompts.actions(env) or "(no action list for this environment)",
            "facts": self.prompts.facts(env) or "(none)",
            "steps_left": str(max(0, self.env.max_steps - self.env.steps)),
            "max_steps": str(self.env.max_steps),
            "recent_actions": format_recent(self.recent.last()),
            "holding": self.holding.text(),
            "history_chars": str(self.options["history_chars"]),
            "executor_steps": str(self.options["executor_steps"]),
            "max_replans": str(self.options["max_replans"]),
            "replans_left": str(max(0, int(self.options["max_replans"]) - self.replans)),
        }

    def _render(self, name: str, **extra: str) -> str:
        return Template(self.prompts.text(name)).safe_substitute(**self._fields(), **extra)

    def _planner_prompt(self) -> str:
        examples = self.prompts.example_file(self.env.name, "planner_examples", self.env.task_type) or "(none)"
        return self._render("planner.txt", examples=examples)

    def _replanner_prompt(self, why: str) -> str:
        examples = self.prompts.example_file(self.env.name, "planner_examples", self.env.task_type) or "(none)"
        done = sorted(self._done_ids())
        kept = (f"Finished steps ({', '.join(done)}) are kept: new steps may depend on them, but must not reuse "
                "their ids." if done else "No step has finished yet: every step you write is new.")
        return self._render("replanner.txt", examples=examples, plan=self.plan_status(), why=why,
                            done_ids=", ".join(done) or "none", finished_rule=kept,
                            finished_steps=self.finished_history(int(self.options["history_chars"])))

    def finished_history(self, budget: int) -> str:
        """Every step that settled, oldest first, each action with the environment's answer and the
        step's outcome; past `budget` characters the oldest steps are summarised to one line."""
        if not self.settled:
            return "(no step has finished yet)"
        full = [f"{s.step.text} [{s.status}]\n{s.outcome.full() if s.outcome else ''}" for s in self.settled]
        summary = [f"{s.step.text} [{s.status}] (summarised: {len(s.outcome.exchanges) if s.outcome else 0} "
                   f"actions) {first_line(s.output, SUMMARY_CHARS)}" for s in self.settled]
        shown = list(full)
        for index in range(len(shown) - 1):  # the latest step stays in full
            if len("\n".join(shown)) <= budget:
                break
            shown[index] = summary[index]
        return "\n".join(shown)

    def _executor_prompt(self, state: StepState, turns: list[tuple[str, str, str]], left: int) -> str:
        examples = self.prompts.example_file(self.env.name, "executor_examples", self.env.task_type) or "(none)"
        done = {s.step.id: s.output for s in self.plan if s.status == "done"}
        inputs = "\n".join(f"- {d}: {done.get(d, '(no output)')}" for d in state.step.depends_on) or "(none)"
        so_far = "\n".join(f"Thought: {t}\nAction: {a}\nObservation: {o}" for t, a, o in turns) or "(nothing yet)"
        return self._render("executor.txt", examples=examples, plan=self.plan_status(), step=state.step.text,
                            inputs=inputs, turns=so_far, turns_left=str(left))
