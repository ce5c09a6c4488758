"""framing.MessageScanner: where a call ends in a byte stream, found incrementally, and the
limits of one call checked before anything is built from it."""

from __future__ import annotations

import random
import struct

import pytest

from bm_runtime.simple_pre_lag import SimplePreLAG
from bm_runtime.standard.ttypes import (BmAddEntryOptions, BmCounterValue, BmMatchParam,
                                        BmMatchParamExact, BmMatchParamLPM, BmMatchParamTernary,
                                        BmMeterRateConfig)
from sswitch_runtime import SimpleSwitch
from sswitch_runtime.ttypes import MirroringSessionConfig
from tests.toolchain.thrift_api.calls_kit import encoded, std_call as std
from toolchain.switch.thrift_server.framing import LIMITS, FrameError, FrameLimits, MessageScanner


KEY = [BmMatchParam(type=0, exact=BmMatchParamExact(b"\x00\x05")),
       BmMatchParam(type=1, lpm=BmMatchParamLPM(b"\x0a\x00\x01\x00", 24)),
       BmMatchParam(type=2, ternary=BmMatchParamTernary(b"\x01", b"\xff"))]
CALLS = [
    std("bm_mt_add_entry", 0, "MyIngress.t", KEY, "MyIngress.a", [b"\x01", b"\x00\x02"],
        BmAddEntryOptions(priority=3)),
    std("bm_mt_get_num_entries", 0, "MyIngress.t"),
    std("bm_register_write", 0, "r", 7, -5),
    std("bm_counter_write", 0, "c", 1, BmCounterValue(packets=3, bytes=300)),
    std("bm_meter_set_rates", 0, "m", 0, [BmMeterRateConfig(0.5, 10), BmMeterRateConfig(1.5, 20)]),
    std("bm_learning_ack", 0, 1, 2, list(range(100))),
    std("bm_load_new_config", '{"x": "é\\u0000"}' * 1000),
    std("bm_mt_get_entries", 0, "t"),
    encoded("simple_pre_lag", SimplePreLAG, "bm_mc_node_create", 0, 1, "0101", ""),
    encoded("simple_switch", SimpleSwitch, "mirroring_session_add", 5,
            MirroringSessionConfig(port=3)),
    encoded("simple_switch", SimpleSwitch, "set_egress_queue_depth", 1, -1),
]


@pytest.mark.parametrize("call", CALLS, ids=range(len(CALLS)))
def test_a_call_ends_where_its_bytes_end_however_they_arrive(call):
    whole = MessageScanner()
    assert whole.feed(call) == len(call)
    one_by_one = MessageScanner()
    assert [one_by_one.feed(call[:i]) for i in range(len(call))] == [None] * len(call)
    assert one_by_one.feed(call) == len(call)
    rng = random.Random(len(call))
    chunks, cuts = MessageScanner(), sorted(rng.sample(range(1, len(call)), 5))
    assert [chunks.feed(call[:c]) for c in cuts] == [None] * 5
    assert chunks.feed(call + CALLS[1]) == len(call)          # the next call is not read


def test_maps_sets_and_every_scalar_type():
    def header(name: bytes) -> bytes:
        return struct.pack("!iI", -0x7FFF0000 | 1, len(name)) + name + struct.pack("!i", 9)
    body = (b"\x0d\x00\x01" + b"\x0b\x08" + struct.pack("!i", 2)          # map<string, i32>
            + struct.pack("!i", 1) + b"a" + struct.pack("!i", 1)
            + struct.pack("!i", 0) + struct.pack("!i", 2)
            + b"\x0e\x00\x02" + b"\x0a" + struct.pack("!i", 3) + bytes(24)  # set<i64>
            + b"\x02\x00\x03\x01" + b"\x03\x00\x04\x07" + b"\x04\x00\x05" + bytes(8)
            + b"\x06\x00\x06\x00\x01" + b"\x10\x00\x07" + bytes(16)
            + b"\x0f\x00\x08\x0c" + struct.pack("!i", 2) + b"\x00" + b"\x08\x00\x01\x00\x00\x00\x01\x00"
            + b"\x00")
    call = header(b"standard:x") + body
    assert MessageScanner().feed(call) == len(call)
    s = MessageScanner()
    assert all(s.feed(call[:i]) is None for i in range(len(call)))
    assert s.feed(call) == len(call)


