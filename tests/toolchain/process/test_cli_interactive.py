"""rdtcp-switch-cli in a terminal: prompt, output, Tab completion of names, history, Ctrl-D."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest

from .conftest import LPM_JSON, READY, ROOT


def read_until(fd: int, marker: bytes, buf: bytearray, timeout: float = 10.0) -> bytes:
    """Bytes from the terminal up to and including ``marker`` (the rest stays in ``buf``)."""
    deadline = time.monotonic() + timeout
    while marker not in buf:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError(f"no {marker!r} on the terminal; got {bytes(buf)!r}")
        try:
            buf += os.read(fd, 4096)
        except OSError:                   # EIO: the other side closed the terminal
            raise AssertionError(f"terminal closed before {marker!r}; got {bytes(buf)!r}") from None
    end = buf.index(marker) + len(marker)
    out = bytes(buf[:end])
    del buf[:end]
    return out


@pytest.fixture
def switch_port():
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0",
                             str(LPM_JSON)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith(READY), line + proc.stderr.read()
        yield int(line.rsplit(":", 1)[1])
    finally:
        proc.kill()
        proc.wait()


def test_interactive_prompt_completion_history_and_eof(switch_port, tmp_path):
    master, slave = os.openpty()
    env = dict(os.environ, HOME=str(tmp_path), TERM="dumb")
    cli = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.cli", "--thrift-port",
                            str(switch_port)], cwd=ROOT, stdin=slave, stdout=slave, stderr=slave,
                           env=env, close_fds=True)
    os.close(slave)
    buf = bytearray()
    try:
        read_until(master, b"RuntimeCmd: ", buf)
        os.write(master, b"show_tables\n")
        out = read_until(master, b"RuntimeCmd: ", buf)
        assert b"KitIngress.ipv4_lpm" in out
        # Tab completes the command, then the table name, then the action
        os.write(master, b"table_num_e\tKitI\t\n")
        out = read_until(master, b"RuntimeCmd: ", buf)
        assert b"table_num_entries KitIngress.ipv4_lpm" in out
        assert b"0" in out.split(b"KitIngress.ipv4_lpm", 1)[1]
        os.write(master, b"\x04")              # Ctrl-D on an empty line ends the session
        assert cli.wait(timeout=10) == 0
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
        os.close(master)
    history = (tmp_path / ".rdtcp_switch_cli_history").read_text()
    assert "show_tables" in history and "table_num_entries KitIngress.ipv4_lpm" in history
