"""The seeds that make node code repeat exactly when a session is replayed.

Node code that iterates a set of strings, or calls `random.choice`, must send
the same actions when resume, fork, rewind or export replays it, or the
replay stops at a mismatch. Two things vary between worker processes: the
string hash seed (fixed for every worker: `WORKER_HASH_SEED`, passed in its
environment) and the `random` module's state (seeded before every node).
"""

from __future__ import annotations

import hashlib
import secrets

WORKER_HASH_SEED = "0"  # PYTHONHASHSEED of every worker: set iteration order is the same in each


def new_run_seed() -> int:
    """A fresh run's seed (recorded in its journal header, so replays reuse it)."""
    return secrets.randbits(63)


def node_seed(run_seed: int, serial: int) -> int:
    """The seed of the `serial`-th node's `random` in a run seeded `run_seed`.

    Keyed by the node's serial number (the n-th `exec` of the runner), not by
    the node's id: resume, fork, rewind and export all rebuild a session by
    replaying its nodes in order from the first, into a fresh runner with the
    recorded run seed, so the n-th node of the replay is the n-th node of the
    recording whatever its id, and a node run twice (a retry, a re-expansion)
    draws anew each time as it did when it was recorded. Seeding every node
    (not once per worker) keeps the numbers when a worker is restarted.
    """
    digest = hashlib.sha256(f"recode-node:{run_seed}:{serial}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")
