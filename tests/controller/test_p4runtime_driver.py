"""The controller over P4Runtime: ``P4RuntimeDriver`` applies a gateway config to rdtcp-switch
with the same resulting state as the Thrift driver, ``report()`` reads it back, and the
p4lang tutorials' runtime JSON format configures the switch."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("grpc")

from controller import Controller, load_config                      # noqa: E402
from controller import names as n                                    # noqa: E402
from controller.drivers import DriverError, ThriftDriver             # noqa: E402
from controller.p4runtime_client import P4RuntimeClient              # noqa: E402
from controller.p4runtime_driver import P4RuntimeDriver              # noqa: E402
from controller.runtime_json import (RuntimeJsonError, apply_runtime_json,  # noqa: E402
                                     load_runtime_json, main as runtime_json_main)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "controller" / "examples"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    from toolchain.compiler.driver import main
    d = tmp_path_factory.mktemp("gw")
    js, info = d / "rdtcp.json", d / "rdtcp.p4info.txt"
    assert main([str(REPO / "p4src" / "rdtcp.p4"), "-o", str(js),
                 "--p4runtime-files", str(info)]) == 0
    return info, js


def _start(*args):
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", *args],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    grpc_addr = None
    for line in proc.stdout:
        if line.startswith("P4Runtime server was started on "):
            grpc_addr = line.split()[-1]
        if line.startswith("Control server was started on "):
            return proc, grpc_addr, int(line.rsplit(":", 1)[1])
    raise RuntimeError(proc.stderr.read())


@pytest.fixture
def switches(gateway):
    """Two switches: one for P4Runtime (--no-p4), one for Thrift (the JSON given)."""
    _, js = gateway
    a = _start("--no-p4", "--thrift-port", "0", "--grpc-server-addr", "127.0.0.1:0")
    b = _start("--thrift-port", "0", str(js))
    yield a, b
    for proc, _, _ in (a, b):
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


def _dump(thrift_port: int, tables) -> str:
    script = "".join(f"table_dump {t}\n" for t in tables)
    return subprocess.run(["simple_switch_CLI", "--thrift-port", str(thrift_port)],
                          input=script, capture_output=True, text=True, timeout=60).stdout


def test_gateway_config_over_p4runtime_equals_thrift(switches, gateway):
    (pa, addr, pa_thrift), (pb_, _, pb_thrift) = switches
    info, js = gateway
    cfg = load_config(EXAMPLES / "r1.toml")
    drv = P4RuntimeDriver(addr, p4info=info, bmv2_json=js, thrift_port=pa_thrift)
    thrift = ThriftDriver(pb_thrift)
    try:
        cmds = Controller(drv, program=str(js)).apply(cfg)
        assert any(c.startswith("set_queue_depth") for c in cmds)   # went over Thrift
        Controller(thrift, program=str(js)).apply(cfg)
        tables = ["MyIngress.ipv4_lpm", "MyIngress.l2_forward"]
        assert _dump(pa_thrift, tables) == _dump(pb_thrift, tables)
        for reg in n.CONFIG_REGISTERS:
            assert drv.read_register_array(reg) == thrift.read_register_array(reg), reg
        ra = Controller(drv, program=str(js))
        ra.config = cfg
        rb = Controller(thrift, program=str(js))
        rb.config = cfg
        assert ra.report() == rb.report()
        # a config applied again (declarative: table_clear first) ends the same both ways,
        # entry handles included (bmv2 numbers them as the deletes and adds go)
        Controller(drv, program=str(js)).apply(cfg)
        Controller(thrift, program=str(js)).apply(cfg)
        assert _dump(pa_thrift, tables) == _dump(pb_thrift, tables)
    finally:
        drv.close()
        thrift.close()


def test_queue_settings_need_thrift(switches, gateway):
    (_, addr, _), _ = switches
    info, js = gateway
    drv = P4RuntimeDriver(addr, p4info=info, bmv2_json=js)
    try:
        with pytest.raises(DriverError, match="P4Runtime has no queue settings"):
            drv.run(["set_queue_depth 64 2"])
        with pytest.raises(DriverError, match="takes 2 parameters"):
            drv.run(["table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.0.0/8 => 1"])
        with pytest.raises(DriverError, match="600 does not fit in 9 bits"):
            drv.run(["table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.0.0/8 => "
                     "00:00:00:00:00:01 600"])
        drv.run(["table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.0.0/8 => "
                 "00:00:00:00:00:01 6"])
        with pytest.raises(DriverError, match="ALREADY_EXISTS"):
            drv.run(["table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.0.0/8 => "
                     "00:00:00:00:00:01 6"])
    finally:
        drv.close()


def test_tutorial_runtime_json(switches, gateway, tmp_path):
    (_, addr, thrift_port), _ = switches
    info, js = gateway
    doc = json.loads((REPO / "controller" / "runtime_examples" / "r1-runtime.json").read_text())
    doc["p4info"], doc["bmv2_json"] = str(info), str(js)
    path = tmp_path / "s1-runtime.json"
    path.write_text(json.dumps(doc))
    assert runtime_json_main([str(path), "--grpc-addr", addr]) == 0
    c = P4RuntimeClient(addr, election_id=2)
    try:
        entries = c.read(c.table_entry("MyIngress.ipv4_lpm"))
        assert len(entries) == 2
        assert len(c.read(c.table_entry("MyIngress.l2_forward"))) == 2
    finally:
        c.close()
    out = _dump(thrift_port, ["MyIngress.ipv4_lpm"])
    assert "0a000200/24" in out.replace(" ", "") or "10.0.2.0" in out


@pytest.mark.parametrize("doc, message", [
    ({"target": "tofino"}, "target"),
    ({"table_entries": [{"table": "t", "match": {"f": {"x": 1}}}]}, "match"),
    ({"table_entries": [{"table": "t", "code": "import os"}]}, "unknown key 'code'"),
    ({"table_entries": "x"}, "must be a list"),
    ({"multicast_group_entries": [{"multicast_group_id": "1"}]}, "multicast_group_id"),
    ({"clone_session_entries": [{"clone_session_id": 1, "replicas": [{"port": 1}]}]}, "replicas"),
    ({"bogus": 1}, "unknown key"),
])
def test_runtime_json_refusals(tmp_path, doc, message):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(RuntimeJsonError) as e:
        load_runtime_json(path)
    assert message in str(e.value) and "\n" not in str(e.value)
    path.write_text("[" * 100000)
    with pytest.raises(RuntimeJsonError, match="not JSON"):
        load_runtime_json(path)


def test_runtime_json_cli_reports_a_refused_entry(switches, gateway, tmp_path, capsys):
    (_, addr, _), _ = switches
    info, js = gateway
    doc = {"p4info": str(info), "bmv2_json": str(js),
           "table_entries": [{"table": "MyIngress.ipv4_lpm",
                              "match": {"hdr.ipv4.dst_addr": ["10.0.0.0", 8]},
                              "action_name": "MyIngress.ipv4_forward",
                              "action_params": {"dst_addr": "00:00:00:00:00:01", "port": 600}}]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    assert runtime_json_main([str(path), "--grpc-addr", addr]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "table_entries[0]" in err and "port" in err
