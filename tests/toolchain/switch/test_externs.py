"""Registers, counters, meters (BMv2 two-rate three-color semantics), hash and random."""

import pytest

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, assign, frame, pack, prim, program, unpack

H = [["a", 8, False], ["b", 8, False], ["r", 32, False], ["color", 8, False]]


def ref(kind, name):
    return {"type": kind, "value": name}


def ext_prog(ingress):
    p = program(H, ingress)
    p["register_arrays"] = [{"name": "MyIngress.reg", "id": 0, "size": 8, "bitwidth": 32}]
    p["counter_arrays"] = [{"name": "MyIngress.cnt", "id": 0, "is_direct": False, "size": 4}]
    p["meter_arrays"] = [{"name": "MyIngress.pm", "id": 0, "is_direct": False, "size": 2, "rate_count": 2,
                          "type": "packets"},
                         {"name": "MyIngress.bm", "id": 1, "is_direct": False, "size": 2, "rate_count": 2,
                          "type": "bytes"}]
    p["calculations"] = [{"name": "calc", "id": 0, "algo": "crc16", "input": [F("h", "a"), F("h", "b")]},
                         {"name": "calc_r", "id": 1, "algo": "random", "input": []}]
    return p


def send(sw, now=0.0, **values):
    out = sw.process(0, frame(pack(H, values)), now=now)
    return unpack(H, out[0][1][14:])


def test_register_read_modify_write_accumulates_per_index():
    sw = SimpleSwitch(ext_prog([
        prim("register_read", F("h", "r"), ref("register_array", "MyIngress.reg"), F("h", "a")),
        assign("h", "r", E("&", E("+", F("h", "r"), X(1)), X(0xFFFFFFFF))),
        prim("register_write", ref("register_array", "MyIngress.reg"), F("h", "a"), F("h", "r"))]))
    assert [send(sw, a=3)["r"] for _ in range(3)] == [1, 2, 3]
    assert sw.runtime.register_read("MyIngress.reg", 3) == 3
    assert sw.runtime.register_read("MyIngress.reg", 2) == 0


def test_register_index_out_of_range_is_ignored():
    sw = SimpleSwitch(ext_prog([
        prim("register_write", ref("register_array", "MyIngress.reg"), X(100), X(7)),
        prim("register_read", F("h", "r"), ref("register_array", "MyIngress.reg"), X(100))]))
    assert send(sw, r=5)["r"] == 5
    assert sw.runtime.register_read_all("reg") == [0] * 8


def test_register_index_from_a_field_out_of_range_is_ignored_and_in_range_used():
    # h.a (8 bits) may exceed the 8-entry array: only the upper bound is tested, and a miss
    # leaves the register and the read's destination alone
    sw = SimpleSwitch(ext_prog([
        prim("register_write", ref("register_array", "MyIngress.reg"), F("h", "a"), F("h", "b")),
        prim("register_read", F("h", "r"), ref("register_array", "MyIngress.reg"), F("h", "a"))]))
    assert send(sw, a=200, b=9, r=5)["r"] == 5
    assert send(sw, a=7, b=9, r=5)["r"] == 9
    assert sw.runtime.register_read_all("reg") == [0] * 7 + [9]


def test_register_index_masked_to_the_array_size_needs_no_test():
    sw = SimpleSwitch(ext_prog([
        prim("register_write", ref("register_array", "MyIngress.reg"), E("&", F("h", "a"), X(7)), F("h", "b")),
        prim("register_read", F("h", "r"), ref("register_array", "MyIngress.reg"), E("&", F("h", "a"), X(7)))]))
    assert send(sw, a=0xFA, b=4)["r"] == 4
    assert sw.runtime.register_read("reg", 2) == 4


def test_register_read_into_a_narrower_field_is_truncated():
    # a 32-bit register read into the 8-bit h.b keeps the low byte (the mask is left out only
    # when the destination is at least as wide as the register)
    sw = SimpleSwitch(ext_prog([
        prim("register_read", F("h", "b"), ref("register_array", "MyIngress.reg"), X(1))]))
    sw.runtime.register_write("MyIngress.reg", 1, 0x12345678)
    assert send(sw, b=0)["b"] == 0x78


def test_register_write_truncates_to_the_register_width():
    p = ext_prog([prim("register_write", ref("register_array", "MyIngress.reg"), X(0), F("h", "r"))])
    p["register_arrays"][0]["bitwidth"] = 4
    sw = SimpleSwitch(p)
    send(sw, r=0x1F3)
    assert sw.runtime.register_read("reg", 0) == 3


