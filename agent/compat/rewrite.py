"""Rewrite imports of the old flat `agent` paths to where the code lives now.

    python -m agent.compat.rewrite FILE_OR_FOLDER...

For a branch or plug-in written before the layout change (issue 26): the old paths
still import (see `agent.compat`), but a type checker and a reader want the new ones.
Whole moves follow `MOVED`; the three modules that were split (`agent.prompt`,
`agent.codeblocks`, `agent.answer_rule`) are rewritten name by name (`SPLIT`).
Prints each file it changed; running it twice changes nothing the second time.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from agent.compat import MOVED

# split module -> (names that went to the first module, that module, where the rest went)
SPLIT: dict[str, tuple[frozenset[str], str, str]] = {
    "agent.answer_rule": (frozenset({"Verdict", "MAX_ANSWER_CHARS", "oversized"}), "agent.runtime.verdict",
                          "agent.agents.recode.answer_rule"),
    "agent.codeblocks": (frozenset({"validate", "stub_name_of"}), "agent.agents.recode.codeblocks", "agent.runtime.code"),
    "agent.prompt": (frozenset({"PAPER_PROMPTS", "CallArguments", "call_arguments", "build_expand_prompt",
                                "build_repair_prompt"}), "agent.agents.recode.prompt", "agent.runtime.prompts"),
}
_WHOLE = {old: new for old, new in MOVED.items() if old not in SPLIT}
_DOTTED = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in sorted(_WHOLE, key=len, reverse=True)) + r")(?!\w)")
_FROM_AGENT = re.compile(r"^(\s*)from agent import (\w+)(\s+as\s+\w+)?(\s*(?:#.*)?)$", re.M)


def _split_imports(text: str) -> str:
    """`from agent.prompt import A, b` -> one import per module the names now live in."""
    lines = text.split("\n")
    edits = []
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in SPLIT):
            continue
        first_names, first, rest = SPLIT[node.module]
        groups: dict[str, list[str]] = {}
        for alias in node.names:
            target = first if alias.name in first_names else rest
            groups.setdefault(target, []).append(alias.name + (f" as {alias.asname}" if alias.asname else ""))
        head = lines[node.lineno - 1]
        indent = head[: len(head) - len(head.lstrip())]
        new = [f"{indent}from {module} import {', '.join(names)}" for module, names in sorted(groups.items())]
        edits.append((node.lineno - 1, node.end_lineno or node.lineno, new))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = new
    return "\n".join(lines)


def _from_agent(match: re.Match[str]) -> str:
    """`from agent import events as ev` -> `from agent.runtime import events as ev`."""
    indent, name, alias, tail = match.group(1), match.group(2), match.group(3) or "", match.group(4) or ""
    new = _WHOLE.get(f"agent.{name}")
    if new is None:
        return match.group(0)
    package, _, leaf = new.rpartition(".")
    alias = alias or (f" as {name}" if leaf != name else "")
    return f"{indent}from {package} import {leaf}{alias}{tail}"


def rewrite(text: str) -> str:
    """The source with every old module path replaced by its new one."""
    text = _split_imports(text)
    text = _FROM_AGENT.sub(_from_agent, text)
    return _DOTTED.sub(lambda m: _WHOLE[m.group(1)], text)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m agent.compat.rewrite FILE_OR_FOLDER...", file=sys.stderr)
        return 2
    for given in argv:
        root = Path(given)
        if not root.exists():
            print(f"{given}: no such file or folder", file=sys.stderr)
            return 2
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            text = path.read_text(encoding="utf-8")
            new = rewrite(text)
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
