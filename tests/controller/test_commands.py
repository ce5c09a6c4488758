"""Config -> simple_switch_CLI commands, and the drivers' handling of CLI text (no target needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import ConfigError, Controller, load_config
from controller import names as n
from controller.commands import probability_word
from controller.config import GatewayConfig, L2Link, PortConfig, Route
from controller.drivers import Bmv2Driver, DriverError, parse_cli_output
from controller.program import ProgramInfo, RegisterInfo, TableInfo

R1 = {"routes": [{"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": "02:00:00:00:02:02"}],
      "l2": [{"in_port": 1, "out_port": 2}],
      "ports": {"1": {"edge": True}, "2": {"buffer_limit": 65, "mtu": 1400}}}


class RecordingDriver:
    def __init__(self):
        self.ran: list[str] = []

    def run(self, commands):
        self.ran += list(commands)
        return [""] * len(commands)


def test_commands_route_is_table_add():
    cmds = Controller(RecordingDriver()).commands(R1)
    assert ("table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.2.0/24 => "
            "02:00:00:00:02:02 2") in cmds
    assert "table_add MyIngress.l2_forward MyIngress.l2_output 1 => 2" in cmds


def test_commands_buffer_limit_with_deeper_tm_queue():
    cmds = Controller(RecordingDriver()).commands(R1)
    assert "register_write buffer_limit 2 65" in cmds
    assert "set_queue_depth 130 2" in cmds


def test_commands_edge_and_mtu_registers():
    cmds = Controller(RecordingDriver()).commands(R1)
    assert "register_write MyIngress.edge_port 1 1" in cmds
    assert "register_write MyIngress.port_mtu 2 1400" in cmds


def test_commands_trust_boundary_set_first_and_cleared_last():
    """edge_port and buffer_limit cells the config sets come before every other command and are
    never reset; the cells it leaves at 0 are written last, one by one."""
    cmds = Controller(RecordingDriver()).commands(R1)
    assert cmds[:2] == ["register_write MyIngress.edge_port 1 1", "register_write buffer_limit 2 65"]
    assert not any(c.startswith(("register_reset MyIngress.edge_port", "register_reset buffer_limit"))
                   for c in cmds)
    tail = cmds[-126:]
    assert tail == ([f"register_write MyIngress.edge_port {p} 0" for p in range(64) if p != 1]
                    + [f"register_write buffer_limit {p} 0" for p in range(64) if p != 2])


def test_commands_other_config_registers_reset_before_written():
    # the edge ports' source prefixes are rewritten while nothing is routed (test_sources.py)
    cmds = [c for c in Controller(RecordingDriver()).commands(R1) if n.EDGE_SOURCE not in c]
    resets = [i for i, c in enumerate(cmds) if c.startswith(("register_reset", "table_clear"))]
    writes = [i for i, c in enumerate(cmds[2:-126], 2)
              if c.startswith(("table_add", "register_write"))]
    assert max(resets) < min(writes)
    assert "register_reset MyIngress.impair_pattern" in cmds
    assert not any("epdn" in c for c in cmds)         # the EPDN table is state, not config


def test_commands_pattern_slots_at_port_offset():
    cfg = {"ports": {"3": {"impair": {"pattern": ".D.R", "recirc_loops": 2}}}}
    cmds = Controller(RecordingDriver()).commands(cfg)
    assert "register_write MyIngress.impair_pattern 769 1" in cmds     # 3 * 256 + 1
    assert "register_write MyIngress.impair_pattern 771 2" in cmds
    assert "register_write MyIngress.pattern_len 3 4" in cmds
    assert not any(c.startswith("register_write MyIngress.impair_pattern 768 ") for c in cmds)


def test_probability_word_bounds():
    assert probability_word(0.0) == 0
    assert probability_word(0.5) == 1 << 31
    assert probability_word(1.0) == (1 << 32) - 1


def test_apply_runs_the_commands_in_order():
    drv = RecordingDriver()
    ctl = Controller(drv)
    cmds = ctl.apply(load_config(R1))
    assert drv.ran == cmds
    assert ctl.config.ports[2].buffer_limit == 65


def test_apply_refuses_bad_config_before_touching_switch():
    drv = RecordingDriver()
    with pytest.raises(ValueError):
        Controller(drv).apply({"ports": {"2": {"bufer": 1}}})
    assert drv.ran == []


def test_bmv2_driver_missing_cli_is_clear_error():
    with pytest.raises(DriverError, match="not-a-real-cli not found on PATH"):
        Bmv2Driver(9090, cli="not-a-real-cli")


def test_parse_cli_output_one_chunk_per_command():
    out = ("Obtaining JSON from switch...\nDone\nControl utility\nRuntimeCmd: "
           "MyIngress.port_mtu[2]= 1500\nRuntimeCmd: Error: Invalid register name\nRuntimeCmd: ")
    assert parse_cli_output(out, 2) == ["MyIngress.port_mtu[2]= 1500",
                                        "Error: Invalid register name"]


def test_cli_main_print_lists_commands(capsys):
    from controller.__main__ import main
    assert main([str(Path(__file__).resolve().parents[2] / "controller/examples/r1.toml"), "--print"]) == 0
    assert "register_write buffer_limit 2 65" in capsys.readouterr().out


def test_cli_main_bad_config_exit_1(tmp_path, capsys):
    from controller.__main__ import main
    p = tmp_path / "x.toml"
    p.write_text("[ports.99]\n")
    assert main([str(p), "--print"]) == 1
    assert "ports.99: port 99 out of range" in capsys.readouterr().err


# ------------------------------------------------------------------ checked against the program
def _refused(cfg, program=None) -> str:
    """The ConfigError of applying ``cfg``, and that the switch saw no command."""
    drv = RecordingDriver()
    with pytest.raises(ConfigError) as e:
        Controller(drv, program=program).apply(cfg)
    assert drv.ran == []
    return str(e.value)


def test_check_duplicate_l2_in_port_built_directly():
    cfg = GatewayConfig(l2=(L2Link(1, 2), L2Link(1, 3)))
    assert _refused(cfg) == ("l2[1]: the key 1 of MyIngress.l2_forward is already added by l2[0]")


def test_check_duplicate_route_prefix_built_directly():
    route = Route("10.0.2.0/24", 2, "02:00:00:00:02:02")
    assert _refused(GatewayConfig(routes=(route, route))).startswith(
        "routes[1]: the key 10.0.2.0/24 of MyIngress.ipv4_lpm is already added by routes[0]")


def test_check_register_value_masked_by_width_refused():
    """A 20-digit buffer limit would be stored modulo 2^32 by register_write."""
    cfg = GatewayConfig(ports={2: PortConfig(port=2, buffer_limit=10 ** 19)})
    assert _refused(cfg) == ("ports.2.buffer_limit: 10000000000000000000 does not fit "
                             "buffer_limit (bit<32>): register_write would store something else")


def test_check_mtu_beyond_sixteen_bits_refused():
    cfg = GatewayConfig(ports={2: PortConfig(port=2, mtu=70000)})
    assert _refused(cfg).startswith("ports.2.mtu: 70000 does not fit MyIngress.port_mtu (bit<16>)")


@pytest.mark.parametrize("rate", [-5, 0, 1 << 40, 2.5, True])
def test_check_queue_rate_not_a_positive_integer_refused(rate):
    cfg = GatewayConfig(ports={2: PortConfig(port=2, queue_rate_pps=rate)})
    assert _refused(cfg).startswith(f"ports.2.queue_rate_pps: {rate!r}: set_queue_rate takes "
                                    "an integer from 1 to 4294967295")


def test_check_unknown_register_named():
    program = ProgramInfo.gateway()
    registers = {k: v for k, v in program.registers.items() if k != n.REG_RECIRC_LOOPS}
    cfg = {"ports": {"2": {"impair": {"recirc_prob": 0.1, "recirc_loops": 2}}}}
    assert _refused(cfg, ProgramInfo(program.tables, registers)).startswith(
        "ports: the program has no register MyIngress.recirc_loops")


def test_check_table_capacity_named():
    program = ProgramInfo.gateway()
    tables = dict(program.tables)
    tables[n.IPV4_LPM] = TableInfo(2, tables[n.IPV4_LPM].keys, tables[n.IPV4_LPM].actions)
    routes = [{"prefix": f"10.0.{i}.0/24", "port": 2, "next_hop_mac": "02:00:00:00:02:02"}
              for i in range(3)]
    assert _refused({"routes": routes}, ProgramInfo(tables, program.registers)) == (
        "routes[2]: MyIngress.ipv4_lpm holds at most 2 entries")


def test_check_max_ports_against_program():
    assert _refused({"max_ports": 128}, ProgramInfo.gateway(64)).startswith(
        "max_ports: 128, but the program's per-port registers have 64 cells")


def test_check_pattern_past_program_registers_named():
    program = ProgramInfo.gateway()
    registers = dict(program.registers)
    registers[n.REG_IMPAIR_PATTERN] = RegisterInfo(64 * 4, 2)       # a build with 4 slots
    assert _refused({"ports": {"1": {"impair": {"pattern": "..D"}}}},
                    ProgramInfo(program.tables, registers)).startswith(
        "ports.1.impair.pattern[2]: cell 258 of MyIngress.impair_pattern, which has 256 cells")


def test_cli_main_checks_against_given_program(tmp_path, capsys):
    from controller.__main__ import main
    cfg = tmp_path / "c.json"
    cfg.write_text('{"routes": [{"prefix": "10.0.0.0/8", "port": 1, '
                   '"next_hop_mac": "00:00:00:00:00:01"}]}')
    kit = Path(__file__).resolve().parents[1] / "data" / "p4-kit" / "lpm_forward.json"
    assert main([str(cfg), "--program", str(kit), "--print"]) == 1
    assert "routes: the program has no table MyIngress.ipv4_lpm" in capsys.readouterr().err
    assert main([str(cfg), "--program", str(tmp_path / "none.json"), "--print"]) == 1
    assert "none.json: cannot read the program" in capsys.readouterr().err


def test_commands_red_in_fixed_point_max_th_last():
    """Thresholds in 1/2^16 packets, w_q in 1/2^24, the slope max_p / (max_th - min_th) as
    p_b * 2^32 per packet * 2^16; red_max_th, which turns RED on, written after the others."""
    cfg = {"ports": {"2": {"buffer_limit": 16,
                           "red": {"min_th": 4, "max_th": 8, "w_q": 0.002, "max_p": 0.02}}}}
    red = [c for c in Controller(RecordingDriver()).commands(cfg) if " MyIngress.red_" in c
           and c.startswith("register_write")]
    assert red == ["register_write MyIngress.red_min_th 2 262144",
                   "register_write MyIngress.red_w_q 2 33554",
                   f"register_write MyIngress.red_slope 2 {round(0.02 * 2 ** 48 / 262144)}",
                   "register_write MyIngress.red_max_th 2 524288"]


def test_commands_red_off_by_default_reset():
    cmds = Controller(RecordingDriver()).commands(R1)
    assert "register_reset MyIngress.red_max_th" in cmds
    assert not any(c.startswith("register_write MyIngress.red_") for c in cmds)


# ------------------------------------------------------------------ legacy router ([RDTCP] §7)
LEGACY = {"legacy": True, "routes": R1["routes"], "ports": {"2": {"buffer_limit": 65}}}


def _legacy_commands(cmds: list[str]) -> list[tuple[int, str]]:
    return [(i, c) for i, c in enumerate(cmds) if n.REG_LEGACY_ROUTER in c]


def test_commands_gateway_clears_legacy_once_after_resets_before_writes():
    cmds = Controller(RecordingDriver()).commands(R1)
    [(i, cmd)] = _legacy_commands(cmds)
    assert cmd == "register_write MyIngress.legacy_router 0 0"
    resets = [j for j, c in enumerate(cmds) if c.startswith("register_reset")]
    adds = [j for j, c in enumerate(cmds) if c.startswith("table_add") and n.EDGE_SOURCE not in c]
    assert max(resets) < i < min(adds)


def test_commands_legacy_router_set_last_never_reset():
    cmds = Controller(RecordingDriver()).commands(LEGACY)
    assert _legacy_commands(cmds) == [(len(cmds) - 1,
                                       "register_write MyIngress.legacy_router 0 1")]
    assert not any(c.startswith("register_write MyIngress.edge_port") and c.endswith(" 1")
                   for c in cmds)
    assert "register_write buffer_limit 2 65" in cmds
    assert not any(c.startswith("register_write MyIngress.port_mtu") for c in cmds)


def test_commands_legacy_refused_by_program_without_the_register():
    program = ProgramInfo.gateway()
    registers = {k: v for k, v in program.registers.items() if k != n.REG_LEGACY_ROUTER}
    old = ProgramInfo(tables=program.tables, registers=registers)
    with pytest.raises(ConfigError) as e:
        Controller(RecordingDriver(), program=old).commands(LEGACY)
    assert str(e.value) == "legacy: the program has no register MyIngress.legacy_router"
