"""The original WebShop's string matching: thefuzz's token-set score and its colour normalisation.

- `token_set_score(a, b)`: what the original's `fuzz.token_set_ratio(a, b)` gives with
  thefuzz's default processing: code points 128-255 deleted, every character that is
  not a letter or digit made a space, lower-cased, stripped; then the token-set ratio
  (rapidfuzz's, the one thefuzz itself calls), rounded to an integer as Python rounds.
  A match is a score above 85.
- `normalize_colour(value)`: an option value becomes the first colour word of
  `COLOUR_WORDS` found anywhere inside it (as a substring: "navy blue" and "blueberry"
  become "blue", "dark wash" becomes "ash"), else stays as it is. The order of the
  list decides which colour wins, so it is kept as the original has it.
"""

from __future__ import annotations

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

MATCH_ABOVE = 85

_LATIN1_RANGE = {code: None for code in range(128, 256)}  # deleted before processing, as thefuzz forces ASCII

COLOUR_WORDS: tuple[str, ...] = tuple("""
alabaster apricot aqua ash asphalt azure banana beige black blue blush bordeaux bronze brown burgundy camel
camo caramel champagne charcoal cheetah chestnut chocolate christmas coffee cognac copper coral cranberry cream
crystal dark denim eggplant elephant espresso fuchsia gold granite grape graphite grass gray green grey heather
indigo ivory ivy khaki lavender lemon leopard light lilac lime magenta maroon mauve merlot midnight mint mocha
multicolor mushroom mustard natural navy nude olive orange peach pewter pink plum purple rainbow red rose royal
rust sand sapphire seashell silver skull slate steel stone stonewash sunflower tan taupe teal tiger turquoise
violet walnut wheat white wine yellow
""".split())


def processed(text: str) -> str:
    """thefuzz's default processing of one string (see the module docstring)."""
    return default_process(str(text).translate(_LATIN1_RANGE))


def token_set_score(a: str, b: str) -> int:
    """The original's `fuzz.token_set_ratio(a, b)`: an integer 0-100."""
    return int(round(fuzz.token_set_ratio(processed(a), processed(b))))


def fuzzy_match(a: str, b: str) -> bool:
    return token_set_score(a, b) > MATCH_ABOVE


def normalize_colour(value: str) -> str:
    """The first colour word inside `value`, else `value` unchanged."""
    return next((colour for colour in COLOUR_WORDS if colour in value), value)
