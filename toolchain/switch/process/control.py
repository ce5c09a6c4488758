"""The switch process's control channel: simple_switch_CLI command lines over TCP.

This is NOT Thrift. It listens where simple_switch runs its Thrift server (``--thrift-port``,
127.0.0.1 only) so that tools that wait for that port keep working, and it speaks a line
protocol any client (``rdtcp-switch-cli``, ``nc``) can use:

    client -> server   one simple_switch_CLI command line, UTF-8, ending in "\\n"
    server -> client   the command's output (zero or more lines, each ending in "\\n"), then
                       the terminator line: NUL, then "ok" or "error", then "\\n"

The output is what simple_switch_CLI prints for the command, its error messages included
(``RuntimeCLI``). NUL never occurs in an output (it is escaped), so the terminator is
unambiguous. Commands run in the switch's event loop, between packets: no locking, and a
command takes effect for every packet that arrives after its answer was sent.
"""

from __future__ import annotations

import errno
import logging
import socket

from ..errors import CliError

__all__ = ["ControlServer", "ControlError", "TERMINATOR", "encode_reply", "MAX_LINE"]

log = logging.getLogger(__name__)

TERMINATOR = b"\x00"
MAX_LINE = 1 << 20                  # a longer "command" is a client bug: answer and hang up


class ControlError(Exception):
    """The control port cannot be opened (in use, bad number)."""


def encode_reply(text: str, ok: bool) -> bytes:
    body = text.replace("\x00", "\\x00")
    if body and not body.endswith("\n"):
        body += "\n"
    return body.encode("utf-8", "replace") + TERMINATOR + (b"ok\n" if ok else b"error\n")


class _Client:
    def __init__(self, sock: socket.socket, peer):
        self.sock = sock
        self.peer = peer
        self.inbuf = bytearray()
        self.outbuf = bytearray()


class ControlServer:
    """Accepts CLI clients on 127.0.0.1:``port``; ``execute(line) -> (text, ok)`` runs a command.

    The owner registers ``listener`` and every client socket in its selector and calls
    ``on_readable`` / ``on_writable``; ``sockets_changed`` tells it to re-register.
    """

    def __init__(self, port: int, cli, host: str = "127.0.0.1"):
        if not 0 <= port <= 65535:
            raise ControlError(f"--thrift-port {port}: not a TCP port number (0..65535)")
        self.cli = cli
        self.clients: dict[int, _Client] = {}
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            s.listen(16)
        except OSError as e:
            s.close()
            if e.errno == errno.EADDRINUSE:
                raise ControlError(f"control port {host}:{port} is already in use "
                                   "(another switch? choose one with --thrift-port)") from None
            raise ControlError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
        self.listener = s
        self.host, self.port = s.getsockname()[:2]
        try:
            self._probe()
        except ControlError:
            s.close()
            raise
        s.setblocking(False)

    def _probe(self) -> None:
        """Connect to ourselves once: in a fresh network namespace the loopback interface is
        down, and binding succeeds while no client can ever connect (ENETUNREACH)."""
        try:
            with socket.create_connection((self.host, self.port), timeout=2.0):
                pass
        except OSError as e:
            raise ControlError(f"control port {self.host}:{self.port} is not reachable: "
                               f"{e.strerror or e} (loopback down in this network namespace? "
                               "ip link set lo up)") from None
        self.listener.settimeout(2.0)
        try:
            conn, _ = self.listener.accept()
            conn.close()
        except OSError:
            pass

    def execute(self, line: str) -> tuple[str, bool]:
        try:
            return self.cli.run(line), True
        except CliError as e:
            return e.message, False
        except Exception as e:  # noqa: BLE001 -- a bug in one command must not stop the switch
            log.exception("control: command %r failed", line)
            return f"Error: internal error in the switch while running this command: {type(e).__name__}: {e}", False

    def accept(self) -> socket.socket | None:
        try:
            sock, peer = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return None
        except OSError as e:      # EMFILE and friends: keep serving the others
            log.warning("control: accept failed: %s", e.strerror or e)
            return None
        sock.setblocking(False)
        self.clients[sock.fileno()] = _Client(sock, peer)
        log.info("control: client %s:%d connected", *peer[:2])
        return sock

    def on_readable(self, fd: int) -> bool:
        """Read and run the complete command lines of client ``fd``; False when it is gone."""
        c = self.clients[fd]
        try:
            data = c.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            data = b""
        if not data:
            self.drop(fd)
            return False
        c.inbuf += data
        while (nl := c.inbuf.find(b"\n")) >= 0:
            raw = bytes(c.inbuf[:nl])
            del c.inbuf[:nl + 1]
            text, ok = self.execute(raw.decode("utf-8", "replace").rstrip("\r"))
            c.outbuf += encode_reply(text, ok)
        if len(c.inbuf) > MAX_LINE:
            c.outbuf += encode_reply(f"Error: command line longer than {MAX_LINE} bytes", False)
            c.inbuf.clear()
        return self.flush(fd)

    def wants_write(self, fd: int) -> bool:
        return bool(self.clients[fd].outbuf)

    def flush(self, fd: int) -> bool:
        c = self.clients[fd]
        while c.outbuf:
            try:
                n = c.sock.send(c.outbuf)
            except (BlockingIOError, InterruptedError):
                return True
            except OSError:
                self.drop(fd)
                return False
            del c.outbuf[:n]
        return True

    def drop(self, fd: int) -> None:
        c = self.clients.pop(fd, None)
        if c is not None:
            c.sock.close()

    def close(self) -> None:
        for fd in list(self.clients):
            self.drop(fd)
        self.listener.close()
