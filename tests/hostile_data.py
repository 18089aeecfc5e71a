"""Data files built to be misread: Rich markup and terminal escapes in every string field.

`HOSTILE` holds a markup tag that does not close (`[/oops]` crashes a markup parser), a click
action (`[@click=app.screenshot(...)]` runs an app action when clicked), an OSC 52 clipboard write,
a window title and a screen clear. What shows it must show it as text: `SHOWN` is what a screen or
a terminal prints for it (`agent.runtime.safe_text.for_terminal`), and no escape character reaches
the terminal.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent.runtime.safe_text import for_terminal
from agent.sessions.journal_read import JOURNAL_FILE


def hostile(tag: str) -> str:
    """A hostile string naming `tag` (which field it is), whose click would write a file in the working folder."""
    return f"{tag}[/oops][@click=app.screenshot('clicked.svg','.')]x[/]\x1b]52;c;aGk=\x07\x1b]0;owned\x1b\\\x1b[2J\x9b1m"


def shown(text: str) -> str:
    return for_terminal(text, newlines=False)


def hostile_journal(folder: Path, *, finished: bool = True) -> Path:
    """A session folder whose journal's every string field is hostile (the game, the LLM, the branch)."""
    folder.mkdir(parents=True)
    records = [
        {"type": "session", "version": "recode.journal.v1", "env": "alfworld", "episode": hostile("game"),
         "game": hostile("game"), "agent": "recode", "llm": hostile("llm"), "max_steps": 10,
         "limits": {}, "prompt_set": hostile("prompts"),
         "parent": {"session": hostile("parent"), "at": hostile("at")}},
    ]
    if finished:
        records.append({"type": "finished", "success": False, "reason": hostile("reason"), "steps": 0})
    (folder / JOURNAL_FILE).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def hostile_report(folder: Path, success: bool) -> Path:
    """An evaluation folder whose report's every string field is hostile (the model label, the game, the
    task type, the reason, the journal path)."""
    folder.mkdir(parents=True)
    game = {"id": hostile("game"), "task_type": hostile("type")}
    report = {"version": "recode.eval.v1",
              "plan": {"llm": hostile(f"llm-{folder.name}"), "agents": ["recode"], "games": [game], "env": "alfworld"},
              "episodes": [{"game": hostile("game"), "task_type": hostile("type"), "agent": "recode", "success": success,
                            "reason": hostile("reason"), "journal": hostile("journal"), "steps": 3}]}
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    return folder


def hostile_prompt_set(folder: Path, source: Path) -> Path:
    """A copy of the prompt set `source` with a hostile line at the top of each of its text files."""
    import shutil

    shutil.copytree(source, folder)
    for path in folder.rglob("*.txt"):
        path.write_text(hostile(path.name) + "\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def hostile_session(played: Path, folder: Path) -> Path:
    """A copy of the session `played` whose journal says hostile things wherever text is free: the LLM,
    each answer's thought, the end's reason (its game and code stay, so it resumes)."""
    import re
    import shutil

    shutil.copytree(played, folder)
    journal = folder / JOURNAL_FILE
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    for record in records:
        if record["type"] == "session":
            record["run"]["model"]["llm"] = hostile("llm")
        elif record["type"] == "answer":
            record["answer"] = re.sub(r"<think>.*?</think>", lambda m: f"<think>{hostile('thought')}</think>",
                                      record["answer"], flags=re.S)
        elif record["type"] == "finished":
            record["reason"] = hostile("reason")
    journal.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder
