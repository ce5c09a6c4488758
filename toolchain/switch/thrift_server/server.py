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
"""

from __future__ import annotations

import errno
import logging
import socket

from .framing import LIMITS, FrameError, FrameLimits, MessageScanner
from .modules import thrift_modules

__all__ = ["ThriftServer", "ThriftServerError", "OUT_HIGH_WATER"]

log = logging.getLogger("rdtcp-switch.thrift")

OUT_HIGH_WATER = 4 << 20     # answers waiting for a client before its calls wait too
_RECV = 1 << 18


class ThriftServerError(Exception):
    """The Thrift port cannot be opened (in use, bad number, loopback down)."""


class _Client:
    def __init__(self, sock: socket.socket, peer, limits: FrameLimits):
        self.sock = sock
        self.peer = peer
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.scanner = MessageScanner(limits)


class ThriftServer:
    """Serves ``processor`` (a TMultiplexedProcessor) to clients on ``host:port``.

    The owner registers ``listener`` and every accepted socket in its selector, calls
    ``accept()`` when the listener is readable, ``on_readable(fd)`` / ``flush(fd)`` for a
    client, and asks ``wants_write(fd)`` whether to wait for writability.
    """

    def __init__(self, port: int, processor, host: str = "127.0.0.1", *,
                 limits: FrameLimits = LIMITS):
        if not 0 <= port <= 65535:
            raise ThriftServerError(f"--thrift-port {port}: not a TCP port number (0..65535)")
        m = thrift_modules()
        self._protocol = m.TBinaryProtocol.TBinaryProtocol
        self._memory = m.TTransport.TMemoryBuffer
        self.limits = limits
        self.processor = processor
        self.clients: dict[int, _Client] = {}
        self.calls = 0                  # calls served
        self.refused = 0                # clients dropped for sending what is not Thrift
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
        try:
            sock, peer = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return None
        except OSError as e:      # EMFILE and friends: keep serving the others
            log.warning("thrift: accept failed: %s", e.strerror or e)
            return None
        sock.setblocking(False)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.clients[sock.fileno()] = _Client(sock, peer, self.limits)
        log.info("thrift: client %s:%d connected", *peer[:2])
        return sock

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
