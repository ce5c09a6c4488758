"""Bad input to the engine: handled per RFC 9293, never a crash, never corrupted
delivery."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hosts.tcp import TcpConfig, TcpConnection
from netbase.segment import ACK, FIN, RST, Segment
from hosts.testing import TestNetwork


def established_pair(variant="rdtcp", rdtcp=True, rdtcp_b=None):
    a = TcpConnection(TcpConfig(variant=variant, rdtcp=rdtcp), local_port=1, remote_port=2, iss=100)
    b = TcpConnection(TcpConfig(variant=variant, rdtcp=rdtcp if rdtcp_b is None else rdtcp_b),
                      local_port=2, remote_port=1, iss=5000)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.01)
    for s in a.on_segment(synack, now=0.02):
        b.on_segment(s, now=0.03)
    assert a.state == b.state == "ESTABLISHED"
    return a, b


def data_from(a, data=b"x" * 100):
    a.send(data)
    return a.poll(now=0.1)


def test_rst_with_exact_sequence_aborts():
    a, b = established_pair()
    rst = Segment(1, 2, 101, 0, RST)
    assert b.on_segment(rst, now=1.0) == []
    assert b.state == "CLOSED" and b.error == "reset by peer"
    assert b.next_timer() is None


def test_rst_in_window_but_not_exact_gets_a_challenge_ack():
    a, b = established_pair()
    out = b.on_segment(Segment(1, 2, 101 + 500, 0, RST), now=1.0)
    assert b.state == "ESTABLISHED"
    assert len(out) == 1 and out[0].flags == ACK and b.stats["challenge_acks"] == 1


def test_rst_out_of_window_is_ignored():
    a, b = established_pair()
    assert b.on_segment(Segment(1, 2, 101 + (1 << 30), 0, RST), now=1.0) == []
    assert b.state == "ESTABLISHED"


def test_out_of_window_data_is_acked_and_not_delivered():
    a, b = established_pair()
    (seg,) = data_from(a)
    far = replace(seg, seq=(seg.seq + (1 << 30)) % (1 << 32))
    out = b.on_segment(far, now=0.2)
    assert [s.flags for s in out] == [ACK] and b.receive() == b""
    b.on_segment(seg, now=0.3)
    assert b.receive() == b"x" * 100


def test_ack_of_unsent_data_is_answered_and_ignored():
    a, b = established_pair()
    out = a.on_segment(Segment(2, 1, 5001, 101 + 10_000, ACK, 1000), now=0.5)
    assert len(out) == 1 and a.snd_una == 1


def test_reversed_epdn_stamp_is_ignored_and_logged():
    a, b = established_pair()
    events = []
    b.tracer = lambda e, c, f: events.append((e, f))
    (seg,) = data_from(a)
    bad = replace(seg, options=(("EPDN", (seg.seq + 50, seg.seq)),) + seg.options)
    b.on_segment(bad, now=0.2)
    assert b.receive() == b"x" * 100
    assert b.stats["epdn_ignored"] == 1 and events[0][0] == "epdn-ignored"


def test_stamp_on_a_flow_that_did_not_negotiate_rdtcp_is_ignored():
    a, b = established_pair(variant="sack", rdtcp=True, rdtcp_b=False)
    assert not a.rdtcp_ok and not b.rdtcp_ok
    (seg,) = data_from(a)
    stamped = replace(seg, options=(("EPDN", (seg.seq, seg.seq + 10)),) + seg.options)
    out = b.on_segment(stamped, now=0.2)
    assert b.stats["epdn_ignored"] == 1 and not any(s.reorder for s in out)
    assert b.receive() == b"x" * 100


def test_malformed_option_list_does_not_disturb_delivery():
    a, b = established_pair()
    (seg,) = data_from(a)
    odd = replace(seg, options=(("Malformed", bytes.fromhex("fd0c5244")),))
    b.on_segment(odd, now=0.2)
    assert b.receive() == b"x" * 100


def test_unknown_variant_is_named():
    from hosts.tcp.variants import VARIANTS
    assert {"sack", "dsack", "rdtcp", "rack"} <= set(VARIANTS)
    listed = ", ".join(sorted(VARIANTS))
    with pytest.raises(ValueError, match=f"unknown TCP variant 'bogus'; choose from {listed}$"):
        TcpConfig(variant="bogus")


def test_rdtcp_negotiation_lowers_mss_by_twelve():
    a, b = established_pair()
    assert a.rdtcp_ok and a.mss == 1460 - 12
    a2, _ = established_pair(variant="sack", rdtcp=False)
    assert a2.mss == 1460


def test_epdn_stamp_outside_the_window_is_ignored_and_logged():
    a, b = established_pair()
    (seg,) = data_from(a)
    far = (seg.seq + (1 << 30)) % (1 << 32)
    bad = replace(seg, options=(("EPDN", (far, (far + 100) % (1 << 32))),) + seg.options)
    out = b.on_segment(bad, now=0.2)
    assert b.stats["epdn_ignored"] == 1 and b.stats["epdn_stamps"] == 0
    assert not any(s.reorder for s in out) and b.receive() == b"x" * 100


OPTION = st.sampled_from([
    ("EPDN", (0, 0)), ("EPDN", (2**32 - 1, 5)), ("SAck", ((0, 2**32 - 1),)), ("SAck", ((5, 5), (9, 1))),
    ("Timestamp", (0, 2**32 - 1)), ("Malformed", b"\x05\x03"), ("Malformed", b"\xfd"), (99, b"zz"),
    ("MSS", 1), ("WScale", 200), ("SAckOK", b""), ("RDTCPOK", None), ("NOP", None)])


@settings(max_examples=60, deadline=None)
@given(junk=st.lists(st.tuples(st.integers(-3000, 6000), st.integers(-3000, 3000),
                               st.integers(0, 255), st.integers(0, 15), st.integers(0, 400),
                               st.lists(OPTION, max_size=3), st.booleans()), max_size=10))
def test_random_segments_never_crash_and_never_corrupt_delivery(junk):
    """Segments with arbitrary flags, sequence and ack numbers around the window, reserved bits
    and bad options, mixed into a transfer, to either end: no exception, and the receiver
    delivers a prefix of the stream (a RST may end the connection, RFC 9293 §3.10.7). Junk to
    the receiver carries the stream's own bytes at its offset (TCP cannot tell forged in-window
    data from real data; that is not what this checks)."""
    a, b = established_pair()
    data = bytes(range(256)) * 20
    a.send(data)
    delivered = bytearray()
    now = 0.1
    pending = a.poll(now=now)
    for off, dack, flags, reserved, length, opts, to_sender in junk:
        if pending:
            for s in b.on_segment(pending.pop(0), now=now):
                a.on_segment(s, now=now)
        if to_sender:       # "from b": b's data starts at 5001, a's at 101
            seg = Segment(2, 1, (5001 + off) % 2**32, (101 + dack) % 2**32, flags, 1000,
                          tuple(opts), bytes(length), reserved)
            a.on_segment(seg, now=now)
        else:
            payload = data[off:off + length] if 0 <= off <= len(data) else b""
            seg = Segment(1, 2, (101 + off) % 2**32, (5001 + dack) % 2**32, flags, 1000,
                          tuple(opts), payload, reserved)
            b.on_segment(seg, now=now)
        delivered += b.receive()
        now += 0.01
    assert data.startswith(bytes(delivered))


def test_no_data_is_delivered_after_the_peers_fin():
    """RFC 9293 §3.10.7.4: once the FIN is reached (CLOSE-WAIT), segment text is ignored; a
    later segment must not extend the stream, nor a second FIN move its end. (Found by the
    property test below: a FIN inside the stream followed by the data after it.)"""
    a, b = established_pair()
    data = bytes(range(256)) * 20
    a.send(data)
    first, second = a.poll(now=0.1)[:2]
    b.on_segment(first, now=0.1)
    n = len(first.payload)
    fin = Segment(1, 2, (101 + n - 400) % 2**32, 5001, ACK | FIN, 1000, (),
                  data[n - 400:n])                  # old bytes, then a FIN right after them
    b.on_segment(fin, now=0.11)
    assert b.state == "CLOSE-WAIT" and b.receive() == data[:n]
    out = b.on_segment(second, now=0.12)            # the data that followed, after the FIN
    assert b.receive() == b"" and out and out[0].ack == (101 + n + 1) % 2**32
    again = Segment(1, 2, (101 + n + 1) % 2**32, 5001, ACK | FIN, 1000, (), b"")
    b.on_segment(again, now=0.13)                   # a second FIN after the first
    assert b.rcv.rcv_nxt == n + 2                   # data 1..n, then the one FIN


def test_epdn_stamp_after_another_option_is_ignored_and_logged():
    # only a gateway's stamp counts, and gateways insert it first (edges strip only that place)
    a, b = established_pair()
    events = []
    b.tracer = lambda e, c, f: events.append((e, f))
    (seg,) = data_from(a)
    forged = replace(seg, options=(("NOP", None), ("EPDN", (seg.seq, seg.seq + 10))))
    out = b.on_segment(forged, now=0.2)
    assert b.stats["epdn_ignored"] == 1 and b.stats["epdn_stamps"] == 0
    assert events[0][1]["reason"] == "EPDN is not the first option"
    assert not any(s.reorder for s in out) and b.receive() == b"x" * 100


def test_epdn_range_over_data_already_received_is_ignored_and_logged():
    """A gateway reports bytes it discarded; bytes the receiver holds were not lost on the way
    to it. A range reaching below RCV.NXT, or over data held out of order, is stale or forged
    (a host that sent in another's name into a full queue): ignored, with the reason. A range
    over the hole itself is honoured."""
    a, b = established_pair()
    events = []
    b.tracer = lambda e, c, f: events.append(f.get("reason"))
    a.send(b"x" * 7000)
    s1, s2, s3 = a.poll(now=0.1)[:3]                 # the initial window

    def stamped(seg, lo, hi):
        return replace(seg, options=(("EPDN", (lo % 2**32, hi % 2**32)),) + seg.options)

    def end(seg):
        return seg.seq + len(seg.payload)

    s4 = replace(s3, seq=end(s3))                    # the stream goes on (its bytes are all x)
    s5 = replace(s3, seq=end(s4))

    b.on_segment(s1, now=0.2)                        # in order: RCV.NXT = end(s1)
    b.on_segment(s4, now=0.21)                       # held above the hole s2, s3
    b.on_segment(stamped(s3, end(s1) - 10, end(s2)), now=0.3)        # reaches below RCV.NXT
    b.on_segment(stamped(s5, s2.seq, end(s3)), now=0.31)             # over s3, held now
    assert events == ["range over data already received"] * 2
    assert (b.stats["epdn_ignored"], b.stats["epdn_stamps"]) == (2, 0)
    b.on_segment(stamped(s5, s2.seq, end(s2)), now=0.32)             # the hole: honoured
    assert (b.stats["epdn_ignored"], b.stats["epdn_stamps"]) == (2, 1)
