"""The runtime's whole-switch and per-entry state operations: reset_state as BMv2 resets,
direct counters and meters through their table's entries, BMv2's error codes."""

import pytest

from toolchain.switch import CliError, SimpleSwitch
from toolchain.switch.runtime import OpError

from .tables_kit import table_prog


def state_switch(*, const_entries: bool = True) -> SimpleSwitch:
    # a table with const entries takes no others (BMv2's set_immutable_entries)
    entries = [{"match_key": [{"match_type": "exact", "key": "0x09"}],
                "action_entry": {"action_id": 10, "action_data": ["0x01"]}, "priority": 1}]
    p = table_prog([("exact", "a")], with_counters=True, entries=entries if const_entries else None)
    p["register_arrays"].append({"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 16})
    p["counter_arrays"].append({"name": "MyIngress.cnt", "id": 1, "is_direct": False, "size": 2})
    p["meter_arrays"].append({"name": "MyIngress.mtr", "id": 0, "is_direct": False, "size": 2,
                              "rate_count": 2, "type": "packets"})
    p["parse_vsets"] = [{"name": "pvs", "id": 0, "compressed_bitwidth": 8, "max_size": 4}]
    return SimpleSwitch(p)


def test_reset_state_empties_and_zeroes_what_p4objects_resets():
    # P4Objects::reset_state: match tables (default back to the JSON's), counter arrays,
    # registers, meters (unconfigured); simple_switch's reset_target_state_: the PRE
    sw = state_switch(const_entries=False)
    for line in ("table_add t setr 5 => 7", "table_add t setr 6 => 7", "table_delete t 0",
                 "table_set_default t setr 3", "register_write reg 1 7",
                 "counter_write MyIngress.cnt 0 1 2", "meter_set_rates mtr 0 0.5:10 1:20",
                 "mc_mgrp_create 1", "mc_node_create 0 1"):
        sw.cli(line)
    sw.cli("reset_state")
    t = sw.tables["MyIngress.t"]
    assert t.entries == {} and t.default_action == "MyIngress.nop"   # the JSON's default
    assert sw.runtime.register_read_all("reg") == [0, 0, 0, 0]
    assert sw.runtime.counter_read("cnt", 0) == (0, 0)
    assert sw.runtime.meter_get_rates("mtr", 0) == []
    assert sw.mc_nodes == {} and sw.runtime.mc_entries() == []
    # the match unit is renewed: handles from 0, version byte 0 (MatchUnitAbstract::reset_state)
    assert sw.cli("table_add t setr 5 => 7").endswith("handle 0")


def test_reset_state_removes_const_entries_and_the_table_stays_immutable():
    # MatchTable::reset_state_ empties the match unit; nothing puts the JSON's entries back,
    # and the immutable flag set at load time stays: the table holds nothing from then on
    sw = state_switch()
    assert sw.runtime.table_num_entries("MyIngress.t") == 1
    sw.cli("reset_state")
    assert sw.runtime.table_num_entries("MyIngress.t") == 0
    with pytest.raises(CliError, match=r"IMMUTABLE_TABLE_ENTRIES"):
        sw.cli("table_add t setr 9 => 1")


def test_reset_state_keeps_value_sets_mirroring_crc_parameters_and_queues():
    # none of these is in P4Objects::reset_state or SimpleSwitch::reset_target_state_
    p = state_switch().program.json
    p["calculations"].append({"name": "calc", "id": 0, "algo": "crc16_custom",
                              "input": [{"type": "field", "value": ["h", "a"]}]})
    sw = SimpleSwitch(p)
    for line in ("pvs_add pvs 4", "mirroring_add 3 4", "set_queue_rate 50 1",
                 "set_crc16_parameters calc 0x1021 0xffff 0x0 false false"):
        sw.cli(line)
    crc = sw.hash_algorithms[0].params
    sw.cli("reset_state")
    assert sw.runtime.pvs_get("pvs") == [4] and sw.mirroring == {3: {"port": 4}}
    assert sw.tm.queues[1].rate_pps == 50
    assert sw.hash_algorithms[0].params == crc and crc.initial == 0xFFFF


def test_direct_counter_is_the_tables_entry_counter():
    sw = state_switch(const_entries=False)
    sw.cli("table_add t setr 5 => 7")                                 # handle 0
    sw.cli("counter_write t_counter 0 3 300")
    assert sw.runtime.table_counter_read("MyIngress.t", 0) == (3, 300)
    assert sw.cli("counter_read t_counter 0").endswith("t_counter[0]= (300 bytes, 3 packets)")
    with pytest.raises(OpError) as e:
        sw.runtime.counter_read("t_counter", 7)
    assert (e.value.kind, e.value.code) == ("table", "INVALID_HANDLE")


def test_counter_write_sends_the_name_as_typed_like_runtime_cli():
    sw = state_switch()
    with pytest.raises(CliError, match=r"Invalid counter operation \(INVALID_COUNTER_NAME\)"):
        sw.cli("counter_write cnt 0 1 1")
    assert sw.cli("counter_write MyIngress.cnt 0 1 1") == "MyIngress.cnt[0] has been updated"


def test_register_write_range_is_half_open_and_checked():
    sw = state_switch()
    sw.runtime.register_write_range("MyIngress.reg", 1, 3, 0x1FFFF)
    assert sw.runtime.register_read_all("reg") == [0, 0xFFFF, 0xFFFF, 0]
    for start, end in ((2, 5), (3, 2)):
        with pytest.raises(OpError, match="INVALID_INDEX"):
            sw.runtime.register_write_range("reg", start, end, 1)


def test_exact_names_give_bmv2_codes_instead_of_cli_messages():
    rt = state_switch().runtime
    rt.exact_names = True
    for call, code in ((lambda: rt.table("t"), "INVALID_TABLE_NAME"),
                       (lambda: rt.register_read("reg", 0), "INVALID_REGISTER_NAME"),
                       (lambda: rt.counter_read("cnt", 0), "INVALID_COUNTER_NAME"),
                       (lambda: rt.table_add("MyIngress.t", "setr", [], []), "INVALID_ACTION_NAME"),
                       (lambda: rt.meter_set_rates("MyIngress.mtr", 0, [(1.0, 1)]), "BAD_RATES_LIST"),
                       (lambda: rt.pvs_get("nosuch"), "INVALID_PARSE_VSET_NAME")):
        with pytest.raises(OpError) as e:
            call()
        assert e.value.code == code
    rt.exact_names = False
    with pytest.raises(CliError, match=r"Error: Invalid table name \(nosuch\)"):
        rt.table("nosuch")
