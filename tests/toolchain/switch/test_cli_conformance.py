"""simple_switch_CLI conformance details (behavioral-model tools/runtime_CLI.py, sswitch_CLI.py,
bm_sim match_units.cpp, simple_pre*.cpp), on our own small programs."""

import pytest

from toolchain.switch import CliError, RuntimeCLI, SimpleSwitch

from .tables_kit import table_prog


def make_cli(keys=(("exact", "a"),)):
    return RuntimeCLI(SimpleSwitch(table_prog(list(keys))).runtime)


def test_entry_handles_carry_bmv2_versions():
    cli = make_cli()
    assert cli.onecmd("table_add t setr 1 => 1").endswith("handle 0")
    assert cli.onecmd("table_add t setr 2 => 1").endswith("handle 1")
    cli.onecmd("table_delete t 0")
    # the lowest free internal handle, its version bumped by the delete, in the top byte
    assert cli.onecmd("table_add t setr 3 => 1").endswith("handle 16777216")
    assert cli.onecmd("table_dump_entry t 0") == "Invalid table operation (EXPIRED_HANDLE)"
    assert cli.onecmd("table_dump_entry t 16777216").splitlines()[0] == "Dumping entry 0x1000000"
    cli.onecmd("table_clear t")
    assert cli.onecmd("table_add t setr 4 => 1").endswith("handle 33554432")


def test_output_printed_before_a_failing_call_is_kept():
    cli = make_cli()
    cli.onecmd("table_add t setr 1 => 1")
    assert cli.onecmd("table_add t setr 1 => 2").splitlines() == [
        "Adding entry to exact match table t",
        "match key:           EXACT-01",
        "action:              setr",
        "runtime data:        02",
        "Invalid table operation (DUPLICATE_ENTRY)"]
    assert cli.onecmd("table_modify t setr 0 5") == "Modifying entry 0 for exact match table t"


def test_empty_line_repeats_and_comments_are_unknown_syntax():
    cli = make_cli()
    cli.onecmd("table_add t setr 1 => 1")
    assert cli.onecmd("   ").endswith("Invalid table operation (DUPLICATE_ENTRY)")
    assert cli.onecmd("# a comment") == "*** Unknown syntax: # a comment"
    assert cli.onecmd("table_num_entries\tt") == "1"           # the command ends at a non-identifier


def test_run_commands_skips_blank_and_comment_lines():
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    sw.run_commands("# routes\ntable_add t setr 1 => 1\n\ntable_add t setr 2 => 1\n")
    assert sw.cli("table_num_entries t") == "2"


@pytest.mark.parametrize("line, message", [
    ("table_modify t setr 0", "IndexError: list index out of range"),
    ("table_add t setr 1.2.3 => 1", "Invalid match key: Error while parsing 1.2.3 - Invalid input, could not cast "
                                    "to integer, try in hex with 0x prefix"),
    ("table_delete t 0x1", "Error: Bad format for entry handle"),
    ("register_write reg 0 0x10", "Error: Invalid register name (reg)"),
    ("mirroring_add x 1", "Error: Bad format for mirror_id, expected integer"),
    ("mc_node_create 1 2 2", "Error: Found duplicate port number '2'"),
])
def test_real_cli_errors(line, message):
    assert make_cli().onecmd(line) == message


def test_negative_parameters_are_sent_as_zero():
    out = make_cli().onecmd("table_add t setr -5 => -1")
    assert "EXACT-00" in out and "runtime data:        00" in out


def test_ipv4_form_for_32_bit_fields():
    cli = make_cli([("lpm", "b")])
    assert cli.onecmd("table_add t setr 10.0.0/8 => 1") == \
        "Invalid match key: Error while parsing 10.0.0 - Invalid IPv4 address"


def test_priority_only_for_ternary_and_range_tables():
    cli = make_cli([("ternary", "a")])
    cli.onecmd("table_add t setr 1&&&0xff => 1 7")
    assert "Priority: 7" in cli.onecmd("table_dump t")
    lpm = make_cli([("lpm", "b")])
    lpm.onecmd("table_add t setr 10.0.0.0/8 => 1")
    assert "Priority" not in lpm.onecmd("table_dump t")


def test_mc_groups_dump_in_bmv2_map_order_and_lag_quirk():
    cli = make_cli()
    assert cli.onecmd("mc_mgrp_create 1") == "Creating multicast group 1"
    assert cli.onecmd("mc_mgrp_create 1") == "Creating multicast group 1"    # no error in bmv2
    cli.onecmd("mc_mgrp_create 2")
    assert cli.onecmd("mc_node_create 3 4 | 2") == ("Creating node with rid 3 , port map 10000 and lag map 100\n"
                                                    "node was created with handle 0")
    cli.onecmd("mc_node_create 7 1 6")
    cli.onecmd("mc_node_associate 2 0")
    cli.onecmd("mc_node_associate 1 1")
    assert cli.onecmd("mc_node_associate 1 0") == \
        "Associating node 0 to multicast group 1\nInvalid PRE operation (ERROR)"
    assert cli.onecmd("mc_set_lag_membership 2 3 9") == "Setting lag membership: 2 <- 1000001000"
    assert cli.onecmd("mc_node_update 1 5 | 3") == "Updating node 1 with port map 100000 and lag map 1000"
    # groups in libstdc++ unordered_map order (2 before 1); a LAG line shows the ports of the
    # last node printed, as runtime_CLI.py does
    assert cli.onecmd("mc_dump").splitlines() == [
        "==========", "MC ENTRIES",
        "**********", "mgrp(2)", "  -> (L1h=0, rid=3) -> (ports=[4], lags=[2])",
        "**********", "mgrp(1)", "  -> (L1h=1, rid=7) -> (ports=[5], lags=[3])",
        "==========", "LAGS", "lag(2) -> ports=[5]", "=========="]


def test_lag_member_is_replicated():
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    cli = RuntimeCLI(sw.runtime)
    for line in ("mc_mgrp_create 1", "mc_node_create 0 1 | 4", "mc_node_associate 1 0",
                 "mc_set_lag_membership 4 2 3 5"):
        cli.onecmd(line)
    # SimplePreLAG: member number (0xFF % 3) + 1 of the LAG, i.e. port 2
    assert sw.mc_groups_expanded(1) == [(0, 1), (0, 2)]


def test_mirroring_get_prints_the_thrift_struct():
    cli = make_cli()
    cli.onecmd("mirroring_add 5 3")
    assert cli.onecmd("mirroring_get 5") == "MirroringSessionConfig(port=3, mgid=None)"
    # out of range: not added (simple_switch logs "mirror_id out of range. No session added."
    # where simple_switch_CLI prints nothing; the library's CLI says it)
    assert cli.onecmd("mirroring_add 40000 3") == \
        "Error: mirror_id 40000 out of range (0..32767), no session added"
    assert cli.onecmd("mirroring_get 40000") == "Invalid mirroring operation (SESSION_NOT_FOUND)"


def test_run_raises_with_printed_text():
    cli = make_cli()
    with pytest.raises(CliError) as e:
        cli.run("table_delete t 3")
    assert e.value.message == "Deleting entry 3 from t\nInvalid table operation (INVALID_HANDLE)"
