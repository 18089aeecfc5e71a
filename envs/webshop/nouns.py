"""The nouns of a product title, for the reward's type factor.

The original takes them from spaCy's part-of-speech tags (NOUN, PROPN) with its
`en_core_web_sm` model (the ReCode reference loads `en_core_web_lg`). When spaCy
and one of those models are installed (`pip install 'recode-tui[nouns]'`, then
`python -m spacy download en_core_web_sm`: the official model; the project never
downloads one itself), the tagger is used. Otherwise `fallback_nouns`: every
lower-cased word of letters (an apostrophe or hyphen inside) that is not in
`NOT_NOUNS` (function words and "free"). spaCy tags nearly every capitalised word
of a title-cased product name NOUN or PROPN ("Low", "High", "Dark" included), so a
short stop list is closer to it than a list of adjectives: on the 2,814 purchases
of `reward_oracle.json` the fallback gives spaCy's type factor on 2,797. `WEBSHOP_NOUNS=fallback` forces the fallback (tests,
and rewards that must not depend on a model version).

`noun_source()` names the finder in use ("spacy:en_core_web_sm" or "fallback"):
reports and journals record it, and `--preset paper` warns when it is the fallback.
"""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from typing import Callable

from envs.webshop.options import FALLBACK, current

MODELS = ("en_core_web_sm", "en_core_web_lg")  # the original's model first, then the reference's
NOUN_TAGS = ("NOUN", "PROPN")

# What spaCy tags as something else even in a title-cased product name: function words, and "free"
# (an adjective at the end of "Sulfate Free" and in most other places).
NOT_NOUNS = frozenset("""
a an the and or nor but of for with without in on at to by from as is are be it its this that these those
into onto per via than so not no
free
""".split())

_WORD = re.compile(r"[a-z][a-z'-]*")


def fallback_nouns(text: str) -> list[str]:
    """The nouns of a title without a tagger: see the module docstring."""
    return [w for w in _WORD.findall(text.lower()) if w not in NOT_NOUNS]


@lru_cache(maxsize=1)
def _tagger() -> tuple[str, Callable[[str], list[str]]] | None:
    if current().fallback_nouns:
        return None
    for name in MODELS:
        if importlib.util.find_spec(name) is None:  # no model: no spaCy import (~2 s)
            continue
        try:
            import spacy

            model = spacy.load(name, disable=["parser", "ner", "lemmatizer"])
        except Exception:  # noqa: BLE001 - a broken install is the documented fallback, not a crash
            continue
        return f"spacy:{name}", lambda text: [t.text.lower() for t in model(text) if t.pos_ in NOUN_TAGS]
    return None


def noun_source() -> str:
    """Which noun finder scores: "spacy:<model>" or "fallback"."""
    tagger = _tagger()
    return FALLBACK if tagger is None else tagger[0]


def reset() -> None:
    """Forget the finder chosen (tests that change $WEBSHOP_NOUNS)."""
    _tagger.cache_clear()


def nouns(text: str) -> list[str]:
    tagger = _tagger()
    return fallback_nouns(text) if tagger is None else tagger[1](text)
