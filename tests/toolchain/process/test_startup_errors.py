"""Start-up refusals of rdtcp-switch and rdtcp-switch-cli: a clear message, status 1, no traceback."""

from __future__ import annotations

import json
import shutil
import os
import socket
import subprocess
import sys

import pytest

from .conftest import LPM_JSON, ROOT

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET sockets need root")


def run_switch(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "toolchain.switch.process.main", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def assert_refused(r: subprocess.CompletedProcess, *words: str) -> None:
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert "Control server was started" not in r.stdout
    for w in words:
        assert w in r.stderr, r.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_root
def test_missing_interface_is_named():
    r = run_switch("-i", "1@rdtcp-nosuch", "--thrift-port", "0", str(LPM_JSON))
    assert_refused(r, "rdtcp-nosuch", "does not exist")


@pytest.mark.parametrize("spec, words", [("veth1", "<port-num>@<interface-name>"),
                                         ("x@veth1", "not an integer"),
                                         ("511@veth1", "0..510")])
def test_malformed_interface_spec_is_explained(spec, words):
    assert_refused(run_switch("-i", spec, "--thrift-port", "0", str(LPM_JSON)), spec, words)


def test_same_port_twice_refused():
    r = run_switch("-i", "1@a", "-i", "1@b", "--thrift-port", "0", str(LPM_JSON))
    assert_refused(r, "port 1 given twice")


def test_bad_json_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"header_types": [')
    assert_refused(run_switch("--thrift-port", "0", str(bad)), "bad.json", "not valid JSON")


def test_json_feature_the_target_refuses_is_named(tmp_path):
    prog = json.loads(LPM_JSON.read_text())
    prog["actions"][0]["primitives"].append({"op": "no_such_primitive", "parameters": []})
    path = tmp_path / "prog.json"
    path.write_text(json.dumps(prog))
    assert_refused(run_switch("--thrift-port", "0", str(path)), "no_such_primitive")


def test_missing_json_and_missing_pcap_dir_refused(tmp_path):
    assert_refused(run_switch("--thrift-port", "0", str(tmp_path / "none.json")), "none.json")
    assert_refused(run_switch("--thrift-port", "0"), "please specify an input JSON")
    r = run_switch("--pcap", str(tmp_path / "nodir"), "--thrift-port", "0", str(LPM_JSON))
    assert_refused(r, "nodir", "does not exist")


def test_unsupported_simple_switch_options_refused_by_name():
    assert_refused(run_switch("--use-files", "1", str(LPM_JSON)), "--use-files")
    assert_refused(run_switch("--no-p4"), "--no-p4")
    assert_refused(run_switch(str(LPM_JSON), "--", "--drop-port", "511"), "'--'")


def test_control_port_in_use_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = run_switch("--thrift-port", str(port), str(LPM_JSON))
    assert_refused(r, str(port), "already in use")


def test_cli_without_switch_says_so():
    port = free_port()
    r = subprocess.run([sys.executable, "-m", "toolchain.switch.process.cli", "--thrift-port", str(port)],
                       cwd=ROOT, input="show_tables\n", capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert f"127.0.0.1:{port}" in r.stderr and "rdtcp-switch" in r.stderr


def test_cli_missing_commands_file_says_so(tmp_path):
    r = subprocess.run([sys.executable, "-m", "toolchain.switch.process.cli", "--commands",
                        str(tmp_path / "none.txt")], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "none.txt" in r.stderr and "Traceback" not in r.stderr


def test_switch_without_ports_serves_control_channel_and_stops_on_sigint(tmp_path):
    """No interfaces (as simple_switch allows): only the control channel, stopped by SIGINT."""
    import signal
    from .conftest import READY
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0",
                             str(LPM_JSON)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()      # the only line before readiness when no -i is given
        assert line.startswith(READY), line
        port = int(line.rsplit(":", 1)[1])
        r = subprocess.run([sys.executable, "-m", "toolchain.switch.process.cli", "--thrift-port", str(port)],
                           cwd=ROOT, input="table_num_entries KitIngress.ipv4_lpm\n", capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 0, r.stdout + r.stderr
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0 and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


class _FakeClient:
    """Answers like a switch running lpm_forward (the texts come from the library CLI)."""

    def __init__(self):
        from toolchain.switch import SimpleSwitch
        self.sw = SimpleSwitch.from_json(LPM_JSON)
        self.sent = []

    def command(self, line):
        self.sent.append(line)
        return self.sw.cli(line), True


def test_completion_offers_commands_tables_and_the_tables_actions():
    from toolchain.switch.process.cli import _Completer
    c = _Completer(_FakeClient())
    assert c.candidates("table_a") == ["table_add"]
    assert "register_read" in c.candidates("reg")
    assert c.candidates("table_add Kit") == ["KitIngress.ipv4_lpm"]
    assert c.candidates("table_add KitIngress.ipv4_lpm ") == ["KitIngress.drop", "KitIngress.forward"]
    assert c.candidates("table_add KitIngress.ipv4_lpm KitIngress.f") == ["KitIngress.forward"]
    assert c.candidates("register_read x ") == []
    n = len(c.client.sent)
    c.candidates("table_dump K")                 # names are fetched once per session
    assert len(c.client.sent) == n


@pytest.mark.skipif(shutil.which("rdtcp-switch-cli") is None, reason="rdtcp-switch-cli not installed")
def test_controller_bmv2_driver_drives_the_process_through_rdtcp_switch_cli():
    """controller.drivers.Bmv2Driver pipes commands into the CLI and splits on its prompts."""
    from controller.drivers import Bmv2Driver, DriverError
    from .conftest import READY
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0",
                             str(LPM_JSON)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith(READY), line + proc.stderr.read()
        drv = Bmv2Driver(int(line.rsplit(":", 1)[1]), cli="rdtcp-switch-cli")
        outs = drv.run(["table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1 00:00:00:00:00:b1",
                        "table_num_entries KitIngress.ipv4_lpm"])
        assert "Entry has been added with handle 0" in outs[0]
        assert outs[1].strip().endswith("1")
        with pytest.raises(DriverError, match="nope"):
            drv.run(["table_add nope x 1 => 2"])
    finally:
        proc.kill()
        proc.wait()


def test_controller_switch_process_driver_gives_the_clis_answers_over_one_connection():
    """controller.drivers.SwitchProcessDriver: the control channel directly, one connection for
    every call; the same answers as the CLI gives, refusals as DriverError naming the command."""
    from controller.drivers import DriverError, SwitchProcessDriver
    from .conftest import READY
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0",
                             str(LPM_JSON)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith(READY), line + proc.stderr.read()
        port = int(line.rsplit(":", 1)[1])
        drv = SwitchProcessDriver(port)
        outs = drv.run(["table_add KitIngress.ipv4_lpm KitIngress.forward 10.0.1.0/24 => 1 00:00:00:00:00:b1",
                        "table_num_entries KitIngress.ipv4_lpm"])
        assert "Entry has been added with handle 0" in outs[0]
        assert outs[1].strip().endswith("1")
        with pytest.raises(DriverError, match="'table_add nope x 1 => 2' refused by the switch"):
            drv.run(["table_add nope x 1 => 2"])
        assert drv.run(["table_num_entries KitIngress.ipv4_lpm"])[0].strip().endswith("1")
        drv.close()
    finally:
        proc.kill()
        proc.wait()
    with pytest.raises(DriverError, match="Could not connect to a switch"):
        SwitchProcessDriver(port, connect_timeout=1.0)
