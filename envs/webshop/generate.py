"""Write the bundled WebShop catalogue (`data/catalog.json`), seeded: the same file every run.

    python envs/webshop/generate.py [--seed 7] [--goals 160] [--out PATH]

Five categories of product types, each type with its own attributes (what a
buyer asks for: "sulfate free", "noise cancelling") and options (size, colour,
scent ...). Every goal is made from a target product: some of its attributes,
one value of some of its options, and a round price limit above its price.
Beside each target go distractors of the same type that a careless buyer
takes: one lacks an asked-for attribute, one is over the price limit, one
lacks the asked-for option value. The script checks that the target earns
reward 1.0 and no distractor does, and refuses to write otherwise.

`--products N` writes a catalogue of N filler products with no goals (what
benchmarks/bench_webshop.py times search on).

This catalogue is generated, not scraped: scores on it are not comparable with
the WebShop paper's.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from envs.webshop.catalog import BUNDLED, _goal_from_bundled, _product_from_bundled  # noqa: E402
from envs.webshop.model import Goal, Product  # noqa: E402
from envs.webshop.reward import reward  # noqa: E402

PRICE_STEPS = (10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000, 2000, 5000)


def price_limit_above(price: float) -> float:
    """The bundled goals' price limit: the first of PRICE_STEPS above the price (or 1.5x past them)."""
    return float(next((s for s in PRICE_STEPS if s > price), round(price * 1.5)))


