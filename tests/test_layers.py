"""The layers point one way (architecture.md): a UI import in the agent core, an
environment named above `envs/`, or two modules importing each other is a
change a reviewer would send back; these tests say which import did it.

Imports inside functions count: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "envs", "mockllm", "recode_tui")


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every runtime import (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def _offending(packages: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    lines = []
    for name, path in _modules().items():
        if name.split(".")[0] not in packages:
            continue
        for line, imported in _imports(path):
            if any(imported == f or imported.startswith(f + ".") for f in forbidden):
                lines.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    return lines


def test_the_agent_core_imports_no_front_end_and_no_mock_llm() -> None:
    assert _offending(("agent",), ("textual", "recode_tui", "mockllm", "prompt_toolkit")) == []


def test_environments_import_nothing_above_them() -> None:
    assert _offending(("envs",), ("agent", "recode_tui", "mockllm", "textual")) == []


def test_nothing_above_envs_names_an_environment_package() -> None:
    """Everything above `envs/` goes through `envs.registry`: a new environment is one package."""
    assert _offending(("agent", "mockllm", "recode_tui"), ("envs.alfworld", "envs.sciworld", "envs.webshop")) == []


def test_no_two_modules_import_each_other() -> None:
    modules = _modules()

    def resolve(imported: str) -> str | None:
        while imported and imported not in modules:
            imported = imported.rpartition(".")[0]
        return imported or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for _, imported in _imports(path):
            target = resolve(imported)
            # a package importing its own submodules (and they their package's siblings) is not a cycle
            if target and target != name and not name.startswith(target + ".") and not target.startswith(name + "."):
                graph[name].add(target)
    cycles = sorted({tuple(sorted((a, b))) for a in graph for b in graph[a] if a in graph[b]})
    assert cycles == []


def test_each_front_end_has_its_own_folder() -> None:
    """A newcomer knows where a change goes from the folder names: no front-end module loose in recode_tui/."""
    loose = sorted(p.name for p in (ROOT / "recode_tui").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == []
    assert {p.name for p in (ROOT / "recode_tui").iterdir() if p.is_dir() and not p.name.startswith("__")} == {
        "commands", "console", "plain", "web"}


def test_the_optional_extras_are_imported_only_by_their_own_modules() -> None:
    """`pip install recode-tui` without [web] or [ray] must work: only serve and eval --ray import them."""
    owners = {"textual_serve": {"recode_tui.web.serve"}, "aiohttp": {"recode_tui.web.serve"},
              "aiohttp_jinja2": {"recode_tui.web.serve"}, "ray": {"recode_tui.commands.ray_eval"}}
    found = []
    for name, path in _modules().items():
        for line, target in _imports(path):
            top = target.split(".")[0]
            if top in owners and name not in owners[top]:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert found == []
