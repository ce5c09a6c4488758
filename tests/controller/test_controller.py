"""Controller.apply when the switch refuses a command on the way: a failure injected at each
command of an apply, through the embedded switch and through simple_switch_CLI text (the
embedded switch process driven by simple_switch_CLI). Both must end in the same state, with the
trust boundary and the buffer limits intact, and name the command that failed. A refused write
of the trust boundary (the first block) stops the apply before any route is installed."""

from __future__ import annotations

import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller import Controller, EmbeddedDriver
from controller import names as n
from controller.controller import ApplyError
from controller.drivers import Bmv2Driver, SwitchProcessDriver

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gateway"))
from gateway_build import compile_gateway  # noqa: E402

PORTS = 8                     # a gateway built with -D MAX_PORTS=8: short command lists
MAC = "02:00:00:00:02:02"
OLD = {"max_ports": PORTS,
       "routes": [{"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": MAC}],
       "ports": {"1": {"edge": True}, "2": {"buffer_limit": 65}, "5": {"edge": True}}}
NEW = {"max_ports": PORTS,
       "routes": [{"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": MAC},
                  {"prefix": "10.0.1.0/24", "port": 1, "next_hop_mac": "00:00:00:00:00:0a"}],
       "l2": [{"in_port": 1, "out_port": 2}, {"in_port": 2, "out_port": 1}],
       "ports": {"1": {"edge": True}, "3": {"edge": True, "buffer_limit": 10},
                 "2": {"buffer_limit": 30, "mtu": 1400, "queue_rate_pps": 1000,
                       "impair": {"pattern": ".D.R", "recirc_loops": 2}}}}
STATE_REGISTERS = [r for r in n.CONFIG_REGISTERS if r != n.REG_IMPAIR_PATTERN]


def refused(cmd: str) -> str:
    """``cmd`` with its first argument replaced by one the switch refuses (an unknown table or
    register name, a queue depth or rate that is not a number)."""
    words = cmd.split()
    return " ".join([words[0], "no_such_name", *words[2:]])


class FailingAt:
    """An EmbeddedDriver whose ``k``-th command (counted over all runs) is refused."""

    def __init__(self, switch, k: int):
        self.switch = switch
        self.inner = EmbeddedDriver(switch)
        self.k = k
        self.count = 0

    def run(self, commands):
        out = []
        for cmd in commands:
            self.count += 1
            out += self.inner.run([refused(cmd) if self.count - 1 == self.k else cmd])
        return out


class CliFailingAt(Bmv2Driver):
    """A Bmv2Driver whose sessions carry the ``k``-th command (counted over all sessions)
    refused."""

    def __init__(self, thrift_port: int, cli: str, k: int):
        super().__init__(thrift_port, cli=cli)
        self.k = k
        self.count = 0

    def _session(self, commands):
        first, self.count = self.count, self.count + len(commands)
        return super()._session([refused(c) if first + i == self.k else c
                                 for i, c in enumerate(commands)])


@pytest.fixture(scope="module")
def program_json() -> dict:
    return compile_gateway(MAX_PORTS=PORTS)


_LOADED: dict[int, tuple] = {}


def new_switch(program_json: dict):
    """A new switch (empty tables and registers) running ``program_json``, which is loaded
    once: the tests build one switch per refused command, and switches share a loaded program,
    not its state."""
    from toolchain.switch import SimpleSwitch, load_program
    held = _LOADED.get(id(program_json))
    if held is None or held[0] is not program_json:
        held = _LOADED[id(program_json)] = (program_json, load_program(program_json))
    return SimpleSwitch(held[1])


@pytest.fixture(scope="module")
def commands(program_json) -> list[str]:
    return Controller(EmbeddedDriver(new_switch(program_json))).commands(NEW)


def state(read_array, run) -> dict:
    regs = {r: read_array(r) for r in STATE_REGISTERS}
    regs["pattern"] = read_array(n.REG_IMPAIR_PATTERN)[:PORTS * n.PATTERN_SLOTS]
    regs["entries"] = [run([f"table_num_entries {t}"])[0].split()[-1]
                       for t in (n.IPV4_LPM, n.L2_FORWARD)]
    return regs


def embedded_after_failure(program_json, k: int) -> tuple[dict, ApplyError]:
    sw = new_switch(program_json)
    Controller(EmbeddedDriver(sw)).apply(OLD)
    with pytest.raises(ApplyError) as e:
        Controller(FailingAt(sw, k)).apply(NEW)
    drv = EmbeddedDriver(sw)
    return state(drv.read_register_array, drv.run), e.value


