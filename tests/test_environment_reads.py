"""Environment variables are read at the edge; below it, only the reads listed here, each with its reason.

A run's settings are resolved once, at the edge (the command line: `recode_tui/commands/cli.py`,
`recode_tui/commands/arguments.py`, `recode_tui/setup/places.py`), and handed down as typed values;
child processes get them as arguments, not by inheriting a variable. A new `os.environ` or `os.getenv`
read anywhere else in agent/, envs/, mockllm/ or recode_tui/ fails here, naming its file and line: pass
the value down from the edge instead, or add the read below with why it cannot be.
The variables themselves are listed once in docs/running.md ("Environment variables").
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("agent", "envs", "mockllm", "recode_tui")

# The edge: where the command line reads its flags and the environment, once.
EDGE = frozenset({
    "recode_tui/commands/cli.py",
    "recode_tui/commands/arguments.py",
    "recode_tui/setup/places.py",
    "recode_tui/api.py",  # the Python API: a researcher's call is an edge as the command line is
})

# What stays below the edge: (file, how many reads) -> why it is not a setting handed down.
ALLOWED: dict[str, tuple[int, str]] = {
    "agent/sandbox/process.py": (1, "the sandbox worker's own environment: the few harmless variables it passes "
                                    "to the child (locale, PATH), never a setting of the run"),
    "agent/sandbox/interpreter_files.py": (1, "PATH for a child interpreter asked where its files are"),
    "agent/sandbox/isolation.py": (1, "RECODE_TUI_DUMPABLE: a developer attaching a debugger to this very "
                                      "process; read where the process makes itself undumpable"),
    "agent/llm/openai_client.py": (1, "SSL_CERT_FILE / SSL_CERT_DIR: the HTTP library's own variables, read to "
                                      "key the one TLS context per process by what the library itself would load"),
    "agent/llm/tokens.py": (1, "TIKTOKEN_CACHE_DIR / DATA_GYM_CACHE_DIR: tiktoken's own cache variables, read "
                               "to look where tiktoken itself will look"),
    "recode_tui/setup/build.py": (1, "the API key, read from the variable the profile names at the moment the "
                                     "client is made (a console's LLM is made again after a resume): a key is "
                                     "never kept in a setting or a record"),
    "envs/registry.py": (1, "RECODE_TUI_PLUGINS, read once at import: plug-ins register themselves when imported, "
                            "in every process (eval's workers too), before any setting exists"),
    "envs/alfworld/gamefile.py": (2, "ALFWORLD_DATA as the alfworld library sets it on import: put back as "
                                     "it was, the library's own variable"),
    "envs/sciworld/simulator.py": (1, "JAVA_TOOL_OPTIONS, a person's own Java options, read to leave them "
                                      "alone (the JVM reads them itself; ours go on its command line)"),
    "envs/sciworld/derive_limits.py": (2, "JAVA_TOOL_OPTIONS for the child JVM of a maintainer's script"),
    "recode_tui/setup/env_workers.py": (1, "an environment worker's process environment (PATH, PYTHONPATH, the "
                                           "plug-ins): what a child needs to start"),
    "recode_tui/commands/fit.py": (1, "COLUMNS: the width a shell gives a table printed to a pipe"),
    "recode_tui/commands/evaluate.py": (1, "COLUMNS: the width a shell gives a table printed to a pipe"),
}

# Reads still to move into a typed record handed down from the edge. Each environment's
# variables are read in one place, its options record's `current()` (envs/<env>/options.py); next, the
# registry gives the provider the options the edge read (and eval's workers get them as arguments). The
# default profile's OPENAI_BASE_URL that a journal header records (`profiles.endpoint`) is to come from
# the run's record once the edge resolves the model there. Listed so that the count cannot grow.
NOT_YET_MOVED: dict[str, int] = {
    "agent/llm/profiles.py": 1,
    "envs/webshop/options.py": 1,
    "envs/alfworld/options.py": 1,
}


def environment_reads(source: str) -> list[int]:
    """The lines of `source` that touch `os.environ` or call `os.getenv` (each line once)."""
    names = ("environ", "getenv", "environb", "putenv", "unsetenv")
    if not any(name in source for name in names):
        return []  # no attribute can be named so: no need to parse (parsing is the rule's whole cost)
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os" \
                and node.attr in names:
            lines.append(node.lineno)
    return sorted(set(lines))


@functools.cache
def files_that_read() -> dict[str, tuple[str, list[int]]]:
    """Each file of the packages that reads the environment: its text and the lines that read. Read once for the
    module's tests (each read and parsed every file again)."""
    found: dict[str, tuple[str, list[int]]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = environment_reads(text)
            if lines:
                found[path.relative_to(ROOT).as_posix()] = (text, lines)
    return found


def reads_below_the_edge() -> dict[str, list[int]]:
    return {name: lines for name, (_, lines) in files_that_read().items() if name not in EDGE}


def test_nothing_below_the_edge_reads_the_environment_but_the_listed_reads() -> None:
    problems = []
    for name, lines in reads_below_the_edge().items():
        allowed = ALLOWED.get(name, (0, ""))[0] + NOT_YET_MOVED.get(name, 0)
        if len(lines) > allowed:
            where = ", ".join(f"{name}:{line}" for line in lines)
            problems.append(f"{where}: {len(lines)} environment reads, {allowed} allowed; read the variable at "
                            "the edge and pass the value down (or list the read in tests/test_environment_reads.py "
                            "with why it must stay)")
    assert not problems, "\n".join(problems)


def test_the_lists_hold_no_read_that_has_gone() -> None:
    """A read moved to the edge leaves the list too, so the list says what is really there."""
    found = reads_below_the_edge()
    stale = [f"{name}: listed {ALLOWED.get(name, (0, ''))[0] + NOT_YET_MOVED.get(name, 0)}, "
             f"found {len(found.get(name, []))}"
             for name in sorted(set(ALLOWED) | set(NOT_YET_MOVED))
             if len(found.get(name, [])) != ALLOWED.get(name, (0, ""))[0] + NOT_YET_MOVED.get(name, 0)]
    assert not stale, stale


def test_a_new_read_below_the_edge_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    source = "import os\n\n\ndef folder():\n    return os.environ.get('RECODE_TUI_SOMETHING')\n"
    assert environment_reads(source) == [5]
    assert environment_reads("import os\nx = os.getenv('A') or dict(os.environ)\n") == [2]


def test_every_variable_read_is_listed_once_in_the_docs() -> None:
    """docs/running.md's table names each variable the code reads, once."""
    table = (ROOT / "docs" / "running.md").read_text(encoding="utf-8").split("## Environment variables", 1)[1]
    table = table.split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([A-Z][A-Z0-9_]+)`", table, flags=re.M)
    assert len(listed) == len(set(listed)), sorted(n for n in listed if listed.count(n) > 1)
    named: set[str] = set()
    for text, _ in files_that_read().values():
        named |= set(re.findall(r"""environ(?:\.get|\.pop|\.setdefault)?\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        named |= set(re.findall(r"""environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]""", text))
        named |= set(re.findall(r"""getenv\(\s*["']([A-Z][A-Z0-9_]+)["']""", text))
        named |= set(re.findall(r"""^[A-Z_]*(?:VAR|ENV|SWITCH|VARIABLE)\w* = ["']([A-Z][A-Z0-9_]+)["']""", text,
                                flags=re.M))
    missing = sorted(named - set(listed))
    assert not missing, f"read in the code but not in docs/running.md's table: {missing}"
