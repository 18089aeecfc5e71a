"""Code written against the flat `agent/` layout keeps working for one release (issue 26).

`old_public_names.json` lists, for each `agent` module before the layout change, every
public name it defined or listed in `__all__` and every name any code in the repository
imported from it (recorded from that code); each must still import from its old path.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

OLD = json.loads((Path(__file__).parent / "old_public_names.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("module", sorted(OLD))
def test_every_old_public_name_imports_from_its_old_path(module: str) -> None:
    old = importlib.import_module(module)
    missing = [name for name in OLD[module] if not hasattr(old, name)]
    assert missing == [], f"{module} lost {missing}"


def test_an_old_path_is_the_moved_module_itself() -> None:
    """Same object, so a test or plug-in that patches the old path patches what runs."""
    import agent.runtime.stepper
    import agent.stepper

    assert agent.stepper is agent.runtime.stepper
    assert agent.stepper.__spec__ is not None and agent.stepper.__spec__.name == "agent.runtime.stepper"


def test_a_fresh_process_imports_old_paths_first() -> None:
    """A plug-in imported before anything else in its process (an eval worker) still finds the old names."""
    code = ("from agent.engine import Engine; from agent.stepper import Stepper; from agent import events;"
            "from agent.prompt import PromptSet; from agent.codeblocks import parse_answer;"
            "from agent.answer_rule import Verdict, judge_answer; print(issubclass(Engine, Stepper))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "True", out.stderr


OLD_STYLE = '''"""A plug-in written against the flat layout."""
from agent import events as ev
from agent.engine import Engine
from agent.prompt import PromptSet, build_expand_prompt
from agent.answer_rule import Verdict, judge_answer
from agent.agents.routing import RoleError
import agent.journal


def later():
    from agent.codeblocks import parse_answer, validate
    return parse_answer, validate, agent.journal.Journal, "agent.stepper.Stepper"
'''


def test_the_rewrite_tool_moves_a_plugin_to_the_new_paths(tmp_path) -> None:
    """`python -m agent.compat.rewrite` turns old imports into new ones; the result imports and runs."""
    plugin = tmp_path / "old_plugin.py"
    plugin.write_text(OLD_STYLE, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "agent.compat.rewrite", str(tmp_path)], capture_output=True, text=True,
                         timeout=60, cwd=Path(__file__).resolve().parent.parent)
    assert out.returncode == 0 and out.stdout.strip() == str(plugin), out.stderr
    text = plugin.read_text(encoding="utf-8")
    for line in ("from agent.runtime import events as ev", "from agent.agents.recode.engine import Engine",
                 "from agent.agents.recode.prompt import build_expand_prompt", "from agent.runtime.prompts import PromptSet",
                 "from agent.agents.recode.answer_rule import judge_answer", "from agent.runtime.verdict import Verdict",
                 "from agent.llm.routing import RoleError", "import agent.sessions.journal",
                 "    from agent.agents.recode.codeblocks import validate", "    from agent.runtime.code import parse_answer",
                 '"agent.runtime.stepper.Stepper"'):
        assert line in text
    from agent.compat.rewrite import rewrite

    assert rewrite(text) == text  # a second run changes nothing
    namespace: dict = {}
    exec(compile(text, str(plugin), "exec"), namespace)  # the rewritten imports all resolve
    import agent.sessions.journal

    # the new path's Journal (defined in journal_read since the journal's split, re-exported by journal)
    assert namespace["later"]()[2] is agent.sessions.journal.Journal
