"""Each benchmark's targets, and the PASS/MISS verdicts beside its figures: one module all scripts share.

A benchmark declares its targets as `Target`s at the top of its file (the
figure, the limit, and where the limit comes from: the README, an issue, or a
figure measured here with a stated margin), checks each measured figure with
`Verdicts.check`, which returns `PASS` or `MISS` to print beside it, and ends
with `return verdicts.finish()`: the table of all its targets, one summary line
run_all.py reads, and the exit status (MISS_EXIT on a miss).

`BENCH_TARGET_SCALE` (run_all.py --target-scale) multiplies every limit (an
upper bound is multiplied, a lower bound divided): 0.0001 makes every target
impossible, which is how tests/test_bench_targets.py shows a miss fails.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

SCALE_ENV = "BENCH_TARGET_SCALE"
MISS_EXIT = 3  # distinct from a crash (1): run_all.py says which it was
SUMMARY = "TARGETS"  # the first word of the summary line run_all.py collects


def scale() -> float:
    return float(os.environ.get(SCALE_ENV) or 1.0)


@dataclass(frozen=True)
class Target:
    figure: str  # what is measured, as the table names it
    limit: float
    unit: str  # "ms", "s", "MB", "x", "%", "/min", ""
    source: str  # where the limit comes from: "README: ...", "issue 6", "measured 0.21 ms here, limit ~2.5x that"
    at_least: bool = False  # a lower bound (throughput, speed-up, wins) instead of an upper one

    @property
    def bound(self) -> float:
        s = scale()
        return self.limit / s if self.at_least else self.limit * s

    def holds(self, value: float) -> bool:
        return value >= self.bound if self.at_least else value <= self.bound

    def describe(self) -> str:
        return f"{'≥' if self.at_least else '≤'} {_number(self.bound)}{_unit(self.unit)}"


@dataclass
class Verdicts:
    bench: str
    rows: list[tuple[Target, float, bool]] = field(default_factory=list)

    def check(self, target: Target, value: float) -> str:
        """Record `value` against `target`; the verdict to print beside the figure."""
        ok = target.holds(value)
        self.rows.append((target, value, ok))
        return "PASS" if ok else "MISS"

    def missed(self) -> list[str]:
        return [t.figure for t, _, ok in self.rows if not ok]

    def table(self) -> str:
        head = ("figure", "measured", "target", "verdict", "target from")
        lines = [(t.figure, f"{_number(v)}{_unit(t.unit)}", t.describe(), "PASS" if ok else "MISS", t.source)
                 for t, v, ok in self.rows]
        widths = [max(len(row[i]) for row in [head, *lines]) for i in range(4)]
        out = ["| " + " | ".join(c.ljust(w) for c, w in zip(head, widths)) + f" | {head[4]} |",
               "|" + "|".join("-" * (w + 2) for w in widths) + "|---|"]
        out += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + f" | {row[4]} |" for row in lines]
        return "\n".join(out)

    def summary(self) -> str:
        missed = self.missed()
        if missed:
            return f"{SUMMARY} {self.bench}: MISS {len(missed)} of {len(self.rows)}: " + "; ".join(missed)
        return f"{SUMMARY} {self.bench}: PASS {len(self.rows)} of {len(self.rows)}"

    def finish(self, crashed: bool = False) -> int:
        """Print the targets table and the summary line; the exit status (MISS_EXIT on a miss)."""
        note = f" (limits scaled by {scale():g})" if scale() != 1.0 else ""
        print(f"\ntargets of {self.bench}{note}\n{self.table()}\n{self.summary()}", flush=True)
        if crashed:
            return 1
        return MISS_EXIT if self.missed() else 0


def _number(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 0.1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _unit(unit: str) -> str:
    return unit if unit in ("%", "x", "") else " " + unit