# the first block of NEW's commands: the edge ports and buffer limits it sets
BOUNDARY = [f"register_write {n.REG_EDGE_PORT} 1 1", f"register_write {n.REG_EDGE_PORT} 3 1",
            f"register_write {n.REG_BUFFER_LIMIT} 2 30", f"register_write {n.REG_BUFFER_LIMIT} 3 10"]


def assert_safe(st: dict, failed: str) -> None:
    """Edge ports of the old and of the new config still edge; buffer limits old or new. A
    refused write of the first block stops the apply: the old config's tables and its edge
    ports stay."""
    stopped = failed in BOUNDARY
    edge, limit = st[n.REG_EDGE_PORT], st[n.REG_BUFFER_LIMIT]
    assert edge[1] == 1
    assert edge[3] == (0 if failed == f"register_write {n.REG_EDGE_PORT} 3 1" else 1)
    assert edge[5] == (1 if stopped or failed == f"register_write {n.REG_EDGE_PORT} 5 0" else 0)
    assert limit[2] == (65 if failed == f"register_write {n.REG_BUFFER_LIMIT} 2 30" else 30)
    assert limit[3] == (0 if failed == f"register_write {n.REG_BUFFER_LIMIT} 3 10" else 10)
    if stopped:
        assert st["entries"] == ["1", "0"]            # OLD's one route, no L2 link


def test_apply_failure_at_each_command_keeps_trust_boundary_embedded(program_json, commands):
    assert commands[:len(BOUNDARY)] == BOUNDARY
    for k, cmd in enumerate(commands):
        st, err = embedded_after_failure(program_json, k)
        assert err.failures[0][:2] == (k, cmd)        # a cleared table refused can make
        assert str(err).startswith(f"command {k + 1} of {len(commands)} failed")  # a later add fail
        assert f"'{refused(cmd)}' refused by the switch: " in str(err)
        assert err.stopped == (cmd in BOUNDARY)
        assert_safe(st, cmd)


# port 3 becomes an edge port and a route leads to it
TO_EDGE = {"max_ports": PORTS,
           "routes": [{"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": MAC},
                      {"prefix": "10.0.3.0/24", "port": 3, "next_hop_mac": MAC}],
           "l2": [{"in_port": 3, "out_port": 2}],
           "ports": {"1": {"edge": True}, "3": {"edge": True}}}


def test_refused_edge_port_write_stops_the_apply_before_any_route_to_it(program_json):
    """Only ``register_write edge_port 3 1`` refused: nothing after it runs, so neither the
    route nor the L2 link to port 3 exists while port 3 is not an edge port."""
    sw = new_switch(program_json)
    Controller(EmbeddedDriver(sw)).apply(OLD)
    cmds = Controller(EmbeddedDriver(sw)).commands(TO_EDGE)
    k = cmds.index(f"register_write {n.REG_EDGE_PORT} 3 1")
    with pytest.raises(ApplyError) as e:
        Controller(FailingAt(sw, k)).apply(TO_EDGE)
    assert e.value.stopped and [f[0] for f in e.value.failures] == [k]
    assert "the apply stopped before any table or other register changed" in str(e.value)
    drv = EmbeddedDriver(sw)
    assert drv.read_register_array(n.REG_EDGE_PORT)[3] == 0
    assert [drv.run([f"table_num_entries {t}"])[0].split()[-1]
            for t in (n.IPV4_LPM, n.L2_FORWARD)] == ["1", "0"]      # OLD's, untouched
    # applied without the failure, both exist: the check above can see them
    Controller(drv).apply(TO_EDGE)
    assert drv.read_register_array(n.REG_EDGE_PORT)[3] == 1
    assert [drv.run([f"table_num_entries {t}"])[0].split()[-1]
            for t in (n.IPV4_LPM, n.L2_FORWARD)] == ["2", "1"]


def test_apply_without_failure_leaves_exactly_the_new_config(program_json, commands):
    sw = new_switch(program_json)
    Controller(EmbeddedDriver(sw)).apply(OLD)
    assert Controller(EmbeddedDriver(sw)).apply(NEW) == commands
    st = state(EmbeddedDriver(sw).read_register_array, EmbeddedDriver(sw).run)
    assert st[n.REG_EDGE_PORT] == [0, 1, 0, 1, 0, 0, 0, 0]
    assert st[n.REG_BUFFER_LIMIT] == [0, 0, 30, 10, 0, 0, 0, 0]
    assert st["entries"] == ["2", "2"]


