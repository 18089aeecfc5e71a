"""Who may use `recode-tui serve`: the addresses it answers to, the pages that may drive it, the token.

The console runs code, so a browser must not reach it from another site. Any page
may send a request to 127.0.0.1 (and a websocket opens cross-site, cookies and
all), and DNS rebinding makes a foreign name resolve to this machine; so every
request, the websocket included, must name this server in `Host` (the addresses
it was bound to, loopback names for a loopback bind) and, when a browser sends
`Origin`, come from a page of this same server. The token is the second wall.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (`localhost`, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def _bracketed(host: str) -> str:
    """An IPv6 address as a URL writes it (`[::1]`); anything else as given."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def machine_names() -> list[str]:
    """The names and addresses others can use to reach this machine: its outward address first."""
    names: list[str] = []
    try:  # the address of the interface that leads out (a UDP "connect" sends nothing)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            names.append(probe.getsockname()[0])
    except OSError:
        pass
    hostname = socket.gethostname()
    names += [hostname, socket.getfqdn()]
    try:
        names += [str(info[4][0]) for info in socket.getaddrinfo(hostname, None)]
    except OSError:
        pass
    seen: list[str] = []
    for name in names:
        if name and name not in seen and not is_loopback(name):
            seen.append(name.lower())
    return seen


def served_hosts(bind: str) -> set[str]:
    """The host names (without port) `Host` may carry, with the server's port, for a server bound to `bind`."""
    hosts: set[str] = set()
    if bind in WILDCARDS:
        hosts |= set(LOOPBACK_NAMES) | {_bracketed(name) for name in machine_names()}
    elif is_loopback(bind):
        hosts |= set(LOOPBACK_NAMES) | {_bracketed(bind).lower()}
    else:
        hosts.add(_bracketed(bind).lower())
    return hosts


def host_allowed(host_header: str | None, hosts: set[str], port: int, extra: tuple[str, ...] = ()) -> bool:
    """`Host` names one of `hosts` with this server's port (a browser leaves out :80), or is one of
    `extra` exactly as given (`--allow-host`: a name, with a port when the address has one)."""
    if not host_header:
        return False
    value = host_header.strip().lower()
    if value in {name.strip().lower() for name in extra} or value in {f"{host}:{port}" for host in hosts}:
        return True
    return port == 80 and value in hosts


def origin_allowed(origin: str | None, host_header: str | None) -> bool:
    """No `Origin` (not a browser's cross-site request), or a page of this very server."""
    if origin is None:
        return True
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or not host_header:
        return False  # `null` (a sandboxed frame, a file) and anything else is another site
    return parts.netloc.lower() == host_header.strip().lower()


def shown_url(bind: str, port: int, token: str | None) -> str:
    """The address to print: one others can open for a wildcard bind (never `http://0.0.0.0:PORT`)."""
    if bind in WILDCARDS:
        names = machine_names()
        host = names[0] if names else "127.0.0.1"
    else:
        host = bind
    return f"http://{_bracketed(host)}:{port}/" + (f"?token={token}" if token else "")
