"""What a WebShop page says, in two modes.

- `faithful` (the default): the original's text observation, byte for byte. The original renders
  its HTML templates and joins the page's visible text pieces with " [SEP] ", each stripped
  (whitespace-only pieces on a line of their own left out). No ratings (always "Rating: N.A."),
  no reviews, no mark of the options chosen: the original loads none of them and shows none.
- `recode`: the page as the ReCode reference re-rendered it for its agents: buttons and product
  ids in square brackets on lines of their own, option values in brackets after their option's
  name, other text on its own line; the page's first two plain pieces dropped (the search page's
  "WebShop" and "Instruction:", on other pages "Instruction:" and the instruction itself); after
  a purchase only "Your score (min 0.0, max 1.0): <reward>"; then its unicode-escape round trip.

A page is first a list of `Piece`s (text with the element it sits in), as the original's HTML
gives them; each mode renders that list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from envs.webshop.site import Site

Role = Literal["text", "button", "label", "link"]
SCORE_LINE = "Your score (min 0.0, max 1.0)"
_ASCII_SPACE = frozenset(" \n\t\f\r")


@dataclass(frozen=True)
class Piece:
    text: str
    role: Role = "text"


def _piece(text: str, role: Role = "text") -> list[Piece]:
    """The piece an HTML parser gives for `text` inside an element: none for "", a whitespace-only
    text becomes "\\n" (it has a line break) or " "."""
    if text == "":
        return []
    if all(c in _ASCII_SPACE for c in text):
        text = "\n" if "\n" in text else " "
    return [Piece(text, role)]


def _head(site: Site, instruction: str) -> list[Piece]:
    return [*_piece("Instruction:"), *_piece(instruction), *_piece("Back to Search", "button")]


def pieces(site: Site, instruction: str, reward: float | None = None) -> list[Piece]:
    state = site.state
    if state.page == "search":
        return [*_piece("WebShop"), *_piece("Instruction: "), *_piece(instruction), *_piece("Search", "button")]
    if state.page == "done":
        return _done(site, reward)
    out = _head(site, instruction)
    if state.page == "results":
        out += _piece(f"Page {state.number} (Total results: {len(state.results)})")
        if state.number > 1:
            out += _piece("< Prev", "button")
        out += _piece("Next >", "button")
        for product in site.page_products():
            out += [*_piece(product.asin, "link"), *_piece(product.title), *_piece(product.shown_price)]
        return out
    product = site.product
    out += _piece("< Prev", "button")
    if state.page == "item":
        for name, values in product.options.items():
            out += _piece(name)
            for value in values:
                out += _piece(value, "label")
        out += [*_piece(product.title), *_piece(f"Price: {product.shown_price}"), *_piece("Rating: N.A.")]
        out += [p for label in ("Description", "Features", "Reviews", "Buy Now") for p in _piece(label, "button")]
    elif state.page == "description":
        out += _piece(product.description)
    elif state.page == "features":
        out += [p for bullet in product.features for p in _piece(" " + bullet)]
    return out  # the reviews view: none are loaded


def _done(site: Site, reward: float | None) -> list[Piece]:
    """The purchase page; its hidden parts are text too, most of them empty or "None" in the text mode."""
    options = json.dumps(site.state.options, sort_keys=True).replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("&", "\\u0026").replace("'", "\\u0027")
    texts = ["Thank you for shopping with us!", "Your code: ", "None", " (Paste it in your MTurk interface.)",
             "Purchased", "asin", site.state.asin or "", "options", options, "attrs", "None", "category", "None",
             "query", "None", "product category", "None", "Target", "asin", "options", "attrs", "price upper",
             "instuction text", "category", "product category", "query", "Goal ", "None", "Reward", SCORE_LINE,
             str(reward), "Reward Details ", "None"]
    return [p for t in texts for p in _piece(t)]


def faithful(items: list[Piece]) -> str:
    return " [SEP] ".join(p.text.strip() for p in items if p.text != "\n")


def recode(items: list[Piece], max_products: int = 10) -> str:
    """The ReCode reference's rendering of the same pieces (see the module docstring)."""
    out, plain, products, since_product = "", 0, 0, 0
    for piece in items:
        t = piece.text
        if t == "\n" or t.replace("\n", "").replace("\\n", "").replace(" ", "") == "":
            continue
        if piece.role == "button":
            shown = f"\n[{t}] "
        elif piece.role == "label":
            shown = f"[{t}]"
        elif piece.role == "link":
            shown = f"\n[{t}] " if products < max_products else ""
            products += 1
            since_product = 0
        else:
            shown = "\n" + t + " " if plain >= 2 else ""
            if since_product <= 2 and products >= max_products + 1:
                shown = ""
            plain += 1
        since_product += 1
        out += shown
    texts = [p.text for p in items]
    if SCORE_LINE in texts and texts.index(SCORE_LINE) + 1 < len(texts):
        out = f"{SCORE_LINE}: {texts[texts.index(SCORE_LINE) + 1]}"
    try:
        return out.encode().decode("unicode-escape").encode("latin1").decode("utf-8")
    except (UnicodeError, ValueError) as exc:  # the reference showed its agent this line instead of the page
        return f"HTML parsing error: {exc}"


def render(mode: str, site: Site, instruction: str, reward: float | None = None) -> str:
    items = pieces(site, instruction, reward)
    return recode(items) if mode == "recode" else faithful(items)
