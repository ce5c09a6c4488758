"""Extern state behind our JSON, read through the target's runtime API: indexed and direct
counters count what the program counted, registers keep values, a configured meter turns
red when its buckets are empty (RFC 2698 two-rate three-colour marking, BMv2's meter)."""
from __future__ import annotations

import pytest

from .conftest import PROGRAMS, compile_cached

ETH = bytes.fromhex("00000000000200000000000188B5")


def frame(idx: int) -> bytes:
    return ETH + bytes([idx]) + bytes(12)


@pytest.fixture
def switch():
    from toolchain.switch import SimpleSwitch, load_program
    sw = SimpleSwitch(load_program(compile_cached(PROGRAMS / "externs.p4")), seed=1)
    sw.cli("table_add ExIngress.by_idx ExIngress.bump 5 => 100")
    return sw


def test_indexed_counter_counts_packets_and_bytes(switch):
    for _ in range(2):
        switch.process(0, frame(3))
    assert switch.runtime.counter_read("ExIngress.pkts", 3) == (2, 2 * len(frame(3)))
    assert switch.runtime.counter_read("ExIngress.pkts", 5) == (0, 0)


def test_direct_counter_counts_entry_hits_only(switch):
    switch.process(0, frame(5))
    switch.process(0, frame(3))            # a miss: the default action is not an entry
    packets, _ = switch.runtime.counter_read("ExIngress.per_entry", 0)
    assert packets == 1


def test_register_accumulates_across_packets(switch):
    for _ in range(3):
        switch.process(0, frame(5))
    assert switch.runtime.register_read("ExIngress.acc", 5) == 300


def test_meter_marks_red_once_burst_is_spent(switch):
    # index 5 & 3 = 1; packets per microsecond and burst 1 for both rates
    switch.runtime.meter_set_rates("ExIngress.rate", 1, [(0.000001, 1), (0.000001, 1)])
    (_, first), = switch.process(0, frame(5), now=1.0)
    (_, second), = switch.process(0, frame(5), now=1.0)
    color_offset = len(ETH) + 1 + 4 + 4
    assert first[color_offset] == 0
    assert second[color_offset] == 2
