"""Traffic manager: per-port FIFO depth (drops), pps and bps rates, swaps, and the queueing
metadata and timestamps (microseconds from ``now``) the egress pipeline sees."""

import pytest

from toolchain.switch import SimpleSwitch

from .jsonkit import F, assign, frame, pack, program, unpack

Q = [["seq", 8, False], ["enq_ts", 32, False], ["enq_qdepth", 32, False], ["deq_td", 32, False],
     ["deq_qdepth", 32, False], ["ig_ts", 48, False], ["eg_ts", 48, False]]


def qswitch(**kw):
    sm = lambda f: F("standard_metadata", f)   # noqa: E731
    egress = [assign("h", "enq_ts", sm("enq_timestamp")), assign("h", "enq_qdepth", sm("enq_qdepth")),
              assign("h", "deq_td", sm("deq_timedelta")), assign("h", "deq_qdepth", sm("deq_qdepth")),
              assign("h", "ig_ts", sm("ingress_global_timestamp")), assign("h", "eg_ts", sm("egress_global_timestamp"))]
    return SimpleSwitch(program(Q, egress=egress, **kw))


def pkt(seq, size=0):
    return frame(pack(Q, {"seq": seq}) + bytes(size))


def meta(frame_bytes):
    return unpack(Q, frame_bytes[14:])


def test_unlimited_queue_departs_at_arrival_time():
    sw = qswitch()
    sw.receive(0, pkt(1), now=1.5)
    assert sw.next_event_time() == 1.5
    [(port, data, t)] = sw.advance(now=1.5)
    m = meta(data)
    assert (port, t) == (1, 1.5)
    assert m["ig_ts"] == 1_500_000 and m["enq_ts"] == 1_500_000 and m["eg_ts"] == 1_500_000
    assert m["deq_td"] == 0 and m["enq_qdepth"] == 0 and m["deq_qdepth"] == 0


def test_queue_rate_pps_spaces_departures_and_reports_delays():
    sw = qswitch()
    sw.cli("set_queue_rate 1000 1")                 # one packet per millisecond
    for i in range(3):
        sw.receive(0, pkt(i), now=0.0)
    assert sw.tm.queue_length(1) == 3
    out = sw.advance(now=0.01)
    assert [round(t, 6) for _, _, t in out] == [0.0, 0.001, 0.002]
    metas = [meta(d) for _, d, _ in out]
    assert [m["enq_qdepth"] for m in metas] == [0, 1, 2]
    assert [m["deq_qdepth"] for m in metas] == [2, 1, 0]
    assert [m["deq_td"] for m in metas] == [0, 1000, 2000]


def test_advance_only_returns_packets_due_by_now():
    sw = qswitch()
    sw.cli("set_queue_rate 1000 1")
    sw.receive(0, pkt(1), now=0.0)
    sw.receive(0, pkt(2), now=0.0)
    assert len(sw.advance(now=0.0005)) == 1
    assert sw.next_event_time() == pytest.approx(0.001)
    assert len(sw.advance(now=0.001)) == 1
    assert sw.next_event_time() is None


def test_port_rate_bps_serialises_each_packet():
    sw = qswitch()
    sw.tm.set_port_rate_bps(1, 8_000_000)           # 1 byte per microsecond
    frame_len = len(pkt(0, size=100))
    sw.receive(0, pkt(0, size=100), now=0.0)
    sw.receive(0, pkt(1, size=100), now=0.0)
    out = sw.advance(now=1.0)
    assert [t for _, _, t in out] == pytest.approx([frame_len * 1e-6, 2 * frame_len * 1e-6])


def test_queue_depth_drops_packets_beyond_capacity():
    sw = qswitch()
    sw.cli("set_queue_depth 2 1")
    sw.cli("set_queue_rate 10 1")
    for i in range(5):
        sw.receive(0, pkt(i), now=0.0)
    assert sw.tm.queue_length(1) == 2
    assert [meta(d)["seq"] for _, d, _ in sw.advance(now=10.0)] == [0, 1]


def test_default_queue_depth_is_64_packets():
    sw = qswitch()
    sw.cli("set_queue_rate 1")
    for i in range(70):
        sw.receive(0, pkt(i), now=0.0)
    assert sw.tm.queue_length(1) == 64


def test_swap_reorders_queued_packets():
    sw = qswitch()
    sw.cli("set_queue_rate 100 1")
    for i in range(3):
        sw.receive(0, pkt(i), now=0.0)
    sw.tm.swap(1, 0, 2)
    assert [meta(d)["seq"] for _, d, _ in sw.advance(now=1.0)] == [2, 1, 0]


def test_swap_out_of_range_raises_index_error():
    sw = qswitch()
    with pytest.raises(IndexError):
        sw.tm.swap(1, 0, 1)


def test_process_drains_ignoring_rates():
    sw = qswitch()
    sw.cli("set_queue_rate 1")
    assert len(sw.process(0, pkt(1), now=0.0)) == 1


def test_set_queue_depth_for_all_ports_applies_to_new_queues():
    sw = qswitch(egress_port=3)
    sw.cli("set_queue_depth 1")
    sw.cli("set_queue_rate 1")
    sw.receive(0, pkt(1), now=0.0)
    sw.receive(0, pkt(2), now=0.0)
    assert sw.tm.queue_length(3) == 1


def test_timestamps_are_microseconds_of_now():
    sw = qswitch()
    sw.receive(0, pkt(1), now=12.345678)
    [(_, data, _)] = sw.advance(now=20.0)
    assert meta(data)["ig_ts"] == 12_345_678


def test_hold_port_delays_the_head_and_what_queues_behind_it():
    # a stalled link (sim.impair): nothing starts leaving port 1 before 0.5 s, then the queue
    # drains at the port's rate; a shorter hold later changes nothing
    sw = qswitch()
    sw.tm.set_port_rate_bps(1, 8_000_000)           # 1 byte per microsecond
    tx = len(pkt(0, size=100)) * 1e-6
    sw.receive(0, pkt(0, size=100), now=0.0)
    sw.tm.hold_port(1, 0.5)
    sw.receive(0, pkt(1, size=100), now=0.1)
    sw.tm.hold_port(1, 0.2)
    assert sw.advance(now=0.4) == []
    out = sw.advance(now=1.0)
    assert [meta(d)["seq"] for _, d, _ in out] == [0, 1]
    assert [t for _, _, t in out] == pytest.approx([0.5 + tx, 0.5 + 2 * tx])
