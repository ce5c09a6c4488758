"""Embedded target: executes BMv2 JSON (from p4c-bm2-ss or our front end) like simple_switch.

    from toolchain.switch import SimpleSwitch, load_program, LoadError, CliError
    sw = SimpleSwitch.from_json("build/prog.json", seed=1)
    sw.cli("table_add MyIngress.ipv4_lpm MyIngress.ipv4_forward 10.0.1.0/24 => 00:00:00:00:01:01 1")
    sw.process(0, frame)  ->  [(port, frame), ...]

See docs/architecture.md, section 1.
"""

from .bm_sim.json_loader import DEFAULT_MAX_STATE, Program, load_program
from .errors import CliError, LoadError
from .runtime_cli import RuntimeCLI
from .simple_switch.switch import SimpleSwitch

__all__ = ["SimpleSwitch", "Program", "load_program", "LoadError", "CliError", "RuntimeCLI",
           "DEFAULT_MAX_STATE"]
