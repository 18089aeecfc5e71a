"""Which walls stand around the sandbox worker: the policy, what this machine can give, and the refusal.

The guarantee is the kernel's: on Linux the worker runs in its own user, mount,
pid, network, IPC and UTS namespaces (bubblewrap, `agent.sandbox.bwrap`), behind
Landlock and a seccomp filter it raises on itself (`agent.sandbox.kernel`), for
root and for an ordinary user alike. The Python-level layers (static checks,
trimmed modules and builtins, the audit hook) are defence in depth on top.

The policy is read once, at the edge (the command line: these variables and
`--sandbox`), and handed down in `agent.sandbox.settings.RunnerSettings` to every
path that runs model code (run, tui, eval and its Ray tasks, resume, fork, export,
the prompt workspace); nothing below the edge reads the variables:

- `RECODE_SANDBOX_LAYERS=os` switches the Python-level layers off, to test the
  kernel's walls alone (`all`, the default, keeps them);
- `RECODE_SANDBOX=weak` (or `--sandbox weak`) lets untrusted code run where a
  wall cannot be raised; without it a missing wall is a one-line refusal;
- `RECODE_SANDBOX_WALLS=namespaces,seccomp,landlock` raises only the walls named
  (each wall is tested alone this way); it implies weak for the others.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

WALLS = ("namespaces", "landlock", "seccomp")
LAYERS_VARIABLE = "RECODE_SANDBOX_LAYERS"
MODE_VARIABLE = "RECODE_SANDBOX"
WALLS_VARIABLE = "RECODE_SANDBOX_WALLS"


class WallsMissing(RuntimeError):
    """Untrusted code was about to run where a wall the policy asks for cannot be raised."""


class SandboxSettingError(ValueError):
    """A sandbox setting in the environment is not one of its values."""


@dataclass(frozen=True)
class SandboxPolicy:
    """What the worker gets: the Python-level layers or not, which kernel walls, and whether fewer may do."""

    python_layers: bool = True
    walls: frozenset[str] = field(default_factory=lambda: frozenset(WALLS))
    weak_ok: bool = False

    @classmethod
    def from_environment(cls, env: Mapping[str, str], mode: str | None = None) -> "SandboxPolicy":
        """The policy these variables ask for (the edge passes the process environment); `mode` (`--sandbox`) wins
        over `RECODE_SANDBOX`. SandboxSettingError, one line, for a value that is none of its choices."""
        if mode:
            env = {**env, MODE_VARIABLE: mode}
        layers = env.get(LAYERS_VARIABLE, "all").strip().lower() or "all"
        if layers not in ("all", "os"):
            raise SandboxSettingError(f"{LAYERS_VARIABLE}={layers!r}: use 'all' (the default) or 'os' "
                                      "(the kernel's walls alone)")
        mode = env.get(MODE_VARIABLE, "strict").strip().lower() or "strict"
        if mode not in ("strict", "weak"):
            raise SandboxSettingError(f"{MODE_VARIABLE}={mode!r}: use 'strict' (the default) or 'weak'")
        walls = frozenset(WALLS)
        chosen = env.get(WALLS_VARIABLE, "").strip()
        if chosen:
            walls = frozenset(w.strip() for w in chosen.split(",") if w.strip() and w.strip() != "none")
            unknown = sorted(walls - set(WALLS))
            if unknown:
                raise SandboxSettingError(f"{WALLS_VARIABLE}: unknown wall {unknown[0]!r}; "
                                          f"choose from {', '.join(WALLS)} (or 'none')")
        return cls(python_layers=layers == "all", walls=walls, weak_ok=mode == "weak" or bool(chosen))

    @classmethod
    def from_record(cls, line: str | None) -> "SandboxPolicy | None":
        """What a recorded `in_force` line asks for: its layers, the walls it had, strict or weak (None: a
        trusted run, a record from before the line was kept, or a line this version never writes)."""
        if not line or line.startswith("trusted"):
            return None
        parts = [part.strip() for part in line.split(";")]
        if len(parts) != 3 or parts[0] not in ("all layers", "kernel walls alone") \
                or not parts[1].startswith("walls: ") or parts[2] not in ("strict", "weak"):
            return None
        named = {w.strip() for w in parts[1][len("walls: "):].split(",")} - {"none", ""}
        if not named <= set(WALLS):
            return None
        return cls(python_layers=parts[0] == "all layers", walls=frozenset(named), weak_ok=parts[2] == "weak")


def at_least(yours: SandboxPolicy, recorded: str | None, what: str = "this session") -> tuple[SandboxPolicy, str]:
    """The sandbox a resumed, forked or replayed run (or a resumed evaluation) gets: the user's policy, with
    any wall or layer the record had on top. A record may ask for more walls, never fewer: the user's
    policy wins wherever it is stricter, and strict or weak (what to do where a wall is missing on this
    machine) is the user's alone. Returns the policy and one line to say when the record differs ('')."""
    asked = SandboxPolicy.from_record(recorded)
    if asked is None:
        return yours, ""
    policy = SandboxPolicy(python_layers=yours.python_layers or asked.python_layers,
                           walls=yours.walls | asked.walls, weak_ok=yours.weak_ok)
    had = raised_walls(yours)
    weaker = (yours.python_layers and not asked.python_layers) or not had <= asked.walls
    shown = in_force(policy, False)
    if weaker:
        return policy, (f"{what} recorded a weaker sandbox ({recorded}); it runs with yours ({shown}): "
                        "a record never lowers the sandbox")
    if policy != yours and in_force(policy, False) != in_force(yours, False):
        return policy, f"{what} recorded a stronger sandbox than yours; it keeps it ({shown})"
    return policy, ""


