"""The self-pipe that wakes a selectors loop: a signal handler or another thread calls
``wake()``, the loop's ``select()`` returns at once and the loop ``drain()``s it. Used by the
switch process (``main.SwitchProcess``) and the live host (``live.host.LiveHost``)."""

from __future__ import annotations

import socket

__all__ = ["Wakeup"]


class Wakeup:
    """A non-blocking socket pair: register ``reader`` for EVENT_READ; ``writer_fd`` can be
    given to ``signal.set_wakeup_fd``."""

    def __init__(self) -> None:
        self.reader, self._writer = socket.socketpair()
        self.reader.setblocking(False)
        self._writer.setblocking(False)

    @property
    def writer_fd(self) -> int:
        return self._writer.fileno()

    def wake(self) -> None:
        try:
            self._writer.send(b"\0")
        except OSError:             # full (a wake-up is already pending) or closed: enough
            pass

    def drain(self) -> None:
        try:
            while self.reader.recv(4096):
                pass
        except (BlockingIOError, InterruptedError):
            pass

    def close(self) -> None:
        self.reader.close()
        self._writer.close()
