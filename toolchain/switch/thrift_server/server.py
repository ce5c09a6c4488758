"""The Thrift server of the switch process: BMv2's wire format, served from the switch's loop.

simple_switch runs a ``TThreadedServer`` with buffered (unframed) transports and the binary
protocol (behavioral-model ``src/bm_runtime/server.cpp``). This server speaks the same bytes
but runs no thread: the switch's ``selectors`` loop registers the listener and each client
socket, and calls ``on_readable`` / ``flush``. A call runs in the loop, between packets, so
the control plane needs no lock and a change applies to every packet that arrives after it.

Unframed messages carry no length, so a client's bytes are scanned as they arrive until they
hold one complete message (``framing.MessageScanner``: linear in the message, whatever the
reads it comes in); only then does the processor run, on exactly those bytes. A client that
sends bytes that are not a Thrift message (no version header, a bad type) or a message past
the limits (``framing.LIMITS``: its bytes, a string's, its elements and fields, its nesting) is
logged and disconnected before anything is built from it; one that disconnects mid-call only
loses its own call. Neither stops the switch. A client that does not read its answers is not
read either once ``OUT_HIGH_WATER`` bytes of them wait, so its answers cannot fill memory.

Out of file descriptors (EMFILE, ENFILE: as many clients as ``ulimit -n`` allows), a
connection waiting to be accepted keeps the listener readable: the server then stops
watching the listener for a while (``BACKOFF_FIRST`` doubling up to ``BACKOFF_MAX`` seconds),
logs the episode once when it starts and once when it ends, and meanwhile closes every client
that has sent nothing for ``idle_timeout`` seconds (and every one whose call has taken longer
than that to arrive), so that waiting clients get their turn. Outside such an episode no
client is closed for being idle, as simple_switch closes none (a live run's controller keeps
one connection for the whole run). The loop forwards frames throughout.
"""

from __future__ import annotations

import errno
import logging
import socket
import time
from typing import Callable

from .framing import LIMITS, FrameError, FrameLimits, MessageScanner
from .modules import thrift_modules

__all__ = ["ThriftServer", "ThriftServerError", "OUT_HIGH_WATER", "DEFAULT_IDLE_TIMEOUT"]

log = logging.getLogger("rdtcp-switch.thrift")

OUT_HIGH_WATER = 4 << 20     # answers waiting for a client before its calls wait too
_RECV = 1 << 18
DEFAULT_IDLE_TIMEOUT = 30.0  # seconds; applied only while connections cannot be accepted
BACKOFF_FIRST = 0.05         # seconds without accepting after accept() first fails
BACKOFF_MAX = 1.0
# accept() failures that mean "no room for one more connection now"
_NO_ROOM = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


class ThriftServerError(Exception):
    """The Thrift port cannot be opened (in use, bad number, loopback down)."""


class _Client:
    def __init__(self, sock: socket.socket, peer, limits: FrameLimits, now: float):
        self.sock = sock
        self.peer = peer
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.scanner = MessageScanner(limits)
        self.last_active = now          # last bytes received or sent
        self.call_started: float | None = None    # first bytes of the call under way

    def idle_since(self) -> float:
        """Since when the client has held a descriptor for nothing: its last activity, or
        the start of a call that is still arriving."""
        if self.inbuf and self.call_started is not None:
            return self.call_started
        return self.last_active