def in_force(policy: SandboxPolicy, trusted: bool) -> str:
    """What a worker started now under `policy` has, in one line a record keeps and `diff`/`compare` show:
    the Python-level layers or the kernel's walls alone, the walls this machine raises, strict or weak."""
    if trusted:
        return "trusted: no checks, no walls"
    layers = "all layers" if policy.python_layers else "kernel walls alone"
    walls = [wall for wall in WALLS if wall in raised_walls(policy)]
    return f"{layers}; walls: {', '.join(walls) or 'none'}; {'weak' if policy.weak_ok else 'strict'}"


def missing_walls() -> dict[str, str]:
    """Each kernel wall this machine cannot raise, with why and what to do (empty: all can be)."""
    return dict(_missing())


@functools.lru_cache(maxsize=1)
def _missing() -> tuple[tuple[str, str], ...]:
    missing: list[tuple[str, str]] = []
    if not sys.platform.startswith("linux"):
        reason = f"{sys.platform} has no Linux namespaces, Landlock or seccomp"
        return tuple((wall, reason) for wall in WALLS)
    why = _namespaces_missing()
    if why:
        missing.append(("namespaces", why))
    from agent.sandbox.kernel import landlock_abi

    if landlock_abi() < 1:
        missing.append(("landlock", "the kernel has no Landlock (Linux 5.13+ with landlock in its LSM list)"))
    try:
        from agent.sandbox.seccomp_policy import compiled_filter

        compiled_filter()
    except Exception as exc:  # noqa: BLE001 - libseccomp missing or refusing: the wall is missing, say why
        missing.append(("seccomp", str(exc)))
    return tuple(missing)


def _namespaces_missing() -> str:
    if bwrap_path() is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    if _read_int("/proc/sys/user/max_user_namespaces", 1) == 0:
        return "user namespaces are switched off (sysctl user.max_user_namespaces=0)"
    if os.geteuid() != 0 and _read_int("/proc/sys/kernel/unprivileged_userns_clone", 1) == 0:
        return "unprivileged user namespaces are off (sysctl kernel.unprivileged_userns_clone=1)"
    if os.geteuid() != 0 and _read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 0) == 1:
        return ("AppArmor restricts unprivileged user namespaces "
                "(sysctl kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap)")
    return ""


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def _read_int(path: str, default: int) -> int:
    try:
        with open(path) as f:
            return int(f.read().strip() or default)
    except (OSError, ValueError):
        return default


def refusal(policy: SandboxPolicy) -> str:
    """Why untrusted code may not run under `policy` on this machine ('' when it may)."""
    if policy.weak_ok:
        return ""
    missing = {wall: why for wall, why in missing_walls().items() if wall in policy.walls}
    if not missing:
        return ""
    first = next(iter(missing.values()))
    return (f"the sandbox's kernel walls are missing here: {', '.join(missing)} ({first}); model code does "
            "not run without them: fix that, or pass --sandbox weak (RECODE_SANDBOX=weak) to run it behind "
            "the Python checks and the walls this machine has")


def raised_walls(policy: SandboxPolicy) -> frozenset[str]:
    """The walls a worker started now gets: the policy's, less those this machine cannot raise."""
    return policy.walls - frozenset(missing_walls())


def worker_walls(python: str, walls: frozenset[str], workdir: str) -> dict[str, object]:
    """What the worker's boot needs to raise `walls` on itself (part of its start configuration)."""
    from agent.sandbox import bwrap

    config: dict[str, object] = {"namespaces": "namespaces" in walls, "landlock": None, "seccomp": ""}
    if "landlock" in walls:
        if "namespaces" in walls:
            read = bwrap.read_paths(python)
        else:  # the same files at their real places
            project = str(bwrap.project_root() / "agent")
            read = [p if p != bwrap.SANDBOX_ROOT else project for p in bwrap.read_paths(python)]
        config["landlock"] = {"read": read, "write": [workdir, "/dev/null"]}
    if "seccomp" in walls:
        from agent.sandbox.seccomp_policy import compiled_filter

        config["seccomp"] = compiled_filter().hex()
    return config


def start_config(base: dict[str, Any], policy: SandboxPolicy, trusted: bool, python: str,
                 make_workdir: Callable[[], str]) -> tuple[dict[str, Any], bool]:
    """A worker's start configuration under `policy`, and whether it starts inside namespaces.

    Trusted code gets no walls. Namespaces wanted but missing (`--sandbox weak`): the worker
    still unshares what it can and, started by root, drops to nobody; a policy without them
    (one wall tested alone) gets neither. With the Python-level layers off the worker runs
    node code unchecked, behind the walls all the same.
    """
    from agent.sandbox import bwrap

    refused = "" if trusted else refusal(policy)
    if refused:
        raise WallsMissing(refused)
    walls = frozenset() if trusted else raised_walls(policy)
    namespaces = "namespaces" in walls
    workdir = bwrap.SANDBOX_WORKDIR if namespaces else make_workdir()
    config = dict(base, workdir=workdir, **worker_walls(python, walls, workdir))
    config["fallback_isolation"] = "namespaces" in policy.walls and not namespaces
    if not trusted and not policy.python_layers:
        config["trusted"] = True
        config["isolate"] = True
    return config, namespaces
