"""A full disk while a run is journaled.

A record is written whole or not at all: a write cut short is cut back, the
record is kept and written with the next one once there is room, and a journal
failure never turns a won run into a traceback. The runs play the toy world's vase-1 with the gold LLM (nine
records, 22 kB: the journal is the subject, not the game).
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from agent.sessions.journal_read import JOURNAL_FILE, read_journal
from recode_tui.commands.cli import main
from tests.toyenv.world import EPISODES

pytestmark = pytest.mark.usefixtures("node_code_in_process")  # in-process: the journal is the subject, not the sandbox


def is_journal(fd: int) -> bool:
    try:
        return os.readlink(f"/proc/self/fd/{fd}").endswith(JOURNAL_FILE)
    except OSError:
        return False


def test_a_disk_full_for_a_moment_loses_no_record_and_the_won_run_resumes(tmp_path, monkeypatch, capsys, toy_game):
    real_write = os.write
    calls = {"journal": 0}

    def os_write_hitting_a_full_disk_for_a_moment(fd: int, data) -> int:
        """os.write as a disk that fills up at the journal's 4th write: half of it lands, then ENOSPC twice."""
        if not is_journal(fd):
            return real_write(fd, data)
        calls["journal"] += 1
        if calls["journal"] == 4:
            return real_write(fd, bytes(data)[: len(data) // 2])
        if calls["journal"] in (5, 6):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", os_write_hitting_a_full_disk_for_a_moment)
    sessions = tmp_path / "sessions"
    code = main(["run", "--game", toy_game, "--llm", "gold", "--sessions", str(sessions), "--quiet"])
    monkeypatch.setattr(os, "write", real_write)
    out = capsys.readouterr()
    assert code == 0 and out.out.startswith("SUCCESS: won"), out.err
    assert calls["journal"] > 6  # the full disk was met
    (folder,) = sessions.iterdir()
    journal = read_journal(folder)  # every line a whole record
    assert not journal.truncated_tail and journal.finished["success"]
    assert len(journal.actions()) == len(EPISODES["vase-1"].gold)
    again = main(["run", "--resume", "--sessions", str(sessions), "--llm", "gold", "--quiet"])
    out = capsys.readouterr()
    assert again == 0 and out.out.startswith("SUCCESS: won"), out.err  # the whole won run replays


def test_a_disk_full_for_the_whole_run_still_ends_with_the_result_and_a_whole_journal(tmp_path, monkeypatch, capsys,
                                                                                      toy_game):
    real_write = os.write
    calls = {"journal": 0}

    def os_write_on_a_disk_that_fills_up(fd: int, data) -> int:
        """os.write as a disk that fills at the journal's 3rd write: a third of it lands, then ENOSPC for good."""
        if not is_journal(fd):
            return real_write(fd, data)
        calls["journal"] += 1
        if calls["journal"] < 3:
            return real_write(fd, data)
        if calls["journal"] == 3:
            return real_write(fd, bytes(data)[: len(data) // 3])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", os_write_on_a_disk_that_fills_up)
    sessions = tmp_path / "sessions"
    code = main(["run", "--game", toy_game, "--llm", "gold", "--sessions", str(sessions), "--quiet"])
    monkeypatch.setattr(os, "write", real_write)
    out = capsys.readouterr()
    assert code == 0 and out.out.startswith("SUCCESS: won"), out.err  # the result, not a traceback
    notes = [line for line in out.err.splitlines() if "journal write failed" in line]
    assert len(notes) == 1 and "free space" in notes[0] and "--resume" in notes[0]
    (folder,) = sessions.iterdir()
    assert (folder / JOURNAL_FILE).read_bytes().endswith(b"\n")  # the cut record was taken back
    journal = read_journal(folder)  # whole records only: a resume goes on from the last one
    assert not journal.truncated_tail and journal.finished is None


def _tiny_filesystem(path: Path, free_pages: int) -> bool:
    """A real tmpfs at `path` with about `free_pages` pages left free (root only); False where it cannot mount."""
    import subprocess

    path.mkdir()
    if os.geteuid() != 0:
        return False
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)],
                             capture_output=True).returncode == 0
    if mounted:
        filler = path / "filler"
        with open(filler, "wb", buffering=0) as handle:
            try:
                while True:
                    handle.write(b"\0" * 4096)
            except OSError:
                pass
        os.truncate(filler, max(0, filler.stat().st_size - free_pages * 4096))
    return mounted


def test_a_real_full_disk_keeps_every_written_record_whole(tmp_path, toy_game):
    """The same on a real filesystem that fills up (a small tmpfs): whole records only, the result, no traceback."""
    import subprocess

    import pytest

    from tests.eval.helpers import run_main

    disk = tmp_path / "disk"
    if not _tiny_filesystem(disk, free_pages=3):
        pytest.skip("mounting a small tmpfs needs root")
    try:
        result = run_main(["run", "--game", toy_game, "--llm", "gold", "--sessions", str(disk / "sessions"), "--quiet"],
                          dict(os.environ))
        assert result.returncode == 0 and result.stdout.startswith("SUCCESS: won"), result.stdout + result.stderr
        assert "Traceback" not in result.stderr
        assert "journal" in result.stderr.lower()  # one line says the journal could not be written
        (folder,) = (disk / "sessions").iterdir()
        lines = (folder / JOURNAL_FILE).read_bytes().split(b"\n")
        assert lines[-1] == b""  # ends at a record's end
        for line in lines[:-1]:
            assert isinstance(json.loads(line), dict)  # no half record, none glued to the next
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
