"""``rdtcp-switch-cli``: simple_switch_CLI for the ``rdtcp-switch`` process.

    rdtcp-switch-cli [--thrift-port 9090]                 interactive prompt (a terminal)
    rdtcp-switch-cli [--thrift-port 9090] < commands.txt  batch, like simple_switch_CLI < commands.txt
    rdtcp-switch-cli --commands commands.txt

Each command line goes to the switch's control channel (control.py; a line protocol, not
Thrift) and its answer is printed. As simple_switch_CLI does in batch mode, the prompt
``RuntimeCmd: `` is printed before each command's output (tools split sessions on it, e.g.
controller.drivers.parse_cli_output) and errors are printed on stdout; a failed command does
not stop the session. Unlike simple_switch_CLI, the exit status is 1 when a command failed.
In a terminal, readline gives history and completion of command, table and action names.
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from .control import TERMINATOR

__all__ = ["main", "ControlClient", "ClientError"]

PROMPT = "RuntimeCmd: "
BANNER = "Control utility for runtime P4 table manipulation"
HISTORY = Path.home() / ".rdtcp_switch_cli_history"
TABLE_CMDS_WITH_ACTION = {"table_add", "table_set_default", "table_modify"}


class ClientError(Exception):
    """No switch on the port, or the switch went away."""


class ControlClient:
    """One connection to a switch's control channel; ``command(line) -> (text, ok)``."""

    def __init__(self, port: int, host: str = "127.0.0.1", connect_timeout: float = 5.0):
        self.where = f"{host}:{port}"
        try:
            self.sock = socket.create_connection((host, port), timeout=connect_timeout)
        except OSError as e:
            raise ClientError(f"Could not connect to a switch on {self.where} ({e.strerror or e})\n"
                              "Make sure rdtcp-switch is running and that you have the right port "
                              "(--thrift-port)") from None
        self.sock.settimeout(None)
        self._buf = bytearray()

    def command(self, line: str) -> tuple[str, bool]:
        line = line.replace("\n", " ").replace("\r", " ")
        try:
            self.sock.sendall(line.encode("utf-8") + b"\n")
            while (end := self._terminator_end()) < 0:
                data = self.sock.recv(65536)
                if not data:
                    raise ClientError(f"the switch on {self.where} closed the connection")
                self._buf += data
        except OSError as e:
            raise ClientError(f"lost the switch on {self.where}: {e.strerror or e}") from None
        start = self._buf.find(TERMINATOR)
        text = self._buf[:start].decode("utf-8", "replace")
        status = self._buf[start + 1:end].decode()
        del self._buf[:end + 1]
        return text.rstrip("\n"), status == "ok"

    def _terminator_end(self) -> int:
        """Index of the newline ending the terminator line, or -1 if it has not arrived."""
        start = self._buf.find(TERMINATOR)
        return -1 if start < 0 else self._buf.find(b"\n", start)

    def close(self) -> None:
        self.sock.close()


def _is_exit(line: str) -> bool:
    return line.strip() in ("EOF", "quit", "exit")


def run_batch(client: ControlClient, lines, out=sys.stdout) -> int:
    """simple_switch_CLI's piped session: prompt, output, ...; returns the number of failures."""
    failures = 0
    print(BANNER, file=out)
    for line in lines:
        out.write(PROMPT)
        if _is_exit(line):
            break
        text, ok = client.command(line.rstrip("\n"))
        failures += not ok
        if text:
            out.write(text + "\n")
    else:
        out.write(PROMPT + "\n")
    out.flush()
    return failures


class _Completer:
    """Names for readline: commands, then table names, then the table's actions."""

    def __init__(self, client: ControlClient):
        self.client = client
        self._cache: dict[str, list[str]] = {}
        self._matches: list[str] = []

    def _names(self, command: str) -> list[str]:
        """First words of a listing command's lines (help, show_tables, table_show_actions)."""
        if command not in self._cache:
            text, ok = self.client.command(command)
            self._cache[command] = sorted({ln.split()[0] for ln in text.splitlines() if ln.split()}) if ok else []
        return self._cache[command]

    def candidates(self, buffer: str) -> list[str]:
        words = buffer.split()
        if buffer.endswith(" ") or not words:
            words.append("")
        if len(words) == 1:
            return [c for c in self._names("help") if c.startswith(words[0])]
        cmd, pos, word = words[0], len(words) - 1, words[-1]
        if cmd.startswith("table_") and pos == 1:
            pool = self._names("show_tables")
        elif cmd in TABLE_CMDS_WITH_ACTION and pos == 2:
            pool = self._names(f"table_show_actions {words[1]}")
        else:
            pool = []
        return [n for n in pool if n.startswith(word)]

    def complete(self, text: str, state: int):
        if state == 0:
            import readline
            buffer = readline.get_line_buffer()[:readline.get_endidx()]
            try:
                self._matches = [m + " " for m in self.candidates(buffer)]
            except ClientError:
                self._matches = []
        return self._matches[state] if state < len(self._matches) else None


def run_interactive(client: ControlClient) -> int:
    try:
        import readline
    except ImportError:                    # e.g. a Python built without it: plain input()
        readline = None
    if readline is not None:
        readline.set_completer(_Completer(client).complete)
        readline.set_completer_delims(" \t")
        readline.parse_and_bind("tab: complete")
        try:
            readline.read_history_file(HISTORY)
        except OSError:
            pass
    print(BANNER)
    failures = 0
    try:
        while True:
            try:
                line = input(PROMPT)
            except EOFError:
                print()
                break
            except KeyboardInterrupt:
                print()
                continue
            if _is_exit(line):
                break
            text, ok = client.command(line)
            failures += not ok
            if text:
                print(text)
    finally:
        if readline is not None:
            try:
                readline.write_history_file(HISTORY)
            except OSError:
                pass
    return failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="rdtcp-switch-cli",
                                 description="simple_switch_CLI for rdtcp-switch (its control channel is "
                                             "a line protocol, not Thrift)")
    ap.add_argument("--thrift-port", type=int, default=9090, help="the switch's --thrift-port (default 9090)")
    ap.add_argument("--thrift-ip", default="127.0.0.1", help="default 127.0.0.1")
    ap.add_argument("--commands", "-c", metavar="FILE", help="run the commands of FILE (batch mode)")
    args = ap.parse_args(argv)
    try:
        lines = None
        if args.commands:
            try:
                lines = Path(args.commands).read_text().splitlines()
            except OSError as e:
                print(f"error: cannot read commands file {args.commands!r}: {e.strerror}", file=sys.stderr)
                return 1
        client = ControlClient(args.thrift_port, args.thrift_ip)
        try:
            if lines is not None:
                failures = run_batch(client, lines)
            elif sys.stdin.isatty():
                failures = run_interactive(client)
            else:
                failures = run_batch(client, sys.stdin)
        finally:
            client.close()
    except ClientError as e:
        print(str(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
