"""The prompt workspace: edit the prompt set and watch the rendered prompt of one stub.

Opened from the console with `W`. Left: the files of the prompt set (the
expand template, the action list, one few-shot file per task type), each with
its check verdict; middle: the selected file in an editor; right: the token
counts and the exact prompt the agent would send for the chosen stub,
re-rendered a moment after typing stops. Edits live in a `DraftPromptSet`
until saved; re-expanding asks LLMs with the edited prompt and compares.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.signal import Signal
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from agent.llm import LLM, LLMError
from agent.llm.tokens import TokenCounter, model_of
from agent.runtime.prompt_parts import (
    DraftPromptSet,
    ExampleCheck,
    ExamplePlay,
    PromptParts,
    PromptSetError,
    RenderedPrompt,
    check_summary,
)
from agent.runtime.prompts import PromptSet
from agent.runtime.stepper import Stepper
from envs import registry
from recode_tui.console.widgets.answer_editor import cursor_blink_of
from recode_tui.console.widgets.key_line import WORKSPACE_KEYS, KeyLine
from recode_tui.console.widgets.key_footer import KeyFooter
from recode_tui.console.support.zoom import zoom_focused
from recode_tui.console.workspace.compare import RUN_KEYS, Candidate, Choice, CompareScreen
from recode_tui.console.workspace.counts import token_table
from recode_tui.console.workspace.fresh import fresh_llm
from recode_tui.console.workspace.recovery import discard, load_edits, recovery_file, save_edits
from recode_tui.console.workspace.target import StubTarget
from recode_tui.setup.places import user_prompts_dir
from recode_tui.setup.shown import shown

RENDER_DELAY = 0.15  # seconds of typing quiet before re-rendering: a render takes 3-16 ms (toy set); a burst
# of keys (a paste, key repeat at 30/s) is still one render, and the prompt follows the person sooner


class PromptWorkspace(Screen["WorkspaceChoice | None"]):
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Back", id="workspace.back", priority=True),
        Binding("ctrl+r", "reexpand", "Re-expand", id="workspace.reexpand", priority=True),
        Binding("ctrl+o", "save", "Save set", id="workspace.save", priority=True),
        Binding("ctrl+t", "zoom", "Zoom the focused pane (or restore)", id="workspace.zoom", priority=True),
        RUN_KEYS,
    ]
    ZOOMABLE = ("ws-files", "ws-editor", "ws-rendered", "ws-checks")

    def __init__(self, target: StubTarget, agent: Stepper, prompts_dir: Path | None = None,
                 profiles_path: str | None = None, sessions_dir: Path | None = None) -> None:
        super().__init__()
        self.target = target
        self.agent = agent  # its judge and words judge the answers compared
        if agent.traits.prompt_workspace is None:
            raise TypeError(f"the {agent.name} agent has no prompt written by parts to edit (traits.prompt_workspace)")
        self.parts: PromptParts = agent.traits.prompt_workspace  # its prompt by parts: render, check, play, save
        prompts, llm = agent.prompts, agent.host.llm
        self.agent_llm = llm
        self.draft = prompts if isinstance(prompts, DraftPromptSet) else DraftPromptSet(prompts.root)
        self.base_hash = PromptSet(self.draft.root).content_hash()
        self.sessions_dir = sessions_dir  # where unsaved edits are kept as they are typed (None: nowhere)
        self.restored: list[str] = []  # files whose unsaved edits came back from the last workspace
        if sessions_dir is not None and not self.draft.edits:
            kept = load_edits(self._recovery(), self.draft.root, self.base_hash)
            if kept:  # a set of its own: the run's prompt set changes only when an answer is chosen
                self.draft = DraftPromptSet(self.draft.root, edits=kept)
            self.restored = sorted(kept)
        self._kept_edits = dict(self.draft.edits)
        self.prompts_dir = prompts_dir
        self.profiles_path = profiles_path
        self.counter = TokenCounter(model_of(llm))
        self.files = self.parts.editable_files(self.draft, target.env_name)
        examples = self.parts.examples_file(target.env_name, target.task_type)
        self.current_file: str = examples if examples is not None and examples in self.files else self.files[0]
        self.checks: dict[str, list[ExampleCheck]] = {}
        self._checked: dict[str, tuple[str, list[ExampleCheck]]] = {}  # file: the text last checked, its checks
        self.plays: dict[str, ExamplePlay | None] = {}  # an edited examples file played on a game (None: playing)
        self.rendered: RenderedPrompt | None = None
        self.baseline_tokens = self.counter.count(self._render_with(PromptSet(self.draft.root)).text).tokens
        # Published with the new rendering each time the prompt is rendered again (after a pause in typing).
        self.prompt_rendered: Signal[RenderedPrompt] = Signal(self, "prompt_rendered")
        self._timer: Timer | None = None

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="ws-header")
        with Horizontal(id="ws-main"):
            with Vertical(id="ws-files-col"):
                yield OptionList(id="ws-files")
                yield Static(id="ws-checks")
            yield TextArea(self.draft.text(self.current_file), id="ws-editor", soft_wrap=True, show_line_numbers=True)
            with Vertical(id="ws-right"):
                yield Static(id="ws-counts")
                yield TextArea("", id="ws-rendered", read_only=True, soft_wrap=True, show_line_numbers=False)
        with Horizontal(id="ws-bar"):
            yield Static("re-expand with", classes="ws-label")
            yield Input(self._default_specs(), id="ws-llms", placeholder="LLM specs, comma separated")
            yield Static("save as", classes="ws-label")
            yield Input(self.parts.default_set_name(self.draft), id="ws-name")
        yield KeyFooter()
        yield KeyLine(WORKSPACE_KEYS, id="key-line")  # the footer's place below 100 columns (recode.tcss)

    def on_mount(self) -> None:
        self.query_one("#ws-files").border_title = "Prompt set"
        self.query_one("#ws-editor").border_title = shown(self.current_file)  # a prompt set's file name: data
        self.query_one("#ws-rendered").border_title = "Rendered prompt"
        blink = cursor_blink_of(self.app)
        for widget in (*self.query(TextArea), *self.query(Input)):
            widget.cursor_blink = blink
        self.refresh_all()
        if self.restored:
            self.notify(f"unsaved edits of {', '.join(f.split('/')[-1] for f in self.restored)} are back "
                        f"(kept from the last workspace); ctrl+o saves them as a set", title="Prompt edits restored",
                        timeout=10)
        files = self.query_one("#ws-files", OptionList)
        files.highlighted = self.files.index(self.current_file)
        self.query_one("#ws-editor").focus()

    def action_run_keys(self) -> None:
        self.notify("Close the workspace (esc) to step the run.", severity="warning")

    def action_zoom(self) -> None:
        zoom_focused(self, self.ZOOMABLE)

    def _default_specs(self) -> str:
        name = self.agent_llm.name or "human"
        return name if name == "human" else f"{name}, human"

    # -- rendering ------------------------------------------------------------------------

    def _render_with(self, prompts: PromptSet) -> RenderedPrompt:
        t = self.target
        return self.parts.render(prompts, t.env_name, t.task_type, t.code, list(t.variable_lines), t.context)

    def refresh_all(self) -> None:
        """Re-check the example files, re-render the prompt, recount: after every quiet pause."""
        self.checks = {f: self._checks_of(f) for f in self.files if "/examples/" in f}
        self._keep_edits()
        edited = self.current_file
        if edited in self.checks and edited in self.draft.changed and all(c.ok for c in self.checks[edited]):
            self.play_edited_examples(edited, self.draft.text(edited))
        else:
            self.plays.pop(edited, None)
        self.rendered = self._render_with(self.draft)
        self._show_files()
        self._show_checks()
        self._show_header()
        self.total = self.counter.count(self.rendered.text)
        self.query_one("#ws-counts", Static).update(token_table(self.rendered, self.counter, self.baseline_tokens))
        rendered = self.query_one("#ws-rendered", TextArea)
        if rendered.text != self.rendered.text:
            rendered.load_text(self.rendered.text)
        self.prompt_rendered.publish(self.rendered)

    def _checks_of(self, file: str) -> list[ExampleCheck]:
        """The checks of one examples file, made again only when its text changed (a pause in
        typing re-checks the file being edited, not every file of the set)."""
        text = self.draft.text(file)
        known = self._checked.get(file)
        if known is None or known[0] != text:
            known = self._checked[file] = (text, self.parts.check_examples(text))
        return list(known[1])

    def _show_header(self) -> None:
        t = self.target
        digest = self.draft.content_hash()
        state = "unedited" if digest == self.base_hash else f"edited → {digest}"
        header = Text.assemble(
            ("Prompt for ", ""), (f"{t.node_id} `{t.code.splitlines()[0]}`", "bold"),
            (f"  task type {t.task_type or '?'} · variables from the {t.variables_from}", "dim"),
            ("\n", ""),
            (f"prompt set {self.draft.root.name} {self.base_hash} ({state})", ""),
            ("  · awaiting its expansion" if t.awaiting else "", "yellow"),
        )
        self.query_one("#ws-header", Static).update(header)

    def _show_files(self) -> None:
        used = self.parts.examples_file(self.target.env_name, self.target.task_type)
        changed = set(self.draft.changed)
        options = []
        for f in self.files:
            label = Text()
            checks = self.checks.get(f)
            if checks is not None:
                ok = all(c.ok for c in checks)
                label.append("✓ " if ok else "✗ ", style="green" if ok else "bold red")
            else:
                label.append("  ")
            label.append(f.split("/")[-1] if "/examples/" in f else f, style="bold" if f == used else "")
            if f == used:
                label.append(" (used)", style="cyan")
            if f in changed:
                label.append(" ●", style="yellow")
            if checks is not None and not all(c.ok for c in checks):
                label.append(f"\n    {check_summary(checks)}", style="red")
            options.append(Option(label, id=f))
        files = self.query_one("#ws-files", OptionList)
        highlighted = files.highlighted
        files.clear_options()
        files.add_options(options)
        if highlighted is not None:
            files.highlighted = highlighted

    def _show_checks(self) -> None:
        checks = self.checks.get(self.current_file)
        box = next(iter(self.query("#ws-checks").results(Static)), None)
        if box is None:  # the workspace closed (a fork chosen) while its examples played: nothing to show
            return
        if checks is None:
            box.update(Text(f"{self.current_file}: a template, not examples", style="dim"))
            return
        out = Text(f"{self.current_file.split('/')[-1]}: {check_summary(checks)}\n", style="bold")
        for c in checks:
            if c.ok:
                out.append(f"✓ {c.index} {c.function}\n", style="green")
            else:
                out.append(f"✗ {c.index} (line {c.line}) {c.function}\n", style="bold red")
                for problem in c.problems:
                    out.append(f"   {problem}\n", style="red")
        if self.current_file in self.plays:
            play = self.plays[self.current_file]
            if play is None:
                out.append("▶ playing the examples on a bundled game…\n", style="dim")
            else:
                out.append(f"{'✓' if play.won else '✗'} {play.summary()}\n", style="green" if play.won else "bold red")
        box.update(out)

    @work(exclusive=True, group="play-examples")
    async def play_edited_examples(self, relative: str, text: str) -> None:
        """Play an edited examples file as a plan on a bundled game of its type, off the UI thread."""
        episode_ref = registry.provider(self.target.env_name).example_episode(Path(relative).stem)
        if episode_ref is None:
            return
        self.plays[relative] = None
        self._show_checks()
        # in a sandbox with the run's walls and layers, as the user set them
        play = await self.parts.play_examples(text, episode_ref, self.target.env_name, self.draft, self.agent.runner)
        if self.draft.text(relative) == text:  # still the text that was played
            self.plays[relative] = play
            self._show_checks()

    # -- editing --------------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#ws-files")
    @on(OptionList.OptionHighlighted, "#ws-files")
    def open_file(self, event: OptionList.OptionHighlighted | OptionList.OptionSelected) -> None:
        chosen = event.option.id
        if chosen is None or chosen == self.current_file:
            return
        self.current_file = chosen
        editor = self.query_one("#ws-editor", TextArea)
        editor.border_title = shown(chosen)
        editor.load_text(self.draft.text(chosen))
        self._show_checks()

    def select_file(self, relative: str) -> None:
        """Open one file in the editor (as if picked in the list)."""
        self.query_one("#ws-files", OptionList).highlighted = self.files.index(relative)

    @on(TextArea.Changed, "#ws-editor")
    def edited(self, event: TextArea.Changed) -> None:
        text = event.text_area.text
        if text == self.draft.text(self.current_file):
            return
        self.draft.edits[self.current_file] = text
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(RENDER_DELAY, self.refresh_all)

    # -- saving ---------------------------------------------------------------------------------

    def _recovery(self) -> Path:
        assert self.sessions_dir is not None
        return recovery_file(self.sessions_dir, self.draft.root)

    def _keep_edits(self) -> None:
        """Write the unsaved edits to disk if they changed since the last write."""
        if self.sessions_dir is None or self.draft.edits == self._kept_edits:
            return
        self._kept_edits = dict(self.draft.edits)
        unsaved = self._kept_edits if self.draft.changed else {}  # typed back to the folder's text: none
        error = save_edits(self._recovery(), self.draft.root, self.base_hash, unsaved)
        if error:
            self.notify(error, severity="warning")

    def action_save(self) -> None:
        if self._timer is not None:  # typing may not have been checked yet
            self._timer.stop()
            self.refresh_all()
        name = self.query_one("#ws-name", Input).value.strip()
        try:
            folder = self.parts.save(self.draft, name, self.prompts_dir or user_prompts_dir())
        except PromptSetError as exc:
            self.notify(str(exc), title="Not saved", severity="error")
            return
        if self.sessions_dir is not None:
            discard(self._recovery())  # the edits are on disk now, as a set
        self.draft = DraftPromptSet(folder, edits=dict(self.draft.edits))
        self.base_hash = PromptSet(folder).content_hash()
        self.saved_to = folder
        self._show_header()
        flagged = flagged_examples(self.checks)
        if flagged:
            self.notify(f"saved to {folder} (hash {self.base_hash}), but {flagged}",
                        title="Prompt set saved with flagged examples", severity="warning", timeout=15)
        else:
            self.notify(f"saved to {folder} (hash {self.base_hash})", title="Prompt set saved")

    # -- re-expanding -----------------------------------------------------------------------------

    def _llm_for(self, spec: str) -> LLM | None:
        """A fresh LLM for a spec, so a comparison never uses up the run's scripted answers."""
        from recode_tui.setup.build import make_llm
        from recode_tui.setup.usage import UsageError

        current = self.agent_llm
        try:
            if spec == current.name:
                return fresh_llm(current, self.profiles_path)  # never a copy of the run's object
            return make_llm(spec, self.profiles_path)
        except UsageError as exc:
            self.notify(str(exc), title=f"Cannot use {spec}", severity="error")
            return None

    def action_reexpand(self) -> None:
        specs = [s.strip() for s in self.query_one("#ws-llms", Input).value.split(",") if s.strip()]
        if not specs:
            self.notify("Name at least one LLM: demo, scripted:FILE, profile:NAME or human.", severity="warning")
            return
        self.reexpand(specs)

    @work(exclusive=True, group="reexpand")
    async def reexpand(self, specs: list[str]) -> None:
        self.refresh_all()
        assert self.rendered is not None
        prompt = self.rendered.text
        context = self.parts.call_context(self.target.code, self.target.stub_name)
        asked = [s for s in specs if s != "human"]
        if asked:  # "asking nobody" would only cover the person's column and its check line
            self.notify(f"asking {', '.join(asked)}…", title="Re-expanding")

        async def ask(spec: str) -> Candidate:
            if spec == "human":
                return Candidate("human", text=self.target.recorded_answer or "")
            llm = self._llm_for(spec)
            if llm is None:
                return Candidate(spec, error="unknown LLM spec")
            if llm.name == "human":
                return Candidate("human")
            try:
                completion = await llm.complete(prompt, context)
            except LLMError as exc:
                return Candidate(spec, error=str(exc))
            return Candidate(spec, completion.text, "", completion.usage.input_tokens, completion.usage.output_tokens,
                             completion.cut_at)

        candidates = list(await asyncio.gather(*(ask(s) for s in specs)))
        self.app.push_screen(
            CompareScreen(self.target.node_id, self.target.code, self.target.recorded_answer, candidates,
                          self.target.known, self.draft.content_hash(), self.agent, self.agent.traits.main_purpose),
            self.chosen,
        )

    def chosen(self, choice: Choice | None) -> None:
        """Back from the comparison: close the workspace with the choice (the edited set goes with it)."""
        if choice is not None:
            self.dismiss(WorkspaceChoice(choice, self.draft))


def flagged_examples(checks: dict[str, list[ExampleCheck]]) -> str:
    """'' when every example passes its check, else how many are flagged and which (file, number, line)."""
    bad = [(f.split("/")[-1], c) for f, file_checks in checks.items() for c in file_checks if not c.ok]
    if not bad:
        return ""
    which = "; ".join(f"{name} #{c.index} (line {c.line}) {c.function}: {c.problems[0]}" for name, c in bad)
    return f"{len(bad)} example{'s' if len(bad) > 1 else ''} flagged: {which}"


@dataclass(frozen=True)
class WorkspaceChoice:
    """An answer chosen in the workspace and the prompt set that produced it."""

    choice: Choice
    prompts: DraftPromptSet

