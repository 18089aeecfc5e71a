"""Same runs before and after a change: the journals of two revisions, compared record by record.

The seams (environment, agent) must not change what ReCode does on ALFWorld.
This plays the same evaluations at two git revisions, each from its own clean
copy of the tree (`git archive` into a temporary folder; the working tree is
used as it is), and compares every episode's journal:

- actions: the (action, observation) sequence;
- LLM calls: every call's stub, purpose, prompt and answer, and whether it was accepted;
- answers: the accepted answer texts alone (what an SFT export would keep);
- result: success, reason, steps and LLM calls of the `finished` record;
- header: the session line, but for its time and paths (fields one revision adds are listed).

Two evaluations: the bundled demo (`--llm demo`, the generic script for the six
task types) on the bundled games, and `--llm demo` on a sample of a real split
(`--split valid_seen --games 30`, needs ../shared/alfworld or $ALFWORLD_DATA).

    .venv/bin/python benchmarks/compare_journals.py                 # 492d8a9^^ vs the working tree
    .venv/bin/python benchmarks/compare_journals.py --base HEAD~5 --head HEAD --per-task 10

Exit code 0 when every journal matches, 1 otherwise (the first differences are printed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKTREE = "WORKTREE"
# Header fields that differ between two checkouts by nature: when, and where the tree's files are.
UNCOMPARED_HEADER = {"created", "prompt_set", "game_path"}
DEFAULT_DATA = (ROOT / ".." / "shared" / "alfworld").resolve()


@dataclass
class Suite:
    """One evaluation to play at both revisions."""

    name: str
    args: list[str]
    needs_data: bool = False


@dataclass
class Played:
    """One revision's run of one suite: journals by game, and the wall time."""

    journals: dict[str, list[dict]]
    seconds: float
    cpu: float = 0.0  # user+system seconds of the eval and its workers: steadier than wall time on a busy machine
    error: str = ""


@dataclass
class Compared:
    games: int = 0
    same: dict[str, int] = field(default_factory=lambda: {"actions": 0, "llm calls": 0, "answers": 0, "result": 0,
                                                            "header": 0})
    new_header_keys: set[str] = field(default_factory=set)  # fields only one revision writes (e.g. `agent`)
    wins: tuple[int, int] = (0, 0)
    calls: tuple[int, int] = (0, 0)
    differences: list[str] = field(default_factory=list)


def checkout(revision: str, into: Path) -> Path:
    """A clean copy of `revision`'s tree (the working tree itself for WORKTREE)."""
    if revision == WORKTREE:
        return ROOT
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def play(tree: Path, suite: Suite, out: Path, concurrency: int, data: Path) -> Played:
    """`recode-tui eval` from `tree`'s own modules (PYTHONPATH and cwd), with this interpreter."""
    env = dict(os.environ, PYTHONPATH=str(tree), ALFWORLD_DATA=str(data), RECODE_TUI_SESSIONS=str(out / "sessions"),
               OPENAI_API_KEY="")
    env.pop("RECODE_TUI_PLUGINS", None)
    command = [sys.executable, "-m", "recode_tui", "eval", *suite.args, "-c", str(concurrency),
               "--out", str(out / "eval"), "--no-progress"]
    began, used = time.monotonic(), _children_cpu()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    seconds, cpu = time.monotonic() - began, _children_cpu() - used
    if done.returncode not in (0, 1):
        return Played({}, seconds, cpu, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1])
    journals = {}
    for folder in sorted((out / "eval" / "journals").iterdir()):
        lines = (folder / "journal.jsonl").read_text(encoding="utf-8").splitlines()
        journals[folder.name] = [json.loads(line) for line in lines if line.strip()]
    return Played(journals, seconds, cpu)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def views(records: list[dict]) -> dict[str, list]:
    """What is compared, each as a list that must be equal at both revisions."""
    answers = [r for r in records if r.get("type") == "answer"]
    finished = next((r for r in records if r.get("type") == "finished"), {})
    return {
        "actions": [(r["action"], r["observation"]) for r in records if r.get("type") == "action"],
        "llm calls": [(r.get("stub"), r.get("purpose", "expand"), _digest(r.get("prompt", "")), r.get("answer"),
                       r.get("accepted")) for r in answers],
        "answers": [r.get("answer") for r in answers if r.get("accepted")],
        "result": [finished.get(k) for k in ("success", "reason", "steps", "llm_calls")],
        "header": sorted((k, json.dumps(v, sort_keys=True)) for k, v in (records[0] if records else {}).items()
                         if k not in UNCOMPARED_HEADER),
    }


