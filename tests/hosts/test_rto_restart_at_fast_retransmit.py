"""TcpConfig.rto_restart_at_fast_retransmit: ns-2's agents start the retransmission timer
afresh at the fast retransmit (hosts.tcp.ns2), where RFC 6298 (5.1) leaves a running timer
alone. Seen when the fast retransmission is lost too: the timeout then comes one RTO after the
fast retransmit instead of one RTO after the last new ACK."""

from dataclasses import replace

import pytest

from hosts.tcp.config import TcpConfig
from hosts.tcp.ns2 import Ns2Agent
from sim.nsnet import ListErrorModel, NsNetwork


def _lost_twice(restart: bool) -> tuple[float, float, float]:
    """Packet 5 and its fast retransmission dropped on the bottleneck: (the last new ACK
    before the fast retransmit, the fast retransmit, the timeout), in ns-2 time."""
    net = NsNetwork()
    s, r, k = (net.node() for _ in range(3))
    net.duplex_link(s, r, "8Mb", "5ms")
    net.duplex_link(r, k, "800Kb", "100ms")
    net.error_model(r, k, 0, ListErrorModel([5, 13]))   # counted on the link: 13 is the resend
    c = Ns2Agent("Sack1", "Sack1", {"windowInit_": 8, "window_": 8}).configs()
    c = replace(c, sender=replace(c.sender, rto_restart_at_fast_retransmit=restart))
    net.tcp(s, k, 0, c, start=0.0, limit=30000,
            events={"fast-retransmit": ("FR",), "timeout": ("TIMEOUT",)})
    net.run(3.0)
    lines = [ln.split() for ln in net.trace_lines]
    fr = next(float(p[1]) for p in lines if p[0] == "E" and p[5] == "FR")
    timeout = next(float(p[1]) for p in lines if p[0] == "E" and p[5] == "TIMEOUT")
    last_new, highest = None, -1
    for p in lines:         # ACKs arriving at the sender's node, until the fast retransmit
        if p[0] == "r" and p[2:5] == ["1", "0", "ack"] and float(p[1]) <= fr:
            if int(p[10]) > highest:
                highest, last_new = int(p[10]), float(p[1])
    return last_new, fr, timeout


def test_the_timer_runs_from_the_fast_retransmit_only_where_configured():
    last_new, fr, timeout = _lost_twice(restart=False)
    last_new_on, fr_on, timeout_on = _lost_twice(restart=True)
    assert (last_new, fr) == (last_new_on, fr_on) and last_new < fr
    # the same RTO (no sample between: Karn's rule), measured from different starts
    assert timeout - last_new == pytest.approx(timeout_on - fr_on, abs=1e-9)
    assert timeout_on > timeout


def test_ns2_agents_restart_and_the_engine_default_does_not():
    assert TcpConfig().rto_restart_at_fast_retransmit is False
    for agent, sink in (("Reno", ""), ("Newreno", ""), ("Sack1", "Sack1")):
        assert Ns2Agent(agent, sink).configs().sender.rto_restart_at_fast_retransmit
