"""ScienceWorld's class archive: the first JVM writes it at its normal exit, later ones map it (a cheaper start),
one the JVM cannot use is dropped with one note. The cache folder is the test's own (XDG_CACHE_HOME)."""

from __future__ import annotations

import shutil

import pytest

from envs.sciworld import class_archive
from envs.sciworld.class_archive import DYNAMIC_MAGIC

needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (.ci/run installs one)")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path


def test_a_start_without_an_archive_writes_one_a_start_with_one_maps_it(cache) -> None:
    first = class_archive.plan(None)
    assert first.writing is not None and f"-XX:ArchiveClassesAtExit={first.writing}" in first.options
    assert "SharedArchiveFile" not in first.options and first.archive == class_archive.archive_file()
    first.writing.write_bytes(DYNAMIC_MAGIC + b"\0" * 64)  # what the JVM writes at its normal exit
    assert class_archive.keep(first, 0)
    assert class_archive.archive_file().is_file() and not first.writing.exists()
    later = class_archive.plan("-XX:+UseSerialGC")
    assert later.writing is None and f"-XX:SharedArchiveFile={class_archive.archive_file()}" in later.options
    assert "-Xlog:all=warning:stderr" in later.options  # warnings never reach stdout, where py4j reads the port


@pytest.mark.parametrize("exit_code", [None, 1])
def test_an_archive_is_kept_only_after_a_normal_exit(cache, exit_code) -> None:
    use = class_archive.plan(None)
    assert use.writing is not None
    use.writing.write_bytes(DYNAMIC_MAGIC + b"\0" * 64)  # maybe cut short: the JVM was killed or failed
    assert not class_archive.keep(use, exit_code)
    assert not class_archive.archive_file().exists() and not use.writing.exists()


def test_a_persons_own_class_data_options_are_left_alone(cache) -> None:
    for own in ("-Xshare:off", "-XX:SharedArchiveFile=/x.jsa", "-XX:ArchiveClassesAtExit=/x.jsa"):
        assert class_archive.plan(f"-XX:+UseSerialGC {own}").options == ()


def test_a_file_in_the_archives_place_that_is_no_archive_is_replaced(cache) -> None:
    archive = class_archive.archive_file()
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"not an archive")  # a JVM maps it silently not at all, or crashes on a damaged one
    use = class_archive.plan(None)
    assert use.dropped and use.writing is not None and not archive.exists()


def test_an_archive_the_jvm_refused_is_removed(cache) -> None:
    archive = class_archive.archive_file()
    archive.parent.mkdir(parents=True)
    archive.write_bytes(DYNAMIC_MAGIC + b"\0" * 64)
    use = class_archive.plan(None)
    assert use.log is not None and use.archive == archive and use.writing is None
    use.log.write_text("[0.026s][info][cds] UseSharedSpaces: Unable to map shared spaces\n")  # JDK 17's words
    assert class_archive.refused(use) and not archive.exists() and not use.log.exists()


@pytest.mark.heavy  # a JVM of its own
@needs_java
def test_the_first_jvm_writes_the_archive_when_it_closes(cache) -> None:
    from envs.sciworld.simulator import Simulator

    simulator = Simulator()
    try:
        simulator.env()
        assert not class_archive.archive_file().exists()  # written at the normal exit only
    finally:
        simulator.close()
    assert class_archive.is_archive(class_archive.archive_file()) and simulator.notes == []
    assert [f.name for f in class_archive.archive_file().parent.iterdir()] == [class_archive.archive_file().name]


@pytest.mark.heavy  # a JVM of its own
@needs_java
def test_an_archive_the_jvm_cannot_use_is_dropped_with_one_note_and_the_simulator_plays(cache) -> None:
    from envs.sciworld.simulator import ARCHIVE_NOTE, Simulator

    archive = class_archive.archive_file()
    archive.parent.mkdir(parents=True)
    archive.write_bytes(DYNAMIC_MAGIC + b"\0" * 4096)  # an archive's first bytes, the rest damaged
    simulator = Simulator()
    try:
        simulator.load("find-animal", 0, "")
        assert "Your task is to find" in simulator.reset()[1]
        assert simulator.notes == [ARCHIVE_NOTE] and not archive.exists()
    finally:
        simulator.close()


def _child_jvms() -> set[int]:
    """The pids of this process's child JVMs (another test's shared simulator may be one)."""
    import os

    children = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _parent_of(int(pid)) == os.getpid()]
    return {pid for pid in children if b"java" in _proc(pid, "cmdline").split(b"\0")[0]}


def _parent_of(pid: int) -> int:
    try:
        return int(_proc(pid, "stat").rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def _proc(pid: int, name: str) -> bytes:
    with open(f"/proc/{pid}/{name}", "rb") as file:
        return file.read()


@pytest.mark.heavy  # a JVM of its own
@needs_java
def test_the_archive_options_reach_only_the_jvms_command_line_never_the_process_environment(cache) -> None:
    """Why: the process's environment is everyone's. A subprocess another thread started during a JVM's start,
    or a copy of the environment taken then and put back later, used to keep the archive's options for good."""
    import os

    from envs.sciworld.simulator import Simulator

    persons = os.environ.get("JAVA_TOOL_OPTIONS")
    simulator = Simulator()
    others = _child_jvms()
    try:
        simulator.env()
        [jvm] = _child_jvms() - others
        arguments = _proc(jvm, "cmdline").decode().split("\0")
        environment = dict(line.split("=", 1) for line in _proc(jvm, "environ").decode().split("\0") if "=" in line)
    finally:
        simulator.close()
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in arguments) and "-Xmx640m" in arguments
    assert environment.get("JAVA_TOOL_OPTIONS") == persons == os.environ.get("JAVA_TOOL_OPTIONS")
