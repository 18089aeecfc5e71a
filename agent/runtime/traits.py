"""What an agent is called and what it offers, as one record per agent class (`Stepper.traits`).

The console, eval, journals, transcripts, `run`'s log lines and the plain terminal read an agent's
words and capabilities here and nowhere else, so none of them decides by an agent's name or falls back
to ReCode's words, and an agent's namespace keeps only its author's hooks. An agent declares it once:

    traits = AgentTraits(display_name="ReAct", structure_title="Turns", answer_words=AnswerWords(noun="turn"))

Every field has the default an agent without it gets: generic words, no capability.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Mapping

from agent.runtime.answer_words import AnswerWords
from agent.runtime.prompt_parts import PromptParts


@dataclass(frozen=True)
class AgentTraits:
    """An agent's presentation words and capability flags."""

    # -- its words: how the front ends speak of it, its nodes and its calls --
    display_name: str = "Agent"  # as the status line shows it
    structure_title: str = "Steps"  # the title of the pane that draws its tree
    view_title: str = ""  # the title of the console's agent tab; "" = the agent has no view
    # What the console's Variables pane shows in place of an empty table, for an agent whose runner keeps no
    # variables; '' for an agent whose code keeps them (ReCode, CodeAct).
    variables_note: str = ""
    every_call_words: str = "every LLM call"  # how the default breakpoint reads for this agent
    awaiting_llm_word: str = "awaiting llm"  # how a node waiting on its LLM call reads in the panes
    # The purpose (`agent.llm.Purpose`, or the agent's own word) of its main call: the one a `stub NAME`
    # breakpoint stops at and whose accepted answer adds child nodes (ReCode: "expand"); '': none, every
    # call reads by its own purpose.
    main_purpose: str = ""
    root_code: str = "task"  # the root's code before the task is known
    task_code: str = ""  # the root's code once the task is known ("{instruction}" is the task); '' keeps `root_code`
    answer_words: AnswerWords = AnswerWords()  # how every front end's editor speaks of its answers
    # -- what it offers the front ends --
    answers_are_code: bool = False  # its answers are Python: transcripts fence them, eval gives it a warm runner
    code_tree: bool = False  # its answers expand a code tree (`export --tree`; the transcript says "expansion")
    # Its prompt written by parts (ReCode's `expand.txt`), as the console's prompt workspace (`W`) edits and
    # tries it and `prompt show --stub` renders it (`agent.runtime.prompt_parts`); None: it has none.
    prompt_workspace: PromptParts | None = None
    # environment name -> the bundled script `--llm demo` plays there (`capabilities.bundled_demos` finds them)
    demo_scripts: Mapping[str, Path] = field(default_factory=dict)


TRAIT_NAMES = frozenset(f.name for f in fields(AgentTraits))  # what an agent class must not declare loose
