"""`recode-tui serve`: the console in a browser, through textual-serve.

Each browser tab starts its own `recode-tui tui ...` process (textual-serve's model), at most
`--max-consoles` at once. The page is ours (page.html): it loads only this server's files, so it
works offline. Every request, the websocket included, must name this server in `Host` and, from a
browser, come from one of its own pages (`access`); and it must carry the token, which the page's
address carries once (`?token=`) and a cookie after that. A token is made up at each start unless
`--token` gives one; only on loopback may `--no-token` leave it out.
"""

from __future__ import annotations

import hmac
import secrets
import shlex
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

from recode_tui.setup.usage import UsageError
from recode_tui.web.access import host_allowed, is_loopback, origin_allowed, served_hosts, shown_url

COOKIE = "recode_tui_token"
PAGE = Path(__file__).with_name("page.html")
MAX_CONSOLES = 4

__all__ = ["check_access", "make_server", "run_serve", "tui_command"]


def check_access(host: str, port: int, token: str | None, no_token: bool = False) -> str | None:
    """The token the server asks for (on loopback one is made up when none is given), or None for
    `--no-token` (loopback only). A non-loopback address without --token is refused, saying how the
    page then presents it."""
    if token is not None and not token.strip():
        raise UsageError("--token is empty: give a secret, e.g. --token \"$(openssl rand -hex 16)\"")
    if no_token and token:
        raise UsageError("--no-token and --token together: give one of them")
    if not is_loopback(host) and not token:
        raise UsageError(f"--host {host} lets other machines reach the console (and run code in it): add "
                         f"--token SECRET; browsers then open http://<this machine>:{port}/?token=SECRET")
    if no_token:
        return None
    return token or secrets.token_urlsafe(18)


def tui_command(tui_args: list[str]) -> str:
    """The shell command each browser session runs: this Python's `recode-tui tui` with the given arguments."""
    return shlex.join([sys.executable, "-m", "recode_tui", "tui", *tui_args])


def make_server(command: str, host: str, port: int, token: str | None, title: str,
                max_consoles: int = MAX_CONSOLES, allow_hosts: tuple[str, ...] = (), public_url: str | None = None):
    """A textual-serve server with our page, the Host/Origin check, the token check (when a token is
    set) and at most `max_consoles` consoles at once."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    consoles = {"open": 0}

    def full() -> bool:
        return consoles["open"] >= max_consoles

    class ConsoleServer(Server):
        """textual-serve's server with an offline page, the access checks and a cap on consoles."""

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(same_site_middleware(served_hosts(host), allow_hosts))
            if token:
                app.middlewares.append(token_middleware(token))
            return app

        async def handle_index(self, request: web.Request) -> web.Response:
            """The page, its URLs taken from the address the browser used (checked: one of this server's)."""
            if full():
                raise refusal(max_consoles)
            scheme = "wss" if request.secure else "ws"
            context: dict[str, Any] = {
                "title": title,
                "static": f"{request.scheme}://{request.host}/static/",
                "websocket": f"{scheme}://{request.host}/ws",
                "font_size": max(6, min(48, _int(request.query.get("fontsize"), 16))),
            }
            return aiohttp_jinja2.render_template(PAGE.name, request, context)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """A console for this page, unless `max_consoles` are open already."""
            if full():
                raise refusal(max_consoles)
            consoles["open"] += 1
            try:
                return await super().handle_websocket(request)
            finally:
                consoles["open"] -= 1

        async def on_startup(self, app: web.Application) -> None:
            """Quiet: `run_serve` has printed the address to open."""

    return ConsoleServer(command, host=host, port=port, title=title, templates_path=PAGE.parent,
                         public_url=public_url)


def refusal(max_consoles: int) -> Exception:
    """The page (503) a browser gets when the server runs as many consoles as it may."""
    from aiohttp import web

    return web.HTTPServiceUnavailable(text=f"recode-tui serve: {max_consoles} console(s) are open, the most this "
                                           "server runs at once (--max-consoles); close one and reload, or restart "
                                           "serve with a larger --max-consoles\n")


def _local_port(request: Any) -> int:
    """The port this request came in on (the bound one, also when the server was asked for port 0)."""
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    return int(sockname[1]) if sockname else 0


def same_site_middleware(hosts: set[str], extra: tuple[str, ...] = ()) -> Callable:
    """Every request names this server in `Host` and, from a browser, comes from one of its pages."""
    from aiohttp import web

    @web.middleware
    async def check(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
        given = request.headers.get("Host")
        if not host_allowed(given, hosts, _local_port(request), extra):
            raise web.HTTPForbidden(text=f"recode-tui serve: this server does not answer to the name {given!r}; "
                                         "open it by the address `recode-tui serve` printed (or add "
                                         "--allow-host NAME)\n")
        if not origin_allowed(request.headers.get("Origin"), given):
            raise web.HTTPForbidden(text="recode-tui serve: only this server's own pages may use it "
                                         f"(Origin {request.headers.get('Origin')!r})\n")
        return await handler(request)

    return check


def token_middleware(token: str) -> Callable:
    """Every request presents the token: `?token=` (the page's address) or the cookie set from it.

    The cookie's name carries the port: a host's cookies go to all its ports (another server's too)."""
    from aiohttp import web

    @web.middleware
    async def check(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]):
        cookie = f"{COOKIE}_{_local_port(request)}"
        given = request.query.get("token") or request.cookies.get(cookie) or ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            raise web.HTTPForbidden(text="recode-tui serve: open this page by the address `recode-tui serve` "
                                         "printed (/?token=SECRET)\n")
        response = await handler(request)
        if request.query.get("token") and not response.prepared:
            response.set_cookie(cookie, token, httponly=True, samesite="Strict")
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
    token = check_access(args.host, args.port, args.token, args.no_token)
    if args.max_consoles < 1:
        raise UsageError("--max-consoles must be 1 or more (the consoles this server runs at once)")
    tui_args = list(args.tui_args)
    if tui_args[:1] == ["--"]:
        tui_args = tui_args[1:]
    unknown = unknown_tui_args(tui_args)  # refused here, not in the browser
    if unknown:
        raise UsageError(f"not an argument of the console: {shlex.join(unknown)} (see `recode-tui tui --help`; "
                         "serve's own options go before --)")
    where = shown_url(args.host, args.port, token)
    print(f"recode-tui: the console is served at {where} (Ctrl-C stops)", file=sys.stderr, flush=True)
    server = make_server(tui_command(tui_args), args.host, args.port, token, "recode-tui", args.max_consoles,
                         tuple(args.allow_host or ()), public_url=shown_url(args.host, args.port, None))
    server.serve()
    return 0
