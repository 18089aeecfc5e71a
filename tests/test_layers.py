"""The layers point one way (architecture.md): a UI import in the agent core, an
environment named above `envs/`, or two modules importing each other is a
change a reviewer would send back; these tests say which import did it.

Imports inside functions count: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from functools import cache
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


@cache
def _import_nodes(path: Path) -> tuple[tuple[ast.Import | ast.ImportFrom, bool], ...]:
    """A module's absolute import statements, each with whether it sits under `if TYPE_CHECKING:` (either
    branch); the file is read and walked once for all the rules below. Only statements are walked: an import
    is one, so the expressions, most of a module's nodes, are never visited (a sixth of the CPU of ast.walk)."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(statements: list[ast.stmt], typing_only: bool) -> None:
        for node in statements:
            if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
                found.append((node, typing_only))
            inner = typing_only or (isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test))
            for block in _blocks(node):
                visit(block, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")).body, False)
    return tuple(found)


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists right inside a statement: a body, an else, a finally, each except's and case's body."""
    blocks = []
    for _, value in ast.iter_fields(node):
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            blocks.append(value)
        elif isinstance(value, list) and value and isinstance(value[0], (ast.excepthandler, ast.match_case)):
            blocks += [part.body for part in value]
    return blocks


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every runtime import (not under TYPE_CHECKING)."""
    found: list[tuple[int, str]] = []
    for node, typing_only in _import_nodes(path):
        if typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif node.module:
            found.append((node.lineno, node.module))
    return found


def _every_import(path: Path, modules: dict[str, Path]) -> list[tuple[int, str]]:
    """(line, imported module) for every import: module level, inside functions and under TYPE_CHECKING.

    `from package import name` counts as importing `package.name` when that is a module.
    """
    found: list[tuple[int, str]] = []
    for node, _ in _import_nodes(path):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif node.module:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.append((node.lineno, sub if sub in modules else node.module))
    return found


def _owner(imported: str, modules: dict[str, Path]) -> str | None:
    """The module of ours an import names (`agent.runtime.stepper.Stepper` -> `agent.runtime.stepper`)."""
    while imported and imported not in modules:
        imported = imported.rpartition(".")[0]
    return imported or None


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports (a module importing its own package's `__init__` aside)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for _, imported in _every_import(path, modules):
            target = _owner(imported, modules)
            if target and target != name and not name.startswith(target + "."):
                graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


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


def test_envs_holds_the_seam_and_the_environments_only() -> None:
    """`envs/` is the seam (the `Env` and `EnvProvider` bases, the registry) and one package per
    environment; how the application runs environments (its worker processes) is the setup layer's."""
    assert sorted(p.name for p in (ROOT / "envs").glob("*.py")) == [
        "__init__.py", "base.py", "provider.py", "registry.py"]


def test_one_function_makes_an_episode_s_environment() -> None:
    """An episode reference becomes an environment through `envs.registry.make_env` alone: no second
    module-level `make_env` in the seam (the package's `__init__` once forwarded to it), so a caller
    has one name to import and one signature to learn. A provider's method and the setup layer's
    builder (an `EpisodeRef` already parsed) are other jobs."""
    seam = [ROOT / "envs" / name for name in ("__init__.py", "base.py", "provider.py", "registry.py")]
    defining = [str(path.relative_to(ROOT)) for path in seam
                for node in ast.parse(path.read_text(encoding="utf-8")).body
                if isinstance(node, ast.FunctionDef) and node.name == "make_env"]
    assert defining == ["envs/registry.py"]


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
    """A newcomer knows where a change goes from the folder names: no front-end module loose in recode_tui/,
    only the public Python API (`api.py`) the command line is a layer over."""
    loose = sorted(p.name for p in (ROOT / "recode_tui").glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert loose == ["api.py"]
    assert {p.name for p in (ROOT / "recode_tui").iterdir() if p.is_dir() and not p.name.startswith("__")} == {
        "commands", "console", "plain", "web", "setup"}


def test_the_console_is_grouped_by_role() -> None:
    """`ls recode_tui/console/` shows the app and its parts by role, no module loose beside them."""
    console = ROOT / "recode_tui" / "console"
    assert sorted(p.name for p in console.glob("*.py")) == ["__init__.py", "app.py"]
    assert {p.name for p in console.iterdir() if p.is_dir() and not p.name.startswith("__")} == {
        "controllers", "run", "screens", "session", "support", "viewers", "widgets", "workspace"}


def _front_end_imports(packages: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    """`file:line imports module` for every import (lazy and TYPE_CHECKING ones too) from `packages` into `forbidden`."""
    modules = _modules()
    found = []
    for name, path in modules.items():
        if not name.startswith(packages):
            continue
        for line, imported in _every_import(path, modules):
            if any(imported == f or imported.startswith(f + ".") for f in forbidden):
                found.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    return found


def test_the_setup_layer_sits_below_both_front_ends() -> None:
    """`recode_tui/setup/` (typed settings, the builders, UsageError) imports no front end: the command
    line and the console both build on it, and neither needs the other to start a run."""
    front_ends = ("recode_tui.commands", "recode_tui.console", "recode_tui.plain", "recode_tui.web",
                  "textual", "prompt_toolkit")
    assert _front_end_imports(("recode_tui.setup",), front_ends) == []


def test_the_python_api_stands_on_the_setup_layer_alone() -> None:
    """`recode_tui/api.py` (what a notebook imports, and what `run` and `eval` are a layer over) builds on
    the setup layer only: no front end, no command-line module, no UI toolkit, so it runs with no screen."""
    front_ends = ("recode_tui.commands", "recode_tui.console", "recode_tui.plain", "recode_tui.web",
                  "textual", "prompt_toolkit", "rich")
    assert _front_end_imports(("recode_tui.api",), front_ends) == []


# What the console's controllers may take from widgets/: protocols a pane meets and the pure search, no pane.
CONTROLLERS_MAY_IMPORT_FROM_WIDGETS = {"recode_tui.console.widgets.pane_focus", "recode_tui.console.widgets.search"}


def test_the_console_controllers_import_no_pane() -> None:
    """A controller (`recode_tui/console/controllers/`) decides what the panes do and says it by a request
    the screen routes (run/requests.py) or through a protocol the panes meet (`Searchable`, `TakesFocus`);
    it imports no widget. Lazy and TYPE_CHECKING imports count."""
    found = _front_end_imports(("recode_tui.console.controllers",), ("recode_tui.console.widgets",))
    assert [line for line in found if line.rsplit(" imports ", 1)[1] not in CONTROLLERS_MAY_IMPORT_FROM_WIDGETS] == []
    # what they may import stays protocols and pure code: it builds on no UI toolkit and no widget
    modules = _modules()
    toolkit = [f"{name}:{line} imports {imported}" for name in sorted(CONTROLLERS_MAY_IMPORT_FROM_WIDGETS)
               for line, imported in _every_import(modules[name], modules)
               if imported.split(".")[0] in ("textual", "rich", "recode_tui")]
    assert toolkit == []


def test_the_console_sessions_read_the_run_not_its_panes() -> None:
    """`SessionControl` keeps a session on disk and moves between sessions; what it needs of the screen (the
    node whose answer is being typed) is the run screen's state (`RunScreen.editing`), so the session package
    imports no widget. Lazy and TYPE_CHECKING imports count."""
    assert _front_end_imports(("recode_tui.console.session",), ("recode_tui.console.widgets",)) == []


# The session control's floor in the console: above what the run's screen and the app show the parts below
# them (`run/hosts.py`, `run/requests.py`), below the screens it opens, the panes, the controllers and the app.
SESSION_PACKAGE = "recode_tui.console.session"
# ... and `LazyWork` (support/lazy_work.py), an awaitable that imports nothing of the console
SESSION_STANDS_ON = ("recode_tui.console.run.hosts", "recode_tui.console.run.requests",
                     "recode_tui.console.support.lazy_work")
# What may import the session package: the app, which holds it, and the run's builder, which makes it.
SESSION_HELD_BY = {"recode_tui.console.app", "recode_tui.console.run.run_builder"}


def _console_imports(name: str, modules: dict[str, Path]) -> set[str]:
    """The console's modules `name` imports (lazy and TYPE_CHECKING imports too)."""
    owners = {_owner(imported, modules) or "" for _, imported in _every_import(modules[name], modules)}
    return {owner for owner in owners if owner.startswith("recode_tui.console.") and owner != name}


def test_the_session_control_sits_below_the_screens() -> None:
    """`SessionControl` (a session on disk and the moves between sessions) names no screen, pane, controller
    or the app: the screens it opens are the app's `session_screens` (`run/hosts.py`'s `SessionScreens`),
    the run it reads is `RunScreen`'s state. Only the app and the run's builder import it."""
    modules = _modules()
    reaching_up = sorted(f"{name} imports {owner}" for name in modules if name.startswith(SESSION_PACKAGE + ".")
                         for owner in _console_imports(name, modules)
                         if not owner.startswith((SESSION_PACKAGE + ".", *SESSION_STANDS_ON)))
    assert reaching_up == []
    holders = {name for name in modules if not name.startswith(SESSION_PACKAGE + ".")
               and any(owner.startswith(SESSION_PACKAGE + ".") for owner in _console_imports(name, modules))}
    assert holders <= SESSION_HELD_BY, sorted(holders - SESSION_HELD_BY)


def test_the_console_builds_through_the_setup_layer_not_the_command_line() -> None:
    """The console's LLMs, agents, usage errors and diffs come from `recode_tui.setup`, never from
    `recode_tui.commands` (the command line may open the console; the reverse is an upward arrow)."""
    assert _front_end_imports(("recode_tui.console",), ("recode_tui.commands",)) == []


FRONT_ENDS = ("recode_tui.console", "recode_tui.plain", "recode_tui.web")


def test_no_front_end_reaches_the_setup_layer_through_another() -> None:
    """The console, the plain terminal and the web server each build their run on `recode_tui.setup`;
    none imports the command line's package or another front end to reach it (the command line opens
    them all, never the reverse). The console's known imports of the diff's text are listed above."""
    found = []
    for front_end in FRONT_ENDS:
        others = tuple(f for f in FRONT_ENDS if f != front_end) + ("recode_tui.commands",)
        found += _front_end_imports((front_end,), others)
    assert found == []


# The floors of `agent/` and `recode_tui/`, highest first (architecture.md): a module may import its own
# floor and the ones below it; an import of a higher floor (lazy and TYPE_CHECKING ones included) runs up.
FLOORS: dict[str, tuple[tuple[str, ...], ...]] = {
    "agent": (("agent.eval",), ("agent.sessions",), ("agent.agents",), ("agent.run",), ("agent.sandbox",),
              ("agent.runtime",), ("agent.llm",)),
    "recode_tui": (("recode_tui.__main__",), ("recode_tui.commands",), ("recode_tui.api",),
                   ("recode_tui.console", "recode_tui.plain", "recode_tui.web"), ("recode_tui.setup",)),
}


def _floor(module: str) -> int | None:
    """The floor of a module of `agent/` or `recode_tui/` (0 the top), None for a package's own `__init__`."""
    for level, packages in enumerate(FLOORS.get(module.split(".")[0], ())):
        if any(module == p or module.startswith(p + ".") for p in packages):
            return level
    return None


def upward_imports() -> list[str]:
    """`file:line imports module` for each import from a lower floor to a higher one of the same package."""
    modules = _modules()
    found = []
    for name, path in modules.items():
        here = _floor(name)
        for line, imported in _every_import(path, modules):
            target = _owner(imported, modules) or ""
            there = _floor(target)
            if here is not None and there is not None and there < here and target.split(".")[0] == name.split(".")[0]:
                found.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    return sorted(set(found))  # `from x import a, b` is one line


def test_no_import_runs_up_a_floor_of_agent_or_recode_tui() -> None:
    assert upward_imports() == []


def test_every_sub_package_of_agent_and_recode_tui_has_a_floor() -> None:
    for package in FLOORS:
        folders = {p.name for p in (ROOT / package).iterdir() if (p / "__init__.py").is_file()}
        assert all(_floor(f"{package}.{folder}") is not None for folder in folders), (package, folders)


# Every place a person submits an answer: the console's editor, the comparison's columns, the plain mode.
ANSWER_EDITORS = ("recode_tui.console.widgets.answer_editor", "recode_tui.console.workspace.compare",
                  "recode_tui.plain")


def test_the_answer_editors_judge_through_the_agent_seam_only() -> None:
    """An answer is judged by the run's own agent through the seam (`agent.runtime.answer_check`: the agent's
    judge, cut rule and `AnswerWords`), so no editor falls back to one agent's rule: none imports an agent's
    judging. The comparison takes only ReCode's diff of two answers (the workspace is ReCode's prompt's)."""
    found = _front_end_imports(ANSWER_EDITORS, ("agent.agents",))
    assert [line for line in found if not line.endswith(" imports agent.agents.recode.examples")] == []


# The shared runtime: what every agent is stepped, recorded, evaluated and served by.
RUNTIME = ("agent.runtime", "agent.sessions", "agent.eval", "agent.llm", "agent.sandbox")


def test_the_runtime_imports_no_agent() -> None:
    """Arrows run one way: agents use the runtime, never the reverse. Lazy and
    TYPE_CHECKING imports count. The registry (`agent.agents` itself, names as strings) is the one
    door from the runtime to the agents: it builds an agent by name without importing its package."""
    modules = _modules()
    upward = []
    for name, path in modules.items():
        if not name.startswith(RUNTIME):
            continue
        for line, imported in _every_import(path, modules):
            if imported.startswith("agent.agents."):
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert upward == []


# Above the agents: the front ends, the scripted LLMs, the shared runtime, sessions and eval. They reach an
# agent through the registry (`agent.agents`) and the `Stepper` seam only, never through one agent's package.
ABOVE_THE_AGENTS = ("recode_tui", "mockllm", *RUNTIME)


# What of `agent/agents/` is the registry's: the registry itself (names to classes, as strings) and the named
# presets. Everything else there (an agent's package, the turn loop agents share) is an agent's own.
THE_REGISTRY = ("agent.agents", "agent.agents.presets")


def _agent_part(imported: str) -> str | None:
    """The part of `agent/agents/` an import reaches past the registry (`agent.agents.recode`,
    `agent.agents.turns`), or None: it names no agent's own module."""
    if not imported.startswith("agent.agents.") or imported in THE_REGISTRY:
        return None
    return ".".join(imported.split(".")[:3])


def _imports_of_an_agent(modules: dict[str, Path] | None = None) -> dict[str, set[str]]:
    """Module above the agents -> the agents' parts it imports (lazy and TYPE_CHECKING imports count)."""
    modules = modules if modules is not None else _modules()
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        if not any(name == top or name.startswith(top + ".") for top in ABOVE_THE_AGENTS):
            continue
        for _, imported in _every_import(path, modules):
            part = _agent_part(imported)
            if part is not None:
                found.setdefault(name, set()).add(part)
    return found


def test_front_ends_runtime_sessions_and_eval_import_only_the_agent_registry() -> None:
    """A front end, a scripted LLM, the runtime, sessions and eval name no agent's package: what they need of
    an agent (its stub's name for `b`, its gold answers, its main call's purpose, its prompt by parts for the
    prompt workspace) is a field or method of `Stepper` or of its `traits` that the agent overrides, so a
    plug-in agent gets every front end's feature. No exception."""
    assert _imports_of_an_agent() == {}


def test_the_registry_rule_finds_an_agent_imported_past_the_registry(tmp_path: Path) -> None:
    """The rule itself: a front end, a session or eval module reaching an agent's package or the agents'
    shared turn loop, even inside a function or under TYPE_CHECKING, is found; the registry and the
    presets are not."""
    sample = {
        "recode_tui.console.widgets.sample": "def f():\n    from agent.agents.recode.codeblocks import stub_name_of\n",
        "agent.sessions.sample": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from agent.agents import turns\n",
        "agent.eval.sample": "from agent.agents import agent_class\nfrom agent.agents.presets import resolve\n",
        "agent.run.sample": "import agent.agents.react.agent\n",  # below the agents: the floors' rule holds it
    }
    modules = {}
    for name, source in sample.items():
        modules[name] = tmp_path / f"{name}.py"
        modules[name].write_text(source, encoding="utf-8")
    modules["agent.agents.turns"] = ROOT / "agent" / "agents" / "turns.py"  # `from agent.agents import turns`
    assert _imports_of_an_agent(modules) == {"recode_tui.console.widgets.sample": {"agent.agents.recode"},
                                             "agent.sessions.sample": {"agent.agents.turns"}}


# What the runtime (`agent/runtime/`) may import of ours: itself, the LLM protocol and the environments'
# interfaces and registry. Sessions, the sandbox and the agents build on it and hand it what it needs.
RUNTIME_MAY_IMPORT = ("agent.runtime", "agent.llm", "envs.base", "envs.provider", "envs.registry")


def test_the_runtime_imports_no_session_sandbox_agent_or_front_end() -> None:
    """The runtime is the bottom of the agent core: it names no journal, no sandbox, no agent (nor their
    registry), no front end and no environment package. What it needs of them is a protocol or a type
    of its own (`CodeExecution`, `RecordedStatement`, `ImportIndex`) that the layer above implements or
    fills in. Lazy and TYPE_CHECKING imports count."""
    modules = _modules()
    ours = tuple(package + "." for package in PACKAGES) + PACKAGES
    reaching = []
    for name, path in modules.items():
        if not (name == "agent.runtime" or name.startswith("agent.runtime.")):
            continue
        for line, imported in _every_import(path, modules):
            if not imported.startswith(ours):
                continue
            if not any(imported == allowed or imported.startswith(allowed + ".") for allowed in RUNTIME_MAY_IMPORT):
                reaching.append(f"{path.relative_to(ROOT)}:{line} imports {imported}")
    assert reaching == []


def test_agent_lists_the_architecture() -> None:
    """`ls agent/` shows the five agents' home and the runtime by concern, nothing loose."""
    agent = ROOT / "agent"
    assert sorted(p.name for p in agent.glob("*.py")) == ["__init__.py"]
    assert {p.name for p in agent.iterdir() if p.is_dir() and not p.name.startswith("__")} == {
        "agents", "run", "runtime", "sessions", "eval", "llm", "sandbox"}
    homes = {p.name for p in (agent / "agents").iterdir() if (p / "__init__.py").is_file()}
    assert homes == {"recode", "react", "codeact", "plan_execute", "recap"}


# Cycles still to break, each one group of modules; the list may only shrink.
KNOWN_CYCLES: list[list[str]] = []


def test_no_import_cycles_even_through_lazy_imports() -> None:
    """A function-local or TYPE_CHECKING import hides a cycle from Python, not from a reader: every
    group of modules that reach each other is listed."""
    found = _cycles(_import_graph())
    assert [group for group in found if group not in KNOWN_CYCLES] == []
    assert [group for group in KNOWN_CYCLES if group not in found] == [], "a known cycle is gone: drop it from the list"


def test_the_cycle_finder_finds_a_cycle_through_a_lazy_import(tmp_path: Path) -> None:
    """The finder itself: two modules that reach each other only inside a function are a cycle."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    one = tmp_path / "one.py"
    one.write_text("def f():\n    from two import g\n", encoding="utf-8")
    assert _every_import(one, {}) == [(2, "two")]


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
