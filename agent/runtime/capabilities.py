"""What an agent declares it offers the front ends, so none of them decides by the agent's name.

Each is a class attribute of `agent.runtime.stepper.Stepper` with a default that offers
nothing; an agent (bundled or a plug-in) sets the ones it has:

- `answers_are_code`: its answers are Python (transcripts fence them as code).
- `code_tree`: its answers expand a code tree (`export --tree`; the transcript says "expansion").
- `prompt_workspace`: its prompt is ReCode's kind, rendered by parts from `expand.txt`: the console's
  prompt workspace (`W`) edits and tries it, `prompt show --stub` renders it.
- `demo_scripts`: environment name -> a bundled script `--llm demo` plays on that environment.
- `gold_answers(actions)`: its own answers that play a known action sequence (`--llm gold`),
  as `ScriptedAnswer`s a scripted LLM gives in turn (`mockllm.gold.gold_llm(agent, actions)`); None when it cannot.
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
