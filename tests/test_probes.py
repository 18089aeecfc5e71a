"""`getattr(`/`hasattr(` in the packages only where a name is truly known at run time.

An object's optional capability is a declared field or method with its default (`envs.base.Env`,
`envs.provider.EnvProvider`) or a declared protocol (`agent.llm`'s `ModelLLM`,
`agent.runtime.runner.CodeChecks`, ...) asked with `isinstance`; what is left of probing by name is a
dynamic name (a `module:attr` registry line, a wrapper's `__getattr__`), and says so on its line with
`# dynamic: <why>`. These tests hold both rules: the comment, and few of them.
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "envs", "mockllm", "recode_tui")
MOST = 40
PROBES = ("getattr", "hasattr")
MARK = "# dynamic:"

def probes(source: str) -> list[tuple[int, bool]]:
    """(line, has the `# dynamic:` comment) of every `getattr(`/`hasattr(` call in `source`.

    A call counts as commented when a `# dynamic: <why>` comment (a comment token, not text in a
    string) sits on one of the lines the call spans."""
    if not any(name in source for name in PROBES):
        return []  # no call can name them: skip the tokenizing and parsing that are the rule's whole cost
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in PROBES:
            end = node.end_lineno or node.lineno
            said = any(MARK in comments.get(line, "") and comments[line].split(MARK, 1)[1].strip()
                       for line in range(node.lineno, end + 1))
            found.append((node.lineno, bool(said)))
    return sorted(found)


@functools.cache  # the packages read once for the module's three tests
def _all_probes() -> tuple[tuple[str, bool], ...]:
    return tuple((f"{path.relative_to(ROOT)}:{line}", said)
                 for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
                 for line, said in probes(path.read_text(encoding="utf-8")))


def test_every_getattr_and_hasattr_says_why_its_name_is_dynamic() -> None:
    bare = [where for where, said in _all_probes() if not said]
    assert bare == [], "ask a declared capability (a protocol, a field), or add `# dynamic: <why>`"


def test_the_packages_keep_few_getattr_and_hasattr() -> None:
    found = _all_probes()
    assert len(found) <= MOST, "\n".join(where for where, _ in found)


def test_the_rule_tells_a_commented_dynamic_name_from_a_probe() -> None:
    sample = (
        'a = getattr(x, "name", None)\n'                              # 1: a probe
        'b = getattr(module, attr)  # dynamic: a registry line\n'     # 2: commented
        'c = hasattr(x, "y")  # dynamic:\n'                           # 3: the mark without a reason
        's = "getattr(x, y)  # dynamic: in a string"\n'               # not a call
        'd = x.getattr(y)\n'                                          # a method, not the builtin
        'e = [getattr(\n'                                             # 6: a call over two lines,
        '    m, n) for m, n in pairs]  # dynamic: the pairs\' names\n'  #    commented on its last
        'f = hasattr(x, "y")  # see above\n'                          # 8: a comment without the mark
    )
    assert probes(sample) == [(1, False), (2, True), (3, False), (6, True), (8, False)]


def test_the_packages_are_scanned() -> None:
    assert len(_all_probes()) > 0  # the dynamic ones left (a registry's `module:attr`) are found
