"""Prompt sets and what every agent's prompt shares: the run's context, retry notes, rejected answers.

The texts live in a *prompt set*, a folder of plain files, so that people can
author them (string.Template, since code is full of braces), and per environment
`<env>/actions.txt` and `<env>/examples/<task_type>.txt`. Each agent has its own
set (its `default_prompts`); ReCode builds its expansion prompt in
`agent.agents.recode.prompt`.

Besides the stub and its variables, a template may use the run's context
(`$task`, `$recent_actions`, `$steps_left`, `$max_steps`, see PromptContext):
a template that does not mention a field simply does not show it, which is how
the `paper` set keeps the paper's prompts (a sub-call sees only its arguments).
"""

from __future__ import annotations

import hashlib
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Iterable

from agent.runtime.code import InvalidAnswer, parse_answer
from agent.runtime.events import ObservationReceived, RunStarted
from agent.runtime.verdict import oversized

# The set a `PromptSet()` without a folder reads: the default agent's (ReCode's) bundled one,
# named by its path so that the runtime imports no agent.
DEFAULT_PROMPTS = Path(__file__).parent.parent / "agents" / "recode" / "prompts" / "default"



def moved_prompt_set(path: Path) -> Path:
    """Where a bundled set named by its old path now lives; any other path as it is.

    ReCode's sets once lived at `<checkout>/agent/prompts/<name>`, and
    journals, eval reports and scripts (`--prompts agent/prompts/paper`) name them so. A folder
    that still exists at such a path is the user's own and is kept.
    """
    if path.parts[-3:-1] == ("agent", "prompts") and not path.exists():
        moved = DEFAULT_PROMPTS.parent / path.name
        if moved.is_dir():
            return moved
    return path


RECENT_KEEP = 4  # actions shown in $recent_actions
RECENT_OBSERVATION_LIMIT = 300  # characters of each of their observations
NO_ACTIONS_YET = "(none yet: no action has been sent in this run)"
CONTEXT_FIELDS = ("task", "recent_actions", "steps_left", "max_steps")


@dataclass(frozen=True)
class PromptContext:
    """Where the run stands when a stub is expanded: what a sub-call cannot see in its arguments.

    A sub-call's variables are only its own arguments; after `heat_it(obj)` the
    placing step cannot tell from them whether heating worked or where the
    agent stands. These fields say so, for templates that want them.
    """

    task: str = ""
    recent: tuple[tuple[str, str], ...] = ()  # (action, observation), oldest first
    steps_left: int | None = None
    max_steps: int | None = None
    texts: tuple[tuple[str, str], ...] = ()  # field texts read back from a recorded prompt; they win

    def fields(self) -> dict[str, str]:
        """The template fields, as text."""
        return {
            "task": self.task.strip() or "(unknown)",
            "recent_actions": format_recent(self.recent),
            "steps_left": "unknown" if self.steps_left is None else str(self.steps_left),
            "max_steps": "unknown" if self.max_steps is None else str(self.max_steps),
            **dict(self.texts),
        }

    @classmethod
    def recorded(cls, texts: dict[str, str]) -> "PromptContext":
        """The context a recorded prompt showed, to render it again exactly."""
        return cls(texts=tuple(sorted(texts.items())))


def format_recent(recent: Iterable[tuple[str, str]]) -> str:
    """`> action` then its observation, oldest first; each observation cut at a limit that says so."""
    lines: list[str] = []
    for action, observation in recent:
        text = " ".join(observation.split())
        if len(text) > RECENT_OBSERVATION_LIMIT:
            text = f"{text[:RECENT_OBSERVATION_LIMIT]}... [display cut]"
        lines += [f"> {action}", text]
    return "\n".join(lines) if lines else NO_ACTIONS_YET


class RecentActions:
    """Keeps the last few actions and their observations, as an agent observer."""

    def __init__(self, keep: int = RECENT_KEEP) -> None:
        self.keep = keep
        self.items: list[tuple[str, str]] = []

    def observe(self, event: Any) -> None:
        if isinstance(event, RunStarted):
            self.items.clear()
        elif isinstance(event, ObservationReceived):
            self.items.append((event.action, event.observation))
            del self.items[: -self.keep]

    def last(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.items)


ENV_TEXTS = Path(__file__).resolve().parents[2] / "envs"  # envs/<env>/actions.txt and facts.txt
ENV_FILES = ("actions.txt", "facts.txt")


def env_digest(digest: Any) -> None:
    """Add the shared environment texts to a prompt set's hash: they are part of its prompts."""
    for path in sorted(p for name in ENV_FILES for p in ENV_TEXTS.glob(f"*/{name}")):
        digest.update(str(path.relative_to(ENV_TEXTS)).encode())
        digest.update(path.read_bytes())


def env_text(env_name: str, name: str) -> str:
    """An environment's own prompt text, shared by every agent: `envs/<env>/<name>` ('' when it has none).

    One action list and one file of facts per environment, so no agent knows more about an
    environment than another (a plug-in environment may keep them beside its module).
    """
    path = env_path(env_name, name)
    return path.read_text(encoding="utf-8").strip() if path is not None else ""


