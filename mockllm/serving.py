"""Serve an HTTP server on a background thread and stop it at once.

Why: `socketserver`'s `serve_forever()` looks for a stop request only between
polls, so `shutdown()` waits up to half a second every time; a test suite starts
dozens of local servers. Here the loop waits for the next connection with no
timeout, and stopping connects once to wake it: no poll, no wait.
"""

from __future__ import annotations

import socket
import threading
from socketserver import TCPServer


class BackgroundServer:
    """`httpd` served on a daemon thread from `start()` until `stop()` (which also closes its socket)."""

    def __init__(self, httpd: TCPServer) -> None:
        self.httpd = httpd
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="http-server", daemon=True)

    def start(self) -> "BackgroundServer":
        self._thread.start()
        return self

    def join(self) -> None:
        """Wait until the server stops (a command that serves until Ctrl-C)."""
        self._thread.join()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._stopping.set()
            if self._woken():
                self._thread.join()
        self.httpd.server_close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            self.httpd.handle_request()

    def _woken(self) -> bool:
        """One connection, so the loop's wait for the next request (`timeout` None: no poll) returns and it
        sees the stop. False when nothing could connect: the daemon thread is then left waiting."""
        host, port = self.httpd.server_address[:2]
        try:
            socket.create_connection((host if isinstance(host, str) else bytes(host).decode(), port)).close()
        except OSError:
            return False
        return True
