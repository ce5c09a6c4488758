"""The RD-TCP receiver's reordered list and drop list, case by case ([RDTCP] §3.1 "TCP receiver:
Processing data packets"), in bytes: packet P_n is bytes [1 + 10(n-1), 1 + 10n); a stamp
"P_a..P_b" is the byte range [first byte of P_a, end of P_b) (docs/architecture.md §4)."""

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.receiver import Receiver
from hosts.tcp.variants import get_variant

SIZE = 10


def P(n):
    return 1 + SIZE * (n - 1), 1 + SIZE * n


def packets(rs):
    """The packet numbers a RangeSet covers (whole packets only)."""
    out = []
    for s, e in rs:
        assert (s - 1) % SIZE == 0 and (e - 1) % SIZE == 0, f"range {s, e} splits a packet"
        out += range((s - 1) // SIZE + 1, (e - 1) // SIZE + 1)
    return out


def receive(arrivals):
    """Feed (packet, stamp) pairs; stamp is (first_dropped, last_dropped) packets or None."""
    policy = get_variant("rdtcp")(TcpConfig(variant="rdtcp", rdtcp=True))
    rcv = Receiver(1, 1 << 20, mss=1000)
    bits = []
    for n, stamp in arrivals:
        start, end = P(n)
        st = None if stamp is None else (P(stamp[0])[0], P(stamp[1])[1])
        policy.on_data(rcv, start, end, st, now=0.0)
        rcv.on_data(start, bytes(SIZE))
        bits.append(policy.ack_reorder_bit(rcv, now=0.0))
    return policy, bits


@pytest.mark.parametrize("arrivals, reordered, dropped", [
    # no stamp, PNO_i > PNO_k: the gap is probably reordering
    ([(1, None), (4, None)], [2, 3], []),
    # no stamp, PNO_i > PNO_k, gap already in the drop list: dropped, not reordered (the drop
    # list keeps P5, P6 while they are missing)
    ([(1, None), (3, (5, 6)), (7, None)], [2, 4], [5, 6]),
    # no stamp, PNO_i < PNO_k: the packet leaves the reordered list
    ([(1, None), (4, None), (2, None)], [3], []),
    # stamp, PNO_i > PNO_k, min > PNO_k, max < PNO_i: gaps both sides are reordering
    ([(1, None), (6, (3, 4))], [2, 5], []),
    # stamp, PNO_i > PNO_k, min > PNO_k, max > PNO_i: gap below min reordered, rest to the drop list
    ([(1, None), (4, (3, 6))], [2], [5, 6]),
    # stamp, PNO_i > PNO_k, min < PNO_k, max < PNO_i: gap above max reordered, [min, max] cleared
    ([(1, None), (4, None), (6, (2, 3))], [5], []),
    # stamp, PNO_i > PNO_k, min < PNO_k, max > PNO_i: [min, PNO_i] cleared, beyond to the drop list
    ([(1, None), (4, None), (5, (2, 7))], [], [6, 7]),
    # stamp, PNO_i < PNO_k, min > PNO_k, max > PNO_i: gap [PNO_k, min) reordered, stamp dropped
    ([(1, None), (4, None), (2, (7, 8))], [3, 5, 6], [7, 8]),
    # stamp, PNO_i < PNO_k, min < PNO_k, max > PNO_i: [min, PNO_k] cleared, [PNO_k, max] dropped
    ([(1, None), (5, None), (2, (3, 7))], [], [6, 7]),
    # stamp, PNO_i < PNO_k, min < PNO_k, max < PNO_i: gap (max, PNO_i) reordered, [min, max] cleared
    ([(1, None), (8, None), (6, (2, 3))], [4, 5, 7], []),
])
def test_rdtcp_receiver_case_sets_the_lists(arrivals, reordered, dropped):
    policy, _ = receive(arrivals)
    assert packets(policy.reordered) == reordered
    assert packets(policy.dropped) == dropped


def test_rdtcp_receiver_reorder_bit_follows_the_next_expected_packet():
    # P2 reordered, P3 dropped ([RDTCP] §3's second example): P4 carries the stamp P3..P3
    _, bits = receive([(1, None), (4, (3, 3)), (5, None), (2, None)])
    assert bits == [False, True, True, False]      # dupacks for P2 carry the bit; after the fill
                                                   # the next missing packet P3 is a drop
    # P2 and P3 dropped (first example): no bit
    _, bits = receive([(1, None), (4, (2, 3)), (5, None)])
    assert bits == [False, False, False]
