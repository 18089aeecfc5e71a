"""Sessions: journal a run, resume it after a crash, branch it at a node.

Resuming replays the journal against the real environment (checking every
prompt and observation) and stops where the recording ends, at the next point
that needs the outside world: an expansion to answer or an action to send. A
branch (rewind or fork) replays up to a chosen event into a new session that
records its parent; the old session is never touched.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from agent import agents
from agent.llm import LLM
from agent.llm.routing import install
from agent.runtime import events as ev
from agent.runtime.prompt_hashes import file_hashes
from agent.runtime.prompts import PromptSet, moved_prompt_set
from agent.runtime.runner import NodeTimeLimit
from agent.run.spec import AgentChoice, EnvChoice, PromptChoice, RunSpec
from agent.sandbox.settings import RunnerMaker, RunnerSettings
from agent.runtime.stepper import Stepper
from agent.sandbox.walls import at_least
from agent.sessions.header import SANDBOX_RUNNER, JournalHeader, SessionParent
from agent.sessions.journal import JournalWriter, file_hash, new_session_id
from agent.sessions.journal_read import JOURNAL_FILE, Journal, JournalError, read_journal
from agent.sessions.model_record import model_choice
from agent.sessions.replay import NoLiveLLM, ReplayEnv, ReplayLLM
from envs import registry
from envs.base import Env, EnvError
from envs.registry import EpisodeRef

EnvFactory = Callable[[str, int], Env]  # (episode reference, max_steps) -> env; see envs.registry


@dataclass
class Session:
    agent: Stepper
    writer: JournalWriter
    folder: Path
    notes: list[str]
    draft: dict | None = None


def session_header(episode: EpisodeRef, agent: Stepper, llm_spec: str, parent: SessionParent | None = None,
                   profiles: str | None = None, review: bool = False, spec: RunSpec | None = None) -> JournalHeader:
    """The journal's first line: the episode as `{episode, fingerprint}` (plus `game`, its reference, and
    whatever the provider adds to find it) and the run's record (`spec`, as the edge resolved it) with what
    the agent was built with written over it: its settings, the step limit it plays, the model (where a
    profile's requests went, never the key), the runner and the environment's options."""
    settings = RunnerSettings.of_runner(agent.runner)
    runner = settings if settings is not None else RunnerSettings(  # a test's in-process runner: no checks, say trusted
        trusted=True, node_timeout=agent.runner.node_timeout if isinstance(agent.runner, NodeTimeLimit) else 5.0)
    options = registry.env_settings(episode.env)
    found = episode.header_fields()  # the episode's own fields, the provider's and its options
    named = ("game", "env", "episode", "fingerprint", "game_path", "game_hash")
    run = replace(
        spec or RunSpec(),
        agent=AgentChoice(agent.name, dict(agent.options)),
        preset=agent.host.preset or "",
        max_steps=agent.env.max_steps,
        limits=agent.limits,
        prompts=PromptChoice(str(agent.prompts.root), agent.prompts.content_hash(),
                             file_hashes(agent.prompts.root)),  # which file differs, when two runs' hashes do
        model=model_choice(llm_spec, profiles, review),
        runner=runner,
        sandbox=RunnerSettings.in_force(agent.runner),
        env=EnvChoice(episode.env, options),
    )
    return JournalHeader(
        game=found["game"], episode=found.get("episode"), fingerprint=found.get("fingerprint"),
        game_path=found.get("game_path"), game_hash=found.get("game_hash"), task_type=agent.env.task_type,
        run=run, runner=SANDBOX_RUNNER if settings is not None else type(agent.runner).__name__,
        extra={k: v for k, v in found.items() if k not in named and k not in options},
        parent=parent,
    )


def start_session(agent: Stepper, sessions_dir: Path, episode: EpisodeRef, llm_spec: str,
                  parent: SessionParent | None = None, profiles: str | None = None, review: bool = False,
                  spec: RunSpec | None = None) -> Session:
    """Journal `agent` on `episode` into a new session folder."""
    episode_ref = episode.ref
    own = episode.env == registry.default_env()
    folder = claim_session_folder(sessions_dir, new_session_id(episode_ref if own else episode_ref.replace(":", "-").replace("/", "-")))
    writer = JournalWriter(folder, session_header(episode, agent, llm_spec, parent, profiles, review, spec))
    agent.host.observers.append(writer)
    writer.current_prompts = lambda: agent.prompts
    return Session(agent, writer, folder, [writer.error] if writer.error else [])


def claim_session_folder(sessions_dir: Path, session_id: str) -> Path:
    """A folder no other session has: `<id>`, else `<id>-2`, `-3`, ... created here, so two runs of one
    game started in the same second by one process (eval's workers, a script) never share a journal.
    When the folder cannot be made at all, the plain name: the journal writer reports that error."""
    folder, suffix = sessions_dir / session_id, 1
    while True:
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            suffix += 1
            folder = sessions_dir / f"{session_id}-{suffix}"
        except OSError:
            return folder


def replay_runner(header: JournalHeader, runs_with: RunnerSettings) -> tuple[RunnerSettings, str]:
    """How a session's node code replays: in the sandbox (or what the caller's `runner_maker` makes of
    these settings: tests' in-process runner; the command line passes none), with the recorded seed (so a replay draws
    the same numbers). What protects the machine is the user's (`runs_with`: their `--trusted` and
    `--node-timeout`), never the journal's: the checks are dropped only when the user asks, and the node
    time limit is the recorded one only when it is no longer than the user's; the journal may ask for
    more sandbox walls than the user's, never fewer (`walls.at_least`). Returns the settings and a note
    when they differ from the recording."""
    recorded = header.run.runner
    limit = min(recorded.node_timeout, runs_with.node_timeout)
    sandbox, sandbox_note = at_least(runs_with.sandbox, header.run.sandbox)
    settings = RunnerSettings(trusted=runs_with.trusted, node_timeout=limit, seed=recorded.seed, sandbox=sandbox)
    notes = [sandbox_note] if sandbox_note and not runs_with.trusted else []
    if header.recorded_unchecked and not runs_with.trusted:
        how = "in-process without checks" if header.runner == "ThreadRunner" else "with --trusted"
        notes.append(f"this session was recorded {how}; it replays in the sandbox with the checks "
                     "(pass --trusted to run its code without them)")
    if recorded.node_timeout > limit:
        notes.append(f"this session recorded a node time limit of {recorded.node_timeout:g} s; it replays with "
                     f"yours, {limit:g} s (--node-timeout {recorded.node_timeout:g} gives it its own)")
    return settings, "; ".join(notes)


def _agent_for(
    journal: Journal, live_llm: LLM, make_env: EnvFactory, prompts: PromptSet | None, upto: int | None,
    runs_with: RunnerSettings = RunnerSettings(), runner_maker: RunnerMaker | None = None,
) -> tuple[Stepper, str]:
    header = journal.header
    max_steps, prompt_set = _replay_fields(journal)
    episode_ref = _check_episode(journal)
    env = ReplayEnv(make_env(episode_ref, max_steps), journal.actions(upto))
    llm = ReplayLLM(journal.answers(upto), live_llm)
    prompts = prompts or PromptSet(moved_prompt_set(Path(prompt_set)))
    runner, note = replay_runner(header, runs_with)
    spec = replace(header.run, runner=runner)
    try:
        agent = agents.build_agent(spec, env, llm, runner_maker(runner) if runner_maker is not None else None,
                                   prompts=prompts)
    except agents.UnknownAgent as exc:
        raise JournalError(f"session {journal.session_id}: {exc}") from None
    agent.host.replay_queue.extend(journal.statements(upto))
    return agent, note


def _replay_fields(journal: Journal) -> tuple[int, str]:
    """The step limit and prompt set a replay builds the run from (else one line, not a KeyError)."""
    header = journal.header
    where = f"journal {journal.folder / JOURNAL_FILE} line 1: the session header"
    max_steps, prompt_set = header.run.max_steps, header.run.prompts.path
    if max_steps is None or prompt_set is None:
        name = "run.max_steps" if max_steps is None else "run.prompts.path"
        raise JournalError(f"{where} has no `{name}`; it cannot be replayed (start a new run of its episode)")
    if header.fingerprint is None and header.game_path is None:
        raise JournalError(f"{where} names no episode; it cannot be replayed (start a new run of its episode)")
    return max_steps, prompt_set


def _check_episode(journal: Journal) -> str:
    """The episode reference of a journal, checked to replay the same as when it was recorded.

    New headers carry `{env, episode, fingerprint}`; pre-seam ones (ALFWorld only)
    `game_path` and `game_hash`, which is the same fingerprint of the same file.
    """
    header = journal.header
    if header.fingerprint is None:
        game_path = Path(header.game_path or "")
        if not game_path.is_file():
            raise JournalError(f"the session's game {game_path} is gone; restore it to resume")
        if file_hash(game_path) != header.game_hash:
            raise JournalError(
                f"the game file {game_path} changed since session {journal.session_id} was recorded; "
                "replaying it would not rebuild the same run"
            )
        return str(game_path)
    episode_ref = header.episode_ref
    try:
        fingerprint = registry.fingerprint(episode_ref)
    except EnvError as exc:
        raise JournalError(f"the session's episode {episode_ref} cannot be loaded ({exc}); restore it to resume") from None
    if fingerprint != header.fingerprint:
        raise JournalError(
            f"the episode {episode_ref} changed since session {journal.session_id} was recorded; "
            "replaying it would not rebuild the same run"
        )
    return episode_ref


def _replay_parts(agent: Stepper) -> tuple[ReplayLLM, ReplayEnv]:
    """The replay LLM and environment `_agent_for` built the agent with (until `install` swaps the LLM)."""
    llm, env = agent.host.llm, agent.env
    if not isinstance(llm, ReplayLLM) or not isinstance(env, ReplayEnv):
        raise TypeError(f"not a replaying agent: its LLM is {type(llm).__name__}, its env {type(env).__name__}")
    return llm, env


def _replaying(agent: Stepper) -> bool:
    llm, env = _replay_parts(agent)
    return bool(env.pending) or bool(llm.pending) or bool(agent.host.replay_queue)


def _needs_outside(seen: list[ev.Event]) -> bool:
    """The run waits for an answer or an observation (statements typed there since do not move it on)."""
    point = next((e for e in reversed(seen) if not isinstance(e, ev.StatementRun)), None)
    return isinstance(point, (ev.LLMRequested, ev.ActionSent))


async def _fast_forward(agent: Stepper, stop: Callable[[ev.Event], bool] | None) -> list[ev.Event]:
    """Step through the recording, up to `stop` or else the next point that needs outside input."""
    seen: list[ev.Event] = []
    while True:
        event = await agent.step()
        seen.append(event)
        if isinstance(event, ev.RunFinished) or (stop is not None and stop(event)):
            return seen
        if _needs_outside(seen) and not _replaying(agent):
            return seen


async def _replay(agent: Stepper, stop: Callable[[ev.Event], bool] | None) -> list[ev.Event]:
    """Fast-forward; a replay that fails closes its agent (and sandbox worker) before raising."""
    try:
        return await _fast_forward(agent, stop)
    except BaseException:
        await agent.close()
        raise


async def resume_session(
    folder: Path, live_llm: LLM, make_env: EnvFactory, prompts: PromptSet | None = None, *,
    runs_with: RunnerSettings = RunnerSettings(), prompt_places: tuple[Path, ...] = (),
    runner_maker: RunnerMaker | None = None,
) -> tuple[Session, list[ev.Event]]:
    """Rebuild a session's exact state and keep journaling into it.

    The code runs sandboxed with the checks unless the user's `runs_with` is trusted, and never with a
    longer node time limit than theirs: what the journal says about either is never enough (see
    `replay_runner`). `prompt_places`: where an edited prompt set the run switched to may be saved.
    `runner_maker`: makes the replay's runner from those settings instead of the sandbox (the run's own
    maker: a console test's in-process runner); every replay below takes it the same way.
    """
    journal = read_journal(folder)
    agent, runner_note = _agent_for(journal, live_llm, make_env, prompts, None, runs_with, runner_maker)
    events = await _replay(agent, None)
    edited_note = _adopt_edited_prompts(agent, prompt_places)
    writer = JournalWriter(journal.folder, journal.header)
    writer.continue_from(journal)
    writer.catch_up(events)
    agent.host.observers.append(writer)
    writer.current_prompts = lambda: agent.prompts
    if not _replaying(agent):
        install(agent.host, live_llm, agent.name, agent.roles)  # a routed LLM gives each role its own again
    notes = list(journal.notes) + [n for n in (runner_note, edited_note, writer.error) if n]
    return Session(agent, writer, journal.folder, notes, journal.read_draft()), events


def _adopt_edited_prompts(agent: Stepper, places: tuple[Path, ...] = ()) -> str:
    """After a replay: go on with the last prompt set the recorded run switched to, found by its content
    hash: at the folder the journal names, else among `places` (the user's prompt folders, `--prompts`),
    where the prompt workspace saves an edited set.

    Returns a note when no set with that hash is on disk.
    """
    edited = agent.host.llm.edited_sets if isinstance(agent.host.llm, ReplayLLM) else None
    if not edited:
        return ""
    folder, digest = edited[-1]
    named = moved_prompt_set(Path(folder)) if folder else None
    found = find_prompt_set(digest, ((named,) if named is not None else ()) + places)
    if found is not None:
        agent.prompts = found
        return ""
    looked = ", ".join(str(p) for p in places) or "no other folder"
    return (
        f"the run switched to an edited prompt set ({digest}) that is not on disk as it was (looked in "
        f"{folder or 'the journal'} and {looked}); later expansions use {agent.prompts.root}; save the set "
        "from the prompt workspace, or pass --prompts FOLDER where it is saved"
    )


def find_prompt_set(digest: str, places: tuple[Path, ...]) -> PromptSet | None:
    """The prompt set whose content hash is `digest`: one of `places` itself, or a set folder directly in one."""
    for place in places:
        if not place.is_dir():
            continue
        candidates = [place, *sorted(p for p in place.iterdir() if p.is_dir() and not p.name.startswith("."))]
        for candidate in candidates:
            try:
                prompts = PromptSet(candidate)
                if prompts.content_hash() == digest:
                    return prompts
            except OSError:
                continue
    return None


def _prefix_length(journal: Journal, answers_used: int, actions_used: int, statements_used: int = 0) -> int:
    """How many records were consumed when that many answers, actions and statements were replayed."""
    answers = actions = statements = 0
    for index, record in enumerate(journal.records):
        if answers >= answers_used and actions >= actions_used and statements >= statements_used:
            return index
        answers += record.get("type") == "answer"
        actions += record.get("type") == "action" and not record.get("refused")
        statements += record.get("type") == "statement"
    return len(journal.records)


def branch_folder(sessions_dir: Path, session_id: str, label: str) -> Path:
    """A new folder `<id>~<label>` (then `-2`, `-3`, ...) for a branch; the parent is never written."""
    folder = sessions_dir / f"{session_id}~{label}"
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = sessions_dir / f"{session_id}~{label}-{suffix}"
    return folder


async def branch_session(
    folder: Path,
    stop: Callable[[ev.Event], bool] | None,
    live_llm: LLM,
    make_env: EnvFactory,
    sessions_dir: Path,
    label: str,
    prompts: PromptSet | None = None,
    *,
    runs_with: RunnerSettings = RunnerSettings(),
    prompt_places: tuple[Path, ...] = (),
    runner_maker: RunnerMaker | None = None,
) -> tuple[Session, list[ev.Event]]:
    """Replay a session up to the first event where `stop` is true, into a new branch session.

    Like a resume, the branch runs as the user's `runs_with` allows, never as the journal says.
    With `stop` None the branch is a copy: the whole recording, carrying on where it ends.
    """
    journal = read_journal(folder)
    agent, runner_note = _agent_for(journal, live_llm, make_env, prompts, None, runs_with, runner_maker)
    replay_llm, replay_env = _replay_parts(agent)
    total_answers, total_actions = len(replay_llm.pending), len(replay_env.pending)
    total_statements = len(agent.host.replay_queue)
    events = await _replay(agent, stop)
    if stop is not None and (not events or not stop(events[-1])):
        await agent.close()
        raise JournalError(f"session {journal.session_id} never reached {label}; nothing to branch from")
    edited_note = _adopt_edited_prompts(agent, prompt_places)
    used_answers = total_answers - len(replay_llm.pending)
    used_actions = total_actions - len(replay_env.pending)
    used_statements = total_statements - len(agent.host.replay_queue)
    replay_llm.pending.clear()
    replay_env.pending.clear()
    agent.host.replay_queue.clear()
    install(agent.host, live_llm, agent.name, agent.roles)
    copy = stop is None  # the replay went to the recording's end: every record (a finished run's end too)
    prefix = journal.records if copy else journal.records[: _prefix_length(journal, used_answers, used_actions, used_statements)]
    settings = RunnerSettings.of_runner(agent.runner)
    parent = SessionParent(journal.session_id, len(prefix), label, str(journal.folder) if copy else None)
    header = journal.header.branched(parent)
    if settings is not None:  # what the branch really runs with (an in-process runner has no sandbox to record)
        header = replace(header, runner=SANDBOX_RUNNER, run=replace(
            header.run, runner=settings, sandbox=RunnerSettings.in_force(agent.runner)))
    new_folder = branch_folder(sessions_dir, journal.session_id, label.replace(" ", "_"))
    writer = JournalWriter(new_folder, header)
    for record in prefix:
        writer.write(record)
    writer.continue_from(Journal(new_folder, header, prefix))
    writer.catch_up(events)
    agent.host.observers.append(writer)
    writer.current_prompts = lambda: agent.prompts
    notes = [n for n in (runner_note, edited_note, writer.error) if n]
    return Session(agent, writer, new_folder, notes, journal.read_draft() if copy else None), events


def replay_failure(events: list[ev.Event]) -> str:
    """Why a replay ended before the recording did (the agent ends the run on a mismatch), or ''."""
    last = events[-1] if events else None
    if isinstance(last, ev.RunFinished) and last.reason.startswith("replay mismatch: "):
        return last.reason.removeprefix("replay mismatch: ").split("\n", 1)[0]
    return ""


async def reopen_session(
    folder: Path, live_llm: LLM, make_env: EnvFactory, sessions_dir: Path, *,
    runs_with: RunnerSettings = RunnerSettings(), prompt_places: tuple[Path, ...] = (),
    runner_maker: RunnerMaker | None = None,
) -> tuple[Session, list[ev.Event]]:
    """Resume a session; one outside `sessions_dir` (an eval's journal) is never written: the run
    carries on in a copy there, with its own journal, draft and breakpoints."""
    if not outside(folder, sessions_dir):
        return await resume_session(folder, live_llm, make_env, runs_with=runs_with, prompt_places=prompt_places,
                                    runner_maker=runner_maker)
    session, events = await branch_session(folder, None, live_llm, make_env, sessions_dir, "copy", runs_with=runs_with,
                                           prompt_places=prompt_places, runner_maker=runner_maker)
    session.notes.append(f"{folder} is outside the sessions folder and is never written: "
                         f"this run carries on in a copy, {session.folder.name}")
    return session, events


def outside(folder: Path, sessions_dir: Path) -> bool:
    """A session folder that is not one of `sessions_dir`'s own (an eval's journal, a copied folder)."""
    try:
        return Path(folder).resolve().parent != Path(sessions_dir).resolve()
    except OSError:
        return True


def rewind_to_node(node_id: str) -> Callable[[ev.Event], bool]:
    """Stop just before a node runs."""
    return lambda event: isinstance(event, ev.NodeStarted) and event.node_id == node_id


def fork_at_answer(node_id: str) -> Callable[[ev.Event], bool]:
    """Stop where the node's LLM call is requested (any agent's: a stub's body, a turn's action, a plan),
    to give it a different answer."""
    return lambda event: isinstance(event, ev.LLMRequested) and event.node_id == node_id


LAST_GOOD = "last good point"


async def good_prefix(journal: Journal, make_env: EnvFactory, runs_with: RunnerSettings = RunnerSettings(),
                      runner_maker: RunnerMaker | None = None) -> int:
    """How many of the journal's records replay cleanly, from the start.

    The replay consumes answers and actions in record order, so the one that
    mismatched (or made the agent fail) is the last one consumed: the good
    prefix ends just before it.
    """
    agent, _ = _agent_for(journal, NoLiveLLM(), make_env, None, None, runs_with, runner_maker)
    replay_llm, replay_env = _replay_parts(agent)
    total_answers, total_actions = len(replay_llm.pending), len(replay_env.pending)
    try:
        events = await _fast_forward(agent, None)
        failed = bool(replay_failure(events))
    except Exception:  # noqa: BLE001 - any failure: cut before the record being replayed
        failed = True
    finally:
        await agent.close()
    used_answers = total_answers - len(replay_llm.pending)
    used_actions = total_actions - len(replay_env.pending)
    if not failed:
        return len(journal.records)
    return max(0, _prefix_length(journal, used_answers, used_actions) - 1)


async def salvage_session(
    folder: Path, live_llm: LLM, make_env: EnvFactory, sessions_dir: Path, *,
    runs_with: RunnerSettings = RunnerSettings(), prompt_places: tuple[Path, ...] = (),
    runner_maker: RunnerMaker | None = None,
) -> tuple[Session, list[ev.Event]]:
    """A session that cannot be replayed to its end (a corrupt line, a mismatch) goes on from the
    last point that replayed cleanly, as a new branch session; the old one is never touched."""
    journal = read_journal(folder, lenient=True)
    keep = await good_prefix(journal, make_env, runs_with, runner_maker)
    prefix = [r for r in journal.records[:keep] if r.get("type") != "finished"]
    header = journal.header.branched(SessionParent(journal.session_id, len(prefix), LAST_GOOD, str(journal.folder)))
    new_folder = branch_folder(sessions_dir, journal.session_id, "last-good")
    writer = JournalWriter(new_folder, header)
    for record in prefix:
        writer.write(record)
    writer.close()
    if writer.error:
        raise JournalError(writer.error)
    session, events = await resume_session(new_folder, live_llm, make_env, runs_with=runs_with,
                                           prompt_places=prompt_places, runner_maker=runner_maker)
    dropped = len(journal.records) - keep
    where = f"line {journal.corrupt_line} is corrupt" if journal.corrupt_line else "the replay stopped matching"
    session.notes.append(f"{journal.session_id}: {where}; this branch, {new_folder.name}, goes on from the last "
                         f"point that replayed cleanly ({len(prefix)} records kept, {dropped} dropped)")
    return session, events
