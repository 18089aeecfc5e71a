"""WebShop speed: a step on the bundled catalogue, and a search on a generated 100,000-product catalogue.

    python benchmarks/bench_webshop.py [--products 100000]

Targets (issue 27): a step under 20 ms on the bundled catalogue; a search under
100 ms on 100,000 products, with the index built once and loaded from the disk
cache afterwards. Prints PASS/MISS per target; exits 1 on a miss.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STEP_MS, SEARCH_MS = 20.0, 100.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", type=int, default=100_000)
    args = parser.parse_args(argv)
    os.environ.setdefault("RECODE_TUI_CACHE", tempfile.mkdtemp(prefix="bench-webshop-"))
    os.environ.pop("WEBSHOP_DATA", None)
    from envs import registry
    from envs.webshop.generate import filler_catalogue
    from envs.webshop.search import SearchIndex

    ok = True
    env = registry.make_env("webshop:0")
    env.reset()
    started = time.perf_counter()
    env.step("search[warm up]")  # the process's first search pays bm25s's one-time set-up
    first = (time.perf_counter() - started) * 1000
    times = []
    for number in range(40):  # gold paths, replayed: search, pages, item, options, buy
        actions = registry.gold_actions(f"webshop:{number}")
        env = registry.make_env(f"webshop:{number}")
        env.reset()
        for action in actions:
            started = time.perf_counter()
            env.step(action)
            times.append((time.perf_counter() - started) * 1000)
    step = statistics.median(times)
    worst = max(times)
    verdict = "PASS" if worst < STEP_MS else "MISS"
    ok &= verdict == "PASS"
    print(f"{verdict} step (bundled): median {step:.2f} ms, max {worst:.2f} ms over {len(times)} steps "
          f"(target < {STEP_MS:g} ms); a process's first search {first:.0f} ms")

    texts = [" ".join([p["title"], " ".join(p["attributes"]), p["description"]])
             for p in filler_catalogue(args.products)["products"]]
    started = time.perf_counter()
    SearchIndex.build(texts, key="bench")
    built = time.perf_counter() - started
    started = time.perf_counter()
    index = SearchIndex.build(texts, key="bench")
    loaded = time.perf_counter() - started
    assert index.loaded_from_cache
    queries = ["noise cancelling headphones black", "sulfate free shampoo for dry hair", "solid wood bookshelf 5 tier",
               "gluten free granola honey almond", "slim fit stretch denim jeans", "dimmable table lamp usb charging port"]
    search_times = []
    for _ in range(5):
        for query in queries:
            started = time.perf_counter()
            index.search(query)
            search_times.append((time.perf_counter() - started) * 1000)
    worst = max(search_times)
    verdict = "PASS" if worst < SEARCH_MS else "MISS"
    ok &= verdict == "PASS"
    print(f"{verdict} search ({args.products:,} products): median {statistics.median(search_times):.1f} ms, "
          f"max {worst:.1f} ms (target < {SEARCH_MS:g} ms); index built in {built:.1f} s, loaded from cache in "
          f"{loaded:.2f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