# type -> (category, sub-category, price range, attributes, options)
TYPES: dict[str, tuple[str, str, tuple[int, int], list[str], dict[str, list[str]]]] = {
    "shampoo": ("beauty", "Hair Care", (6, 38), ["sulfate free", "paraben free", "for dry hair", "cruelty free",
                "argan oil", "color safe", "tea tree", "vegan formula"],
                {"size": ["8 fl oz", "12 fl oz", "16 fl oz", "33.8 fl oz"], "scent": ["lavender", "coconut", "citrus", "unscented", "mint"]}),
    "body lotion": ("beauty", "Skin Care", (5, 34), ["for sensitive skin", "fragrance free", "shea butter", "non greasy",
                    "hyaluronic acid", "dermatologist tested", "aloe vera", "long lasting hydration"],
                    {"size": ["6.8 fl oz", "13.5 fl oz", "20 fl oz"], "scent": ["cocoa", "vanilla", "almond", "unscented"]}),
    "deodorant": ("beauty", "Personal Care", (4, 22), ["aluminum free", "baking soda free", "for sensitive skin",
                  "48 hour protection", "travel size", "plant based", "alcohol free"],
                  {"scent": ["bright citrus", "cedar", "rose", "fresh linen"], "size": ["2.65 ounce", "3 ounce", "pack of 3"]}),
    "lipstick": ("beauty", "Makeup", (6, 32), ["matte finish", "long wearing", "smudge proof", "moisturizing",
                 "vitamin e", "cruelty free", "highly pigmented"],
                 {"color": ["ruby red", "nude beige", "berry", "coral", "mauve"]}),
    "headphones": ("electronics", "Audio", (18, 190), ["noise cancelling", "bluetooth 5.3", "over ear", "built in microphone",
                   "40 hour battery", "foldable design", "fast charging", "low latency"],
                   {"color": ["black", "white", "navy blue", "rose gold"]}),
    "phone charger": ("electronics", "Accessories", (8, 55), ["usb c", "fast charging", "20w power delivery", "dual port",
                      "foldable plug", "overheat protection", "6 ft cable"],
                      {"color": ["black", "white"], "size": ["1 pack", "2 pack", "3 pack"]}),
    "bluetooth speaker": ("electronics", "Audio", (15, 160), ["waterproof ip67", "24 hour playtime", "deep bass",
                          "portable design", "stereo pairing", "built in microphone", "shockproof"],
                          {"color": ["black", "blue", "red", "camo green"]}),
    "keyboard": ("electronics", "Computer Accessories", (16, 140), ["mechanical switches", "backlit keys", "wireless connection",
                 "compact layout", "hot swappable", "ergonomic design", "quiet typing"],
                 {"color": ["black", "white", "gray"], "style": ["tactile brown", "linear red", "clicky blue"]}),
    "sneakers": ("fashion", "Shoes", (25, 130), ["breathable mesh", "memory foam insole", "slip resistant", "lightweight",
                 "arch support", "lace up", "rubber sole"],
                 {"size": ["7", "8", "8.5", "9", "10", "11"], "color": ["black white", "navy", "gray", "all white"]}),
    "hoodie": ("fashion", "Clothing", (18, 70), ["fleece lined", "machine washable", "kangaroo pocket", "relaxed fit",
               "drawstring hood", "cotton blend", "zip up"],
               {"size": ["small", "medium", "large", "x-large"], "color": ["heather gray", "black", "forest green", "burgundy"]}),
    "jeans": ("fashion", "Clothing", (22, 95), ["slim fit", "stretch denim", "high waist", "straight leg", "button fly",
              "distressed look", "five pocket"],
              {"size": ["28w x 30l", "30w x 32l", "32w x 32l", "34w x 34l"], "color": ["dark wash", "light wash", "black denim"]}),
    "dress": ("fashion", "Clothing", (20, 110), ["short sleeve", "a line", "knee length", "floral print", "v neck",
              "with pockets", "machine washable"],
              {"size": ["x-small", "small", "medium", "large"], "color": ["navy floral", "black", "sage green", "dusty pink"]}),
    "coffee beans": ("food", "Beverages", (9, 45), ["medium roast", "fair trade", "single origin", "whole bean",
                     "low acid", "usda organic", "dark chocolate notes"],
                     {"size": ["12 ounce", "2 pound", "5 pound"]}),
    "green tea": ("food", "Beverages", (5, 30), ["caffeine free", "usda organic", "loose leaf", "individually wrapped",
                  "non gmo", "jasmine flavor", "sugar free"],
                  {"size": ["20 count", "50 count", "100 count"]}),
    "granola": ("food", "Breakfast Foods", (4, 28), ["gluten free", "high protein", "low sugar", "non gmo",
                "whole grain oats", "keto friendly", "dairy free"],
                {"flavor": ["honey almond", "dark chocolate", "maple pecan", "blueberry"], "size": ["11 ounce", "pack of 4"]}),
    "dark chocolate": ("food", "Snacks", (4, 36), ["72 percent cacao", "sugar free", "fair trade", "dairy free",
                       "individually wrapped", "sea salt", "keto friendly"],
                       {"size": ["3.5 ounce", "pack of 6", "pack of 12"]}),
    "office chair": ("furniture", "Home Office", (60, 320), ["lumbar support", "adjustable height", "breathable mesh",
                     "360 degree swivel", "padded armrests", "easy assembly", "high back"],
                     {"color": ["black", "gray", "white", "blue"]}),
    "bookshelf": ("furniture", "Living Room", (40, 240), ["5 tier", "solid wood", "easy assembly", "industrial style",
                  "anti tip", "open shelves", "space saving"],
                  {"color": ["rustic brown", "white", "black oak", "walnut"]}),
    "table lamp": ("furniture", "Lighting", (15, 95), ["dimmable", "usb charging port", "touch control", "linen shade",
                   "energy saving", "bedside use", "warm white light"],
                   {"color": ["brass", "matte black", "white"], "size": ["1 pack", "set of 2"]}),
    "area rug": ("furniture", "Home Decor", (30, 260), ["non slip", "machine washable", "low pile", "stain resistant",
                 "pet friendly", "shag texture", "boho style"],
                 {"size": ["2 x 3 ft", "5 x 7 ft", "8 x 10 ft"], "color": ["cream", "gray blue", "terracotta", "charcoal"]}),
}
CATEGORY_ROOT = {"beauty": "Beauty & Personal Care", "electronics": "Electronics", "fashion": "Clothing, Shoes & Jewelry",
                 "food": "Grocery & Gourmet Food", "furniture": "Home & Kitchen"}