# ------------------------------------------------------------------ the switch process
@pytest.fixture(scope="module")
def switch_process(tmp_path_factory, program_json):
    """rdtcp-switch without interfaces (no root needed), its Thrift port, and the CLI."""
    import json
    cli = Path(sys.executable).parent / "simple_switch_CLI"
    if not cli.exists():
        pytest.skip(f"{cli} not installed (make deps)")
    path = tmp_path_factory.mktemp("prog") / "rdtcp.json"
    path.write_text(json.dumps(program_json))
    proc = subprocess.Popen([sys.executable, "-m", "toolchain.switch.process.main",
                             "--thrift-port", "0", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield _control_port(proc), str(cli)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _control_port(proc) -> int:
    """The port of the readiness line ``Control server was started on 127.0.0.1:<port>``."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if sel.select(timeout=1) and (line := proc.stdout.readline()):
            if line.startswith("Control server was started on "):
                return int(line.rsplit(":", 1)[1])
        elif proc.poll() is not None:
            raise RuntimeError(f"rdtcp-switch exited: {proc.stderr.read()[-2000:]}")
    raise RuntimeError("rdtcp-switch did not become ready within 60 s")


def test_apply_failure_at_each_command_same_state_through_cli(program_json, commands,
                                                              switch_process):
    """Through simple_switch_CLI every command after the refused one still runs (the CLI reads
    on); the embedded switch runs them too: same state, same command named. The state is read
    back over Thrift (SwitchProcessDriver)."""
    port, cli = switch_process
    direct = SwitchProcessDriver(port)
    try:
        for k, cmd in enumerate(commands):
            Controller(direct).apply(OLD)
            with pytest.raises(ApplyError) as e:
                Controller(CliFailingAt(port, cli, k)).apply(NEW)
            assert e.value.failures[0][:2] == (k, cmd)
            through_cli = state(direct.read_register_array, direct.run)
            embedded, _ = embedded_after_failure(program_json, k)
            assert through_cli == embedded, cmd
            assert_safe(through_cli, cmd)
    finally:
        direct.close()


# ------------------------------------------------------------------ legacy router ([RDTCP] §7)
LEGACY = {"max_ports": PORTS, "legacy": True,
          "routes": [{"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": MAC}],
          "ports": {"2": {"buffer_limit": 65}}}


def applied_with_failure(program_json, first: dict, then: dict, k: int):
    """A switch configured ``first``, then ``then`` with its k-th command refused."""
    sw = new_switch(program_json)
    Controller(EmbeddedDriver(sw)).apply(first)
    with pytest.raises(ApplyError) as e:
        Controller(FailingAt(sw, k)).apply(then)
    return EmbeddedDriver(sw), e.value


@pytest.mark.parametrize("first, then", [(OLD, LEGACY), (LEGACY, NEW)],
                         ids=["gateway-to-legacy", "legacy-to-gateway"])
def test_apply_failure_switching_legacy_mode_changes_it_only_by_its_command(
        program_json, first, then):
    """Whichever command is refused, the mode ends as the new config's unless the refused
    command is the mode's own write (never reset on the way), and the edge ports are the new
    config's unless the refused command is that port's edge cell."""
    cmds = Controller(EmbeddedDriver(new_switch(program_json))).commands(then)
    def mode(cfg):
        return 1 if cfg.get("legacy") else 0

    def edges(cfg):
        return [1 if cfg["ports"].get(str(p), {}).get("edge") else 0 for p in range(PORTS)]

    for k, cmd in enumerate(cmds):
        drv, err = applied_with_failure(program_json, first, then, k)
        assert err.failures[0][:2] == (k, cmd)
        mode_write = cmd.startswith(f"register_write {n.REG_LEGACY_ROUTER} ")
        assert drv.read_register_array(n.REG_LEGACY_ROUTER) == \
            [mode(first) if mode_write or err.stopped else mode(then)], cmd
        edge = drv.read_register_array(n.REG_EDGE_PORT)
        for p in range(PORTS):
            refused_here = cmd.startswith(f"register_write {n.REG_EDGE_PORT} {p} ")
            if err.stopped:     # the first block only: the new edge ports set, the old kept
                assert edge[p] == (1 if edges(then)[p] and not refused_here
                                   else edges(first)[p]), cmd
            else:
                assert edge[p] == (edges(first) if refused_here else edges(then))[p], cmd


def test_report_says_whether_the_switch_is_a_legacy_router(program_json):
    ctl = Controller(EmbeddedDriver(new_switch(program_json)))
    assert ctl.report()["legacy"] is False
    ctl.apply(LEGACY)
    assert ctl.report()["legacy"] is True
    ctl.apply(NEW)
    assert ctl.report()["legacy"] is False
