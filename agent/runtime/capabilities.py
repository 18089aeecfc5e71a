"""What an agent's answers for a known solution and its demo scripts are made of.

An agent's capability flags (`answers_are_code`, `code_tree`, `prompt_workspace`, `demo_scripts`) are
fields of its `agent.runtime.traits.AgentTraits`; beside them it may override the class method
`gold_answers(actions)`: its own answers that play a known action sequence (`--llm gold`), as
`ScriptedAnswer`s a scripted LLM gives in turn (`mockllm.gold.gold_llm(agent, actions)`); None when it cannot.
`bundled_demos` finds the bundled scripts `demo_scripts` names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEMOS = Path(__file__).resolve().parents[2] / "mockllm" / "demos"  # the bundled agents' demo scripts


@dataclass(frozen=True)
class ScriptedAnswer:
    """One answer of a script: the text, the call it answers (purpose, and the node's code; `*` any),
    and whether it is used once (answers to the same call given in turn)."""

    answer: str
    purpose: str
    stub: str = "*"
    once: bool = False


def bundled_demos(pattern: str) -> dict[str, Path]:
    """The bundled demo scripts named by `pattern` with `{env}` in it (`react-{env}.jsonl`), by environment."""
    prefix, _, suffix = pattern.partition("{env}")
    return {path.name[len(prefix):len(path.name) - len(suffix)]: path
            for path in sorted(DEMOS.glob(pattern.replace("{env}", "*")))}