def test_register_index_from_a_signed_field_below_zero_is_ignored():
    p = ext_prog([prim("register_write", ref("register_array", "MyIngress.reg"), F("h", "a"), X(6))])
    p["header_types"][3]["fields"][0][2] = True            # h.a: int<8>
    sw = SimpleSwitch(p)
    send(sw, a=0xFF)                                       # -1
    assert sw.runtime.register_read_all("reg") == [0] * 8


def test_counter_counts_again_after_a_reset_and_ignores_an_index_out_of_range():
    # the program updates the counter's lists in place: a reset must keep them the same lists
    sw = SimpleSwitch(ext_prog([prim("count", ref("counter_array", "MyIngress.cnt"), F("h", "a")),
                                prim("count", ref("counter_array", "MyIngress.cnt"), X(3))]))
    send(sw, a=1)
    sw.cli("counter_reset cnt")
    send(sw, a=1)
    send(sw, a=9)                                  # 4 entries: index 9 counts nothing
    assert sw.runtime.counter_read("MyIngress.cnt", 1) == (1, 14 + 7)
    assert sw.runtime.counter_read("MyIngress.cnt", 3) == (2, 2 * (14 + 7))
    assert [sw.runtime.counter_read("cnt", i)[0] for i in (0, 2)] == [0, 0]


def test_counter_counts_packets_and_bytes():
    sw = SimpleSwitch(ext_prog([prim("count", ref("counter_array", "MyIngress.cnt"), F("h", "a"))]))
    send(sw, a=1)
    send(sw, a=1)
    assert sw.runtime.counter_read("MyIngress.cnt", 1) == (2, 2 * (14 + 7))
    sw.cli("counter_reset cnt")
    assert sw.runtime.counter_read("cnt", 1) == (0, 0)


def test_meter_index_out_of_range_leaves_destination_unchanged():
    sw = SimpleSwitch(ext_prog([prim("execute_meter", ref("meter_array", "MyIngress.pm"), X(9), F("h", "color"))]))
    assert send(sw, color=7)["color"] == 7


@pytest.mark.parametrize("op, want", [("add", 12), ("subtract", 8), ("bit_and", 2), ("bit_or", 10), ("bit_xor", 8),
                                      ("shift_left", 40), ("shift_right", 2)])
def test_legacy_binary_primitives(op, want):
    sw = SimpleSwitch(ext_prog([prim(op, F("h", "r"), F("h", "a"), F("h", "b"))]))
    assert send(sw, a=10, b=2)["r"] == want


def test_unconfigured_meter_is_green():
    sw = SimpleSwitch(ext_prog([prim("execute_meter", ref("meter_array", "MyIngress.pm"), X(0), F("h", "color"))]))
    assert send(sw, color=9)["color"] == 0


def test_packet_meter_two_rate_three_color_marking():
    sw = SimpleSwitch(ext_prog([prim("execute_meter", ref("meter_array", "MyIngress.pm"), X(0), F("h", "color"))]))
    # committed 1 packet/s with burst 1, peak 2 packets/s with burst 2 (rates per microsecond)
    sw.cli("meter_set_rates pm 0 0.000001:1 0.000002:2")
    colors = [send(sw, now=0.0)["color"] for _ in range(3)]
    assert colors == [0, 1, 2]                # green, yellow (committed empty), red (peak empty)
    assert send(sw, now=1.0)["color"] == 0    # one second later the committed bucket refilled


def test_meter_buckets_fill_in_whole_tokens_counted_from_the_switch_start():
    # BMv2 (meters.cpp): by t microseconds after the switch started, a bucket has been credited
    # floor(t * rate) tokens; a packet takes whole tokens. Committed 250 packets/s (0.00025 per
    # microsecond) with a burst of 1; the peak rate is far away.
    sw = SimpleSwitch(ext_prog([prim("execute_meter", ref("meter_array", "MyIngress.pm"), X(0), F("h", "color"))]))
    sw.cli("meter_set_rates pm 0 0.00025:1 1:1000")
    times_ms = [0, 3, 5, 8, 11.9, 12]
    colors = [send(sw, now=t / 1000)["color"] for t in times_ms]
    # credited by then: 0, 0.75 -> 0, 1.25 -> 1, 2.0 -> 2, 2.975 -> 2, 3.0 -> 3 (whole tokens);
    # counted from the last packet in fractions, 8 ms would be yellow (0.75 of a token) and
    # 12 ms green only after 11.9 ms had been yellow as well
    assert colors == [0, 1, 0, 0, 1, 0]


