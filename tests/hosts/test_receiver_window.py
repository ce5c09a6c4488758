"""The receiver's advertised window (RFC 9293 §3.8.6): the right edge RCV.NXT + RCV.WND never
moves left, and moves right as the buffer frees."""

from hosts.tcp.receiver import Receiver


def test_out_of_order_data_does_not_shrink_the_window():
    r = Receiver(1, 10_000, mss=1000)
    edge = r.rcv_nxt + r.window
    for start in range(1001, 6001, 1000):            # a hole at [1, 1001), five segments held
        assert r.on_data(start, bytes(1000)) == "out-of-order"
        assert r.rcv_nxt + r.window == edge           # same window on every duplicate ACK


def test_the_edge_moves_right_when_the_hole_fills_and_the_application_reads():
    r = Receiver(1, 10_000, mss=1000)
    for start in (1001, 2001):
        r.on_data(start, bytes(1000))
    assert r.on_data(1, bytes(1000)) == "filled"
    assert r.rcv_nxt == 3001
    assert r.rcv_nxt + r.window == 1 + 10_000         # 3000 bytes unread: the edge stays
    assert len(r.read()) == 3000
    assert r.rcv_nxt + r.window == 3001 + 10_000      # read: the whole buffer is free again


def test_unread_data_closes_the_window_without_moving_the_edge_left():
    r = Receiver(1, 4000, mss=1000)
    for start in range(1, 4001, 1000):
        r.on_data(start, bytes(1000))
    assert r.window == 0 and r.rcv_nxt == 4001        # buffer full: a zero window, same edge
    r.read()
    assert r.window == 4000
