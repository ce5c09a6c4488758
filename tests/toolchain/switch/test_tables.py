"""Match tables: exact, LPM (longest prefix wins), ternary/range (lowest priority value wins),
defaults, const entries, hit/miss next tables, direct counters, and table operations."""

import pytest

from toolchain.switch import CliError, SimpleSwitch

from .tables_kit import send, table_prog


def test_exact_match_hits_and_misses_to_default():
    sw = SimpleSwitch(table_prog([("exact", "a")], default=("MyIngress.setr", [9])))
    sw.cli("table_add MyIngress.t MyIngress.setr 5 => 77")
    assert send(sw, a=5)["r"] == 77
    assert send(sw, a=6)["r"] == 9


def test_lpm_longest_prefix_wins_regardless_of_insertion_order():
    sw = SimpleSwitch(table_prog([("lpm", "b")]))
    sw.cli("table_add t setr 10.0.0.0/8 => 8")
    sw.cli("table_add t setr 10.0.1.0/24 => 24")
    sw.cli("table_add t setr 10.0.0.0/16 => 16")
    sw.cli("table_add t setr 0.0.0.0/0 => 1")
    assert send(sw, b=0x0A000105)["r"] == 24
    assert send(sw, b=0x0A000205)["r"] == 16
    assert send(sw, b=0x0A010101)["r"] == 8
    assert send(sw, b=0x0B000000)["r"] == 1


def test_lpm_with_exact_key_requires_both():
    sw = SimpleSwitch(table_prog([("exact", "a"), ("lpm", "b")]))
    sw.cli("table_add t setr 1 10.0.0.0/8 => 5")
    assert send(sw, a=1, b=0x0A000001)["r"] == 5
    assert send(sw, a=2, b=0x0A000001)["r"] == 0


def test_ternary_lowest_priority_value_wins():
    sw = SimpleSwitch(table_prog([("ternary", "a")]))
    sw.cli("table_add t setr 0x00&&&0x00 => 1 20")
    sw.cli("table_add t setr 0x10&&&0xF0 => 2 10")
    assert send(sw, a=0x15)["r"] == 2
    assert send(sw, a=0x25)["r"] == 1


def test_range_match_inclusive_bounds():
    sw = SimpleSwitch(table_prog([("range", "a")]))
    sw.cli("table_add t setr 10->20 => 3 1")
    assert [send(sw, a=v)["r"] for v in (9, 10, 20, 21)] == [0, 3, 3, 0]


def test_const_entries_from_json_with_priorities():
    entries = [{"match_key": [{"match_type": "ternary", "key": "0xff", "mask": "0xff"}],
                "action_entry": {"action_id": 12, "action_data": []}, "priority": 1},
               {"match_key": [{"match_type": "ternary", "key": "0x00", "mask": "0x00"}],
                "action_entry": {"action_id": 10, "action_data": ["0x7"]}, "priority": 2}]
    sw = SimpleSwitch(table_prog([("ternary", "a")], entries=entries))
    assert send(sw, a=0xFF)["r"] == 0
    assert send(sw, a=0x01)["r"] == 7


def test_mac_and_ipv4_literals_in_action_data():
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    sw.cli("table_add t set2 1 => 4 00:11:22:33:44:55")
    r = send(sw, a=1)
    assert r["r"] == 4 and r["m"] == 0x001122334455


def test_hit_and_miss_select_next_tables():
    sw = SimpleSwitch(table_prog([("exact", "a")], hit_miss=True))
    sw.cli("table_add t nop 1 =>")
    assert send(sw, a=1)["s"] == 1
    assert send(sw, a=2)["s"] == 2


def test_table_modify_delete_and_clear():
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    sw.cli("table_add t setr 1 => 5")
    sw.cli("table_modify t setr 0 6")
    assert send(sw, a=1)["r"] == 6
    sw.cli("table_delete t 0")
    assert send(sw, a=1)["r"] == 0
    sw.cli("table_add t setr 1 => 5")
    assert sw.cli("table_num_entries t") == "1"
    sw.cli("table_clear t")
    assert sw.cli("table_num_entries t") == "0"


def test_set_default_changes_miss_action():
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    out = sw.cli("table_set_default t setr 42")
    assert out.splitlines()[0] == "Setting default action of t"     # the name as typed
    assert send(sw, a=3)["r"] == 42


def test_const_default_action_cannot_change():
    sw = SimpleSwitch(table_prog([("exact", "a")], default=("MyIngress.setr", [1]), const_default=True))
    with pytest.raises(CliError, match=r"Invalid table operation \(DEFAULT_ENTRY_IS_CONST\)"):
        sw.cli("table_set_default t setr 2")


def test_duplicate_entry_and_full_table_are_refused():
    sw = SimpleSwitch(table_prog([("exact", "a")], max_size=2))
    sw.cli("table_add t setr 1 => 5")
    with pytest.raises(CliError, match=r"Invalid table operation \(DUPLICATE_ENTRY\)"):
        sw.cli("table_add t setr 1 => 6")
    sw.cli("table_add t setr 2 => 5")
    with pytest.raises(CliError, match=r"Invalid table operation \(TABLE_FULL\)"):
        sw.cli("table_add t setr 3 => 5")


