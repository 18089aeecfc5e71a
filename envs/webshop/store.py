"""The original data's products kept on disk: its JSON files read once, a later start opens them in a moment.

The store is one SQLite file (the standard library's `sqlite3`): written to a scratch file and
renamed, so a reader never opens half a store; products looked up by asin through its index instead
of held in memory; read through the operating system's page cache, so `eval -c 2`'s workers share
one copy (SQLite's own cache is a few MB a process). It is kept beside the search index, under a key made of the
source files' paths, sizes, modification times and a hash of their first and last megabyte.

It holds what the files say before any draw: each product's record, its attributes
(`items_ins_v2*.json`), its price range, and the goals in file order without their price limits.
Opening it replays the seeded draws (range prices product by product, then limits goal by goal) and
the original's shuffle (`original.py`), so the goals and prices are those of reading the files.
The files are read with `ijson` (a streaming parser): the first start holds one product at a time,
not the 1.18 million products of the original's file.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from envs.base import EnvError
from envs.webshop.fields import price_limit, read_options, read_pricing, text_of as _text
from envs.webshop.model import DATA_VAR, Goal, Product, ProductTable

FORMAT = "webshop-store-1"  # in the key: a new layout is written anew, never misread
_BATCH = 20_000
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE products (pos INTEGER PRIMARY KEY, asin TEXT NOT NULL, record TEXT NOT NULL, range_no INTEGER);
CREATE TABLE attributes (asin TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE ranges (no INTEGER PRIMARY KEY, low REAL NOT NULL, high REAL NOT NULL);
CREATE TABLE goals (no INTEGER PRIMARY KEY, asin TEXT NOT NULL, price REAL NOT NULL, range_no INTEGER,
                    record TEXT NOT NULL);
"""


def store_key(files: Iterable[Path]) -> str:
    """The source files as they are now: a file changed, replaced or moved gives another key."""
    digest = hashlib.sha256(FORMAT.encode())
    for path in files:
        stat = path.stat()
        digest.update(f"{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        with open(path, "rb") as handle:
            digest.update(handle.read(1 << 20))
            handle.seek(max(0, stat.st_size - (1 << 20)))
            digest.update(handle.read(1 << 20))
    return digest.hexdigest()[:24]


def _stream(path: Path, opening: bytes, prefix: str, pairs: bool = False) -> Iterator:
    """The elements of the top-level list (or the key-value pairs of the top-level object) of a JSON file."""
    import ijson  # only a first start parses the files: a later one never loads the parser

    with open(path, "rb") as handle:
        head = handle.read(4096).lstrip()
        if not head.startswith(opening):
            shape = "a list of products" if opening == b"[" else "an object by asin"
            raise EnvError(f"{DATA_VAR}: {path.name} must be {shape}")
        handle.seek(0)
        try:
            yield from (ijson.kvitems(handle, prefix, use_float=True) if pairs
                        else ijson.items(handle, prefix, use_float=True))
        except ijson.JSONError as exc:
            raise EnvError(f"{DATA_VAR}: cannot read {path}: {exc}") from None


def _batched(conn: sqlite3.Connection, sql: str, rows: Iterable[tuple]) -> None:
    batch: list[tuple] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= _BATCH:
            conn.executemany(sql, batch)
            batch.clear()
    conn.executemany(sql, batch)


def _write_attributes(conn: sqlite3.Connection, path: Path) -> None:
    # a repeated asin: the later entry wins, as json.load keeps the later key
    for asin, known in _stream(path, b"{", "", pairs=True):
        if isinstance(known, dict) and "attributes" in known:
            conn.execute("INSERT OR REPLACE INTO attributes VALUES (?, ?)", (asin, json.dumps(list(known["attributes"]))))
        else:
            conn.execute("DELETE FROM attributes WHERE asin = ?", (asin,))


def _product_rows(items: Path, human: dict, goal_rows: list[tuple], ranges: list[tuple]) -> Iterator[tuple]:
    seen: set[str] = set()
    for row in _stream(items, b"[", "item"):
        asin = _text(row.get("asin")) if isinstance(row, dict) else "nan"
        if asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        pricing, tag = read_pricing(row.get("pricing"))
        bullets = row.get("small_description")
        bullets = bullets if isinstance(bullets, list) else [bullets]
        range_no = None
        if len(pricing) > 1:
            range_no = len(ranges)
            ranges.append((range_no, pricing[0], pricing[1]))
        title, category = _text(row.get("name")), _text(row.get("category"))
        query, path = _text(row.get("query")).lower().strip(), _text(row.get("product_category"))
        for entry in human.get(asin) or ():
            attributes = list(entry.get("instruction_attributes") or ())
            if attributes:
                goal = [_text(entry.get("instruction")).strip("."), attributes,
                        [_text(v) for v in entry.get("instruction_options") or ()], category, query, title, path]
                goal_rows.append((len(goal_rows), asin, pricing[0], range_no, json.dumps(goal)))
        record = [title, category, path, query, read_options(row.get("customization_options")),
                  _text(row.get("full_description")), [_text(b) for b in bullets], tag, list(pricing)]
        yield len(seen) - 1, asin, json.dumps(record), range_no


@contextmanager
def building(target: Path) -> Iterator[None]:
    """Held while one process builds the store at `target`: another one waits for it instead of building too."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released by the kernel if the builder dies
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_store(target: Path, items: Path, attrs: Path | None, human: dict, digest_of_count) -> None:
    """Read the original's files into a new store at `target` (written beside it, then renamed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=target.parent, suffix=".building")
    os.close(handle)
    try:
        conn = sqlite3.connect(scratch)
        conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
        goal_rows: list[tuple] = []
        ranges: list[tuple] = []
        _batched(conn, "INSERT INTO products VALUES (?, ?, ?, ?)", _product_rows(items, human, goal_rows, ranges))
        conn.execute("CREATE UNIQUE INDEX products_asin ON products (asin)")
        conn.executemany("INSERT INTO ranges VALUES (?, ?, ?)", ranges)
        conn.executemany("INSERT INTO goals VALUES (?, ?, ?, ?, ?)", goal_rows)
        if attrs is not None:
            _write_attributes(conn, attrs)
        count = conn.execute("SELECT count(*) FROM products").fetchone()[0]
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [("count", str(count)), ("digest", digest_of_count(count))])
        conn.commit()
        conn.close()
        os.replace(scratch, target)
    finally:
        if os.path.exists(scratch):
            os.unlink(scratch)