class ThriftServer:
    """Serves ``processor`` (a TMultiplexedProcessor) to clients on ``host:port``.

    The owner registers ``listener`` and every accepted socket in its selector, calls
    ``accept()`` when the listener is readable, ``on_readable(fd)`` / ``flush(fd)`` for a
    client, and asks ``wants_write(fd)`` whether to wait for writability.
    """

    def __init__(self, port: int, processor, host: str = "127.0.0.1", *,
                 limits: FrameLimits = LIMITS, idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic):
        if not 0 <= port <= 65535:
            raise ThriftServerError(f"--thrift-port {port}: not a TCP port number (0..65535)")
        m = thrift_modules()
        self._protocol = m.TBinaryProtocol.TBinaryProtocol
        self._memory = m.TTransport.TMemoryBuffer
        if not 0 < idle_timeout < float("inf"):
            raise ThriftServerError(f"idle timeout {idle_timeout!r}: expected seconds > 0")
        self.limits = limits
        self.idle_timeout = idle_timeout
        self._clock = clock
        self.processor = processor
        self.clients: dict[int, _Client] = {}
        self.calls = 0                  # calls served
        self.refused = 0                # clients dropped for sending what is not Thrift
        self.idle_closed = 0            # clients closed for being idle while out of descriptors
        self.listening = True           # False while accept() backs off
        self._resume_at = 0.0
        self._backoff = BACKOFF_FIRST
        self._episode: list | None = None     # [start, failed accepts, idle clients closed]
        self.listener = self._listen(host, port)
        self.host, self.port = self.listener.getsockname()[:2]

    # -- the listening socket ---------------------------------------------------------------------
    def _listen(self, host: str, port: int) -> socket.socket:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            s.listen(16)
            self._probe(s)
        except OSError as e:
            s.close()
            if e.errno == errno.EADDRINUSE:
                raise ThriftServerError(f"Thrift port {host}:{port} is already in use (another "
                                        "switch? choose one with --thrift-port)") from None
            raise ThriftServerError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
        except ThriftServerError:
            s.close()
            raise
        s.setblocking(False)
        return s

    @staticmethod
    def _probe(s: socket.socket) -> None:
        """Connect to ourselves once: in a fresh network namespace the loopback interface is
        down, and binding succeeds while no client can ever connect (ENETUNREACH)."""
        host, port = s.getsockname()[:2]
        try:
            with socket.create_connection((host, port), timeout=2.0):
                pass
        except OSError as e:
            raise ThriftServerError(f"Thrift port {host}:{port} is not reachable: "
                                    f"{e.strerror or e} (loopback down in this network "
                                    "namespace? ip link set lo up)") from None
        s.settimeout(2.0)
        try:
            s.accept()[0].close()
        except OSError:
            pass

    def accept(self) -> socket.socket | None:
        """The next waiting connection, or None. When there is no room for it (out of
        descriptors), the server backs off: ``listening`` turns False until ``poll`` finds
        the back-off over, and the owner stops watching the listener meanwhile."""
        now = self._clock()
        try:
            sock, peer = self.listener.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return None
        except OSError as e:      # EMFILE and friends: keep serving the others
            self._no_room(e, now)
            return None
        if self._episode is not None:
            self._end_episode(now, "a connection was accepted")
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.clients[sock.fileno()] = _Client(sock, peer, self.limits, now)
        log.info("thrift: client %s:%d connected", *peer[:2])
        return sock

    def _no_room(self, e: OSError, now: float) -> None:
        if self._episode is None:
            self._episode = [now, 0, 0]
            self._backoff = BACKOFF_FIRST
            why = e.strerror or str(e)
            if e.errno not in _NO_ROOM:
                why += " (not a lack of descriptors, backing off all the same)"
            log.warning("thrift: cannot accept connections: %s, %d clients connected; "
                        "trying again after back-offs of up to %g s, closing clients idle "
                        "for over %g s meanwhile", why, len(self.clients), BACKOFF_MAX,
                        self.idle_timeout)
        else:
            self._backoff = min(2 * self._backoff, BACKOFF_MAX)
        self._episode[1] += 1
        self.listening = False
        self._resume_at = now + self._backoff

    def _end_episode(self, now: float, how: str) -> None:
        start, failures, closed = self._episode
        self._episode = None
        self._backoff = BACKOFF_FIRST
        log.warning("thrift: accepting connections again after %.1f s (%s; %d accepts "
                    "failed, %d idle clients closed)", now - start, how, failures, closed)

    def poll(self) -> list[int]:
        """Once per turn of the owner's loop: listen again once the back-off is over; while
        connections cannot be accepted, the clients to close for being idle (the owner stops
        watching each, then calls ``drop``)."""
        if self._episode is None:
            return []
        now = self._clock()
        if not self.listening:
            if now < self._resume_at:
                return self._idle(now)
            self.listening = True
            self._resume_at = now + self._backoff
        elif now >= self._resume_at:        # listened a whole back-off with no failure
            self._end_episode(now, "none refused since")
            return []
        return self._idle(now)

    def _idle(self, now: float) -> list[int]:
        idle = [fd for fd, c in self.clients.items()
                if now - c.idle_since() >= self.idle_timeout]
        if idle:
            self._episode[2] += len(idle)
            self.idle_closed += len(idle)
            log.info("thrift: closing %d clients idle for over %g s", len(idle),
                     self.idle_timeout)
        return idle

    def next_deadline(self) -> float | None:
        """When ``poll`` has work next (the clock's time), or None: none outside an episode."""
        if self._episode is None:
            return None
        times = [self._resume_at]
        times += [c.idle_since() + self.idle_timeout for c in self.clients.values()]
        return min(times)

    def now(self) -> float:
        return self._clock()

    # -- messages ---------------------------------------------------------------------------------
    def _proto(self, trans):
        # strict: a message without BMv2's version header (every Thrift client sends one) is
        # refused at its first four bytes instead of being read as a name length; the limits
        # are the scanner's, which has checked the message before the processor reads it
        return self._protocol(trans, strictRead=True, string_length_limit=self.limits.string,
                              container_length_limit=self.limits.items)

    def call(self, message: bytes) -> bytes:
        """Run one complete message through the processor; the reply's bytes."""
        out = self._memory()
        self.processor.process(self._proto(self._memory(message)), self._proto(out))
        self.calls += 1
        return out.getvalue()

    def on_readable(self, fd: int) -> bool:
        """Read from client ``fd`` and serve its complete calls; False when it is gone."""
        c = self.clients[fd]
        try:
            data = c.sock.recv(_RECV)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            data = b""
        if not data:                    # it went away, maybe mid-message: drop its bytes
            self.drop(fd)
            return False
        c.last_active = now = self._clock()
        if not c.inbuf:
            c.call_started = now
        c.inbuf += data
        return self._serve_or_drop(fd, c) and self.flush(fd)

    def _serve_or_drop(self, fd: int, c: _Client) -> bool:
        try:
            self._serve(c)
        except FrameError as e:
            # BMv2's server (TConnectedClient) logs the exception and closes the connection
            self.refused += 1
            log.warning("thrift: client %s:%d sent what is not a Thrift call this switch "
                        "reads (%s); disconnected", *c.peer[:2], e)
            self.drop(fd)
            return False
        except Exception as e:  # noqa: BLE001 -- whatever a client sends, the switch goes on
            self.refused += 1
            log.warning("thrift: client %s:%d sent what is not a Thrift call (%s: %s); "
                        "disconnected", *c.peer[:2], type(e).__name__, e)
            self.drop(fd)
            return False
        return True

    def _serve(self, c: _Client) -> None:
        """Every complete call in the client's buffer, while its unread answers stay under
        OUT_HIGH_WATER; the rest waits for ``flush``."""
        while c.inbuf and len(c.outbuf) < OUT_HIGH_WATER:
            n = c.scanner.feed(c.inbuf)
            if n is None:
                return
            if n == len(c.inbuf):
                message = bytes(c.inbuf)
                c.inbuf.clear()
            else:
                message = bytes(memoryview(c.inbuf)[:n])
                del c.inbuf[:n]
            c.scanner.reset()
            c.call_started = c.last_active if c.inbuf else None
            c.outbuf += self.call(message)

    def wants_write(self, fd: int) -> bool:
        return bool(self.clients[fd].outbuf)

    def wants_read(self, fd: int) -> bool:
        """False while the client's answers wait unread (it is not read until they leave)."""
        return len(self.clients[fd].outbuf) < OUT_HIGH_WATER

    def flush(self, fd: int) -> bool:
        """Send what waits for client ``fd``; once all of it is gone, serve the calls held
        back meanwhile. False when the client is gone."""
        c = self.clients[fd]
        while True:
            while c.outbuf:
                try:
                    n = c.sock.send(c.outbuf)
                except (BlockingIOError, InterruptedError):
                    return True
                except OSError:
                    self.drop(fd)
                    return False
                del c.outbuf[:n]
                c.last_active = self._clock()
            if not c.inbuf:
                return True
            if not self._serve_or_drop(fd, c):
                return False
            if not c.outbuf:            # no call complete yet
                return True

    def drop(self, fd: int) -> None:
        c = self.clients.pop(fd, None)
        if c is not None:
            c.sock.close()

    def close(self) -> None:
        for fd in list(self.clients):
            self.drop(fd)
        self.listener.close()
