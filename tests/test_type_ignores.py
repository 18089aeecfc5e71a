"""A `# type: ignore` silences the type checker (`make check`, `make test` run mypy): each one in the
packages names the error it silences and says why, and there are few (at most 10).

mypy itself reports an ignore that silences nothing (`warn_unused_ignores` in pyproject.toml);
these tests hold what mypy does not: the code and the reason.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("agent", "envs", "mockllm", "recode_tui")
MOST = 10
# `# type: ignore[code, code]  # why`: the codes, then a comment of its own that says why
WELL_FORMED = re.compile(r"#\s*type:\s*ignore\[[a-z-]+(,\s*[a-z-]+)*\]\s+#\s*\S.{4,}")
IGNORE = re.compile(r"#\s*type:\s*ignore")  # the comment's start, in a comment or not: the files worth tokenizing


def _ignores(path: Path) -> list[tuple[int, str]]:
    """(line, comment) of every `type: ignore` comment (comments only: not in strings)."""
    found: list[tuple[int, str]] = []
    text = path.read_text(encoding="utf-8")
    if not IGNORE.search(text):
        return found  # no such comment can be here: no need to tokenize (the rule's whole cost; a bare
        # "type:" is in most files, annotations' names `event_type: str` among them)
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for token in tokens:
        if token.type == tokenize.COMMENT and IGNORE.match(token.string):
            found.append((token.start[0], token.string))
    return found


def _all_ignores() -> list[tuple[str, str]]:
    return [(f"{path.relative_to(ROOT)}:{line}", comment)
            for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
            for line, comment in _ignores(path)]


def test_every_type_ignore_names_its_error_code_and_a_reason() -> None:
    bad = [f"{where}: {comment}" for where, comment in _all_ignores() if not WELL_FORMED.match(comment)]
    assert bad == [], "write it as `# type: ignore[code]  # why`"


def test_the_packages_keep_few_type_ignores() -> None:
    found = _all_ignores()
    assert len(found) <= MOST, "\n".join(where for where, _ in found)


def test_the_rule_tells_a_bare_or_unexplained_ignore_from_a_good_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('x = 1  # type: ignore\n'
                      'y = 2  # type: ignore[assignment]\n'
                      'z = 3  # type: ignore[assignment]  # the library types it as str\n'
                      's = "# type: ignore"\n', encoding="utf-8")
    found = _ignores(sample)
    assert [line for line, _ in found] == [1, 2, 3]  # the one in a string is not a comment
    assert [bool(WELL_FORMED.match(comment)) for _, comment in found] == [False, False, True]
