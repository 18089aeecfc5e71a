"""Search: BM25 (the `bm25s` library) over each product's title, attributes and description.

The original ranks with a Lucene BM25 index (its own search module used
`rank_bm25`); rankings here differ slightly from it. A search returns at most
50 products with a positive score (the original's `SEARCH_RETURN_N`), shown 10
a page. The index is built once per catalogue and kept in the user cache
folder under the catalogue's hash, so a later process loads it instead of
building it again (100,000 products: seconds to build, a fraction to load).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Sequence

import bm25s

RETURN_N = 50
_TOKEN = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it its no not of on or such that the their then there these "
    "they this to was will with i im i'm need want looking find me my please would like some".split()
)


def tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def cache_root() -> Path:
    """Where built indexes are kept ($RECODE_TUI_CACHE, else the user cache folder)."""
    given = os.environ.get("RECODE_TUI_CACHE", "").strip()
    if given:
        return Path(given) / "webshop-bm25"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("recode-tui")) / "webshop-bm25"


class SearchIndex:
    """A BM25 index over documents in a fixed order (positions are the catalogue's product order)."""

    def __init__(self, retriever: bm25s.BM25, size: int, loaded: bool) -> None:
        self._retriever = retriever
        self.size = size
        self.loaded_from_cache = loaded

    @classmethod
    def build(cls, texts: Sequence[str], key: str | None = None) -> "SearchIndex":
        """The index of `texts`: loaded from the cache when one was saved under `key`, else built (and saved)."""
        folder = cache_root() / f"{key}-{len(texts)}" if key else None
        if folder is not None and (folder / "params.index.json").is_file():
            try:
                return cls(bm25s.BM25.load(str(folder)), len(texts), True)
            except Exception:  # noqa: BLE001 - a broken cache is rebuilt, not fatal
                shutil.rmtree(folder, ignore_errors=True)
        retriever = bm25s.BM25()
        retriever.index([tokens(t) or ["_"] for t in texts], show_progress=False)
        if folder is not None:
            try:  # written beside, then renamed: a reader never sees half an index
                folder.parent.mkdir(parents=True, exist_ok=True)
                scratch = tempfile.mkdtemp(dir=folder.parent)
                retriever.save(scratch)
                os.replace(scratch, folder)
            except OSError:
                shutil.rmtree(locals().get("scratch", ""), ignore_errors=True)  # another process won the race
        return cls(retriever, len(texts), False)

    def search(self, query: str, k: int = RETURN_N) -> list[int]:
        """Positions of the best `k` documents for `query`, best first (only those sharing a word with it)."""
        words = tokens(query)
        if not words or self.size == 0:
            return []
        docs, scores = self._retriever.retrieve([words], k=min(k, self.size), show_progress=False, n_threads=1)
        return [int(d) for d, s in zip(docs[0], scores[0]) if s > 0]