def compare(base: Played, head: Played) -> Compared:
    result = Compared()
    games = sorted(set(base.journals) | set(head.journals))
    result.games = len(games)
    wins, calls = [0, 0], [0, 0]
    for game in games:
        if game not in base.journals or game not in head.journals:
            result.differences.append(f"{game}: journal only at {'head' if game in head.journals else 'base'}")
            continue
        old, new = views(base.journals[game]), views(head.journals[game])
        old_keys, new_keys = {k for k, _ in old["header"]}, {k for k, _ in new["header"]}
        result.new_header_keys |= old_keys ^ new_keys  # a field one revision adds is listed, not a difference
        old["header"] = [kv for kv in old["header"] if kv[0] in new_keys]
        new["header"] = [kv for kv in new["header"] if kv[0] in old_keys]
        for side, view in enumerate((old, new)):
            wins[side] += bool(view["result"][0])
            calls[side] += len(view["llm calls"])
        for key in result.same:
            if old[key] == new[key]:
                result.same[key] += 1
            else:
                where = next((i for i, (a, b) in enumerate(zip(old[key], new[key])) if a != b),
                             min(len(old[key]), len(new[key])))
                result.differences.append(f"{game}: {key} differ at #{where + 1} "
                                          f"(base {len(old[key])}, head {len(new[key])})")
    result.wins, result.calls = (wins[0], wins[1]), (calls[0], calls[1])
    return result


def table(rows: list[tuple[Suite, Played, Played, Compared]], base: str, head: str) -> str:
    head_line = (f"{'suite':<28} {'games':>5} {'same actions':>12} {'same LLM calls':>14} {'same answers':>12} "
                 f"{'same result':>11} {'same header':>11} {'LLM calls b/h':>14} {'wins b/h':>9} {'wall s b/h':>11} {'cpu s b/h':>10}")
    lines = [f"base = {base}   head = {head}", head_line, "-" * len(head_line)]
    for suite, old, new, cmp in rows:
        if old.error or new.error:
            lines.append(f"{suite.name:<28} error: base: {old.error or 'ok'} | head: {new.error or 'ok'}")
            continue
        same = cmp.same
        lines.append(
            f"{suite.name:<28} {cmp.games:>5} {same['actions']:>12} {same['llm calls']:>14} {same['answers']:>12} "
            f"{same['result']:>11} {same['header']:>11} {f'{cmp.calls[0]}/{cmp.calls[1]}':>14} {f'{cmp.wins[0]}/{cmp.wins[1]}':>9} "
            f"{f'{old.seconds:.0f}/{new.seconds:.0f}':>11} {f'{old.cpu:.0f}/{new.cpu:.0f}':>10}"
        )
    added = sorted({k for *_, cmp in rows for k in cmp.new_header_keys})
    if added:
        lines.append(f"header fields written by one revision only (not compared): {', '.join(added)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="492d8a9^^", help="git revision before the change (default 492d8a9^^)")
    parser.add_argument("--head", default=WORKTREE, help=f"git revision after it (default {WORKTREE}: the working tree)")
    parser.add_argument("--per-task", type=int, default=10, help="bundled games per task type (default 10: all 60)")
    parser.add_argument("--games", type=int, default=30, help="games of the split sample (default 30)")
    parser.add_argument("--split", default="valid_seen")
    parser.add_argument("--data", default=os.environ.get("ALFWORLD_DATA") or str(DEFAULT_DATA),
                        help="ALFWorld data root (default $ALFWORLD_DATA or ../shared/alfworld)")
    parser.add_argument("-c", "--concurrency", type=int, default=2)
    parser.add_argument("--keep", default=None, help="keep the checkouts and journals in this folder")
    args = parser.parse_args(argv)

    suites = [Suite(f"demo, bundled ({args.per_task}/type)", ["--llm", "demo", "--per-task", str(args.per_task)]),
              Suite(f"demo, {args.split} sample", ["--llm", "demo", "--split", args.split, "--games", str(args.games)],
                    needs_data=True)]
    data = Path(args.data)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="compare-journals-"))
    work.mkdir(parents=True, exist_ok=True)
    trees = {}
    for label, revision in (("base", args.base), ("head", args.head)):
        resolved = revision if revision == WORKTREE else subprocess.run(
            ["git", "rev-parse", "--short", revision], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        trees[label] = (resolved, checkout(revision, work / label / "tree"))
    rows = []
    for number, suite in enumerate(suites):
        if suite.needs_data and not (data / "json_2.1.1" / args.split).is_dir():
            print(f"skipped {suite.name}: no {args.split} under {data} (give --data)", file=sys.stderr)
            continue
        played = [play(trees[label][1], suite, work / label / f"suite{number}", args.concurrency, data)
                  for label in ("base", "head")]
        rows.append((suite, played[0], played[1], compare(*played)))
    print(table(rows, trees["base"][0], trees["head"][0]))
    differences = [d for *_, cmp in rows for d in cmp.differences]
    for line in differences[:20]:
        print("  " + line)
    if args.keep:
        print(f"journals kept in {work}")
    errors = any(old.error or new.error for _, old, new, _ in rows)
    return 1 if differences or errors or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
