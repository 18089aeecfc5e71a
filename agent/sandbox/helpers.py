"""The helpers node code holds (`print`, `run`, `__import__`, the parent's helpers): plain functions that lead nowhere.

A bound method of the worker would hand node code the worker itself
(`print.__self__`), and with it its state, its output and its `send`; a
closure over the worker would do the same (`print.__closure__`). So each
helper is a plain function whose one cell holds the `send` of a generator
(`_serve`): the worker's callback lives in that generator's frame, and a
frame is reachable only through `gi_frame`, which the audit hook refuses
node code. Reaching the generator gives node code what the helper already
does. No helper has `__wrapped__`, `__self__` or mutable defaults that lead
further, and their module's globals hold no worker object.

What may run node code (`str()` of `print`'s arguments or of `run`'s
action) runs in the plain function, before the generator is entered, so a
helper called inside another (a `print` in a `__str__`) still works.
"""

from __future__ import annotations

from types import MappingProxyType, ModuleType
from typing import Any, Callable, Generator, Mapping

Reply = tuple[bool, Any]  # (True, value) or (False, the exception to raise)
Send = Callable[[Any], Reply]


def _serve(handle: Callable[[Any], Any]) -> Generator[Reply, Any, None]:
    """Answers each request sent in with `handle(request)`; an exception comes back as a value.

    The inner loop sits inside `try`, so an interrupt that lands between two
    requests is answered too instead of ending the generator.
    """
    reply: Reply = (True, None)
    while True:
        try:
            while True:
                request = yield reply
                reply = (True, handle(request))
        except GeneratorExit:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed back to the helper, which raises it
            exc.__traceback__ = exc.__context__ = exc.__cause__ = None  # the worker's frames and errors
            reply = (False, exc)


def channel(handle: Callable[[Any], Any]) -> Send:
    """A `send` that calls `handle` from a frame node code cannot read."""
    serving = _serve(handle)
    next(serving)
    return serving.send


def _answer(name: str, send: Send, request: Any) -> Any:
    try:
        ok, value = send(request)
    except (ValueError, StopIteration):  # already answering (called from an inspection), or closed
        raise RuntimeError(f"{name}() can only be called from node code, not while a call waits") from None
    if ok:
        return value
    raise value


def make_print(send: Send) -> Callable[..., None]:
    """`print` for node code: `send(None)` says whether the output is full, `send(text)` writes."""

    def print(*args: Any, sep: Any = " ", end: Any = "\n", **ignored: Any) -> None:  # noqa: A001
        if _answer("print", send, None):
            return  # past the output cap: converting the arguments would only cost time
        sep = " " if sep is None else str(sep)
        end = "\n" if end is None else str(end)
        _answer("print", send, sep.join(str(a) for a in args) + end)

    print.__qualname__ = "print"
    return print


def make_run(send: Send) -> Callable[[Any], str]:
    """`run(action)` for node code: the action as text, answered with the observation."""

    def run(action: Any) -> str:
        return str(_answer("run", send, str(action)))

    run.__qualname__ = "run"
    return run


def make_helper(name: str, send: Send) -> Callable[..., Any]:
    """A parent helper for node code: `send((args, kwargs))`, which the worker takes as plain data only."""

    def helper(*args: Any, **kwargs: Any) -> Any:
        return _answer(name, send, (args, kwargs))

    helper.__name__ = helper.__qualname__ = name
    return helper


def make_import(modules: Mapping[str, ModuleType]) -> Callable[..., ModuleType]:
    """`__import__` for node code: the trimmed modules only, from a read-only copy of the table."""
    table = MappingProxyType(dict(modules))

    def __import__(  # noqa: A001
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> ModuleType:
        if level or name not in table:
            raise ImportError(f"forbidden: import {name}")
        return table[name]

    __import__.__qualname__ = "__import__"
    return __import__
