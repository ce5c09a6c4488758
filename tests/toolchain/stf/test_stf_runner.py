"""STF format and runner: keys with '*' nibbles, '$' stack keys and '$valid$', expect with
don't-care nibbles and '$', per-port order, CLI pass-through, register/counter checks."""

import shutil
from pathlib import Path

import pytest

from tests.toolchain.switch.jsonkit import frame, pack
from tests.toolchain.switch.tables_kit import FIELDS, table_prog
from toolchain.stf import StfError, run_stf
from toolchain.stf.bmv2 import stf_to_cli
from toolchain.stf.embedded import compare_packet
from toolchain.stf.runner import main
from toolchain.stf.stf_parser import (Add, CliCommand, Expect, IgnoredCommand, StfAddError,
                                      StfSyntaxError, parse_key_value, parse_stf, stf_key_index,
                                      stf_name)
from toolchain.switch import SimpleSwitch, load_program

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"

ROUTE = "add KitIngress.ipv4_lpm hdr.ipv4.dst:0x0a0001** KitIngress.forward(port:1, next_hop:0x0000000000b1)\n"
IN = "0000000000AA00000000000108004500002D00070000400665BF0A0000010A00010504D20050000003E800000000501020002DEE000068656C6C6F"
OUT = "0000000000B10000000000AA08004500002D000700003F0666BF0A0000010A00010504D20050000003E800000000501020002DEE000068656C6C6F"


def lpm(tmp_path, body):
    stf = tmp_path / "t.stf"
    stf.write_text(body)
    return run_stf(KIT / "lpm_forward.json", stf)


def test_parse_add_with_priority_keys_and_named_args():
    [cmd] = parse_stf("add T 5 hdr.a:0x0a** hdr.s$0.x:1 act(p:1, q:0x2)\n")
    assert isinstance(cmd, Add)
    assert (cmd.table, cmd.priority, cmd.action) == ("T", 5, "act")
    assert cmd.keys == [("hdr.a", "0x0a**"), ("hdr.s$0.x", "1")]
    assert cmd.args == [("p", "1"), ("q", "0x2")]


def test_parse_expect_pattern_and_exact_marker():
    [e] = parse_stf("expect 3 00 ** ab$  # comment\n")
    assert isinstance(e, Expect) and (e.port, e.pattern, e.exact) == (3, "00**AB", True)


def test_p4c_pass_through_lines_become_cli_commands_and_others_are_ignored():
    c, d = parse_stf("mirroring_add 5 3\ntable_dump t\n")
    assert isinstance(c, CliCommand) and c.line == "mirroring_add 5 3"
    assert isinstance(d, IgnoredCommand) and d.line == "table_dump t"


def test_bad_packet_hex_is_a_syntax_error_with_line():
    with pytest.raises(StfSyntaxError, match="line 2"):
        parse_stf("# x\npacket 0 zz\n")


def test_key_value_wildcard_nibbles_become_a_mask():
    assert parse_key_value("0x0a0001**", 32) == (0x0A000100, 0xFFFFFF00)
    assert parse_key_value("0b1*", 2) == (0b10, 0b10)
    assert parse_key_value("7", 8) == (7, 0xFF)
    assert parse_key_value("0x5&&&0xf", 8) == (5, 0xF)
    assert parse_key_value("10.0.1.0/24", 32) == (0x0A000100, 0xFFFFFF00)
    assert parse_key_value("10.0.1.7", 32) == (0x0A000107, 0xFFFFFFFF)


def test_compare_packet_wildcards_prefix_and_exact():
    assert compare_packet("AB**", False, bytes.fromhex("ABCDEF")) is None
    assert compare_packet("AB**", True, bytes.fromhex("ABCDEF")) == "Received packet too long 6 vs 4"
    assert compare_packet("ABCD", False, bytes.fromhex("AB")) == "Received packet too short 2 vs 4"
    assert compare_packet("AC", False, bytes.fromhex("AB")) == "Packet different at position 1: expected C, received B"


def test_matching_expectation_passes(tmp_path):
    res = lpm(tmp_path, ROUTE + f"packet 0 {IN}\nexpect 1 {OUT}$\n")
    assert res.ok and res.failures == []


