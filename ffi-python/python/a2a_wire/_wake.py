"""The loop's end of a native wake-up socket: a byte arrives when the Rust side queued work
for this event loop (runs, outputs, results); the loop drains the bytes and takes the work."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable


def watch(loop: asyncio.AbstractEventLoop, fd: int, take: Callable[[], None]) -> socket.socket:
    """Owns `fd` and calls `take()` on the loop whenever bytes arrive on it."""
    sock = socket.socket(fileno=fd)
    sock.setblocking(False)

    def ready() -> None:
        try:
            while sock.recv(4096):
                pass
        except BlockingIOError:
            pass
        take()

    loop.add_reader(sock.fileno(), ready)
    return sock


def unwatch(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    """Stops watching and closes the socket."""
    loop.remove_reader(sock.fileno())
    sock.close()
