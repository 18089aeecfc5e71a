"""Work for a Textual worker whose coroutine is made only when the worker starts.

`run_worker(self.method(...))` makes the coroutine at once. A worker the app never starts (a key typed as
the console closes starts a step) leaves that coroutine unawaited, and Python then prints "coroutine ...
was never awaited" in the person's terminal after the console is gone. `LazyWork` is an awaitable that makes
it when awaited. (A plain `async def` passed to `run_worker` does the same, but Textual's `WorkType` union
leaves mypy no result type to infer for one.)
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Generator, TypeVar

T = TypeVar("T")


class LazyWork(Awaitable[T]):
    """`make()`'s awaitable, made when this is first awaited."""

    def __init__(self, make: Callable[[], Awaitable[T]]) -> None:
        self._make = make

    def __await__(self) -> Generator[Any, None, T]:
        return self._make().__await__()