def env_path(env_name: str, name: str) -> Path | None:
    """Where an environment keeps its own `name` (`envs/<env>/`, or beside a plug-in's provider), or None."""
    path = ENV_TEXTS / env_name / name
    if not path.is_file():
        try:
            from envs import registry

            module = importlib.import_module(type(registry.provider(env_name)).__module__)
            path = Path(module.__file__ or "").parent / name
        except Exception:  # noqa: BLE001 - an unknown environment has no texts
            return None
    return path if path.exists() else None


class PromptFileMissing(ValueError):
    """A prompt file the prompt needs is in neither the prompt set nor the environment; the message names it."""


def kindred_task_types(env_name: str, task_type: str) -> tuple[str, ...]:
    """The other task types of `task_type`'s topic, when the environment's provider has topics
    (`topic_of`); () otherwise. Examples are written per topic, so a task borrows its topic's."""
    try:
        from envs import registry

        provider = registry.provider(env_name)
        topic = provider.topic_of(task_type)
        if topic is None:
            return ()
        return tuple(t for t in provider.task_types if t != task_type and provider.topic_of(t) == topic)
    except Exception:  # noqa: BLE001 - an unknown environment or task type has no kin
        return ()


def _example_order(env_name: str, task_type: str | None) -> tuple[str, ...]:
    return (task_type, *kindred_task_types(env_name, task_type)) if task_type else ()


@dataclass
class PromptSet:
    """A folder of prompt texts; files are read once and cached."""

    root: Path = DEFAULT_PROMPTS
    _cache: dict[str, str] = field(default_factory=dict, repr=False)
    _hash: str = field(default="", repr=False)

    def text(self, relative: str) -> str:
        """A file of the set; `<env>/actions.txt` and `<env>/facts.txt` the set does not have are the
        environment's own, shared by every agent (`env_text`). A file found nowhere is an error
        naming it (`PromptFileMissing`): a prompt must not lose a section silently."""
        found = self.optional(relative)
        if found is None:
            raise PromptFileMissing(self._missing(relative))
        return found

    def optional(self, relative: str) -> str | None:
        """A file the caller can do without (per-type examples, facts): its text, or None when absent."""
        if relative not in self._cache:
            path = self.root / relative
            if path.is_file():
                self._cache[relative] = path.read_text(encoding="utf-8")
            else:
                env_name, _, name = relative.partition("/")
                own = env_path(env_name, name) if name in ENV_FILES else None
                if own is None:
                    return None
                self._cache[relative] = own.read_text(encoding="utf-8").strip()
        return self._cache[relative]

    def _missing(self, relative: str) -> str:
        env_name, _, name = relative.partition("/")
        beside = (f" (nor has the {env_name} environment its own {name} in envs/{env_name}/ or beside its "
                  "provider's module)") if name in ENV_FILES else ""
        return f"prompt file {self.root / relative} does not exist{beside}; add it or use another --prompts"

    def actions(self, env_name: str) -> str:
        """The environment's action list: the one every agent shares (`envs/<env>/actions.txt`), unless
        this set has its own (`<env>/actions.txt`, e.g. the paper's set keeps the paper's). Required."""
        return self.text(f"{env_name}/actions.txt").strip()

    def facts(self, env_name: str) -> str:
        """What every agent is told about the environment (`envs/<env>/facts.txt`), unless this set
        has its own `<env>/facts.txt`; '' for an environment with no facts."""
        return (self.optional(f"{env_name}/facts.txt") or "").strip()

    def examples(self, env_name: str, task_type: str | None, required: bool = True, folder: str = "examples") -> str:
        """The few-shot examples for a task type: its own file, else the file of a task type of the
        same topic (ScienceWorld's 30 tasks share 10 topics, so the prompt shows one example, not
        all), else every file of the folder. None at all is an error naming the folder, unless not
        `required` (an agent that shows "(no examples)")."""
        for kind in _example_order(env_name, task_type):
            specific = (self.optional(f"{env_name}/{folder}/{kind}.txt") or "").strip()
            if specific:
                return specific
        where = self.root / env_name / folder
        files = sorted(where.glob("*.txt")) if where.is_dir() else []
        if files:
            return "\n---\n".join(self.text(f"{env_name}/{folder}/{f.name}").strip() for f in files)
        if not required:
            return ""
        own = env_path(env_name, folder)  # a plug-in environment's own, in the default agent's (ReCode's) format
        if own is not None and own.is_dir() and any(own.glob("*.txt")):
            chosen = own / f"{task_type}.txt" if task_type else None
            files = [chosen] if chosen is not None and chosen.is_file() else sorted(own.glob("*.txt"))
            return "\n---\n".join(f.read_text(encoding="utf-8").strip() for f in files)
        raise PromptFileMissing(f"prompt set {self.root} has no examples for {env_name} "
                                f"({where}/*.txt); add some or use another --prompts")

    def example_file(self, env_name: str, name: str, task_type: str | None) -> str:
        """A multi-part agent's examples (`planner_examples`, ...): the task type's (or its topic's)
        `<env>/<name>/<type>.txt`, else the one `<env>/<name>.txt` every type shares ("" when none)."""
        for kind in _example_order(env_name, task_type):
            specific = (self.optional(f"{env_name}/{name}/{kind}.txt") or "").strip()
            if specific:
                return specific
        shared = (self.optional(f"{env_name}/{name}.txt") or "").strip()
        return shared or self.examples(env_name, None, required=False, folder=name)

    def content_hash(self) -> str:
        """A short hash of every file: which prompt texts produced an expansion.

        Computed once, like the texts are read once: the journal asks for it at
        every expansion.
        """
        if not self._hash:
            digest = hashlib.sha256()
            for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
                digest.update(str(path.relative_to(self.root)).encode())
                digest.update(path.read_bytes())
            env_digest(digest)
            self._hash = digest.hexdigest()[:12]
        return self._hash


def window_text(window: int, unit: str) -> str:
    """How much history a prompt keeps, as its heading says it (ReAct's turns, CodeAct's cells)."""
    return f"the last {window} {unit}s are shown" if window > 0 else f"every {unit} is shown"


REJECTED_LINES = 20  # lines of a rejected answer a retry prompt shows
REJECTED_LINE_CHARS = 300  # characters of each such line: a 1 MB one-line answer must not become a 1 MB prompt


def _cut(line: str) -> str:
    if len(line) <= REJECTED_LINE_CHARS:
        return line
    return f"{line[:REJECTED_LINE_CHARS]}[... {len(line) - REJECTED_LINE_CHARS:,} more characters]"


def rewrite_note(prompts: PromptSet, reason: str, answer: str = "") -> str:
    """Appended to the same prompt when the previous answer was rejected: `$answer` is the rejected
    answer as `rejected_text` or `rejected_code` shows it, `$reason` why it was rejected.

    A template without `$answer` (an older prompt set) still shows the answer, under its heading:
    the rule for a rejected answer is the same for every agent and every prompt set.
    """
    template = prompts.text("rewrite_note.txt")
    reason = "\n".join(_cut(line) for line in reason.splitlines()[:REJECTED_LINES])  # a reason may quote the answer
    note = Template(template).safe_substitute(reason=reason, answer=answer).strip()
    if answer and "$answer" not in template:
        heading, sep, rest = note.partition("\n")
        note = f"{heading}\n\n{answer}\n{sep}{rest}" if heading.startswith("#") else f"{answer}\n\n{note}"
    return "\n\n" + note + "\n"


def _shown_lines(lines: list[str], focus: int | None = None, limit: int = REJECTED_LINES) -> tuple[int, int]:
    """The 1-based range of lines to show: the first `limit`, or a window around line `focus` past them."""
    if len(lines) <= limit or focus is None or focus <= limit:
        return 1, min(len(lines), limit)
    start = max(1, min(focus - limit // 2, len(lines) - limit + 1))
    return start, min(len(lines), start + limit - 1)


def _range_note(first: int, last: int, total: int, what: str) -> str:
    if first == 1 and last == total:
        return f"{what} ({total} line{'s' if total != 1 else ''})"
    return f"{what}, lines {first}-{last} of {total}"


def rejected_text(answer: str) -> str:
    """A rejected answer as a retry prompt shows it: its first lines, as written, between marks."""
    lines = answer.strip("\n").splitlines() or ["(empty answer)"]
    first, last = _shown_lines(lines)
    shown = [_cut(line) for line in lines[first - 1:last]]
    more = "" if last == len(lines) else f"\n[... {len(lines) - last} more lines not shown]"
    return (f"{_range_note(first, last, len(lines), 'Your rejected answer')}:\n-----\n"
            + "\n".join(shown) + more + "\n-----")


_LINE_REF = re.compile(r"\bline (\d+)")


def rejected_code(answer: str, reason: str) -> tuple[str, str]:
    """A rejected code answer (ReCode, CodeAct) as a retry prompt shows it, and the reason with its
    line numbers counted from the first line of the code (the first line inside <execute>), the
    numbers the shown code carries. An answer with no code to find, or too big to parse, is shown
    as `rejected_text`."""
    if oversized(answer) is not None:
        return rejected_text(answer), reason
    try:
        parsed = parse_answer(answer)
    except InvalidAnswer:
        return rejected_text(answer), reason
    lines = parsed.code.splitlines()
    if not lines:
        return rejected_text(answer), reason
    offset = parsed.first_line - 1

    def renumber(match: re.Match[str]) -> str:
        number = int(match.group(1)) - offset
        return f"line {number}" if number >= 1 else match.group(0)

    reason = _LINE_REF.sub(renumber, reason)
    cited = [int(m.group(1)) for m in _LINE_REF.finditer(reason)]
    first, last = _shown_lines(lines, cited[0] if cited else None)
    width = len(str(last))
    body = "\n".join(f"{n:>{width}} | {_cut(lines[n - 1])}" for n in range(first, last + 1))
    more = "" if last == len(lines) else f"\n[... {len(lines) - last} more lines not shown]"
    title = _range_note(first, last, len(lines), "The code of your rejected answer")
    return (f"{title}, numbered from its first line (the numbers are not part of the code):\n-----\n"
            f"{body}{more}\n-----"), reason


