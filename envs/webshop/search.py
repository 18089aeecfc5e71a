"""Search as the original indexes and ranks it: BM25 (the `bm25s` library) with Lucene's English analysis.

- `original` (the default): each product is one lower-cased text: its title, description, first
  bullet and option names and values (`Product.search_text`; the reward's hidden attributes are
  not indexed). Text and query are analysed as Lucene's default English analyzer does (the
  original's pyserini index): words split at punctuation (a dot or apostrophe inside a word, a
  comma inside a number, kept: "6.76", "l'eau", "1,000"), a possessive "'s" dropped, Lucene's 33
  English stop words dropped, Porter stemming (`snowballstemmer`'s "porter"); BM25 with k1 = 0.9,
  b = 0.4 and Lucene's idf. Lucene stores document lengths rounded, so scores (and rare ties)
  can differ slightly from it.
- `bundled` ($WEBSHOP_SEARCH=bundled): what this project searched with before: title, attributes
  and description, words without stemming, BM25 with k1 = 1.5, b = 0.75.

A search returns at most 50 products with a positive score, shown 10 a page. The index is built
once per catalogue and analysis and kept in the user cache folder under the catalogue's hash, so a
later process loads it instead of building it again.
"""

from __future__ import annotations

import os
import re
from array import array
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    import bm25s

from envs.webshop.options import current

RETURN_N = 50
_BM25 = {"original": {"k1": 0.9, "b": 0.4}, "bundled": {"k1": 1.5, "b": 0.75}}
_VERSION = {"original": "lucene-english-porter-1", "bundled": "plain-1"}  # in the cache key
_WORD = re.compile(r"[^\W_]+(?:[.'\u2019][^\W_]+|(?<=\d),\d+)*")  # a comma only inside a number
LUCENE_STOPWORDS = frozenset(  # Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET)
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with".split()
)
_PLAIN = re.compile(r"[a-z0-9]+")
PLAIN_STOPWORDS = LUCENE_STOPWORDS | frozenset("its i im i'm need want looking find me my please would like some".split())


@lru_cache(maxsize=1)
def _porter() -> Any:
    """Porter's stemmer, made on first use: importing `snowballstemmer` (all its languages) and `bm25s`
    (numpy, scipy) costs a third of a CPU-second that a process only reading the catalogue never needs."""
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


# a catalogue repeats its words: stemming each distinct word once makes indexing ~25x faster
@lru_cache(maxsize=1 << 18)
def _stem(word: str) -> str:
    return _porter().stemWord(word)


def lucene_tokens(text: str) -> list[str]:
    """Lucene's English analysis of a text (see the module docstring)."""
    words = []
    for word in _WORD.findall(text.lower()):
        if word.endswith(("'s", "\u2019s")):
            word = word[:-2]
        if word and word not in LUCENE_STOPWORDS:
            words.append(_stem(word))
    return words


def plain_tokens(text: str) -> list[str]:
    return [t for t in _PLAIN.findall(text.lower()) if t not in PLAIN_STOPWORDS]


def tokens(text: str, analysis: str = "original") -> list[str]:
    return lucene_tokens(text) if analysis == "original" else plain_tokens(text)


def _token_ids(texts: Iterable[str], analysis: str) -> tuple[list, dict[str, int]]:
    """Each text's words as numbers, 4 bytes a word (and the numbering): a million texts' words are never
    held as strings or Python lists at once."""
    vocab: dict[str, int] = {}
    docs = [array("i", [vocab.setdefault(word, len(vocab)) for word in tokens(text, analysis) or ["_"]])
            for text in texts]
    return docs, vocab


def cache_root() -> Path:
    """Where built indexes are kept ($RECODE_TUI_CACHE, else the user cache folder)."""
    return current().cache_folder("webshop-bm25")


class SearchIndex:
    """A BM25 index over documents in a fixed order (positions are the catalogue's product order)."""

    def __init__(self, retriever: bm25s.BM25, size: int, loaded: bool, analysis: str = "original") -> None:
        self._retriever = retriever
        self.size = size
        self.loaded_from_cache = loaded
        self.analysis = analysis

    @classmethod
    def build(cls, texts: Iterable[str], key: str | None = None, analysis: str = "original",
              size: int | None = None) -> "SearchIndex":
        """The index of `texts` (`size` of them): loaded from the cache when one was saved under `key`, else
        built (and saved). The texts are read one at a time, and only when the index is built."""
        import bm25s  # here, not at the top: see `_porter`

        if size is None:
            texts = list(texts)
            size = len(texts)
        folder = cache_root() / f"{key}-{_VERSION[analysis]}-{size}" if key else None
        if folder is not None and (folder / "params.index.json").is_file():
            try:
                # memory-mapped: eval's workers on one machine share the index's pages instead of copying it
                return cls(bm25s.BM25.load(str(folder), mmap=True), size, True, analysis)
            except Exception:  # noqa: BLE001 - a broken cache is rebuilt, not fatal
                shutil.rmtree(folder, ignore_errors=True)
        retriever = bm25s.BM25(method="lucene", **_BM25[analysis])
        retriever.index(_token_ids(texts, analysis), show_progress=False)
        if folder is not None:
            try:  # written beside, then renamed: a reader never sees half an index
                folder.parent.mkdir(parents=True, exist_ok=True)
                scratch = tempfile.mkdtemp(dir=folder.parent)
                retriever.save(scratch)
                os.replace(scratch, folder)
            except OSError:
                shutil.rmtree(locals().get("scratch", ""), ignore_errors=True)  # another process won the race
        return cls(retriever, size, False, analysis)

    def scored(self, query: str, k: int = RETURN_N) -> list[tuple[int, float]]:
        """(position, BM25 score) of the best `k` documents for `query`, best first, scores above 0.

        Equal scores are ordered by position, as Lucene orders them by document number. Why not bm25s's
        `retrieve`: its top-k leaves ties in the order numpy's SIMD sort gives, which differs between
        processors (AVX-512 or not), so a recorded search did not replay on another machine."""
        words = tokens(query, self.analysis)
        if not words or self.size == 0:
            return []
        import numpy as np

        scores = self._retriever.get_scores(words)
        k = min(k, self.size)
        kth = np.partition(scores, self.size - k)[self.size - k]  # the k-th best score
        candidates = np.flatnonzero(scores >= kth)
        best = candidates[np.lexsort((candidates, -scores[candidates]))][:k]  # ties: the earlier product first
        return [(int(d), float(scores[d])) for d in best if scores[d] > 0]

    def search(self, query: str, k: int = RETURN_N) -> list[int]:
        """Positions of the best `k` documents for `query`, best first (only those sharing a word with it)."""
        return [position for position, _ in self.scored(query, k)]
