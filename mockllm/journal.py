"""A recorded journal as a scripted LLM: replay a previous run's answers on any episode."""

from __future__ import annotations

from pathlib import Path

from agent.sessions.journal_read import read_journal
from agent.sessions.old_values import UNRECORDED_PURPOSE
from mockllm.scripted import ScriptedLLM, ScriptEntry


def journal_llm(path: str | Path) -> ScriptedLLM:
    """Any journal as a scripted LLM: its accepted answers, matched by stub code, in order."""
    journal = read_journal(path)
    entries = [
        ScriptEntry(answer=r["answer"], stub=r.get("stub") or "*", purpose=r.get("purpose", UNRECORDED_PURPOSE), once=True)
        for r in journal.records
        if r.get("type") == "answer" and r.get("accepted")
    ]
    return ScriptedLLM(entries, name=f"journal:{path}", source="journal")
