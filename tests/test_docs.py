"""The docs stay true: links resolve, shown command lines parse, named files exist, the site lists every page.

A reader copies `recode-tui ...` lines from the README and `docs/`, follows their links on
GitHub or on the MkDocs site, and opens the files they name; a renamed flag, a moved page or
module, or a retitled heading must fail here, with one line per problem naming the file and
line. Nothing here starts an agent.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from recode_tui.commands.cli import command_argv
from recode_tui.commands.parser import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README_MAX_LINES = 250

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
SHELL_OPERATORS = set("();<>|&")
# the environment docs/extending.md adds as its example: its commands parse once it is registered
EXAMPLE_ENVS = {"myenv": "envs.myenv.provider:MyEnvProvider"}
# the example environment and agent docs/extending.md writes: paths through them are not in the repo
EXAMPLE_NAMES = {"myenv", "myagent"}
# a repo file or folder as a page writes it: `agent/runtime/stepper.py`, `envs/alfworld/games/`
REPO_PATH = re.compile(r"^\w[\w.-]*(?:/[\w.-]+)*(?:/|\.(?:py|md|txt|json|tcss))$")
BARE_PATH = re.compile(r"^\w[\w.-]*(?:/[\w.-]+)+/?$")
PLACEHOLDER = set("<>*{}$~")  # `envs/<env>/facts.txt`, `~/.config/...`: a pattern, not one file
SKIPPED_DIRS = {".git", ".venv", "__pycache__", "node_modules", "site"}


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


@dataclass
class Line:
    number: int
    text: str
    fenced: bool


def lines_of(path: Path) -> list[Line]:
    """Every line with its number, and whether it sits inside a fenced code block."""
    out, fence = [], None
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(text)
        if match and (fence is None or match.group(1) == fence):
            fence = match.group(1) if fence is None else None
            continue
        out.append(Line(number, text, fence is not None))
    return out


# -- anchors: a link's #fragment must be the same heading id on GitHub and on the MkDocs site

def _heading_text(raw: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", raw)  # a link shows its text
    return text.replace("`", "").replace("*", "")


def github_slug(raw: str) -> str:
    text = _heading_text(raw).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def mkdocs_slug(raw: str) -> str:
    """Python-Markdown's `toc` slugify, the one MkDocs uses by default."""
    text = unicodedata.normalize("NFKD", _heading_text(raw)).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(path: Path) -> tuple[set[str], set[str]]:
    """The heading ids of a page: (ids on both GitHub and MkDocs, ids on only one of them)."""
    both, one = set(), set()
    for line in lines_of(path):
        match = None if line.fenced else HEADING.match(line.text)
        if match:
            gh, mk = github_slug(match.group(2)), mkdocs_slug(match.group(2))
            (both if gh == mk else one).update({gh} if gh == mk else {gh, mk})
    return both, one


def link_problems(path: Path) -> list[str]:
    problems = []
    for line in lines_of(path):
        if line.fenced:
            continue
        prose = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line.text)
        for match in LINK.finditer(prose):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, mailto:, ...
                continue
            file_part, _, fragment = target.partition("#")
            resolved = (path.parent / file_part).resolve() if file_part else path
            if not resolved.exists():
                problems.append(f"{where(path, line.number)}: link to {target}: no such file {file_part}")
                continue
            if fragment and resolved.suffix == ".md":
                both, one = anchors(resolved)
                if fragment in one:
                    problems.append(f"{where(path, line.number)}: link to {target}: that heading's id differs "
                                    f"between GitHub and MkDocs; simplify the heading or link to another")
                elif fragment not in both:
                    problems.append(f"{where(path, line.number)}: link to {target}: no heading with that id in "
                                    f"{resolved.relative_to(ROOT)}")
    return problems


# -- named files: every repo path written in backticks must exist

