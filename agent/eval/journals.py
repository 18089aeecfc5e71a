"""An evaluation's folder as `export` and `tui --open` meet it: is this path one, and its episodes' journals.

Here, above the sessions, because it reads the report (`agent.eval.report`): the sessions' export
turns each journal into lines and never needs to know an evaluation exists.
"""

from __future__ import annotations

from pathlib import Path

from agent.eval.report import EvalReport
from agent.eval.results import EpisodeResult
from agent.sessions.journal_read import JOURNAL_FILE


def eval_folder(ref: str | Path | None) -> Path | None:
    """The evaluation folder `ref` names (the folder, or its report.json), else None."""
    if not ref:
        return None
    path = Path(ref)
    if path.is_file() and path.name == "report.json":
        return path.parent
    if path.is_dir() and ((path / "report.json").is_file() or (path / "journals").is_dir()):
        return path
    return None


def eval_journals(folder: Path, unfinished: bool = False) -> list[Path]:
    """Every episode's journal folder of an evaluation, in the report's order; with `unfinished`, then
    those it has no result for (an evaluation stopped while they ran: the OTel export shows them).

    The report names each episode's journal (a folder moved since is looked up
    under its `journals/`); without a readable report, every journal there.
    """
    found: list[Path] = []
    try:
        episodes: list[EpisodeResult] | None = EvalReport.read(folder / "report.json").episodes
    except ValueError:
        episodes = None
    if episodes is not None:
        for episode in episodes:
            recorded = Path(episode.journal)
            tail = Path(*recorded.parts[-2:]) if episode.agent and len(recorded.parts) > 1 else Path(recorded.name)
            for candidate in (recorded, folder / "journals" / tail):
                if recorded.name and (candidate / JOURNAL_FILE).is_file():
                    found.append(candidate)
                    break
        if not unfinished:
            return found
    # an episode the report has no result for (an evaluation stopped while it ran) still has its journal
    listed = {p.resolve() for p in found}
    return found + sorted(p.parent for p in (folder / "journals").rglob(JOURNAL_FILE) if p.parent.resolve() not in listed)