def call_with(body: bytes, name: bytes = b"standard:bm_mt_add_entry") -> bytes:
    return struct.pack("!iI", -0x7FFF0000 | 1, len(name)) + name + struct.pack("!i", 1) + body


@pytest.mark.parametrize("data, why", [
    (b"hello switch\n", "no binary-protocol version header"),
    (struct.pack("!iI", 0x7FFF0001, 3), "no binary-protocol version header"),
    (struct.pack("!iI", -0x7FFF0000 | 1, 0x7FFFFFFF), "a string of 2147483647 bytes"),
    (call_with(b"\x0b\x00\x01" + struct.pack("!i", -1)), "negative length"),
    (call_with(b"\x0b\x00\x01" + struct.pack("!i", (64 << 20) + 1)), "a string of 67108865 bytes"),
    (call_with(b"\x0f\x00\x03\x0c" + struct.pack("!i", 1_000_000)),
     "more than 16384 container elements and struct fields"),
    (call_with(b"\x0f\x00\x03\x08" + struct.pack("!i", 20_000)), "more than 16384"),
    (call_with(b"\x0f\x00\x03\x0c" + struct.pack("!i", -3)), "negative size"),
    (call_with(b"\x0d\x00\x03\x0b\x0c" + struct.pack("!i", 9000)), "more than 16384"),
    (call_with(b"\x0f\x00\x03\x63" + struct.pack("!i", 1)), "unknown type 99"),
    (call_with(b"\x63\x00\x01"), "unknown type 99"),
    (call_with(b"\x0c\x00\x01" * 70), "nested more than 64 deep"),
    (call_with(b"\x0f\x00\x01\x0f" + struct.pack("!i", 1) + (b"\x0f" + struct.pack("!i", 1)) * 70),
     "nested more than 64 deep"),
    (call_with(b"\x08\x00\x01\x00\x00\x00\x01" * 20_000), "more than 16384"),
])
def test_what_is_no_call_or_too_much_is_refused_from_its_first_bytes(data, why):
    with pytest.raises(FrameError, match=why):
        MessageScanner().feed(data)


def test_a_call_longer_than_the_limit_is_refused_before_it_ends():
    small = FrameLimits(message=10000, string=1500)
    s = MessageScanner(small)
    with pytest.raises(FrameError, match="a string of 2000 bytes"):
        s.feed(call_with(b"\x0b\x00\x01" + struct.pack("!i", 2000)))
    s = MessageScanner(FrameLimits(message=1000))
    start = call_with(b"\x0b\x00\x01" + struct.pack("!i", 990))
    with pytest.raises(FrameError, match="a call of more than 1000 bytes"):
        s.feed(start)                           # its declared end is past the limit
    s = MessageScanner(FrameLimits(message=1000))
    fields = call_with(b"\x08\x00\x01\x00\x00\x00\x01" * 200)    # no STOP: it goes on
    with pytest.raises(FrameError, match="a call of more than 1000 bytes"):
        s.feed(fields)


def test_the_default_limits_hold_bmv2s_largest_calls():
    """bm_load_new_config with a 60 MB JSON fits; a key of hundreds of fields fits."""
    assert LIMITS.message >= 60 << 20 and LIMITS.string >= 60 << 20
    big_key = [BmMatchParam(type=0, exact=BmMatchParamExact(b"\x01"))] * 500
    call = std("bm_mt_add_entry", 0, "t", big_key, "a", [b"\x01"] * 500, None)
    assert MessageScanner().feed(call) == len(call)