def repo_paths(root: Path) -> set[str]:
    """Every file and folder of the checkout, relative, folders with a trailing `/`."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")]
        rel = Path(folder).relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
        found.update(prefix + d + "/" for d in dirs)
        found.update(prefix + f for f in files)
    return found


def named_paths(span: str, top: frozenset[str] = frozenset()) -> list[str]:
    """The repo-looking paths in one code span: `--prompts agent/x/` gives `agent/x/`;
    `envs/registry.py:step_limit` gives `envs/registry.py`. Only paths with a folder in them:
    a bare `report.json` is a file a run writes, not one in the repo. A path under a top-level
    folder (`top`) counts without a suffix too: `--prompts agent/agents/recode/prompts/paper`."""
    out = []
    for token in re.split(r"[\s=,]+", span):
        if not token or PLACEHOLDER & set(token):
            continue
        token = token.split(":", 1)[0].strip("()[]'\";")
        if "/" not in token or EXAMPLE_NAMES & set(token.strip("/").split("/")):
            continue
        if REPO_PATH.match(token) or (top and token.split("/", 1)[0] in top and BARE_PATH.match(token)):
            out.append(token)
    return out


def path_problems(path: Path, existing: set[str]) -> list[str]:
    """A path whose first folder is a top-level one must exist as written; one written relative to
    the package a page is describing (`alfworld/games/`, `widgets/`) must end some repo path."""
    top = frozenset(p.split("/", 1)[0] for p in existing if p.endswith("/") and p.count("/") == 1)
    problems = []
    for line in lines_of(path):
        if line.fenced:
            continue
        for match in INLINE_CODE.finditer(line.text):
            for named in named_paths(match.group(2), top):
                if named.split("/", 1)[0] in top:
                    ok = named in existing or named + "/" in existing
                else:
                    ok = any(p == named or p.endswith("/" + named) for p in existing)
                if not ok:
                    problems.append(f"{where(path, line.number)}: `{named}`: no such file or folder in the repo")
    return problems


# -- command lines: every `recode-tui ...` shown must parse with the real parser

class ParseRefused(Exception):
    pass


def strict_parser() -> argparse.ArgumentParser:
    """The command line's own parser, with prefixes of flags refused (a page must spell them out)."""
    parser = build_parser()
    stack = [parser]
    while stack:
        current = stack.pop()
        current.allow_abbrev = False
        for action in current._actions:  # argparse keeps subcommands only here
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
    return parser


def command_lines(path: Path) -> list[tuple[int, str, bool]]:
    """`recode-tui ...` lines: in fenced blocks (with `\\` continuations) and in inline code spans
    (marked True: prose may name a command without its required arguments, or as `recode-tui ...`)."""
    found, pending, start = [], "", 0
    for line in lines_of(path):
        if line.fenced:
            text = line.text.rstrip()
            if not pending:
                start = line.number
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            whole, pending = pending + text, ""
            if re.search(r"(^|[\s/])recode-tui(\s|$)", whole):
                found.append((start, whole, False))
        else:
            for match in INLINE_CODE.finditer(line.text):
                span = match.group(2).strip()
                if re.match(r"^(\S+/)?recode-tui(\s|$)", span) and not span.endswith(" ..."):
                    found.append((line.number, span, True))
    return found