def test_dont_care_nibbles_match_anything(tmp_path):
    assert lpm(tmp_path, ROUTE + f"packet 0 {IN}\nexpect 1 ****{OUT[4:]}$\n").ok


def test_wrong_byte_fails_with_position(tmp_path):
    bad = OUT[:20] + ("0" if OUT[20] != "0" else "1") + OUT[21:]
    res = lpm(tmp_path, ROUTE + f"packet 0 {IN}\nexpect 1 {bad}$\n")
    assert not res.ok and "Packet different at position 20" in res.failures[0]


def test_missing_and_unexpected_packets_fail(tmp_path):
    res = lpm(tmp_path, ROUTE + f"packet 0 {IN}\npacket 0 {IN}\nexpect 1 {OUT}\nexpect 2 {OUT}\n")
    text = "\n".join(res.failures)
    assert "Expected 1 packets on port 1 got 2" in text and "Expected 1 packets on port 2 got 0" in text


def test_output_on_a_port_no_line_names_is_not_checked_as_p4c_runner(tmp_path):
    # p4c's runner makes interfaces only for the ports of packet/expect lines (bmv2stf.py)
    res = lpm(tmp_path, ROUTE + f"packet 0 {IN}\n")
    assert res.ok, res.failures
    assert res.received == {1: [bytes.fromhex(OUT)]}


def test_expect_without_data_leaves_the_port_unchecked(tmp_path):
    res = lpm(tmp_path, ROUTE + f"packet 0 {IN}\npacket 0 {IN}\nexpect 1\n")
    assert res.ok, res.failures


def test_cli_errors_and_unknown_lines_are_warnings_as_p4c_runner_ignores_them(tmp_path):
    # p4c's runner pipes its pass-through commands to simple_switch_CLI without reading the
    # answer, and skips words it does not know (table_add is not one it passes)
    res = lpm(tmp_path, "mirroring_add nosuch\ntable_add nosuch x 1 =>\n")
    assert res.ok
    assert res.warnings[0].startswith("line 1: mirroring_add nosuch:")
    assert res.warnings[1] == "line 2: ignored, as p4c's runner ignores it: table_add nosuch x 1 =>"


def test_setdefault_and_stack_and_valid_keys(tmp_path):
    stf = tmp_path / "s.stf"
    stf.write_text("add KitIngress.stamp hdr.tcp.dport:80 hdr.epdn.$valid$:0 KitIngress.insert_option(lo:1, hi:2)\n"
                   "setdefault KitIngress.stamp NoAction()\n")
    assert run_stf(KIT / "epdn_option.json", stf).ok
    stf.write_text("add KitIngress.lfib hdr.labels$0.label:100 KitIngress.pop(port:2)\n")
    assert run_stf(KIT / "label_stack.json", stf).ok


def test_register_read_check(tmp_path):
    stf = tmp_path / "r.stf"
    stf.write_text("register_write KitIngress.flow_packets 3 7\nregister_read KitIngress.flow_packets 3 7\n"
                   "register_read KitIngress.flow_packets 3 8\n")
    res = run_stf(KIT / "flow_hash_register.json", stf)
    assert res.failures == ["line 3: register KitIngress.flow_packets[3] is 7, expected 8"]


def test_bmv2_target_is_skipped_when_tools_are_missing(tmp_path):
    if shutil.which("simple_switch"):
        pytest.skip("simple_switch is installed")
    res = lpm_all = run_stf(KIT / "lpm_forward.json", KIT / "lpm_forward.stf", target="all")
    assert lpm_all.ok and res.targets == ["embedded"]
    assert res.skipped and "simple_switch" in res.skipped[0]


def test_unknown_target_is_refused():
    with pytest.raises(ValueError, match="unknown target"):
        run_stf("x.json", "x.stf", target="tofino")


def test_missing_p4_program_is_a_clear_error(tmp_path):
    stf = tmp_path / "t.stf"
    stf.write_text("")
    with pytest.raises(StfError, match="cannot compile"):
        run_stf(tmp_path / "missing.p4", stf)


