"""Journal write cost per event, and resume time of a 500-event session.

The session: a bundled game driven by a scripted loop of ~240 `look` actions
(about 500 events). Write cost is the time spent inside the journal observer
(JSON encoding, write, flush, fsync) per event and per record. Resume time is
a full replay against the real environment (every prompt and observation
checked), split into environment time and the rest. The agent runs its code in
the sandbox worker, as `run` builds it (the replay's runner is the sandbox too).

User path: every `run`, `tui` and `eval` episode is journaled (`start_session`);
`recode-tui run --resume` / `tui --resume` replay it.

Targets (the README promises no figure; measured here under a load of ~4 on 2 cores):
write cost 2 ms per event (measured 1.1 ms, the fsync dominates: ~2x margin);
resume's agent + checks 2 s for the ~500 events (measured 0.77 s, ~2.5x margin).

Run: .venv/bin/python benchmarks/bench_journal.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.agents.recode.engine import Engine  # noqa: E402
from agent.sandbox.settings import RunnerSettings  # noqa: E402
from agent.sessions.session import resume_session, start_session  # noqa: E402
from envs.registry import make_env  # noqa: E402
from benchmarks.targets import Target, Verdicts  # noqa: E402
from mockllm.scripted import ScriptedLLM, ScriptEntry  # noqa: E402
from envs.registry import EpisodeRef  # noqa: E402

GAME = "put-01"
ACTIONS = 240
WRITE = Target("journal write cost per event", 2.0, "ms", "measured 1.1 ms here, ~2x margin")
RESUME = Target("resume of ~500 events, engine + checks", 2.0, "s", "measured 0.77 s here, ~2.5x margin")


def looping_llm() -> ScriptedLLM:
    return ScriptedLLM([
        ScriptEntry(stub="solve(instruction, observation)", answer="<execute>\nn = how_many()\nfor i in range(n):\n    run('look')\n</execute>"),
        ScriptEntry(stub="n = how_many()", answer=f"<execute>\nn = {ACTIONS}\n</execute>"),
    ])


class TimedEnv:
    def __init__(self, env):
        self._env, self.seconds = env, 0.0

    def __getattr__(self, name):
        return getattr(self._env, name)

    def step(self, action):
        t = time.perf_counter()
        try:
            return self._env.step(action)
        finally:
            self.seconds += time.perf_counter() - t

    def reset(self):
        t = time.perf_counter()
        try:
            return self._env.reset()
        finally:
            self.seconds += time.perf_counter() - t


async def main() -> int:
    verdicts = Verdicts("bench_journal")
    with tempfile.TemporaryDirectory() as folder:
        agent = Engine(make_env(GAME, max_steps=ACTIONS + 10), looping_llm(), RunnerSettings().make_runner())
        session = start_session(agent, Path(folder), EpisodeRef.parse(GAME), "scripted:bench")
        writer = session.writer
        spent = 0.0
        events = 0

        def timed(event, inner=writer):
            nonlocal spent, events
            t = time.perf_counter()
            inner(event)
            spent += time.perf_counter() - t
            events += 1

        agent.host.observers[-1] = timed
        await agent.run()
        await agent.close()  # the sandbox worker
        writer.close()
        records = writer.records_written

        started = time.perf_counter()
        timed_envs: list[TimedEnv] = []

        def factory(episode_ref: str, max_steps: int):
            timed_envs.append(TimedEnv(make_env(episode_ref, max_steps)))
            return timed_envs[-1]

        resumed, replayed = await resume_session(session.folder, looping_llm(), factory)
        resume_seconds = time.perf_counter() - started
        resumed.writer.close()
        await resumed.agent.close()
        env_seconds = timed_envs[0].seconds

    write_verdict = verdicts.check(WRITE, spent / events * 1000)
    resume_verdict = verdicts.check(RESUME, resume_seconds - env_seconds)
    print(f"{'measure':<40}{'value':>14}")
    print(f"{'events in the session':<40}{events:>14}")
    print(f"{'journal records (fsynced)':<40}{records:>14}")
    print(f"{'write cost per event (ms)':<40}{spent / events * 1000:>14.3f}  {write_verdict} {WRITE.describe()}")
    print(f"{'write cost per record (ms)':<40}{spent / records * 1000:>14.3f}")
    print(f"{'resume, total (s)':<40}{resume_seconds:>14.2f}")
    print(f"{'resume, inside the environment (s)':<40}{env_seconds:>14.2f}")
    print(f"{'resume, engine + checks (s)':<40}{resume_seconds - env_seconds:>14.2f}  {resume_verdict} {RESUME.describe()}")
    print(f"{'events replayed':<40}{len(replayed):>14}")
    return verdicts.finish()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
