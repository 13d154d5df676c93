"""A TCP relay in front of a real PostgreSQL, on loopback, that can be told to hang (issue 35).

``forward``: bytes pass both ways. ``hang()``: from now on nothing more
reaches either side, yet every socket stays open and new connections are
accepted and left unanswered: what a stuck server, a saturated pooler or a
silent network path looks like to the app (the relay's kernel still
acknowledges every packet). ``hang(after=n)`` lets ``n`` more bytes of the
server's answers through first: a server that stops mid-result.

Threads, not asyncio: the tests that use it are synchronous. Every thread is
a daemon and ``close()`` closes every socket, so a test never waits on it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Self


class Relay:
    def __init__(self, target: tuple[str, int] | str = ("127.0.0.1", 5432)) -> None:
        self.target = target  # (host, port), or the path of a Unix socket
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self._lock = threading.Lock()
        self._hung = threading.Event()
        self._budget = 0  # bytes of the server's answers still let through once hung
        self._sockets: list[socket.socket] = [self.listener]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="relay-accept").start()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def hang(self, after: int = 0) -> None:
        with self._lock:
            self._budget = after
            self._hung.set()

    def forward(self) -> None:
        self._hung.clear()

    def close(self) -> None:
        self._closed = True
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            with contextlib.suppress(OSError):  # already closed by the other side
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self._sockets.append(client)
            if self._hung.is_set():
                continue  # accepted, never answered
            try:
                if isinstance(self.target, str):
                    server = socket.socket(socket.AF_UNIX)
                    server.settimeout(5)
                    server.connect(self.target)
                else:
                    server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._sockets.append(server)
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_server: bool) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            if self._hung.is_set():
                with self._lock:
                    allowed = self._budget if from_server else 0
                    data = data[:allowed]
                    if from_server:
                        self._budget -= len(data)
                if not data:
                    continue  # swallowed: the other side hears nothing, the socket stays open
            try:
                sink.sendall(data)
            except OSError:
                return
