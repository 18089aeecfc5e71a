"""Do a researcher's numbers agree? One five-agent evaluation against the bundled OpenAI-compatible server,
with empty, cut, refused and timed-out answers, and its token and second totals read from every place
that shows them, beside the server's own log.

User path: `recode-tui eval --agent recode,react,codeact,plan-execute,recap --llm profile:local` on
ALFWorld games, the model being `mockllm.openai_server` answering each agent's demo (`mockllm.demos.served`)
with a small latency, where:
- the first call is answered empty (`finish_reason: stop`, no text): refused, asked again;
- ReAct's first call on clean-01 is cut at max_tokens before its `Action:` line (refused by ReAct's rule);
- CodeAct's first call on put-01 is an answer it refuses (no code);
- Plan-and-Execute's second call on clean-01 is held until the episode's wall clock gives it up
  (`--episode-timeout`): a timed-out call, after the episode was billed for its first.

The server counts the tokens of every answer it delivered (the held call, answered after the client gave
it up, is left out: it reached nobody) and times each call from its arrival to its answer. The tool's
places: the per-agent rows eval prints (the run line of an evaluation), the journals' end records,
report.json, `compare` (the report against itself: its overall row's mean x episodes, `--json`),
`export --trace` of every journal (no `--exec`), and the OTel export of the folder (chat spans' token
attributes and durations, failed calls included). Seconds: the tool times a call around the client's
request, the server inside its handler, so the tool's are a little longer (HTTP and JSON, a few ms a call);
the tool's places must agree with each other to the journal's millisecond rounding.

Run: .venv/bin/python benchmarks/numbers_agree.py [--games put-01,clean-01] [-c 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENTS = ["recode", "react", "codeact", "plan-execute", "recap"]
LATENCY = 0.05  # seconds the server adds to every call: model time worth comparing
WALL_CLOCK = 20.0  # --episode-timeout: the held call is given up when its episode reaches it


def game_of(prompt: str, tasks: dict[str, str]) -> str:
    """The game a prompt asks about: the one whose task sentence comes last in it (examples come first)."""
    found = {game: prompt.rfind(task) for game, task in tasks.items()}
    game, at = max(found.items(), key=lambda item: item[1])
    return game if at >= 0 else ""


def responder(released: threading.Event, games: list[str]):
    """The demo of every agent, with the four kinds of trouble, each once, at fixed places."""
    from mockllm.demos.served import agent_of, demo_responder
    from mockllm.openai_server import Reply

    from envs.alfworld.catalog import list_games

    demo = demo_responder()
    tasks = {g.id: g.task for g in list_games() if g.id in games}
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def respond(prompt: str):
        agent = agent_of(prompt)
        game = game_of(prompt, tasks)
        with lock:
            key = f"{agent}/{game}"
            seen[key] = seen.get(key, 0) + 1
            nth = seen[key]
        if agent == "react" and game == "clean-01" and nth == 1:  # (the demo's answers are taken in order)
            return Reply("Thought: the plate should be somewhere in the kitchen, so first I", "length")
        if agent == "codeact" and game == "put-01" and nth == 1:
            return "I would look around the room first."
        if agent == "plan-execute" and game == "clean-01" and nth == 2:
            released.wait(WALL_CLOCK * 4)  # held: the episode's wall clock gives it up
        return demo(prompt)

    return respond


def recode(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "recode_tui", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=1800)


def eval_rows(stdout: str) -> tuple[int, int]:
    """The input and output tokens of the per-agent overall rows eval printed."""
    tokens_in = tokens_out = 0
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")]
        if len(cells) > 10 and cells[1] in AGENTS and cells[2] == "overall":
            tokens_in += int(cells[8])
            tokens_out += int(cells[9])
    return tokens_in, tokens_out


def journals(folder: Path) -> list[Path]:
    return sorted(p.parent for p in (folder / "journals").rglob("journal.jsonl"))


def from_journals(folder: Path) -> tuple[int, int, float]:
    tin = tout = 0
    seconds = 0.0
    for journal in journals(folder):
        for line in (journal / "journal.jsonl").read_text().splitlines():
            record = json.loads(line)
            if record.get("type") == "finished":
                tin, tout = tin + record["input_tokens"], tout + record["output_tokens"]
                seconds += record["llm_seconds"]
    return tin, tout, seconds


def from_report(folder: Path) -> tuple[int, int, float]:
    report = json.loads((folder / "report.json").read_text())
    episodes = report["episodes"]
    return (sum(e["input_tokens"] for e in episodes), sum(e["output_tokens"] for e in episodes),
            sum(e["llm_seconds"] for e in episodes))


def from_compare(env: dict[str, str], folder: Path) -> int:
    """`compare FOLDER --json` of the five-agent evaluation: the first agent against each other one. The
    tokens of its overall rows (a mean per episode) times the episodes: the baseline once, every other agent."""
    done = recode(env, "compare", str(folder), "--json")
    comparisons = json.loads(done.stdout)["comparisons"]
    overall = [next(r for r in c["rows"] if r["task_type"] == "overall") for c in comparisons]
    total = overall[0]["base"]["tokens"] * overall[0]["episodes"]
    total += sum(row["other"]["tokens"] * row["episodes"] for row in overall)
    return round(total)


def from_traces(env: dict[str, str], folder: Path) -> tuple[int, int, float]:
    tin = tout = 0
    seconds = 0.0
    for journal in journals(folder):
        meta = json.loads(recode(env, "export", str(journal), "--trace").stdout)["meta"]
        tin, tout, seconds = tin + meta["input_tokens"], tout + meta["output_tokens"], seconds + meta["llm_seconds"]
    return tin, tout, seconds


def from_otel(env: dict[str, str], folder: Path, out: Path) -> tuple[int, int, float]:
    done = recode(env, "export", str(folder), "--otel", str(out))
    if done.returncode != 0:
        return -1, -1, -1.0
    spans = json.loads(out.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    tin = tout = 0
    seconds = 0.0
    for span in spans:
        values = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
        if values.get("gen_ai.operation.name") != "chat":
            continue
        tin += int(values.get("gen_ai.usage.input_tokens", 0))
        tout += int(values.get("gen_ai.usage.output_tokens", 0))
        seconds += (int(span["endTimeUnixNano"]) - int(span["startTimeUnixNano"])) / 1e9
    return tin, tout, seconds


def main(argv: list[str] | None = None) -> int:
    from mockllm.openai_server import OpenAICompatibleServer, write_profiles

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="put-01,clean-01")
    parser.add_argument("-c", "--concurrency", type=int, default=3)
    args = parser.parse_args(argv)
    games = args.games.split(",")
    released = threading.Event()
    with tempfile.TemporaryDirectory(prefix="numbers-") as tmp:
        base = Path(tmp)
        env = dict(os.environ, RECODE_TUI_SESSIONS=str(base / "sessions"), OPENAI_API_KEY="")
        folder = base / "five"
        with OpenAICompatibleServer(responder(released, games), latency=LATENCY) as server:
            server.inject("empty")  # the first call: answered empty
            profiles = write_profiles(base / "profiles.yaml", server.base_url, max_retries=0, timeout=120,
                                      prices=(2.0, 8.0))
            done = recode(env, "eval", "--agent", ",".join(AGENTS), "--llm", "profile:local", "--profiles",
                          str(profiles), "--games", ",".join(games), "-c", str(args.concurrency),
                          "--episode-timeout", f"{WALL_CLOCK:g}", "--out", str(folder), "--no-progress")
            delivered = [c for c in server.calls if c.status == 200]  # before the held call is let go
            released.set()
        if done.returncode not in (0, 1):
            print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
            return 2
        report = json.loads((folder / "report.json").read_text())
        given_up = [e for e in report["episodes"] if e["reason"].startswith("episode wall clock")]
        empty = sum(1 for c in delivered if c.answer == "")
        answers = [json.loads(line) for journal in journals(folder)
                   for line in (journal / "journal.jsonl").read_text().splitlines() if '"type": "answer"' in line]
        refused = [a for a in answers if not a["accepted"]]
        cut = sum(1 for a in refused if a.get("cut_at") is not None)
        said_empty = sum(1 for a in refused if a["reason"].startswith("the answer was empty"))
        print(f"journals: {len(answers)} answers, {len(refused)} refused ({said_empty} empty, {cut} cut at "
              f"max_tokens, {len(refused) - said_empty - cut} refused by the agent's rule)")
        print(f"evaluation: {len(report['episodes'])} episodes ({report['status']}), "
              f"{len(delivered)} answers delivered ({empty} empty), {len(given_up)} episode(s) given up at its "
              f"wall clock with a call in flight; server latency {LATENCY} s a call")
        server_row = (sum(c.prompt_tokens for c in delivered), sum(c.completion_tokens for c in delivered),
                      sum(c.seconds for c in delivered))
        rows = [("server log (answers delivered)", *server_row)]
        printed = eval_rows(done.stdout)
        rows.append(("eval's printed per-agent rows", printed[0], printed[1], None))
        rows.append(("journals' end records", *from_journals(folder)))
        rows.append(("  of it, answered calls (answer records)", sum(a["input_tokens"] for a in answers),
                     sum(a["output_tokens"] for a in answers), sum(a["seconds"] for a in answers)))
        rows.append(("report.json episodes", *from_report(folder)))
        compared = from_compare(env, folder)
        rows.append(("compare --json (overall mean x episodes)", None, None, None, compared))
        rows.append(("export --trace (no --exec), every journal", *from_traces(env, folder)))
        rows.append(("export --otel (chat spans)", *from_otel(env, folder, base / "spans.json")))
        print(f"{'source':<44} {'input':>8} {'output':>8} {'in+out':>8} {'LLM s':>9}")
        for row in rows:
            name, tin, tout, seconds = row[:4]
            total = row[4] if len(row) > 4 else (tin + tout if tin is not None else None)
            cells = [f"{v:>8}" if v is not None else f"{'-':>8}" for v in (tin, tout, total)]
            print(f"{name:<44} {' '.join(cells)} {f'{seconds:9.3f}' if seconds is not None else f'{chr(45):>9}'}")
        tool = [r for r in rows[2:] if r[1] is not None and not r[0].startswith("  ")]
        tokens_equal = all((r[1], r[2]) == server_row[:2] for r in tool) and printed == server_row[:2] \
            and compared == server_row[0] + server_row[1]
        seconds_tool = [r[3] for r in tool if r[3] is not None]
        spread = max(seconds_tool) - min(seconds_tool)
        print(f"tokens: every place equals the server's count: {'PASS' if tokens_equal else 'MISS'}")
        answered_seconds = sum(a["seconds"] for a in answers)
        print(f"LLM seconds: the tool's places agree within {spread:.3f} s "
              f"({'PASS' if spread <= 0.002 * len(journals(folder)) + 0.01 else 'MISS'}); beyond the answered calls' "
              f"{answered_seconds:.3f} s they hold {min(seconds_tool) - answered_seconds:.3f} s of failed and "
              f"given-up calls; the answered calls took the client {answered_seconds - server_row[2]:.3f} s more "
              f"than the server's handler ({(answered_seconds - server_row[2]) / max(1, len(delivered)) * 1000:.0f} "
              "ms a call: HTTP, JSON, the client)")
        return 0 if tokens_equal else 1


if __name__ == "__main__":
    raise SystemExit(main())
