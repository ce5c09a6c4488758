"""Random and malformed input never crashes the target: packets, CLI lines, JSON values."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolchain.switch import CliError, LoadError, SimpleSwitch, load_program

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"
PROGRAMS = ["lpm_forward", "epdn_option", "flow_hash_register", "parser_select_verify", "action_arith",
            "recirculate_clone", "label_stack"]
SETUP = {
    "lpm_forward": ["table_add ipv4_lpm forward 10.0.0.0/8 => 1 0xb1"],
    "epdn_option": ["table_add stamp insert_option 80 0 => 1000 2448",
                    "table_add stamp merge_option 80 1 => 1000 2448"],
    "recirculate_clone": ["mirroring_add 5 3"],
    "label_stack": ["table_add lfib swap_push 100 => 777 3"],
}



@pytest.fixture(scope="module")
def switches():
    out = {}
    for name in PROGRAMS:
        sw = SimpleSwitch(load_program(KIT / f"{name}.json"), seed=1)
        for line in SETUP.get(name, []):
            sw.cli(line)
        out[name] = sw
    return out


# frames that start like the kit's protocols, so parsers go deep, then random bytes
PREFIXES = [b"", bytes(12) + b"\x08\x00\x45", bytes(12) + b"\x08\x00\x45\x00\x00\x30\x00\x01\x00\x00\x40\x06",
            bytes(12) + b"\x88\x47", bytes(12) + b"\x88\xb5", bytes(12) + b"\x88\xb6"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.sampled_from(PREFIXES), body=st.binary(max_size=120), port=st.integers(0, 511))
def test_random_packets_never_crash_any_kit_program(switches, prefix, body, port):
    for sw in switches.values():
        out = sw.process(port, prefix + body)
        assert all(isinstance(p, int) and isinstance(f, bytes) for p, f in out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=st.text(max_size=60))
def test_random_cli_lines_only_raise_cli_error(switches, line):
    sw = switches["lpm_forward"]
    try:
        sw.cli(line)
    except CliError:
        pass


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cmd=st.sampled_from(["table_add ipv4_lpm forward", "table_set_default ipv4_lpm forward",
                            "register_read", "counter_read", "table_delete ipv4_lpm", "mirroring_add",
                            "set_queue_rate", "set_queue_depth", "meter_set_rates"]),
       args=st.lists(st.sampled_from(["1", "0x", "-1", "=>", "10.0.0.1/40", "1&&&2", "a:b", "99999999999999999",
                                      "00:11:22:33:44:55", "/", "1->2"]), max_size=5))
def test_structured_bad_cli_arguments_only_raise_cli_error(switches, cmd, args):
    try:
        switches["lpm_forward"].cli(" ".join([cmd] + args))
    except CliError:
        pass


@settings(max_examples=40, deadline=None)
@given(junk=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                         max_leaves=10))
def test_malformed_json_values_only_raise_load_error(junk):
    import json
    base = json.loads((KIT / "lpm_forward.json").read_text())
    for key in ("actions", "parsers", "pipelines", "headers"):
        broken = dict(base)
        broken[key] = junk
        try:
            load_program(broken)
        except LoadError:
            pass