BRAND_A = ["Zen", "Alp", "Nor", "Lum", "Ver", "Cal", "Bri", "Oak", "Sol", "Tru", "Mav", "Eco", "Kin", "Pax", "Ril"]
BRAND_B = ["ora", "ix", "vale", "eon", "ly", "ster", "wood", "ara", "tek", "ique", "ford", "o", "ant"]
OPENERS = ["i need", "i am looking for", "i want", "find me", "i'm searching for", "please get me"]
PRAISE = ["Works exactly as described.", "Good value for the price.", "Arrived quickly and well packed.",
          "Would buy again.", "Quality is better than I expected.", "Does the job, nothing special."]
COMPLAINT = ["Smaller than I thought.", "The packaging was damaged.", "Took a while to arrive.", "Color is a bit off."]


class Maker:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.asins: set[str] = set()

    def asin(self) -> str:
        while True:
            code = "B0" + "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(8))
            if code not in self.asins:
                self.asins.add(code)
                return code

    def brand(self) -> str:
        return self.rng.choice(BRAND_A) + self.rng.choice(BRAND_B)

    def product(self, kind: str, attributes: list[str], options: dict[str, list[str]], price: float) -> dict:
        category, sub, _, _, _ = TYPES[kind]
        rng = self.rng
        shown = attributes[: rng.randint(1, 2)]  # some attributes in the title, the rest only in the text
        title = f"{self.brand()} {kind.title()} - {', '.join(a.title() for a in shown)}"
        features = [a.capitalize() for a in attributes[len(shown):]]
        description = f"This {kind} is {', '.join(attributes)}. " + rng.choice(
            ["Designed for daily use.", "A favourite of our customers.", "Built to last.", "Thoughtfully made."])
        reviews = [[rng.choice([4, 5]), rng.choice(PRAISE)]]
        if rng.random() < 0.3:
            reviews.append([rng.choice([2, 3]), rng.choice(COMPLAINT)])
        return {"asin": self.asin(), "title": title, "price": round(price, 2), "category": category,
                "product_category": f"{CATEGORY_ROOT[category]} › {sub} › {kind.title()}", "query": kind,
                "attributes": attributes, "options": options, "description": description, "features": features,
                "reviews": reviews, "rating": round(rng.uniform(3.4, 5.0), 1) if rng.random() < 0.8 else None}

    def options_for(self, kind: str, must: dict[str, str] | None = None, without: dict[str, str] | None = None) -> dict:
        out = {}
        for name, values in TYPES[kind][4].items():
            pool = [v for v in values if not without or without.get(name) != v]
            chosen = self.rng.sample(pool, min(len(pool), self.rng.randint(2, 3)))
            if must and name in must and must[name] not in chosen:
                chosen[0] = must[name]
            out[name] = [v for v in values if v in chosen]
        return out

    def price_in(self, kind: str) -> float:
        low, high = TYPES[kind][2]
        return self.rng.uniform(low, high)


def instruction(rng: random.Random, kind: str, attributes: list[str], options: dict[str, str], bound: float) -> str:
    before = [a for a in attributes if not a.startswith(("for ", "with "))]
    after = [a for a in attributes if a.startswith(("for ", "with "))]
    text = f"{rng.choice(OPENERS)} {' and '.join(before) + ' ' if before else ''}{kind}"
    if after:
        text += " " + " and ".join(after)
    wants = [f"{value} {name}" for name, value in options.items()]
    if wants:
        text += ", in " + " and ".join(wants)
    return f"{text}, and price lower than {bound:.2f} dollars"


