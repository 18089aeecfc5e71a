"""One responder for the local OpenAI-compatible server that plays every agent's demo.

A comparison (`eval --agent recode,react,...  --llm profile:local`) sends all
five agents' calls to one server. The server sees only the prompt text, so
this tells the agent by its prompt's opening words and answers from that
agent's demo script: ReCode's by stub (as `script_responder`), the others'
in order per game (each game's entries are written in the order its calls
come, so the purpose need not be known).
"""

from __future__ import annotations

import threading
from pathlib import Path

from mockllm.openai_server import NoAnswer, Reply, Responder, entries_responder
from mockllm.scripted import ScriptEntry, load_script

HERE = Path(__file__).resolve().parent
# the words that open (or mark) each agent's prompt, and the demo file it answers from
MARKS: tuple[tuple[str, str], ...] = (
    ("# Current function to expand", "recode"),
    ("You are the planner of an agent", "plan-execute"),
    ("You are the executor of an agent", "plan-execute"),
    ("You are the replanner of an agent", "plan-execute"),
    ("You solve the task top-down", "recap"),
    ("acting in a text environment by writing Python code", "codeact"),
    ("Work in turns: think about what you know", "react"),
)


def agent_of(prompt: str) -> str | None:
    """Which agent sent this prompt (None: none of the bundled prompt sets)."""
    return next((agent_name for mark, agent_name in MARKS if mark in prompt), None)


def role_of(prompt: str) -> str:
    """Plan-and-Execute's role of a prompt (planner, executor, replanner); `main` for the other agents."""
    for role in ("planner", "executor", "replanner"):
        if f"You are the {role} of an agent" in prompt:
            return role
    return "main"


def demo_responder() -> Responder:
    recode = entries_responder(load_script(HERE / "alfworld.yaml"))
    scripts: dict[str, list[ScriptEntry]] = {
        agent_name: load_script(HERE / f"{agent_name}-alfworld.jsonl") for agent_name in ("react", "codeact", "plan-execute", "recap")}
    lock = threading.Lock()  # the server answers from several threads

    def respond(prompt: str) -> str | Reply:
        agent_name = agent_of(prompt)
        if agent_name == "recode":
            return recode(prompt)
        with lock:
            for entry in scripts.get(agent_name or "", []):
                if not entry.used and entry.when is not None and entry.when.search(prompt):
                    entry.used = True
                    return entry.answer
        raise NoAnswer(f"no {agent_name or 'known agent'}'s demo answer is left for this prompt")

    return respond
