"""What an environment accepts as one action, as far as its grammar says.

ReAct answers with one action in words; a malformed one ("go to the desk",
"take it") would cost a step and teach the model nothing, so it is re-asked
with the reason instead (WebShop's `search[...]`/`click[...]` as much as
ALFWorld's and ScienceWorld's commands). The check is the environment's command grammar (its
verbs and their argument shapes), not whether the action makes sense in the
current state: an action the grammar allows but the state does not ("take
apple 1 from desk 1" when the apple is elsewhere) is sent, and the observation
says so, as in the ReAct paper. With the `admissible` level an environment
that lists the commands valid now (ALFWorld) is held to that list.

Every agent that answers with an action in words checks it here, with the
same `check` option: ReAct's turn, Plan-and-Execute's executor, ReCAP's
first (sent) action item.
"""

from __future__ import annotations

import re
from typing import Any


_OBJ = r"[a-z][a-z-]*(?: [a-z][a-z-]*)* \d+"  # ALFWorld names: a kind and a number, "desk 1"

ALFWORLD_TEMPLATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(f"^{pattern}$"), shape)
    for pattern, shape in (
        (f"go to {_OBJ}", "go to {recep}"),
        (f"open {_OBJ}", "open {recep}"),
        (f"close {_OBJ}", "close {recep}"),
        (f"take {_OBJ} from {_OBJ}", "take {obj} from {recep}"),
        (f"(?:put {_OBJ} (?:in/on|in|on|into|onto)|move {_OBJ} to) {_OBJ}", "move {obj} to {recep}"),
        (f"heat {_OBJ} with {_OBJ}", "heat {obj} with {microwave}"),
        (f"cool {_OBJ} with {_OBJ}", "cool {obj} with {fridge}"),
        (f"clean {_OBJ} with {_OBJ}", "clean {obj} with {sinkbasin}"),
        (f"use {_OBJ}", "use {lamp}"),
        (f"examine {_OBJ}", "examine {obj|recep}"),
        ("look", "look"),
        ("inventory", "inventory"),
    )
)

_THING = r"\S.*"
SCIWORLD_TEMPLATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(f"^{pattern}$"), shape)
    for pattern, shape in (
        ("look around", "look around"),
        (f"look (?:at|in) {_THING}", "look at {obj} / look in {container}"),
        (f"(?:go|teleport) to {_THING}", "go to {location} / teleport to {location}"),
        (f"(?:open|close) {_THING}", "open {obj} / close {obj}"),
        (f"(?:pick up|put down) {_THING}", "pick up {obj} / put down {obj}"),
        (f"move {_THING} to {_THING}", "move {obj} to {container}"),
        (f"(?:pour|dunk) {_THING} (?:into|in) {_THING}", "pour {obj} into {container}"),
        (f"(?:mix|activate|deactivate|focus on|read|eat|flush|examine|disconnect) {_THING}", "activate {device}"),
        (f"use {_THING}", "use {tool} on {obj}"),
        (f"connect {_THING} to {_THING}", "connect {obj} to {obj}"),
        (r"wait\d*", "wait / wait1"),
        ("inventory", "inventory"),
        ("task", "task"),
        (r"\d+", "a number, to answer the simulator's 'which one?' question"),
    )
)

# WebShop's two verbs as the original parses them (`(.+)\[(.+)\]`, greedy): one `[`, a non-empty argument.
# The verb is matched as written ("Click[...]" does nothing in the original); the paper's copy of the
# site (`webshop-paper`) lower-cases it first.
_WEBSHOP_SHAPES = (("search", "search[{query}]"), ("click", "click[{button, as the page writes it}]"))
WEBSHOP_TEMPLATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"^{verb}\[[^\[]*[^\[\s][^\[]*\]$"), shape) for verb, shape in _WEBSHOP_SHAPES
)
WEBSHOP_PAPER_TEMPLATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"^(?i:{verb})\[[^\[]*[^\[\s][^\[]*\]$"), shape) for verb, shape in _WEBSHOP_SHAPES
)

TEMPLATES: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    "alfworld": ALFWORLD_TEMPLATES,
    "sciworld": SCIWORLD_TEMPLATES,
    "webshop": WEBSHOP_TEMPLATES,
    "webshop-paper": WEBSHOP_PAPER_TEMPLATES,
}
AS_WRITTEN = frozenset({"webshop", "webshop-paper"})  # matched on the action as sent (its case matters)

LEVELS = ("grammar", "admissible", "off")


def normalize(action: str) -> str:
    """The action as the environments read it: lower case, single spaces, no final full stop."""
    text = " ".join(action.strip().strip("`'\"").split()).lower()
    return text.rstrip(".").rstrip()


def action_problem(env: Any, action: str, level: str = "grammar") -> str:
    """Why `env` would not take `action` ('' when it would, or when the environment cannot say)."""
    if level == "off":
        return ""
    if level not in LEVELS:
        return f"unknown check level {level!r}; use one of {', '.join(LEVELS)}"
    text = normalize(action)
    name = env.name
    templates = TEMPLATES.get(name)
    written = action.strip() if name in AS_WRITTEN else text
    if templates is not None and not any(pattern.match(written) for pattern, _ in templates):
        shapes = ", ".join(dict.fromkeys(shape for _, shape in templates))
        return f"`{action}` is not an action of {name}; the actions are: {shapes}"
    if level == "admissible":
        admissible = _admissible(env)
        if admissible and text not in admissible and _translated(env, text) not in admissible:
            shown = ", ".join(admissible[:12]) + (", ..." if len(admissible) > 12 else "")
            return f"`{action}` cannot be done now; the commands available now are: {shown}"
    return ""


def _admissible(env: Any) -> list[str]:
    try:
        return list(env.admissible_commands or [])
    except Exception:  # noqa: BLE001 - an environment that cannot list them: no check
        return []


def _translated(env: Any, text: str) -> str:
    try:
        return str(env.translate(text))
    except Exception:  # noqa: BLE001
        return text


def action_line(text: str, key: str) -> int | None:
    """The number of the first line of `text` that starts with `key` (`Action`, a list's `1`), for the editor."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().lower().lstrip("*").startswith(key.lower()):
            return number
    return None
