"""Opening the workspace from the console, and continuing the run with a chosen answer.

When the chosen stub is the one whose expansion the run is stopped at, the
open run continues: the agent takes the edited prompt set for every later
expansion and gets the chosen answer as its next LLM answer (a person's run:
submitted like a typed expansion). A stub expanded earlier is continued in a
fork of the session (the old branch stays), when the run is journaled.
"""

from __future__ import annotations

from pathlib import Path

from agent.runtime import events as ev
from agent.runtime.debugger import StepMode
from mockllm.chosen import ChosenAnswerLLM
from recode_tui.console.run.hosts import RunScreen, Sessions
from recode_tui.console.run.requests import CloseEditor
from recode_tui.console.workspace.screen import PromptWorkspace, WorkspaceChoice
from recode_tui.console.workspace.target import pick_node, stub_target


async def open_workspace(run: RunScreen) -> None:
    """The workspace on `run`'s selected (or awaited) stub; a choice made there goes back to `run`.
    Only for an agent that declares one (`Stepper.traits.prompt_workspace`): others get one line saying so."""
    parts = run.agent.traits.prompt_workspace
    if parts is None:
        run.notify(f"The {run.agent.name} agent has no prompt workspace (W is for agents that declare one, "
                   f"e.g. recode); its prompts are in {run.agent.prompts.root}.", severity="warning")
        return
    if run.driver.busy and not run.debugger.awaiting_human:
        run.notify("The agent is running: pause it (p) before opening the prompt workspace.", severity="warning")
        return
    app = run.app
    selected = run.selected_node()
    node = pick_node(run.agent, selected.id if selected is not None else None, run.debugger.last_event)
    target = await stub_target(run.agent, parts, node, run.debugger.last_event)
    screen = PromptWorkspace(
        target,
        run.agent,
        profiles_path=run.console.profiles,
        sessions_dir=_sessions_dir(run.session_control),
    )
    await app.push_screen(screen, lambda choice: continue_with(run, choice))


def _sessions_dir(control: Sessions | None) -> Path:
    """The console's sessions folder: unsaved prompt edits are kept under it."""
    from recode_tui.setup.places import sessions_dir_from

    return control.sessions_dir if control is not None else sessions_dir_from(None)


def continue_with(run: RunScreen, chosen: WorkspaceChoice | None) -> None:
    if chosen is None or not run.is_attached:  # closed, or the run was replaced meanwhile
        return
    choice, agent, debugger = chosen.choice, run.agent, run.debugger
    last = debugger.last_event
    awaiting = isinstance(last, ev.LLMRequested) and last.node_id == choice.node_id
    if not awaiting or agent.host.done:
        control = run.session_control
        expanded = choice.node_id in agent.tree.nodes and agent.tree.nodes[choice.node_id].llm_calls
        if control is not None and expanded and not run.driver.busy:
            control.fork_with_answer(choice.node_id, choice.text, _source_kind(choice.source), chosen.prompts)
            return
        run.notify(
            f"{choice.node_id} is not the stub the run is stopped at, and this run is not journaled: "
            "start the console with sessions to fork it with this answer.",
            title="Not applied",
            severity="warning",
        )
        return
    if run.driver.busy:
        run.notify("The agent is running: pause it (p) first.", title="Not applied", severity="warning")
        return
    agent.prompts = chosen.prompts
    run.say("info", f"continuing {choice.node_id} with the answer of {choice.source} "
                    f"(prompt set {chosen.prompts.content_hash()})")
    if debugger.awaiting_human:
        run.post_message(CloseEditor(f"Submitted the answer of {choice.source} for {choice.node_id}…"))
        run.driver.submit(choice.text)
    else:
        agent.host.llm = ChosenAnswerLLM(choice.text, _source_kind(choice.source), agent.host.llm)
        run.driver.step(StepMode.NEXT)


def _source_kind(spec: str) -> str:
    """The `Completion.source` word for an LLM spec."""
    if spec == "human":
        return "human"
    if spec == "demo":
        return "demo"
    if spec.startswith(("scripted", "journal")):
        return "scripted"
    return "model"