def test_meter_refill_is_counted_from_the_switch_start_not_from_configuration():
    sw = SimpleSwitch(ext_prog([prim("execute_meter", ref("meter_array", "MyIngress.pm"), X(0), F("h", "color"))]))
    send(sw, now=0.0035)                       # time passes before the meter is configured
    sw.cli("meter_set_rates pm 0 0.00025:1 1:1000")
    # configured at 3.5 ms, full: green; at 4 ms the bucket is credited its token for the
    # first 4 ms of the switch (a bucket counted from 3.5 ms would hold 0.125 of one)
    assert [send(sw, now=t)["color"] for t in (0.0035, 0.004, 0.0041)] == [0, 0, 1]


def test_byte_meter_uses_packet_size():
    sw = SimpleSwitch(ext_prog([prim("execute_meter", ref("meter_array", "MyIngress.bm"), X(1), F("h", "color"))]))
    sw.cli("meter_set_rates bm 1 0.000001:30 0.000001:100")   # a 21-byte frame fits 30 once
    assert [send(sw)["color"] for _ in range(2)] == [0, 1]
    assert sw.cli("meter_get_rates bm 1").splitlines()[0] == "0: info rate = 1e-06, burst size = 30"


def test_hash_based_offset_adds_base_and_takes_modulo():
    sw = SimpleSwitch(ext_prog([prim("modify_field_with_hash_based_offset", F("h", "r"), X(100),
                                     ref("calculation", "calc"), X(1000))]))
    from toolchain.switch.bm_sim.hash_algos import make_algorithm
    want = 100 + make_algorithm("crc16", None)(bytes([1, 2])) % 1000
    assert send(sw, a=1, b=2)["r"] == want


def test_hash_based_offset_with_power_of_two_size_wraps_like_modulo():
    sw = SimpleSwitch(ext_prog([prim("modify_field_with_hash_based_offset", F("h", "r"), X(5),
                                     ref("calculation", "calc"), X(256))]))
    from toolchain.switch.bm_sim.hash_algos import make_algorithm
    assert send(sw, a=1, b=2)["r"] == 5 + make_algorithm("crc16", None)(bytes([1, 2])) % 256


def test_hash_based_offset_of_size_zero_is_the_base_and_still_draws_the_random_hash():
    # the random algorithm consumes the switch RNG even when the modulo discards it: a later
    # random() must see the same sequence as with a size that keeps the draw
    def prog(size):
        return ext_prog([prim("modify_field_with_hash_based_offset", F("h", "b"), X(3),
                              ref("calculation", "calc_r"), X(size)),
                         prim("modify_field_rng_uniform", F("h", "r"), X(0), X(0xFFFFFFFF))])
    zero, one = SimpleSwitch(prog(0), seed=9), SimpleSwitch(prog(1), seed=9)
    outs = [(send(zero), send(one)) for _ in range(5)]
    assert all(z["b"] == 3 and o["b"] == 3 and z["r"] == o["r"] for z, o in outs)


def test_random_is_deterministic_for_a_seed_and_within_bounds():
    prog = ext_prog([prim("modify_field_rng_uniform", F("h", "r"), X(10), X(20))])
    a = [send(SimpleSwitch(prog, seed=4))["r"] for _ in range(1)]
    s1, s2 = SimpleSwitch(prog, seed=4), SimpleSwitch(prog, seed=4)
    seq1 = [send(s1)["r"] for _ in range(20)]
    seq2 = [send(s2)["r"] for _ in range(20)]
    assert seq1 == seq2 and all(10 <= v <= 20 for v in seq1) and a[0] == seq1[0]
    assert len(set(seq1)) > 1


def test_crc16_custom_parameters_set_by_cli():
    prog = ext_prog([prim("modify_field_with_hash_based_offset", F("h", "r"), X(0), ref("calculation", "calc"), X(65536))])
    prog["calculations"][0]["algo"] = "crc16_custom"
    sw = SimpleSwitch(prog)
    before = send(sw, a=1, b=2)["r"]
    sw.cli("set_crc16_parameters calc 0x1021 0xffff 0x0 false false")
    after = send(sw, a=1, b=2)["r"]
    from toolchain.switch.bm_sim.hash_algos import Crc, CrcParams
    assert after == Crc(CrcParams(16, 0x1021, 0xFFFF, 0, False, False))(bytes([1, 2])) != before


@pytest.mark.parametrize("algo", ["crc16", "crc32", "csum16", "xor16", "identity"])
def test_hash_algorithms_run_from_json(algo):
    prog = ext_prog([prim("modify_field_with_hash_based_offset", F("h", "r"), X(0), ref("calculation", "calc"),
                          X(1 << 32))])
    prog["calculations"][0]["algo"] = algo
    from toolchain.switch.bm_sim.hash_algos import make_algorithm
    assert send(SimpleSwitch(prog), a=0x12, b=0x34)["r"] == make_algorithm(algo, None)(bytes([0x12, 0x34])) & 0xFFFFFFFF
