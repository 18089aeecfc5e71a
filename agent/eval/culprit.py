"""Which node's code went wrong in a failed run: the rule behind the failure summary's first column.

Where a run ends is rarely where it went wrong: a `clean_at_sink` whose body
walks to the sink and sets `cleaned = True` completes without complaint, and
the run stops later, in whatever stub came next. The rule, in order:

1. A task named by its action (clean, heat, cool) whose action was never sent:
   the deepest node whose code calls a function named for that action
   (`clean_at_sink(...)`, `heat_it(...)`) and whose whole body ran to the end
   without sending it. That body was the one place meant to send the action,
   and it claimed to be done. Ties go to the node that started first.
2. Else a node that raised and never completed afterwards (no repair fixed it), but for the limit
   that ended the run (a step limit is raised by whatever node ran then).
3. Else, for a run the rewrite limit ended, the node whose answers were refused (with the last reason).
4. Else, for a run whose last steps all got the same observation (`Nothing happens.` nine times),
   the node that sent the first of them: the turn where the run stopped getting anywhere, not the
   root that contains it (what the baselines, whose turns hang under the root, need).
5. Else none: the summary falls back to where the run ended.

The facts come from the agent's events (`NodeFacts`, kept by
`agent.eval.failure.FailureTrace`); this module is pure.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

CALLED = re.compile(r"\b([A-Za-z_]\w*)\(")


@dataclass
class NodeFacts:
    """What a run's events said about its nodes."""

    codes: dict[str, str] = field(default_factory=dict)
    depths: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # nodes in the order they started or were found
    children: dict[str, list[str]] = field(default_factory=dict)
    completed: set[str] = field(default_factory=set)
    sent: dict[str, set[str]] = field(default_factory=dict)  # node -> the verbs of the actions it sent
    errors: dict[str, str] = field(default_factory=dict)  # node -> its last error, while it stays failed
    refused: dict[str, str] = field(default_factory=dict)  # node -> the reason its last answer was refused
    # the run's trailing stretch of steps with one observation: {node, action, observation, count}
    stuck: dict[str, Any] | None = None

    def stepped(self, node: str, action: str, observation: str) -> None:
        """One step: it extends the trailing stretch of equal observations, or starts a new one."""
        if self.stuck is not None and self.stuck["observation"] == observation:
            self.stuck["count"] += 1
        else:
            self.stuck = {"node": node, "action": action, "observation": observation, "count": 1}

    def saw(self, node: str, code: str, depth: int) -> None:
        if node not in self.codes:
            self.order.append(node)
        self.codes[node] = code
        self.depths[node] = depth

    def ran_to_end(self, node: str) -> bool:
        """Completed itself, or expanded into a body whose every node ran to the end."""
        if node in self.completed:
            return True
        kids = self.children.get(node) or []
        return bool(kids) and all(self.ran_to_end(k) for k in kids)

    def verbs_below(self, node: str) -> set[str]:
        verbs = set(self.sent.get(node, set()))
        for kid in self.children.get(node) or []:
            verbs |= self.verbs_below(kid)
        return verbs


def called_names(code: str) -> list[str]:
    """The functions a node's code calls, in order (not words inside its strings)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # a fragment: the names before a `(`, strings left out
        return CALLED.findall(re.sub(r"(\"[^\"]*\"|'[^']*')", "", code))
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset))
    names = []
    for call in calls:
        if isinstance(call.func, ast.Name):
            names.append(call.func.id)
        elif isinstance(call.func, ast.Attribute):
            names.append(call.func.attr)
    return names


def _named_for(code: str, verb: str) -> str | None:
    """The first function the code calls whose name holds the verb (`clean_at_sink` for clean)."""
    return next((name for name in called_names(code) if verb in name.lower() and name != "run"), None)


STUCK_STEPS = 3  # the fewest equal observations at a run's end that count as getting nowhere


def went_wrong(facts: NodeFacts, task_type: str | None, verbs_sent: set[str],
               action_types: frozenset[str], reason: str = "") -> dict[str, Any] | None:
    """The node whose code went wrong, by the rule above: {node, name, code, why}; None when no rule applies."""
    if task_type in action_types and task_type not in verbs_sent:
        verb = str(task_type)
        candidates = [n for n in facts.order
                      if _named_for(facts.codes.get(n, ""), verb) and facts.ran_to_end(n)
                      and verb not in facts.verbs_below(n)]
        if candidates:
            node = max(candidates, key=lambda n: (facts.depths.get(n, 0), -facts.order.index(n)))
            code = facts.codes.get(node, "")
            return {"node": node, "name": _named_for(code, verb), "code": code,
                    "why": f"its body ran to the end without sending `{verb}`"}
    # the limit that ended the run (a step limit) is raised by whatever ran then: where it ended, not where it went wrong
    failed = [n for n in facts.order if n in facts.errors and n not in facts.completed
              and not (reason and reason in facts.errors[n])]
    if failed:
        node = failed[-1]
        code = facts.codes.get(node, "")
        name = (code.strip().splitlines() or [""])[0][:60]
        return {"node": node, "name": name, "code": code, "why": f"raised: {facts.errors[node]}"}
    refused = [n for n in facts.order if n in facts.refused]
    if reason.startswith("rewrite limit") and refused:
        node = refused[-1]
        code = facts.codes.get(node, "")
        name = (code.strip().splitlines() or [""])[0][:60]
        return {"node": node, "name": name, "code": code, "why": f"answers refused: {facts.refused[node][:200]}"}
    stuck = facts.stuck
    if stuck is not None and stuck["count"] >= STUCK_STEPS:
        node = str(stuck["node"])
        code = facts.codes.get(node, "")
        name = (code.strip().splitlines() or [""])[0][:60]
        return {"node": node, "name": name, "code": code,
                "why": f"`{stuck['action']}` → `{stuck['observation'][:80]}` and the same ×{stuck['count']} to the end"}
    return None