def test_entry_handles_are_numbered_as_bmv2_numbers_them_also_without_the_cli():
    # the table itself, not only the CLI: the lowest free internal handle, its version byte
    # bumped when the entry goes, so an old handle is EXPIRED_HANDLE rather than a new entry's
    from toolchain.switch.bm_sim.tables import MatchParam, TableOpError
    sw = SimpleSwitch(table_prog([("exact", "a")]))
    t = sw.tables["MyIngress.t"]
    first = t.add([MatchParam("exact", 1, 0)], "MyIngress.setr", (5,))
    second = t.add([MatchParam("exact", 2, 0)], "MyIngress.setr", (6,))
    assert (first, second) == (0, 1)
    t.delete(first)
    again = t.add([MatchParam("exact", 3, 0)], "MyIngress.setr", (7,))
    assert again == 1 << 24                          # internal handle 0, version 1
    with pytest.raises(TableOpError, match="EXPIRED_HANDLE"):
        t.entry(first)
    t.clear()
    with pytest.raises(TableOpError, match="INVALID_HANDLE"):
        t.entry(again)
    assert t.add([MatchParam("exact", 4, 0)], "MyIngress.setr", (8,)) == 2 << 24


def test_direct_counter_counts_hits_per_entry():
    sw = SimpleSwitch(table_prog([("exact", "a")], with_counters=True))
    sw.cli("table_add t setr 1 => 5")
    send(sw, a=1)
    send(sw, a=1)
    send(sw, a=2)
    assert sw.runtime.counter_read("MyIngress.t_counter", 0) == (2, 2 * (14 + 13))
    assert sw.cli("counter_read t_counter 0").endswith("t_counter[0]= (54 bytes, 2 packets)")


def test_table_dump_lists_entries_and_default():
    sw = SimpleSwitch(table_prog([("lpm", "b")]))
    sw.cli("table_add t setr 10.0.0.0/8 => 8")
    dump = sw.cli("table_dump t").splitlines()
    assert dump[:6] == ["==========", "TABLE ENTRIES", "**********", "Dumping entry 0x0", "Match key:",
                        "* h.b                 : LPM       0a000000/8"]
    assert dump[6] == "Action entry: MyIngress.setr - 08"
    assert dump[-3:] == ["Dumping default entry", "Action entry: MyIngress.nop - ", "=========="]


def test_switches_sharing_a_program_have_separate_tables():
    from toolchain.switch import load_program
    prog = load_program(table_prog([("exact", "a")]))
    s1, s2 = SimpleSwitch(prog), SimpleSwitch(prog)
    s1.cli("table_add t setr 1 => 5")
    assert send(s1, a=1)["r"] == 5
    assert send(s2, a=1)["r"] == 0


def test_keyless_table_runs_its_entry_if_it_has_one_else_the_default():
    sw = SimpleSwitch(table_prog([], default=("MyIngress.setr", [9])))
    assert send(sw, a=1)["r"] == 9
    sw.cli("table_add t setr => 4")
    assert send(sw, a=1)["r"] == 4
    sw.cli("table_delete t 0")
    assert send(sw, a=1)["r"] == 9


def test_keyless_table_with_const_default_still_runs_an_entry_added_at_run_time():
    # the const default's body is inlined into the pipeline (bm_sim/pipeline.py); an entry
    # added through the CLI must still take over, as in simple_switch
    sw = SimpleSwitch(table_prog([], default=("MyIngress.setr", [9]), const_default=True))
    assert send(sw, a=1)["r"] == 9
    sw.cli("table_add t setr => 4")
    assert send(sw, a=1)["r"] == 4
    sw.cli("table_delete t 0")
    assert send(sw, a=1)["r"] == 9


def test_hit_miss_next_tables_dispatch_at_run_time_after_inlining():
    sw = SimpleSwitch(table_prog([("exact", "a")], hit_miss=True))
    sw.cli("table_add t setr 1 => 5")
    assert send(sw, a=1)["s"] == 1
    assert send(sw, a=2)["s"] == 2


def test_lpm_key_is_kept_as_given_and_matched_on_its_prefix():
    # simple_switch dumps the key as it was added (0a000001/12) and matches its /12 prefix;
    # the same prefix given with other host bits is a duplicate
    sw = SimpleSwitch(table_prog([("lpm", "b")]))
    sw.cli("table_add t setr 10.0.0.1/12 => 12")
    assert "LPM       0a000001/12" in sw.cli("table_dump_entry t 0")
    assert send(sw, b=0x0A0F0000)["r"] == 12
    with pytest.raises(CliError, match="DUPLICATE_ENTRY"):
        sw.cli("table_add t setr 10.0.0.0/12 => 1")
