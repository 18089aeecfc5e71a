"""The bundled demo scripts (`--llm demo`): ReCode's `alfworld.yaml` and one `<agent>-alfworld.jsonl` per
baseline agent (written by `build_agent_demos.py`); `served` answers them all from one local server."""
