"""Model routing: a different LLM per role, from one `--llm` spec.

`--llm planner=profile:big,executor=profile:small` is a comma list of ROLE=SPEC
items; an item without a role (`profile:small`) answers every role not named,
and without one the first named role's LLM does. A spec with no ROLE= item is
an ordinary one: that LLM answers every role. The spec is parsed here; the
front end turns each part into an LLM (`RoutedLLM`), and `install` gives each
role of a built agent its own, refusing a role the agent does not have.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Protocol

from agent.llm import LLM, CallContext, Completion

_ROLE_ITEM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(\S.*?)\s*$")


class RoleSlots(Protocol):
    """Where `install` puts a run's LLMs: the main one, and a way to give a role its own.

    A protocol, not the runtime's `RunHandle` (an agent's `host`): the LLM layer sits below the
    runtime and imports none of it.
    """

    llm: LLM

    def set_llm(self, llm: LLM, role: str | None = None) -> None: ...


class RoleError(ValueError):
    """A routed role the agent does not have, or a malformed role list; one line saying what to do."""


def split_spec(spec: str) -> tuple[str | None, dict[str, str]] | None:
    """`(plain spec or None, {role: spec})` for a routing spec; None for an ordinary one."""
    items = spec.split(",")
    if not any(_ROLE_ITEM.match(item) for item in items):
        return None
    plain: str | None = None
    roles: dict[str, str] = {}
    for item in items:
        match = _ROLE_ITEM.match(item)
        if match:
            role, part = match.group(1), match.group(2)
            if role in roles:
                raise RoleError(f"--llm {spec}: the role {role} is given twice; give each role once")
            roles[role] = part
        elif item.strip():
            if plain is not None:
                raise RoleError(f"--llm {spec}: two specs without a role ({plain}, {item.strip()}); "
                                "give one default, the others as ROLE=SPEC")
            plain = item.strip()
        else:
            raise RoleError(f"--llm {spec}: an empty item; write ROLE=SPEC items separated by commas")
    return plain, roles


class RoutedLLM:
    """An LLM per role. As an LLM it is the default one (roles without their own answer through it)."""

    def __init__(self, default: LLM, roles: dict[str, LLM], spec: str) -> None:
        self.default = default
        self.roles = roles
        self.spec = spec
        self.name = spec

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        return await self.default.complete(prompt, context)

    def for_role(self, role: str) -> LLM:
        return self.roles.get(role) or self.default

    def parts(self) -> list[LLM]:
        """The default LLM and each role's, without repeats."""
        seen: list[LLM] = []
        for llm in (self.default, *self.roles.values()):
            if all(llm is not other for other in seen):
                seen.append(llm)
        return seen

    @property
    def inner(self) -> LLM:
        """The LLM every name not defined here is handed to (`agent.llm.WrappingLLM`): the default one."""
        return self.default

    def __getattr__(self, name: str) -> Any:  # a human default's submit/waiting/cancel, a script's entries
        return getattr(self.__dict__["default"], name)  # dynamic: any name the default LLM has


def routed(spec: str, make: Callable[[str], LLM]) -> LLM:
    """The LLM of `spec`: a `RoutedLLM` for a routing spec (each part made once by `make`), else `make(spec)`."""
    split = split_spec(spec)
    if split is None:
        return make(spec)
    plain, roles = split
    made: dict[str, LLM] = {}

    def once(part: str) -> LLM:  # one LLM per distinct spec: a script's `once` answers are shared
        if part not in made:
            made[part] = make(part)
        return made[part]

    role_llms = {role: once(part) for role, part in roles.items()}
    default = once(plain) if plain is not None else next(iter(role_llms.values()))
    return RoutedLLM(default, role_llms, spec)


def check_roles(spec: str, named: list[str], agent_name: str, roles: tuple[str, ...]) -> None:
    """Refuse roles the agent does not have, in one line that lists the ones it has."""
    unknown = [role for role in named if role not in roles]
    if unknown:
        have = ", ".join(r for r in roles if r) or "none (it has one LLM: give --llm SPEC)"
        raise RoleError(f"--llm {spec}: the {agent_name} agent has no role {', '.join(unknown)} (its roles: {have})")


def install(slots: RoleSlots, llm: LLM, agent_name: str, roles: tuple[str, ...]) -> None:
    """Make `llm` the run's LLM (`slots`: an agent's `host`); a `RoutedLLM` gives each named role its own,
    refusing roles the agent `agent_name` (of `roles`) does not have."""
    if not isinstance(llm, RoutedLLM):
        slots.llm = llm
        return
    check_roles(llm.spec, list(llm.roles), agent_name, roles)
    slots.llm = llm.default
    for role, role_llm in llm.roles.items():
        slots.set_llm(role_llm, role)
