"""What one Thrift client can make the switch spend: a call's bytes are read in time linear in
their number, a call past the limits (framing.LIMITS) is refused from its first bytes, and a
client that does not read its answers is not read either."""

from __future__ import annotations

import os
import socket
import threading
import time

from bm_runtime.standard.ttypes import BmMatchParam

from controller.drivers import ThriftDriver
from tests.toolchain.switch.tables_kit import table_prog
from tests.toolchain.thrift_api.calls_kit import std_call
from toolchain.switch import SimpleSwitch
from toolchain.switch.process.main import SwitchProcess
from toolchain.switch.thrift_server import make_processor
from toolchain.switch.thrift_server.host import ControlHost
from toolchain.switch.thrift_server.server import OUT_HIGH_WATER, ThriftServer

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system time of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def send_and_answer(port: int, data: bytes, chunk: int = 1 << 16) -> bytes:
    """Send ``data`` in pieces, as a client on a slow link would; the answer's bytes (b"" when
    the switch hung up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
        try:
            for i in range(0, len(data), chunk):
                s.sendall(data[i:i + chunk])
        except (BrokenPipeError, ConnectionResetError):
            return b""
        s.shutdown(socket.SHUT_WR)
        out = []
        try:
            while piece := s.recv(65536):
                out.append(piece)
        except ConnectionResetError:
            pass
        return b"".join(out)


def test_a_large_call_costs_time_linear_in_its_size_and_bounded_memory(start_switch):
    """A table name of 8 MB and of 32 MB (under the 64 MB limit), sent in 64 KB pieces: the
    second costs the switch about four times the first's processor time (reading the whole
    buffer again at every piece made it sixteen), and its memory stays a few times the call."""
    sw = start_switch(table_prog([("exact", "a")]))
    costs = []
    for size in (8 << 20, 32 << 20):
        call = std_call("bm_mt_get_num_entries", 0, "x" * size)
        before = cpu_seconds(sw.proc.pid)
        answer = send_and_answer(sw.port, call)
        costs.append(cpu_seconds(sw.proc.pid) - before)
        assert b"bm_mt_get_num_entries" in answer           # INVALID_TABLE_NAME, answered
    assert costs[1] < 8 * max(costs[0], 0.05), costs
    assert peak_rss_mb(sw.proc.pid) < 600
    d = ThriftDriver(sw.port)
    assert d.run(["table_num_entries MyIngress.t"]) == ["0"]
    d.close()
    assert sw.alive()


def test_a_call_of_a_million_list_elements_is_refused_at_its_list_header(start_switch):
    """A list of 1,000,000 empty structs (a million objects to build) is refused as soon as
    its count arrives; a client connected throughout is answered meanwhile."""
    sw = start_switch(table_prog([("exact", "a")]))
    held = ThriftDriver(sw.port)
    call = std_call("bm_mt_add_entry", 0, "MyIngress.t", [BmMatchParam()] * 1_000_000,
                    "MyIngress.setr", [b"\x01"], None)
    before = cpu_seconds(sw.proc.pid)
    assert send_and_answer(sw.port, call) == b""             # no answer: hung up
    assert cpu_seconds(sw.proc.pid) - before < 2.0
    assert held.run(["table_num_entries MyIngress.t"]) == ["0"]
    held.close()
    assert "more than 16384 container elements and struct fields" in sw.stop()


def test_a_client_that_does_not_read_its_answers_is_not_read(tmp_path):
    """Calls whose answers pile up unread: the switch stops reading that client once
    OUT_HIGH_WATER bytes of answers wait, and goes on once they are read, every call
    answered in order."""
    program = table_prog([("exact", "a")])
    program["register_arrays"].append({"name": "big", "id": 0, "size": 65536, "bitwidth": 64})
    sw = SimpleSwitch(program)
    host = ControlHost(sw, "{}")
    server = ThriftServer(0, make_processor(host))
    proc = SwitchProcess(sw, {}, server)
    loop = threading.Thread(target=proc.run, daemon=True)
    loop.start()
    calls = 400                         # about 500 KB of answers each: 200 MB in all
    one = std_call("bm_register_read_all", 0, "big")
    answer = len(server.call(one))
    try:
        with socket.create_connection((server.host, server.port), timeout=60) as s:
            sender = threading.Thread(target=lambda: s.sendall(one * calls), daemon=True)
            sender.start()
            time.sleep(2.0)
            waiting = sum(len(c.outbuf) for c in list(server.clients.values()))
            assert 0 < waiting < OUT_HIGH_WATER + answer
            assert server.calls < calls
            got = 0
            while got < calls * answer:
                piece = s.recv(1 << 20)
                assert piece
                got += len(piece)
            sender.join(timeout=30)
    finally:
        proc.stop()
        loop.join(timeout=10)
        proc.close()
    assert got == calls * answer and server.calls == calls + 1


# ---------------------------------------------------------------- out of file descriptors
def start_with_fd_limit(tmp_path, limit: int, *extra: str):
    """rdtcp-switch (no interfaces) with RLIMIT_NOFILE ``limit``; its port and the process."""
    import json
    import resource
    import subprocess
    import sys

    from .conftest import READY
    path = tmp_path / "prog.json"
    path.write_text(json.dumps(table_prog([("exact", "a")])))
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0",
         *extra, str(path)],
        stdout=subprocess.PIPE, stderr=open(tmp_path / "stderr", "wb"), text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit)))
    line = proc.stdout.readline()
    assert line.startswith(READY), (line, (tmp_path / "stderr").read_text())
    return int(line.rsplit(":", 1)[1]), proc


def test_out_of_descriptors_the_switch_backs_off_logs_once_and_closes_idle_clients(tmp_path):
    """Under RLIMIT_NOFILE 20 (13 clients), 30 idle clients: the switch accepts what it can,
    then stops trying for a while instead of spinning on its listener (little CPU), logs the
    episode once as it starts and once as it ends, closes the clients idle for over
    --thrift-idle-timeout, and serves a new client."""
    port, proc = start_with_fd_limit(tmp_path, 20, "--thrift-idle-timeout", "1")
    clients = []
    try:
        for _ in range(30):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            clients.append(s)
        time.sleep(0.5)
        before = cpu_seconds(proc.pid)
        time.sleep(3.0)
        assert cpu_seconds(proc.pid) - before < 1.0      # not spinning (it was 3 s of 3)
        first = clients[0]                   # accepted at once, then closed for being idle
        first.setblocking(True)
        first.settimeout(10)
        assert first.recv(1) == b""
        d = ThriftDriver.when_ready(port, timeout=60)
        assert d.run(["table_num_entries MyIngress.t"]) == ["0"]
        d.close()
        assert proc.poll() is None
    finally:
        for s in clients:
            s.close()
        proc.terminate()
        proc.wait(timeout=10)
    log = (tmp_path / "stderr").read_text()
    starts = log.count("cannot accept connections: Too many open files")
    assert starts >= 1 and "idle clients closed" in log, log
    assert starts <= log.count("accepting connections again") + 1, log
    assert len(log.splitlines()) <= 2 * starts + 1, log
