"""One home per name: every name is imported from the module that defines it.

A module that hands on another's names (`from agent.runtime.limits import Limits` only to list it in
`__all__` or to be imported from there) gives a name several import paths: `Limits` had three, and a
reader cannot tell which is the name's own. A package's `__init__` holds only what it defines (the agent
registry).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "envs", "mockllm", "recode_tui")


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """A module's own statements, those under a module-level `if` or `try` included (not a function's)."""
    found, work = [], list(tree.body)
    while work:
        statement = work.pop(0)
        found.append(statement)
        if isinstance(statement, ast.If):
            work += statement.body + statement.orelse
        elif isinstance(statement, ast.Try):
            work += statement.body + [s for h in statement.handlers for s in h.body] + statement.orelse
    return found


def _defined(tree: ast.Module) -> tuple[set[str], list[str]]:
    """The names a module binds itself (def, class, assignment; not an import) and its literal `__all__`."""
    names: set[str] = set()
    listed: list[str] = []
    for statement in _module_level(tree):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and statement.value is not None:
                listed = [c.value for c in ast.walk(statement.value) if isinstance(c, ast.Constant)
                          and isinstance(c.value, str)]
    return names - {"__all__"}, listed


def _from_module(importer: str, node: ast.ImportFrom, is_package: bool) -> str:
    """The absolute module of a `from ... import` (relative imports resolved against `importer`)."""
    if node.level == 0:
        return node.module or ""
    base = importer.split(".")[: None if is_package else -1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """Every statement of a module, those in functions, classes and blocks included.

    An import is a statement: this walk skips the expressions, most of a module's nodes, that `ast.walk`
    would visit (the rule's whole cost was that walk).
    """
    work: list[ast.stmt] = list(tree.body)
    while work:
        statement = work.pop()
        yield statement
        for field in ("body", "orelse", "finalbody"):
            work += getattr(statement, field, ())
        for handler in getattr(statement, "handlers", ()):
            work += handler.body
        for case in getattr(statement, "cases", ()):
            work += case.body


# Modules whose job is to hand on names: the Python API (`recode_tui.api`) gives a researcher the types its
# functions return (`EvalReport`, `Journal`, `UsageError`) from the one module they import.
PUBLIC_FACES = frozenset({"recode_tui.api"})


def reexported_names(root: Path = ROOT) -> list[str]:
    """`module.name` for each name a module of ours hands on without defining it.

    How it counts: a module M re-exports `name` when M does not bind `name` itself (no def, class or
    assignment at module level: M only imports it, or serves it from a `__getattr__`) and either M's
    literal `__all__` lists it or some file (the packages, tests/, benchmarks/) does `from M import
    name`. A submodule (`from agent.sandbox import budgets`) is not a name. Reads the files with `ast`;
    `import M` followed by `M.name` is not counted.
    """
    files = {path: ".".join(path.relative_to(root).with_suffix("").parts) for folder in (*PACKAGES, "tests", "benchmarks")
             for path in (root / folder).rglob("*.py")}
    files = {path: name.removesuffix(".__init__") for path, name in files.items()}
    ours: dict[str, tuple[set[str], list[str]]] = {}
    imports: list[tuple[str, str, list[str]]] = []  # (importer, module, names) of every `from module import names`
    for path, importer in files.items():
        # One file's tree at a time, kept only while it is read: all 640 alive at once made the garbage
        # collector walk them again and again (half of the rule's CPU).
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if importer.split(".")[0] in PACKAGES:
            ours[importer] = _defined(tree)
        imports += [(importer, _from_module(importer, node, path.name == "__init__.py"), [a.name for a in node.names])
                    for node in _statements(tree) if isinstance(node, ast.ImportFrom)]
    found = {f"{module}.{name}" for module, (names, listed) in ours.items() for name in listed
             if name not in names and f"{module}.{name}" not in ours and module not in PUBLIC_FACES}
    for importer, module, names in imports:
        if module in ours and module != importer and module not in PUBLIC_FACES:
            found |= {f"{module}.{name}" for name in names if name != "*"
                      and name not in ours[module][0] and f"{module}.{name}" not in ours}
    return sorted(found)


# Names handed on by a module that does not define them (`reexported_names`): 167 in 38 modules before
# every caller imported from the defining module. The count may only fall.
MOST_REEXPORTED_NAMES = 0


def test_every_name_is_imported_from_the_module_that_defines_it() -> None:
    """One place to import each name from: no module hands on another's (`Limits` had three homes)."""
    found = reexported_names()
    assert len(found) <= MOST_REEXPORTED_NAMES, found


def test_the_reexport_count_finds_a_name_handed_on(tmp_path: Path) -> None:
    """The counter itself, on a tiny tree: a name listed in `__all__` without being defined, and one that
    another file imports through a module that only imported it, are counted; defined names are not."""
    (tmp_path / "agent" / "inner").mkdir(parents=True)
    (tmp_path / "agent" / "__init__.py").write_text("from agent.inner.home import Limits\n__all__ = ['Limits']\n")
    (tmp_path / "agent" / "inner" / "__init__.py").write_text("")
    (tmp_path / "agent" / "inner" / "home.py").write_text("class Limits: ...\nclass Other: ...\n")
    (tmp_path / "agent" / "inner" / "user.py").write_text("from agent.inner.home import Limits, Other\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from agent.inner.user import Other\nfrom agent.inner import home\n")
    assert reexported_names(tmp_path) == ["agent.Limits", "agent.inner.user.Other"]