def argv_of(text: str) -> list[str]:
    """The arguments given to recode-tui on a shell line: after the program, before a pipe or redirect."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    tokens = list(lexer)
    start = next(i for i, t in enumerate(tokens) if t.rsplit("/", 1)[-1] == "recode-tui") + 1
    argv = []
    for token in tokens[start:]:
        if set(token) <= SHELL_OPERATORS:
            break
        argv.append(token)
    return argv


def command_problems(path: Path, parser: argparse.ArgumentParser, monkeypatch) -> list[str]:
    def refuse(self, message):
        raise ParseRefused(f"{self.prog}: {message}")

    monkeypatch.setattr(argparse.ArgumentParser, "error", refuse)
    monkeypatch.setattr(argparse.ArgumentParser, "print_help", lambda self, file=None: None)
    problems = []
    for number, text, inline in command_lines(path):
        try:
            parser.parse_args(command_argv(argv_of(text)))
        except ParseRefused as exc:
            if inline and "the following arguments are required" in str(exc):
                continue
            problems.append(f"{where(path, number)}: `{text.strip()}` does not parse: {exc}")
        except ValueError as exc:  # unbalanced quotes
            problems.append(f"{where(path, number)}: `{text.strip()}` is not a shell line: {exc}")
        except SystemExit as exc:  # --help: fine; anything else is argparse refusing
            if exc.code:
                problems.append(f"{where(path, number)}: `{text.strip()}` does not parse (exit {exc.code})")
    return problems


def test_every_relative_link_in_the_docs_resolves() -> None:
    problems = [p for page in pages() for p in link_problems(page)]
    assert not problems, "\n".join(problems)


def test_every_repo_path_named_in_the_docs_exists() -> None:
    """A page that says `agent/stepper.py` after the module moved sends a reader nowhere."""
    existing = repo_paths(ROOT)
    problems = [p for page in pages() for p in path_problems(page, existing)]
    assert not problems, "\n".join(problems)


def test_every_recode_tui_command_shown_in_the_docs_parses(monkeypatch) -> None:
    from envs import registry

    for name, target in EXAMPLE_ENVS.items():
        monkeypatch.setitem(registry._registered, name, target)
    parser = strict_parser()
    problems = [p for page in pages() for p in command_problems(page, parser, monkeypatch)]
    assert not problems, "\n".join(problems)


def test_the_readme_is_the_first_ten_minutes_and_the_site_lists_every_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) < README_MAX_LINES, f"README.md:{len(readme)}: over {README_MAX_LINES} lines; move detail to docs/"
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = set()
    stack = list(config["nav"])
    while stack:
        item = stack.pop()
        value = next(iter(item.values())) if isinstance(item, dict) else item
        stack.extend(value) if isinstance(value, list) else listed.add(value)
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert listed == on_disk, f"mkdocs.yml:1: nav lists {sorted(listed - on_disk)} missing from docs/, " \
                              f"and leaves out {sorted(on_disk - listed)}"


# -- the checker itself: a broken link and a wrong flag are caught, each named by file:line

def test_the_checks_name_a_broken_link_a_bad_anchor_and_a_wrong_flag(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "probe.md"
    (tmp_path / "docs" / "other.md").write_text("# The sandbox: what it protects\n\n## Step -- into\n")
    page.write_text(
        "# Probe\n\n[ok](other.md#the-sandbox-what-it-protects) [gone](missing.md) [bad](other.md#nowhere)\n"
        "[differs](other.md#step----into) `recode-tui run --gmae put-01` and `[x](nothing.md)` in code\n"
        "`recode-tui compare` and `recode-tui ...` name commands\n"
        "```sh\nrecode-tui eval --llm demo \\\n    --games 4 | tee out  # fine\n"
        ".venv/bin/recode-tui --resume\nrecode-tui export ID --sft > pairs.jsonl\nrecode-tui nosuch\n```\n")
    links = link_problems(page)
    assert [p.split(": ", 1)[0] for p in links] == ["docs/probe.md:3", "docs/probe.md:3", "docs/probe.md:4"]
    assert "no such file missing.md" in links[0] and "no heading with that id" in links[1]
    assert "differs between GitHub and MkDocs" in links[2]
    commands = command_problems(page, strict_parser(), monkeypatch)
    assert [p.split(": ", 1)[0] for p in commands] == ["docs/probe.md:4", "docs/probe.md:11"], commands
    assert "--gmae" in commands[0] and "invalid choice: 'nosuch'" in commands[1]


def test_the_path_check_names_each_moved_file_and_skips_patterns(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    existing = {"agent/", "agent/runtime/", "agent/runtime/stepper.py", "recode_tui/", "recode_tui/console/",
                "recode_tui/console/widgets/", "envs/", "envs/base.py", "README.md"}
    page = tmp_path / "probe.md"
    page.write_text(
        "# Probe\n\n`agent/runtime/stepper.py` and `widgets/` and `envs/base.py:Env` exist\n"
        "`agent/stepper.py` moved; `agent/prompts/paper` too; `python envs/gone.py --x`\n"
        "`envs/<env>/facts.txt`, `envs/myenv/facts.txt`, `report.json`, `~/.config/x/`, `a/b` are no repo files\n"
        "```sh\ncat agent/nowhere.py\n```\n`nowhere/`\n")
    problems = path_problems(page, existing)
    assert problems == [
        "probe.md:4: `agent/stepper.py`: no such file or folder in the repo",
        "probe.md:4: `agent/prompts/paper`: no such file or folder in the repo",
        "probe.md:4: `envs/gone.py`: no such file or folder in the repo",
        "probe.md:9: `nowhere/`: no such file or folder in the repo",
    ], problems


@pytest.mark.parametrize("heading, slug", [
    ("Plan-and-Execute and ReCAP (`--agent plan-execute|recap`)", "plan-and-execute-and-recap---agent-plan-executerecap"),
    ("The sandbox: what it protects against", "the-sandbox-what-it-protects-against"),
])
def test_heading_ids_follow_github(heading, slug) -> None:
    assert github_slug(heading) == slug


def test_the_site_builds_strict_when_mkdocs_is_installed(tmp_path) -> None:
    """`pip install -e '.[docs]'`: every warning (a page outside the nav, a link MkDocs cannot follow) fails."""
    pytest.importorskip("mkdocs")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    build(load_config(config_file=str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(tmp_path / "site")))
    assert (tmp_path / "site" / "architecture" / "index.html").is_file()
