"""A realistic bug for the researcher's loop: the demo script, but `clean_at_sink` goes to the sink and never cleans."""

from __future__ import annotations

from pathlib import Path

import yaml

from recode_tui.setup.build import DEMO_SCRIPT

CLEAN_STUB = "cleaned = clean_at_sink(obj, places)"
_CLEAN_LINES = '''          obs = run(f"clean {obj} with {sinks[0]}")
          cleaned = obs.startswith("You clean")'''


def bugged_script(tmp_path: Path) -> Path:
    """The demo script whose clean step never sends `clean` (so every clean episode is lost)."""
    text = Path(DEMO_SCRIPT).read_text(encoding="utf-8")
    assert _CLEAN_LINES in text, "the demo script's clean step changed; update tests/eval/bugged.py"
    path = tmp_path / "bugged.yaml"
    path.write_text(text.replace(_CLEAN_LINES, "          cleaned = True"), encoding="utf-8")
    return path


def fixed_clean_answer() -> str:
    """The demo script's correct expansion of the clean step (what a person types in the fork)."""
    entries = yaml.safe_load(Path(DEMO_SCRIPT).read_text(encoding="utf-8"))["answers"]
    return next(e["answer"] for e in entries if e["stub"] == CLEAN_STUB)
