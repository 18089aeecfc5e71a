"""A small folder in the original WebShop's file format, with the cases its loader treats specially:
products without a price or with an unreadable one, price ranges, a price of $980 or more, a
repeated and an invalid asin, repeated option values and values with "/", a product without
human instructions, instructions without attributes, and enough goals for the seeded shuffle to
move them all. `goals_recorded.json` beside it holds what the original's own loader made of it."""

from __future__ import annotations

import json
from pathlib import Path

RECORDED = Path(__file__).resolve().parent / "data" / "webshop_original_goals.json"
SEED = 7  # the seed the recording's price draws were made with


def _product(asin: str, name: str, pricing: object, options: dict | None = None, **more: object) -> dict:
    row = {"asin": asin, "name": name, "pricing": pricing, "category": "beauty", "query": f" {name.split()[-1]} ",
           "product_category": "Beauty & Personal Care › Hair Care › " + name.split()[-1].title(),
           "full_description": f"{name} for every day.", "small_description": [f"{name} bullet", "Second bullet"],
           "customization_options": options or {}, "images": ["x.jpg"]}
    row.update(more)
    return row


def _values(*values: str) -> list[dict]:
    return [{"value": v, "image": None} for v in values]


PRODUCTS = [
    _product("B000000001", "Lumix Shampoo", "$37.40", {"Size": _values("8 fl oz", "16 fl oz", "16 fl oz"),
                                                        "Color": _values("Black/White", " Navy Blue ")}),
    _product("B000000002", "Norara Conditioner", None),
    _product("B000000003", "Alpix Body Lotion", "$5.00 - $9.00", {"scent": _values("Cocoa", "Vanilla")}),
    _product("B000000004", "Kinix Lipstick", "$1,299.00"),
    _product("B000000005", "Ecotek Deodorant", ""),
    _product("B000000001", "A repeated asin", "$1.00"),
    _product("nan", "An asin that is nan", "$1.00"),
    _product("B0000000061", "An asin too long", "$1.00"),
    _product("B000000007", "Solster Serum", "$979.99", {"size": None, "count": _values("1", "2")}),
    _product("B000000008", "Paxtek Soap", "$12.5 - $30", small_description="One bullet as a string"),
    _product("B000000009", "Verwood Toner", None, small_description=None),
    _product("B000000010", "Brily Mask", "$19.99", {"size": _values("small", "large")}),
]
ATTRIBUTES = {"B000000001": {"attributes": ["sulfate free", "color safe"]},
              "B000000003": {"attributes": ["shea butter"]},
              "B000000010": {"attributes": []}}


def _instructions(asin: str, count: int) -> list[dict]:
    return [{"instruction": f"i want item {asin[-2:]} number {n}.", "instruction_attributes": [f"attr {n}"] if n % 4 else [],
             "instruction_options": ["16 fl oz", "16 fl oz"] if n == 1 else [f"opt {n}"]} for n in range(count)]


HUMAN = {asin: _instructions(asin, count) for asin, count in
         (("B000000001", 4), ("B000000002", 3), ("B000000003", 5), ("B000000004", 3), ("B000000005", 2),
          ("B000000007", 3), ("B000000008", 4), ("B000000009", 2), ("B000000010", 3), ("B0NOTTHERE", 2))}


def write(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "items_shuffle.json").write_text(json.dumps(PRODUCTS))
    (folder / "items_ins_v2.json").write_text(json.dumps(ATTRIBUTES))
    (folder / "items_human_ins.json").write_text(json.dumps(HUMAN))
    return folder


FILLER = [_product(f"B0FILL{n:04d}", f"Filler Item {n} Shampoo", f"${n}.{n % 10}0") for n in range(1, 27)]
SEARCHES = {  # the ranking a search gives in the recorded page set (the original's Lucene index is not here)
    "shampoo": [p["asin"] for p in FILLER[:20]] + ["B000000001"] + [p["asin"] for p in FILLER[20:]],
    "lotion": ["B000000003", "B000000008", "B000000009"],
    "nothing": [],
}


def write_pages_folder(folder: Path) -> Path:
    """The folder of the recorded page set: the products above and 26 fillers (three result pages)."""
    write(folder)
    (folder / "items_shuffle.json").write_text(json.dumps(PRODUCTS + FILLER))
    return folder
