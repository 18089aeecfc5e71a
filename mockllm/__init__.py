"""LLMs that are not a remote model: a person typing, a scripted replay."""

from mockllm.human import HumanLLM
from mockllm.scripted import ScriptedLLM, load_script

__all__ = ["HumanLLM", "ScriptedLLM", "load_script"]
