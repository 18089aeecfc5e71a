"""ScienceWorld's classes kept in a class-data archive (JDK's CDS) in the user's cache folder.

Why: a JVM that maps the simulator's classes from an archive instead of loading and verifying them from
the jar starts ~0.4 CPU-s (~20%) cheaper: every `run`, console and eval worker on ScienceWorld. The
archive is JDK 17's dynamic one: the first JVM on this machine (this ScienceWorld, this Java) writes it
when it exits normally (`-XX:ArchiveClassesAtExit`), to a file of its own that is renamed into place only
after a clean exit, so no JVM ever maps a half-written archive; later JVMs map it
(`-XX:SharedArchiveFile`). A JVM that refuses it (another build of Java, a damaged file) runs without it:
the file is removed, the next normal exit writes a new one, and the simulator's notes get one line.

Java options a person set that already name a class-data archive (`-Xshare`, `SharedArchiveFile`,
`ArchiveClassesAtExit`) are left alone.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

PERSONS_OWN = ("-Xshare", "SharedArchiveFile", "ArchiveClassesAtExit")  # a person's own choice: no archive of ours
_STARTS = itertools.count()
STALE_S = 600.0  # a file still being written after this long was left by a process that was killed
DYNAMIC_MAGIC = (0xF00BABA8).to_bytes(4, "little")  # the first bytes of a JDK dynamic archive (x86-64, arm64)
MAPPED = "Mapped dynamic region"  # what JDK 17 logs (cds, info) for each part of the archive it maps
REFUSED = ("Unable to", "mismatch")  # ... and for an archive it will not use (after mapping, on a mismatch)


def _logging(log: Path, folder: Path) -> tuple[str, ...]:
    """Warnings to stderr, not to stdout, where py4j reads the JVM's port; the archive's own to `log`, which
    `refused` reads. A JVM that crashes on a damaged archive writes its report in `folder`, not in the
    scienceworld package."""
    return ("-Xlog:disable", "-Xlog:all=warning:stderr", f"-Xlog:cds=info,cds+dynamic=warning:file={log}::filecount=0",
            f"-XX:ErrorFile={folder}/hs_err_pid%p.log")


@dataclass(frozen=True)
class ArchiveUse:
    """The Java options for one JVM start, and what to do with the files once it has started or exited."""

    options: tuple[str, ...] = ()  # for the JVM's command line (none when no archive is used)
    archive: Path | None = None  # the archive this JVM maps, or the one it writes (None: no archive is used)
    writing: Path | None = None  # the file this JVM writes its archive to at a normal exit (None: it maps one)
    log: Path | None = None  # where this JVM logs a refused archive
    dropped: bool = False  # a file in the archive's place was no archive (damaged): removed, one is written anew


def archive_file() -> Path:
    """The archive for this ScienceWorld and this Java, in the user's cache folder (XDG_CACHE_HOME is honoured)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("recode-tui")) / "sciworld" / f"classes-{_key()}.jsa"


def _key() -> str:
    """Which ScienceWorld jar and which Java: an archive is valid only for the classes and the JVM build that
    wrote it (an upgrade of either gets a file of its own)."""
    from scienceworld.constants import JAR_PATH

    java = shutil.which("java")
    files = [os.path.realpath(f) for f in (JAR_PATH, java) if f]
    stamps = []
    for file in files:
        try:
            stamps.append(f"{file}:{os.stat(file).st_size}:{os.stat(file).st_mtime_ns}")
        except OSError:
            stamps.append(file)
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()[:16]


def plan(java_options: str | None) -> ArchiveUse:
    """How the next JVM uses the archive: maps it when it is there, else writes it at its normal exit."""
    if java_options and any(word in java_options for word in PERSONS_OWN):
        return ArchiveUse()
    try:
        archive = archive_file()
        archive.parent.mkdir(parents=True, exist_ok=True)
    except (OSError, ImportError):  # no cache folder to write, no ScienceWorld: the JVM starts as without one
        return ArchiveUse()
    if archive.with_suffix(".unusable").exists():  # this Java would not start with an archive
        return ArchiveUse()
    _forget_stale(archive)
    log = archive.with_name(f"{archive.stem}.{os.getpid()}-{next(_STARTS)}.log")  # one per JVM start
    dropped = archive.is_file() and not is_archive(archive)
    if dropped:
        forget(archive)
    elif archive.is_file():
        return ArchiveUse((*_logging(log, archive.parent), f"-XX:SharedArchiveFile={archive}"),
                          archive=archive, log=log)
    writing = archive.with_name(f"{archive.stem}.{os.getpid()}.writing")
    return ArchiveUse((*_logging(log, archive.parent), f"-XX:ArchiveClassesAtExit={writing}"),
                      archive=archive, writing=writing, log=log, dropped=dropped)


def is_archive(file: Path) -> bool:
    """Whether `file` starts as a JDK dynamic archive does: a JVM maps anything else silently not at all, or
    crashes on it."""
    try:
        with file.open("rb") as opened:
            return opened.read(4) == DYNAMIC_MAGIC
    except OSError:
        return False


def _forget_stale(archive: Path) -> None:
    """Files a JVM wrote whose process was killed before it could put them in place (never mapped: one may
    be cut short), logs of JVMs killed before they were read, and reports of JVMs that crashed on a damaged
    archive, older than STALE_S."""
    import time

    for file in [*archive.parent.glob(f"{archive.stem}.*.writing"), *archive.parent.glob(f"{archive.stem}.*.log"),
                 *archive.parent.glob("hs_err_pid*.log")]:
        try:
            if time.time() - file.stat().st_mtime > STALE_S:
                file.unlink()
        except OSError:
            pass


def refused(use: ArchiveUse) -> bool:
    """Whether the started JVM refused the archive it was given; the archive is then removed (the next
    normal exit writes a new one). The log is removed either way."""
    if use.log is None:
        return False
    try:
        said = use.log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        said = ""
    forget(use.log)
    if use.archive is not None and use.writing is None and (MAPPED not in said or any(r in said for r in REFUSED)):
        forget(use.archive)
        return True
    return False


def give_up(use: ArchiveUse) -> None:
    """The JVM would not start with `use`'s options: a mapped archive is removed (the next normal exit writes
    a new one); when it was to write one, this Java cannot (no base archive of its own): it is not asked again."""
    if use.log is not None:
        forget(use.log)
    if use.archive is None:
        return
    if use.writing is None:
        forget(use.archive)
    else:
        forget(use.writing)
        try:
            use.archive.with_suffix(".unusable").touch()
        except OSError:
            pass


def keep(use: ArchiveUse, exit_code: int | None) -> bool:
    """After the JVM's exit: its archive put in place when it exited normally (else the file is removed); its
    log removed (a JVM that writes an archive logs the writing at its exit)."""
    if use.log is not None:
        forget(use.log)
    if use.writing is None or use.archive is None:
        return False
    if exit_code == 0 and is_archive(use.writing):
        try:
            os.replace(use.writing, use.archive)
            return True
        except OSError:
            pass
    forget(use.writing)
    return False


def forget(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