def test_command_line_exit_status_and_output(capsys):
    assert main([str(KIT / "lpm_forward.json"), str(KIT / "lpm_forward.stf"), "-v"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and f"out 1 {OUT}" in out


def test_command_line_reports_unreadable_stf(capsys, tmp_path):
    assert main([str(tmp_path / "p.json"), str(tmp_path / "none.stf")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_command_line_reports_malformed_stf_as_an_input_error(capsys, tmp_path):
    stf = tmp_path / "bad.stf"
    stf.write_text("packet 0 zz\n")
    assert main([str(KIT / "lpm_forward.json"), str(stf)]) == 2
    captured = capsys.readouterr()
    assert "bad.stf: line 1: packet data is not hex: 'zz'" in captured.err
    assert "PASS" not in captured.out and "FAIL" not in captured.out


def test_stf_translates_to_simple_switch_cli_for_real_bmv2():
    prog = load_program(KIT / "lpm_forward.json")
    cmds = parse_stf("add KitIngress.ipv4_lpm hdr.ipv4.dst:0x0a0001** KitIngress.forward(next_hop:0xb1, port:1)\n"
                     "setdefault KitIngress.ipv4_lpm KitIngress.forward(port:2, next_hop:0x3)\nmirroring_add 5 3\n")
    assert stf_to_cli(cmds, prog) == [
        "table_add KitIngress.ipv4_lpm KitIngress.forward 0xa000100/24 => 0x1 0xb1",
        "table_set_default KitIngress.ipv4_lpm KitIngress.forward 0x2 0x3",
        "mirroring_add 5 3"]


def test_stf_translation_runs_on_the_embedded_cli():
    # the commands meant for simple_switch_CLI are accepted by the embedded target's CLI too
    for name in ("lpm_forward", "epdn_option", "label_stack", "recirculate_clone"):
        prog = load_program(KIT / f"{name}.json")
        sw = SimpleSwitch(prog)
        sw.run_commands("\n".join(stf_to_cli(parse_stf((KIT / f"{name}.stf").read_text()), prog)))


def test_add_without_an_exact_key_gives_it_the_value_0_as_p4c_runner(tmp_path):
    # bmv2stf.py (TableKeyInstance) fills a missing exact or valid key with "0"
    stf = tmp_path / "k.stf"
    stf.write_text("add KitIngress.stamp hdr.tcp.dport:80 KitIngress.insert_option(lo:1, hi:2)\n")
    res = run_stf(KIT / "epdn_option.json", stf)
    assert res.ok, res.failures
    [line] = stf_to_cli(parse_stf(stf.read_text()), load_program(KIT / "epdn_option.json"))
    assert line == "table_add KitIngress.stamp KitIngress.insert_option 0x50 0 => 0x1 0x2"


def test_check_counter_compares_packets_and_bytes(tmp_path):
    import json
    prog = json.loads((KIT / "lpm_forward.json").read_text())
    prog["counter_arrays"] = [{"name": "KitIngress.fwd", "id": 0, "is_direct": False, "size": 4}]
    fwd = next(a for a in prog["actions"] if a["name"] == "KitIngress.forward")
    fwd["primitives"].append({"op": "count", "parameters": [{"type": "counter_array", "value": "KitIngress.fwd"},
                                                            {"type": "hexstr", "value": "0x1"}]})
    stf = tmp_path / "c.stf"
    stf.write_text(ROUTE + f"packet 0 {IN}\nexpect 1 {OUT}$\ncheck_counter KitIngress.fwd(1) packets == 1\n"
                   f"check_counter KitIngress.fwd(1) bytes == {len(IN) // 2}\ncheck_counter KitIngress.fwd(1) > 1\n")
    res = run_stf(prog, stf)
    assert res.failures == ["line 6: counter KitIngress.fwd(1) packets is 1, expected > 1"]


def test_larger_stf_priority_wins_as_in_p4c_runner(tmp_path):
    # p4c's bmv2stf.py gives simple_switch 10000 - priority (a larger STF priority wins; in
    # BMv2 the smaller value does): of two matching ternary entries, the one added with 110
    # beats the one added with 100, whatever the order (p4c's ternary2-bmv2 relies on it)
    import json
    prog_json = tmp_path / "p.json"
    prog_json.write_text(json.dumps(table_prog([("ternary", "a")])))
    pkt = frame(pack(FIELDS, {"a": 0x25})).hex()
    out = frame(pack(FIELDS, {"a": 0x25, "r": 0x27})).hex()
    stf = tmp_path / "t.stf"
    stf.write_text("add MyIngress.t 110 h.a:0x25 MyIngress.setr(v:0x27)\n"
                   "add MyIngress.t 100 h.a:0x2* MyIngress.setr(v:0x25)\n"
                   f"packet 0 {pkt}\nexpect 1 {out}$\n")
    res = run_stf(prog_json, stf)
    assert res.ok, res.failures
    lines = stf_to_cli(parse_stf(stf.read_text()), load_program(prog_json))
    assert [line.rsplit(" ", 1)[1] for line in lines] == ["9890", "9900"]


def _table_stf(tmp_path, keys, body: str):
    """(embedded result, simple_switch_CLI lines or the error) of an STF over MyIngress.t."""
    import json
    prog_json = tmp_path / "p.json"
    prog_json.write_text(json.dumps(table_prog(keys)))
    stf = tmp_path / "t.stf"
    stf.write_text(body)
    try:
        lines = stf_to_cli(parse_stf(body), load_program(prog_json))
    except StfAddError as e:
        lines = str(e)
    return run_stf(prog_json, stf), lines


def test_a_ternary_add_without_priority_fails_as_in_p4c_runner(tmp_path):
    # bmv2stf.py appends the priority only to adds of tables whose match_type is "ternary";
    # without one it appends None and fails (a larger priority wins otherwise)
    res, lines = _table_stf(tmp_path, [("ternary", "a")], "add MyIngress.t h.a:0x25 MyIngress.setr(v:1)\n")
    msg = "an add to the ternary table MyIngress.t needs a priority"
    assert len(res.failures) == 1 and res.failures[0].startswith(f"line 1: {msg}")
    assert lines.startswith(msg)


def test_priority_zero_is_sent_as_10000(tmp_path):
    res, lines = _table_stf(tmp_path, [("ternary", "a")], "add MyIngress.t 0 h.a:0x25 MyIngress.setr(v:1)\n")
    assert res.ok and lines == ["table_add MyIngress.t MyIngress.setr 0x25&&&0xff => 0x1 10000"]


def test_an_lpm_or_exact_add_sends_no_priority(tmp_path):
    # the STF's priority is dropped: simple_switch_CLI uses 0 for these tables
    res, lines = _table_stf(tmp_path, [("lpm", "b")], "add MyIngress.t 7 h.b:0x0a****** MyIngress.setr(v:1)\n"
                            "add MyIngress.t h.b:0x0b****** MyIngress.setr(v:2)\n")
    assert res.ok, res.failures
    assert lines == ["table_add MyIngress.t MyIngress.setr 0xa000000/8 => 0x1",
                     "table_add MyIngress.t MyIngress.setr 0xb000000/8 => 0x2"]


def test_an_add_to_a_table_with_a_range_key_fails_as_in_p4c_runner(tmp_path):
    res, lines = _table_stf(tmp_path, [("range", "a")], "add MyIngress.t 1 h.a:5 MyIngress.setr(v:1)\n")
    msg = "p4c's STF runner cannot add to table MyIngress.t: its key hdr.h.a is a range key"
    assert res.failures[0].startswith(f"line 1: {msg}") and lines.startswith(msg)


@pytest.mark.parametrize("stf_name, index", [
    ("hdr.ipv4.dstAddr", 0), ("ipv4.dstAddr", 0), ("dstAddr", 0),        # exact, then ".name" suffix
    ("hdr.labels$0.label", 1),                                           # $N is a stack index
    ("hdr.epdn", 2), ("hdr.epdn.valid", 2),                              # header validity spellings
    ("nosuch", None)])
def test_stf_key_names_resolve_as_p4c_runner(stf_name, index):
    keys = ["hdr.ipv4.dstAddr", "hdr.labels[0].label", "hdr.epdn.$valid$"]
    assert stf_key_index(keys, stf_name) == index


def test_stf_table_and_action_names_resolve_by_suffix_and_refuse_ambiguity():
    assert stf_name("table", ["MyIngress.ipv4_lpm", "MyEgress.t"], "ipv4_lpm") == "MyIngress.ipv4_lpm"
    with pytest.raises(KeyError, match="ambiguous table 't'"):
        stf_name("table", ["MyIngress.t", "MyEgress.t"], "t")
