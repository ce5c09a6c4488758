"""Config -> simple_switch_CLI commands, and the drivers' handling of CLI text (no target needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import Controller, load_config
from controller.commands import probability_word
from controller.drivers import Bmv2Driver, DriverError, parse_cli_output

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


def test_commands_reset_before_write_declarative():
    cmds = Controller(RecordingDriver()).commands(R1)
    first_write = next(i for i, c in enumerate(cmds) if c.startswith(("table_add", "register_write")))
    resets = [c for c in cmds if c.startswith(("register_reset", "table_clear"))]
    assert all(cmds.index(c) < first_write for c in resets)
    assert "register_reset MyIngress.impair_pattern" in resets
    assert not any("epdn" in c for c in resets)       # the EPDN table is state, not config


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
