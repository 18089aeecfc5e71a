"""`recode-tui serve`: the console in a browser, through textual-serve.

Each browser tab starts its own `recode-tui tui ...` process (textual-serve's model). The page is
ours (page.html): it loads only this server's files, so it works offline. Bound to loopback by
default; any other address needs a token, which the page's address carries once (`?token=`) and
a cookie carries after that (the websocket and static files included).
"""

from __future__ import annotations

import hmac
import ipaddress
import shlex
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

from recode_tui.setup.usage import UsageError

COOKIE = "recode_tui_token"
PAGE = Path(__file__).with_name("page.html")


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (`localhost`, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def check_access(host: str, port: int, token: str | None) -> None:
    """Refuse a non-loopback address without a token, saying how the page then presents it."""
    if token is not None and not token.strip():
        raise UsageError("--token is empty: give a secret, e.g. --token \"$(openssl rand -hex 16)\"")
    if not is_loopback(host) and not token:
        raise UsageError(f"--host {host} lets other machines reach the console (and run code in it): add "
                         f"--token SECRET; browsers then open http://<this machine>:{port}/?token=SECRET")


def tui_command(tui_args: list[str]) -> str:
    """The shell command each browser session runs: this Python's `recode-tui tui` with the given arguments."""
    return shlex.join([sys.executable, "-m", "recode_tui", "tui", *tui_args])


def make_server(command: str, host: str, port: int, token: str | None, title: str):
    """A textual-serve server with our page, and the token check when a token is set."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    class ConsoleServer(Server):
        """textual-serve's server with an offline page and an optional token."""

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            if token:
                app.middlewares.append(token_middleware(token))
            return app

        async def handle_index(self, request: web.Request) -> web.Response:
            """The page, its URLs taken from the address the browser used (so any host name works)."""
            scheme = "wss" if request.secure else "ws"
            context: dict[str, Any] = {
                "title": title,
                "static": f"{request.scheme}://{request.host}/static/",
                "websocket": f"{scheme}://{request.host}/ws",
                "font_size": max(6, min(48, _int(request.query.get("fontsize"), 16))),
            }
            return aiohttp_jinja2.render_template(PAGE.name, request, context)

    return ConsoleServer(command, host=host, port=port, title=title, templates_path=PAGE.parent)


def token_middleware(token: str) -> Callable:
    """Every request presents the token: `?token=` (the page's address) or the cookie set from it."""
    from aiohttp import web

    @web.middleware
    async def check(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise web.HTTPForbidden(text="recode-tui serve: open this page as /?token=SECRET (the --token given "
                                         "to `recode-tui serve`)\n")
        response = await handler(request)
        if request.query.get("token"):
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
        return response

    return check


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def run_serve(args, unknown_tui_args: Callable[[list[str]], list[str]]) -> int:
    """Check the arguments (`unknown_tui_args`: those `tui` would refuse), then serve until Ctrl-C."""
    try:
        import textual_serve  # noqa: F401  (the optional extra)
    except ImportError:
        raise UsageError("serve needs the web extra: pip install 'recode-tui[web]'") from None
    check_access(args.host, args.port, args.token)
    tui_args = list(args.tui_args)
    if tui_args[:1] == ["--"]:
        tui_args = tui_args[1:]
    unknown = unknown_tui_args(tui_args)  # refused here, not in the browser
    if unknown:
        raise UsageError(f"not an argument of the console: {shlex.join(unknown)} (see `recode-tui tui --help`; "
                         "serve's own options go before --)")
    where = f"http://{args.host}:{args.port}/" + (f"?token={args.token}" if args.token else "")
    print(f"recode-tui: the console is served at {where} (Ctrl-C stops)", file=sys.stderr, flush=True)
    server = make_server(tui_command(tui_args), args.host, args.port, args.token, "recode-tui")
    server.serve()
    return 0
