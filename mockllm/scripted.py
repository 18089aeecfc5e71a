"""Answers from a file, matched to the call the agent makes (`agent.llm.CallContext`).

A script is YAML (`answers: [...]`) or JSON Lines (one entry per line). Each
entry has `answer`, and optionally `stub` (the node's label the call is for:
ReCode's stub code, a turn's `turn 3`; compared whitespace-insensitively; `*` or
absent matches any node), `when` (a regular expression searched in the whole
prompt) and `purpose` (the call's purpose: `expand`, the default since scripts
were ReCode's first, `repair`, `act`, `plan`, ...). Entries are tried in order
and may be used again; an entry with `once: true` is used at most once, which
lets a script give different answers to the same node in turn.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.llm import CallContext, Completion, LLMError, Purpose, Usage


# The purpose of an entry that names none: scripts were ReCode's first, and its main call writes a stub's body.
DEFAULT_PURPOSE: str = Purpose.EXPAND


@dataclass
class ScriptEntry:
    answer: str
    stub: str = "*"
    when: re.Pattern[str] | None = None
    purpose: str = DEFAULT_PURPOSE
    once: bool = False
    used: bool = False

    def matches(self, prompt: str, context: CallContext) -> bool:
        if self.once and self.used:
            return False
        if self.purpose != context.purpose:
            return False
        if self.stub != "*" and _normalise(self.stub) != _normalise(context.label):
            return False
        return self.when is None or self.when.search(prompt) is not None


def _normalise(code: str) -> str:
    return re.sub(r"\s+", "", code)


def _where(exc: Exception) -> str:
    """A parser error as one line with its line number."""
    import yaml  # only a YAML error has a place; imported anyway by the YAML script that failed

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return f"{exc.problem or 'parse error'} at line {mark.line + 1}, column {mark.column + 1}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


@functools.lru_cache(maxsize=32)
def _raw_entries(text: str, json_lines: bool) -> list[Any]:
    """A script's parsed entries, kept by text: an evaluation reads the same demo script for every episode.

    Callers only read what this returns (each gets its own `ScriptEntry` objects).
    """
    if json_lines:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    import yaml

    loader = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader  # libyaml's parser when built with it
    data = yaml.load(text, Loader=loader) or {}
    return list(data.get("answers") or []) if isinstance(data, dict) else list(data)


def load_script(path: str | Path) -> list[ScriptEntry]:
    """Read a script file; a bad file raises LLMError with a one-line reason."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LLMError(f"cannot read script {path}: {exc.strerror}; check the path after scripted:") from None
    try:
        raw_entries = _raw_entries(text, path.suffix == ".jsonl")
    except Exception as exc:  # yaml.YAMLError, json.JSONDecodeError
        raise LLMError(f"script {path} is not valid {'JSON Lines' if path.suffix == '.jsonl' else 'YAML'}: {_where(exc)}") from None
    entries = []
    for index, raw in enumerate(raw_entries, start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("answer"), str):
            raise LLMError(f"script {path}: entry {index} needs an `answer` text")
        try:
            when = re.compile(raw["when"]) if raw.get("when") else None
        except re.error as exc:
            raise LLMError(f"script {path}: entry {index} has a bad `when` pattern: {exc}") from None
        entries.append(
            ScriptEntry(
                answer=raw["answer"],
                stub=str(raw.get("stub") or "*"),
                when=when,
                purpose=str(raw.get("purpose", DEFAULT_PURPOSE)),
                once=bool(raw.get("once", False)),
            )
        )
    return entries


class ScriptedLLM:
    """Replays answers from a script; says which stub it has no answer for."""

    def __init__(self, entries: list[ScriptEntry], name: str = "scripted", source: str = "scripted") -> None:
        self.entries = entries
        self.name = name
        self.source = source  # what an answer is labelled with: "scripted", or "journal" when replayed from one

    @classmethod
    def from_file(cls, path: str | Path) -> "ScriptedLLM":
        return cls(load_script(path), name=f"scripted:{path}")

    async def complete(self, prompt: str, context: CallContext | None = None) -> Completion:
        context = context or CallContext(purpose=DEFAULT_PURPOSE)
        for entry in self.entries:
            if entry.matches(prompt, context):
                entry.used = True
                return Completion(  # no model counted them: an estimate, never added to a model's real counts
                    entry.answer, Usage(len(prompt) // 4, len(entry.answer) // 4), 0.0, self.source, estimated=True
                )
        if context.purpose == Purpose.REPAIR:
            # A script that scripts no repair declines it: the node stays ERROR.
            return Completion("<think>no scripted repair</think><execute></execute>", Usage(), 0.0, self.source)
        raise LLMError(f"the script has no answer for stub `{context.label}`; add an entry with stub: {context.label!r}")
