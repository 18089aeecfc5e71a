"""One ScienceWorld episode (`task/variation`) as an Env the engine drives.

The score (0-100) is kept after every step in `score`, and each change is
appended to `score_log` (step, old, new) for the console's environment log. An
episode is won at 100; a negative score (the simulator's "task failed", e.g.
focusing on the wrong object) ends it as lost. An action the simulator does
not understand is just an observation ("No known action matches that input.").
A simulator that fails or hangs ends the episode with `failure` set to the reason.

`rule="paper"` is the ReCode reference's rule instead (`--preset paper`): the
episode is won when the simulator says it is done with a score above 0, and
`score` is the best score seen (the reference's reward), not the last one.
"""

from __future__ import annotations

import shutil

from envs.base import Env, EnvError, Reset
from envs.sciworld.simulator import JAVA_HINT, Simulator, SimulatorError, shared_simulator
from envs.sciworld.tasks import SciTask, find_task, simplifications_for
from envs.sciworld.variations import cached_count

TASK_PREFIX = "Task Description:"
NO_KNOWN_ACTION = "No known action matches that input."  # the simulator's answer to a command it does not parse
RULES = ("win", "paper")  # won at 100 (this project) | done with a score above 0, best score kept (the reference)


def parse_episode(episode: str) -> tuple[SciTask, int]:
    """`boil/0` -> (the boil task, 0); one line naming the expected form otherwise."""
    name, sep, number = episode.strip().partition("/")
    if not sep:
        number = "0"
    if not number.isdigit():
        raise EnvError(f"ScienceWorld episodes are task/variation, e.g. boil/0; got {episode!r}")
    return find_task(name), int(number)


class SciWorldEnv(Env):
    """A ScienceWorld variation on the process's shared JVM."""

    name = "sciworld"
    score: float = 0
    score_log: list[tuple[int, float, float]] = []  # each episode's own list, made in __init__
    failure: str = ""

    def __init__(
        self,
        episode: str,
        max_steps: int = 100,
        setting: str = "easy",
        simulator: Simulator | None = None,
        rule: str = "win",
    ) -> None:
        if rule not in RULES:
            raise EnvError(f"unknown ScienceWorld success rule {rule!r}; use one of: {', '.join(RULES)}")
        self.rule = rule
        self.task, self.variation = parse_episode(episode)
        self.episode = f"{self.task.name}/{self.variation}"
        self.task_type: str | None = self.task.name
        self.max_steps = int(max_steps)
        self.simplifications = simplifications_for(self.task, setting)
        self._simulator = simulator
        self.score = 0
        self.last_score = 0  # the simulator's score after the last step (`score` is the best one under "paper")
        self.score_log = []
        self.failure = ""  # why the simulator ended the episode, when it did
        self._steps = 0
        self._completed = False
        self._started = False
        self._check_variation(cached_only=True)  # `boil/9999` is refused before anything opens
        if simulator is None and shutil.which("java") is None:  # the wrapper starts `java` from PATH
            raise EnvError(JAVA_HINT)  # said now, not when the console is open and the JVM will not start

    @property
    def simulator(self) -> Simulator:
        if self._simulator is None:
            self._simulator = shared_simulator()
        return self._simulator

    def _check_variation(self, cached_only: bool = False) -> None:
        """Refuse a variation the task does not have: from the cached lists (no JVM), else the simulator."""
        maximum = cached_count(self.task.name)
        if maximum is None and cached_only:
            return  # checked at reset, when the JVM is up anyway
        if maximum is None:
            maximum = self.simulator.call("the variation count", lambda e: int(e.get_max_variations(self.task.name)))
        if not 0 <= self.variation < maximum:
            raise EnvError(
                f"no variation {self.variation} of {self.task.name}: it has {self.task.name}/0 .. "
                f"{self.task.name}/{maximum - 1}"
            )

    def reset(self) -> Reset:
        self._check_variation()
        self.simulator.load(self.task.name, self.variation, self.simplifications)
        observation, description = self.simulator.reset()
        instruction = description.strip()
        if instruction.startswith(TASK_PREFIX):
            instruction = instruction[len(TASK_PREFIX):].strip()
        self.score, self.last_score, self.score_log, self.failure = 0, 0, [], ""
        self._steps, self._completed, self._started = 0, False, True
        observation = observation.strip()
        return Reset(instruction=instruction, observation=observation, raw=f"{description.strip()}\n\n{observation}")

    def step(self, action: str) -> str:
        refused = self._begin_step()
        if refused:
            return refused
        try:
            return self._end_step(*self.simulator.step(action.strip()))
        except SimulatorError as exc:
            return self._failed(exc)

    async def step_async(self, action: str) -> str:
        """`step` for an engine on an event loop: it awaits the simulator's thread instead of
        blocking one of its own (`agent.runtime.stepper.Stepper` prefers this when an env has it)."""
        refused = self._begin_step()
        if refused:
            return refused
        try:
            return self._end_step(*await self.simulator.step_async(action.strip()))
        except SimulatorError as exc:
            return self._failed(exc)

    def _begin_step(self) -> str:
        """Count the step; or why no step is taken ('' when it is)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self.done:
            return f"The episode is over ({self.end_reason}); no more actions are accepted."
        self._steps += 1
        return ""

    def _end_step(self, observation: str, score: int, completed: bool) -> str:
        if score != self.last_score:
            self.score_log.append((self._steps, self.last_score, score))
        self.last_score, self._completed = score, completed
        self.score = max(self.score, score) if self.rule == "paper" else score
        return observation

    def _failed(self, exc: SimulatorError) -> str:
        self.failure = str(exc)
        return f"(simulator error: {exc})"

    @property
    def end_reason(self) -> str:
        if self.failure:
            return self.failure
        if self.won:
            return "the task was completed"
        if self.last_score < 0:
            return "the task failed (negative score)"
        if self._completed:
            return "the simulator ended the task"
        return f"the step limit ({self.max_steps}) was reached"

    @property
    def done(self) -> bool:
        return (bool(self.failure) or self.won or self.last_score < 0 or self._completed
                or self._steps >= self.max_steps)

    @property
    def won(self) -> bool:
        if self.rule == "paper":
            return self._completed and self.last_score > 0 and not self.failure
        return self.last_score >= 100

    @property
    def steps(self) -> int:
        return self._steps

    def inventory(self) -> str:
        """What the agent carries (a free action: no step is counted)."""
        return self.simulator.inventory()

    def valid_actions(self) -> list[str]:
        """Fetched only when asked: listing them costs the wrapper ~40 ms a step."""
        return self.simulator.valid_actions()

    def is_invalid(self, observation: str) -> bool:
        """ScienceWorld answers a command it does not parse with "No known action matches that input."."""
        return observation.lstrip().startswith(NO_KNOWN_ACTION)

    def close(self) -> None:
        self._started = False  # the JVM stays up for the next episode

    def __repr__(self) -> str:
        rule = f", rule={self.rule!r}" if self.rule != "win" else ""
        return f"SciWorldEnv({self.episode!r}, max_steps={self.max_steps}, simplifications={self.simplifications!r}{rule})"