class StoredProducts(ProductTable):
    """The store's products by asin, in file order; each read from disk when asked for (the latest few kept)."""

    def __init__(self, conn: sqlite3.Connection, count: int, draws: list[float]) -> None:
        self._conn = conn
        self._count = count
        self._draws = draws
        self._lock = threading.Lock()  # one connection, shared by the threads of a process
        self._product = lru_cache(maxsize=4096)(self._read)

    def _rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    def _decode(self, asin: str, record: str, range_no: int | None, attributes: str | None) -> Product:
        title, category, path, query, options, description, features, tag, pricing = json.loads(record)
        return Product(
            asin=asin, title=title, price=pricing[0] if range_no is None else self._draws[range_no], category=category,
            product_category=path, query=query,
            attributes=tuple(json.loads(attributes)) if attributes is not None else ("DUMMY_ATTR",),
            options={name: tuple(values) for name, values in options.items()}, description=description,
            features=tuple(features), price_tag=tag, pricing=tuple(pricing))

    def _read(self, asin: str) -> Product:
        rows = self._rows("SELECT p.record, p.range_no, a.value FROM products p LEFT JOIN attributes a "
                          "ON a.asin = p.asin WHERE p.asin = ?", (asin,))
        if not rows:
            raise KeyError(asin)
        return self._decode(asin, *rows[0])

    def __getitem__(self, asin: str) -> Product:
        if not isinstance(asin, str):
            raise KeyError(asin)
        return self._product(asin)

    def __contains__(self, asin: object) -> bool:
        return isinstance(asin, str) and bool(self._rows("SELECT 1 FROM products WHERE asin = ?", (asin,)))

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        for start in range(0, self._count, _BATCH):
            yield from (asin for (asin,) in self._rows(
                "SELECT asin FROM products WHERE pos >= ? AND pos < ? ORDER BY pos", (start, start + _BATCH)))

    def in_order(self) -> Iterator[Product]:
        """Every product in file order (what the search index is built from), read a batch at a time."""
        for start in range(0, self._count, _BATCH):
            rows = self._rows("SELECT p.asin, p.record, p.range_no, a.value FROM products p LEFT JOIN attributes a "
                              "ON a.asin = p.asin WHERE p.pos >= ? AND p.pos < ? ORDER BY p.pos", (start, start + _BATCH))
            yield from (self._decode(*row) for row in rows)

    def asins_at(self, positions: list[int]) -> list[str]:
        """The asins at these places of the file order, in the order given."""
        if not positions:
            return []
        marks = ",".join("?" * len(positions))
        found = dict(self._rows(f"SELECT pos, asin FROM products WHERE pos IN ({marks})", tuple(positions)))
        return [found[p] for p in positions]


def open_store(path: Path, seed: int, shuffle_seed: int) -> tuple[StoredProducts, list[Goal], str]:
    """The store's products, its goals (price limits drawn with `seed`, shuffled as the original) and digest."""
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    rng = random.Random(seed)
    draws = [rng.uniform(low, high) for low, high in conn.execute("SELECT low, high FROM ranges ORDER BY no")]
    goals: list[Goal] = []
    for asin, price, range_no, record in conn.execute("SELECT asin, price, range_no, record FROM goals ORDER BY no"):
        text, attributes, options, category, query, title, product_category = json.loads(record)
        limit = price_limit(price if range_no is None else draws[range_no], rng)
        clause = f", and price lower than {limit:.2f} dollars" if limit is not None else ""
        goals.append(Goal(asin, text + clause, tuple(attributes), tuple(options), limit, category, query, title,
                          product_category))
    random.Random(shuffle_seed).shuffle(goals)
    return StoredProducts(conn, int(meta["count"]), draws), goals, meta["digest"]
