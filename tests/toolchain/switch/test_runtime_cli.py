"""simple_switch_CLI commands: output text and every error message."""

import pytest

from toolchain.switch import CliError, RuntimeCLI, SimpleSwitch

from .tables_kit import send, table_prog


def make_switch(keys=(("exact", "a"),)):
    prog = table_prog(list(keys))
    prog["register_arrays"].append({"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 16})
    prog["counter_arrays"].append({"name": "MyIngress.cnt", "id": 1, "is_direct": False, "size": 2})
    prog["meter_arrays"].append({"name": "MyIngress.mtr", "id": 0, "is_direct": False, "size": 2,
                                 "rate_count": 2, "type": "packets"})
    return SimpleSwitch(prog)


def test_table_add_prints_like_simple_switch_cli():
    sw = make_switch([("lpm", "b")])
    out = sw.cli("table_add MyIngress.t MyIngress.set2 10.0.1.0/24 => 1 00:00:00:00:01:01")
    assert out.splitlines() == [
        "Adding entry to lpm match table MyIngress.t",
        "match key:           LPM-0a:00:01:00/24",
        "action:              MyIngress.set2",
        "runtime data:        01\t00:00:00:00:01:01",
        "Entry has been added with handle 0",
    ]


def test_ternary_key_and_priority_printout():
    sw = make_switch([("ternary", "a")])
    out = sw.cli("table_add t setr 0x10&&&0xf0 => 3 7")
    assert "match key:           TERNARY-10 &&& f0" in out
    assert out.endswith("Entry has been added with handle 0")


ERRORS = [
    ("table_add nosuch setr 1 => 2", "Error: Invalid table name (nosuch)"),
    ("table_add t fly 1 => 2", "Error: Table t has no action fly"),          # names as typed
    ("table_add t setr => 2", "Error: Table t needs 1 key fields"),
    ("table_add t setr 1 2 => 2", "Error: Table t needs 1 key fields"),
    ("table_add t setr 1 => 2 3", "Error: Action MyIngress.setr needs 1 parameters"),
    ("table_add t setr 1 =>", "Error: Action MyIngress.setr needs 1 parameters"),
    ("table_add t setr 1 => zz", "Invalid runtime data: Error while parsing zz - Invalid input, could not cast to "
                                  "integer, try in hex with 0x prefix"),
    ("table_add t setr 1 => 0x1ff", "Invalid runtime data: Error while parsing 0x1ff - Parameter is too large"),
    ("table_add t setr qq => 1", "Invalid match key: Error while parsing qq - Invalid input, could not cast to "
                                  "integer, try in hex with 0x prefix"),
    ("table_add t", "Error: Insufficient number of args"),
    ("table_delete t 9", "Deleting entry 9 from t\nInvalid table operation (INVALID_HANDLE)"),
    ("table_delete t", "Error: Wrong number of args, expected 2 but got 1"),
    ("table_modify t setr 3 1", "Modifying entry 3 for exact match table t\nInvalid table operation (INVALID_HANDLE)"),
    ("table_set_default t fly", "Error: Table t has no action fly"),
    ("table_dump_entry t 0", "Invalid table operation (INVALID_HANDLE)"),
    ("register_read nosuch 0", "Error: Invalid register name (nosuch)"),
    ("register_read reg 4", "Invalid register operation (INVALID_INDEX)"),
    ("register_write reg 9 1", "Invalid register operation (INVALID_INDEX)"),
    ("register_write reg 1", "Error: Wrong number of args, expected 3 but got 2"),
    ("register_write reg x 1", "Error: Bad format for index"),
    ("counter_read nosuch 0", "Error: Invalid counter name (nosuch)"),
    ("counter_read cnt 5", "Invalid counter operation (INVALID_INDEX)"),
    ("meter_set_rates mtr 0 1:10", "Error: Invalid number of rates, expected 2 but got 1"),
    ("meter_set_rates mtr 7 1:10 2:20", "Invalid meter operation (INVALID_INDEX)"),
    ("meter_set_rates mtr 0 2:10 1:20", "Invalid meter operation (INVALID_INFO_RATE_VALUE)"),
    ("meter_set_rates mtr 0 1-10 2:20", "Error: Error while parsing rates"),
    ("mirroring_delete 3", "Invalid mirroring operation (SESSION_NOT_FOUND)"),
    ("set_queue_depth", "Error: Insufficient number of args"),
    ("mc_node_associate 1 0", "Associating node 0 to multicast group 1\nInvalid PRE operation (INVALID_L1_HANDLE)"),
    ("frobnicate 1 2", "*** Unknown syntax: frobnicate 1 2"),
]


@pytest.mark.parametrize("line, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_cli_error_messages_match_simple_switch_cli(line, message):
    sw = make_switch()
    with pytest.raises(CliError) as e:
        sw.cli(line)
    assert e.value.message == message


@pytest.mark.parametrize("line, message", [
    ("table_add t setr 10.0.0.0 => 1", "Invalid match key: Invalid LPM value 10.0.0.0, use '/' to separate prefix and length"),
    ("table_add t setr 10.0.0.0/33 => 1", "Adding entry to lpm match table t\nmatch key:           LPM-0a:00:00:00/33\n"
     "action:              setr\nruntime data:        01\nInvalid table operation (BAD_MATCH_KEY)"),
])
def test_lpm_key_errors(line, message):
    sw = make_switch([("lpm", "b")])
    with pytest.raises(CliError) as e:
        sw.cli(line)
    assert e.value.message == message


@pytest.mark.parametrize("line, message", [
    ("table_add t setr 0x10 => 1 5", "Invalid match key: Invalid ternary value 0x10, use '&&&' to separate key and mask"),
    ("table_add t setr 0x10&&&0xff => 1 x", "Error: Table is ternary, but could not extract a valid priority from args"),
])
def test_ternary_key_errors(line, message):
    sw = make_switch([("ternary", "a")])
    with pytest.raises(CliError) as e:
        sw.cli(line)
    assert e.value.message == message


def test_range_key_error():
    sw = make_switch([("range", "a")])
    with pytest.raises(CliError) as e:
        sw.cli("table_add t setr 5 => 1 1")
    assert e.value.message == "Invalid match key: Invalid range value 5, use '->' to separate range start and range end"


def test_onecmd_returns_error_text_instead_of_raising():
    cli = RuntimeCLI(make_switch().runtime)
    assert cli.onecmd("") == ""                     # nothing to repeat yet
    assert cli.onecmd("table_add nosuch a 1 => 1") == "Error: Invalid table name (nosuch)"
    # cmd.Cmd (simple_switch_CLI's base): an empty line repeats the last command
    assert cli.onecmd("") == "Error: Invalid table name (nosuch)"


def test_register_write_read_and_reset():
    sw = make_switch()
    sw.cli("register_write MyIngress.reg 2 131071")         # truncated to the 16-bit width
    assert sw.cli("register_read reg 2") == "reg[2]= 65535"          # the name as typed
    assert sw.runtime.register_read("MyIngress.reg", 2) == 0xFFFF
    assert sw.cli("register_read MyIngress.reg") == "MyIngress.reg= 0, 0, 65535, 0"
    sw.cli("register_reset reg")
    assert sw.runtime.register_read("reg", 2) == 0


def test_counter_read_and_reset_format():
    sw = make_switch()
    assert sw.cli("counter_read cnt 1") == "cnt[1]= (0 bytes, 0 packets)"
    sw.cli("counter_reset cnt")


def test_run_commands_reports_failing_line_number(tmp_path):
    sw = make_switch()
    path = tmp_path / "commands.txt"
    path.write_text("# routes\ntable_add t setr 1 => 2\n\ntable_add t nope 2 => 3\n")
    with pytest.raises(CliError) as e:
        sw.run_commands(str(path))
    assert e.value.line == 4 and "Table t has no action nope" in str(e.value)
    assert send(sw, a=1)["r"] == 2          # lines before the failure were applied


def test_run_commands_accepts_text():
    sw = make_switch()
    out = sw.run_commands("table_add t setr 1 => 2\ntable_num_entries t\n")
    assert out.splitlines()[-1] == "1"


def test_show_tables_and_actions_list_program_objects():
    sw = make_switch([("lpm", "b")])
    assert "MyIngress.t" in sw.cli("show_tables") and "h.b(lpm, 32)" in sw.cli("show_tables")
    assert "MyIngress.set2                 [v(8),\tmac(48)]" in sw.cli("show_actions")


def test_commands_list_names_and_help_for_a_prompt():
    cmds = dict(RuntimeCLI(make_switch().runtime).commands())
    for name in ("table_add", "table_set_default", "register_read", "counter_read", "meter_set_rates",
                 "set_queue_depth", "set_queue_rate", "mirroring_add", "mc_mgrp_create", "show_tables"):
        assert name in cmds and cmds[name]


def test_suffix_names_resolve_like_simple_switch_cli():
    sw = make_switch()
    sw.cli("table_add t setr 1 => 2")
    sw.cli("table_add MyIngress.t MyIngress.setr 2 => 3")
    assert sw.cli("table_num_entries MyIngress.t") == "2"


def test_run_commands_with_a_missing_file_says_so(tmp_path):
    with pytest.raises(CliError, match="cannot read commands file"):
        make_switch().run_commands(str(tmp_path / "nope.txt"))


def test_mc_dump_lists_groups_nodes_ports_and_lags_as_simple_switch_cli():
    from .jsonkit import program
    sw = SimpleSwitch(program([["a", 8, False]]))
    sw.cli("mc_mgrp_create 1")
    sw.cli("mc_node_create 2 1 5 8 | 1 3")
    sw.cli("mc_node_associate 1 0")
    sw.cli("mc_node_create 4 5 8")
    sw.cli("mc_node_associate 1 1")
    assert sw.cli("mc_dump").splitlines() == [
        "==========", "MC ENTRIES", "**********", "mgrp(1)",
        "  -> (L1h=0, rid=2) -> (ports=[1, 5, 8], lags=[1, 3])",
        "  -> (L1h=1, rid=4) -> (ports=[5, 8], lags=[])",
        "==========", "LAGS", "=========="]
