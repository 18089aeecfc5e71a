"""Where the user's own folders are: sessions, saved prompt sets, the response cache.

Part of the edge: the folders are read here from the flags and the environment
(`RECODE_TUI_SESSIONS`, `RECODE_TUI_PROMPTS`, `RECODE_TUI_CACHE`) and handed down
as paths, so nothing below the edge reads those variables (tests/test_environment_reads.py).
"""

from __future__ import annotations

import os
from pathlib import Path

SESSIONS_VAR = "RECODE_TUI_SESSIONS"
PROMPTS_VAR = "RECODE_TUI_PROMPTS"
CACHE_VAR = "RECODE_TUI_CACHE"


def sessions_dir_from(option: str | None) -> Path:
    """`--sessions DIR`, else $RECODE_TUI_SESSIONS, else `<user data dir>/sessions`."""
    from agent.sessions.listing import default_sessions_dir

    chosen = option or os.environ.get(SESSIONS_VAR)
    return Path(chosen) if chosen else default_sessions_dir()


def user_prompts_dir() -> Path:
    """The user's prompt folder, where the prompt workspace saves edited sets and a resume looks for one
    by its hash: $RECODE_TUI_PROMPTS, else `<user data dir>/prompts`."""
    chosen = os.environ.get(PROMPTS_VAR)
    if chosen:
        return Path(chosen)
    import platformdirs

    return Path(platformdirs.user_data_dir("recode-tui")) / "prompts"


def cache_root() -> Path | None:
    """$RECODE_TUI_CACHE: the folder every cache of the project goes under (None: each one's own default)."""
    given = os.environ.get(CACHE_VAR, "").strip()
    return Path(given) if given else None


def llm_cache_folder(option: str | None) -> Path:
    """Where the response cache is kept: `--cache-dir`, else $RECODE_TUI_CACHE, else the user cache dir's `llm/`."""
    from agent.llm.cache import default_folder

    if option:
        return Path(option)
    return cache_root() or default_folder()
