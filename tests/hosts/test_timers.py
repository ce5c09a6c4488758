"""RFC 6298 retransmission timer (backoff, Karn's rule, 1 s minimum) and a bounded TIME-WAIT,
through the public engine API."""

from hosts.tcp import TcpConfig, TcpConnection


def pair(**kw):
    cfg = TcpConfig(variant="sack", **kw)
    a = TcpConnection(cfg, local_port=1, remote_port=2, iss=2**32 - 10)
    b = TcpConnection(cfg, local_port=2, remote_port=1, iss=77)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.05)
    for s in a.on_segment(synack, now=0.1):
        b.on_segment(s, now=0.15)
    return a, b


def test_rto_backs_off_exponentially_and_karn_ignores_the_retransmission():
    a, b = pair()
    a.send(b"q" * 500)
    (seg,) = a.poll(now=1.0)
    deadlines, t = [], 1.0
    for _ in range(4):                                  # the segment is lost four times
        t = a.next_timer()
        deadlines.append(t)
        (again,) = a.on_timer(now=t)
        assert again.seq == seg.seq and again.payload == seg.payload
    gaps = [round(y - x, 6) for x, y in zip(deadlines, deadlines[1:])]
    assert deadlines[0] == 2.0                          # RFC 6298 (2.4): RTO at least 1 s
    assert gaps == [2.0, 4.0, 8.0]                      # RFC 6298 (5.5): doubled each time
    assert a.stats["timeouts"] == 4
    (ack,) = b.on_segment(again, now=t + 0.05)
    a.on_segment(ack, now=t + 0.1)
    assert a.flight_size == 0
    assert a.rtt.rto == 16.0                            # Karn (RFC 6298 §3): no sample, keep backoff
    a.send(b"r" * 500)
    (fresh,) = a.poll(now=t + 1)
    for s in b.on_segment(fresh, now=t + 1.05):
        a.on_segment(s, now=t + 1.1)
    assert a.rtt.rto == 1.0                             # a valid sample: back to the computed RTO
    assert b.receive() == b"q" * 500 + b"r" * 500


def test_time_wait_is_bounded_and_ends_closed():
    a, b = pair(time_wait=2.5)
    a.close()
    (fin,) = a.poll(now=1.0)
    for s in b.on_segment(fin, now=1.05):
        a.on_segment(s, now=1.1)
    assert a.state == "FIN-WAIT-2" and b.state == "CLOSE-WAIT"
    b.close()
    (fin_b,) = b.poll(now=1.2)
    (last_ack,) = a.on_segment(fin_b, now=1.25)
    assert a.state == "TIME-WAIT" and a.next_timer() == 1.25 + 2.5
    b.on_segment(last_ack, now=1.3)
    assert b.state == "CLOSED" and b.next_timer() is None
    assert a.on_timer(now=3.0) == [] and a.state == "TIME-WAIT"
    a.on_timer(now=3.75)
    assert a.state == "CLOSED" and a.next_timer() is None