def generate(seed: int = 7, goals: int = 160, filler: int = 40) -> dict:
    make = Maker(seed)
    rng = make.rng
    products: list[dict] = []
    goal_rows: list[dict] = []
    kinds = list(TYPES)
    for number in range(goals):
        kind = kinds[number % len(kinds)]
        pool = TYPES[kind][3]
        have = rng.sample(pool, 4)
        asked = have[: rng.randint(2, 3)]
        opts = make.options_for(kind)
        asked_opts = {n: rng.choice(vs) for n, vs in list(opts.items())[: rng.randint(1, len(opts))]}
        price = make.price_in(kind)
        bound = price_limit_above(price)
        target = make.product(kind, have, opts, price)
        spare = [a for a in pool if a not in have]
        missing = rng.choice(asked)  # distractor 1: all but one asked-for attribute
        d1 = make.product(kind, [a for a in have if a != missing] + [rng.choice(spare)], make.options_for(kind, asked_opts),
                          rng.uniform(price * 0.8, min(bound - 0.01, price * 1.1)))
        d2 = make.product(kind, list(have), make.options_for(kind, asked_opts), rng.uniform(bound + 1, bound * 1.4))
        absent = dict(list(asked_opts.items())[:1])  # distractor 3: the asked-for option value is not offered
        d3 = make.product(kind, list(have), make.options_for(kind, without=absent), rng.uniform(price * 0.7, price))
        trio = [target, d1, d2, d3]
        rng.shuffle(trio)
        products += trio
        goal_rows.append({"asin": target["asin"], "distractors": [d["asin"] for d in (d1, d2, d3)], "instruction": instruction(rng, kind, asked, asked_opts, bound),
                          "attributes": asked, "options": asked_opts, "price_upper": bound})
    for _ in range(filler):
        kind = rng.choice(kinds)
        products.append(make.product(kind, rng.sample(TYPES[kind][3], 3), make.options_for(kind), make.price_in(kind)))
    return {"about": "generated by envs/webshop/generate.py (seeded); not comparable with the WebShop paper's data",
            "seed": seed, "products": products, "goals": goal_rows}


def check(data: dict) -> None:
    """Every target earns 1.0 with its options; none of its distractors does (with the best options it offers).

    Another goal's product may match too (it is then as good a buy); only the distractors are made not to."""
    products = {row["asin"]: _product_from_bundled(row) for row in data["products"]}
    for number, row in enumerate(data["goals"]):
        goal: Goal = _goal_from_bundled(row, products)
        target = products[goal.asin]
        if reward(goal, target, dict(zip(goal.option_names, goal.options))).total != 1.0:
            raise SystemExit(f"goal {number}: its target earns {reward(goal, target, dict(zip(goal.option_names, goal.options))).line()}")
        for asin in row["distractors"]:
            if reward(goal, products[asin], best_options(goal, products[asin])).total >= 1.0:
                raise SystemExit(f"goal {number}: its distractor {asin} earns 1.0 too")


def best_options(goal: Goal, product: Product) -> dict[str, str]:
    return {n: v for n, v in zip(goal.option_names, goal.options) if v in product.options.get(n, ())}


def filler_catalogue(count: int, seed: int = 11) -> dict:
    make = Maker(seed)
    kinds = list(TYPES)
    rows = []
    for _ in range(count):
        kind = make.rng.choice(kinds)
        rows.append(make.product(kind, make.rng.sample(TYPES[kind][3], 3), make.options_for(kind), make.price_in(kind)))
    return {"products": rows, "goals": []}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--goals", type=int, default=160)
    parser.add_argument("--products", type=int, default=None, help="only N filler products, no goals (benchmarks)")
    parser.add_argument("--out", default=str(BUNDLED))
    args = parser.parse_args(argv)
    if args.products is not None:
        data = filler_catalogue(args.products, args.seed)
    else:
        data = generate(args.seed, args.goals)
        check(data)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    print(f"wrote {args.out}: {len(data['products'])} products, {len(data['goals'])} goals, "
          f"{Path(args.out).stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
