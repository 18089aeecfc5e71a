"""Every budget a sandbox worker has, in one place: what the kernel keeps for it, and what the parent accepts from it.

The worker is hostile once node code got past the Python layers, so each
budget is kept by something node code cannot change: a resource limit or the
seccomp filter in the worker's kernel (memory outside `RLIMIT_AS`, the files
it writes, the user's shared quotas), or the parent itself, which clips every
string the worker hands it and counts what it keeps, per node and per run.
`docs/sandbox.md` states each figure; `benchmarks/bench_sandbox.py` measures them.
"""

from __future__ import annotations

# -- what the worker's kernel keeps --------------------------------------------------

WORKDIR_BYTES = 64 * 1024 * 1024  # the private tmpfs a worker may fill inside its namespaces (it is memory)
FILE_BYTES = WORKDIR_BYTES  # RLIMIT_FSIZE: no file the worker writes grows past this, in or out of namespaces
# RLIMIT_SIGPENDING: signals queued to the worker are charged to the user who ran recode-tui, shared with
# every process of theirs; the worker needs none queued (the parent's SIGINT/SIGUSR1 are not counted).
SIGNALS_QUEUED = 16



def cgroup_bytes(memory_mb: int) -> int:
    """A worker's cgroup `memory.max` where one holds: its address-space limit and its private tmpfs."""
    return memory_mb * 1024 * 1024 + WORKDIR_BYTES


# -- what the parent accepts from the worker ----------------------------------------------

NAME_CHARS = 1_000  # a variable's name as the parent keeps it (longer ones are cut, consistently)
TYPE_CHARS = 400  # its inferred type (a union of a few element types)
SUMMARY_CHARS = 400  # its summary (an honest worker writes at most 120 characters and a cut marker)
ERROR_CHARS = 4_000  # a node's error (an honest worker cuts at 2,000)
VARIABLES = 10_000  # variables the parent keeps summaries of; a worker reporting more is broken
IMPORTS = 1_000  # imported names kept for later nodes
PROMPT_LINE_CHARS = 2_000  # one variable's prompt line (an honest one: 1,200 characters and a cut marker)
ACTION_CHARS = 10_000  # an action `run()` hands the environment (and the journal)
TEXT_CHARS = 250_000  # a value read whole (the `!` line, the variable viewer): 200,000 and a marker
# Everything one node's worker may send, all frames together (output, helper calls, the outcome with its
# snapshot): the largest outcome (200 MiB) and 64 MiB more of the rest.
NODE_BYTES = 264 * 1024 * 1024
CUT = " [cut by the parent]"


def clip(text: str, limit: int) -> str:
    """`text` as the parent keeps it: whole up to `limit` characters, else cut there with a marker."""
    return text if len(text) <= limit else text[:limit] + CUT


def summary_budget() -> int:
    """The most characters of variable summaries the parent keeps for one run (names, types, summaries)."""
    return VARIABLES * (NAME_CHARS + TYPE_CHARS + SUMMARY_CHARS + 2 * len(CUT))
