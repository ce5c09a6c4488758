"""ns-2's window arithmetic (TcpConfig.cwnd_model "ns2", the ns2 profile; hosts/tcp/recovery.py):
cwnd a real number of packets, +1 per new ACK in slow start and +1/cwnd in congestion
avoidance, halved on a loss with ssthresh its integer part, Sack1 leaving fast recovery with
the halved window and growing it from the next ACK (ns Manual, "TCP Agents"). The expected
windows are computed here from those rules, in packets; the engine holds bytes."""

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.profiles import profile_config
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes(i % 251 for i in range(150_000))      # 150 segments


def _record(config, drop=None):
    """Run one transfer; after every segment A takes in: (SND.UNA, cwnd, ssthresh, in recovery)."""
    net = TestNetwork(config, DATA, serialization=0.001)
    if drop is not None:
        net.drop(drop)
    seen = []
    a = net.a
    on_segment = a.on_segment

    def recorded(seg, *, now):
        out = on_segment(seg, now=now)
        seen.append((a.snd_una, a.cwnd, a.ssthresh, a.in_recovery))
        return out
    a.on_segment = recorded
    net.run()
    assert net.delivered == DATA
    return net, seen


def _bytes(w):
    """cwnd in bytes for ns-2's window of w packets: floor(w) segments and the fraction's bytes."""
    return int(w) * MSS + int((w - int(w)) * MSS)


def test_ns2_profile_sets_the_ns2_window_and_the_default_does_not():
    assert profile_config("ns2").cwnd_model == "ns2"
    assert TcpConfig().cwnd_model == profile_config("rfc5681").cwnd_model == "rfc5681"
    with pytest.raises(ValueError, match="cwnd_model must be 'rfc5681' or 'ns2', got 'ns3'"):
        TcpConfig(cwnd_model="ns3")


def test_the_window_is_halved_kept_through_sack1_recovery_and_grown_by_one_over_cwnd():
    config = profile_config("ns2", mss=MSS, send_window_segments=None, max_cwnd_segments=500)
    net, seen = _record(config, drop=20)
    first = next(i for i, s in enumerate(seen) if s[3])         # the fast retransmit's ACK
    before = seen[first - 1][1]
    assert before % MSS == 0                                    # slow start: whole packets
    half = before / MSS / 2
    una, cwnd, ssthresh, _ = seen[first]
    assert (cwnd, ssthresh) == (_bytes(half), max(int(half), 2) * MSS)
    last = max(i for i, s in enumerate(seen) if s[3])
    # the ACK that ends the recovery leaves the halved window as it is
    assert seen[last + 1][1:] == (_bytes(half), ssthresh, False)
    # then every new ACK adds 1/w packets (congestion avoidance: w >= ssthresh)
    w, una, checked = half, seen[last + 1][0], 0
    for una_now, cwnd_now, _, recovering in seen[last + 2:]:
        assert not recovering
        if una_now > una:
            w += 1 / w
            una = una_now
            checked += 1
        assert cwnd_now == _bytes(w)
    assert checked > 50


def test_the_rfc_window_grows_by_whole_bytes_per_ack():
    """The default arithmetic: RFC 5681 §3.1 eq. (3), floor(SMSS*SMSS/cwnd) bytes an ACK, and
    cwnd = ssthresh (eq. (4)) when the recovery ends."""
    config = TcpConfig(mss=MSS, max_cwnd_segments=500)
    _, seen = _record(config, drop=20)
    last = max(i for i, s in enumerate(seen) if s[3])
    una, cwnd, ssthresh, _ = seen[last + 1]
    assert cwnd == ssthresh + max(1, MSS * MSS // ssthresh)     # set to ssthresh, then grown


def test_sack1_pipe_is_a_counter_of_acks_and_sends():
    """pipe_model "sack1" (the ns2 profile's Sack1): pipe at the fast retransmit is the packets
    out less DupThresh; each ACK in fast recovery takes one packet out, a partial ACK two, and
    each packet sent after the fast retransmission puts one in; every hole below a SACKed
    packet is resent (three drops in one window, all resent within the recovery)."""
    config = profile_config("ns2", mss=MSS, send_window_segments=None, max_cwnd_segments=500)
    assert config.pipe_model == "sack1" and TcpConfig().pipe_model == "rfc6675"
    net = TestNetwork(config, DATA, serialization=0.001)
    net.drop(30, 33, 36)
    a, rec = net.a, net.a.recovery
    on_segment = a.on_segment
    checked = []

    def recorded(seg, *, now):
        before = (rec.in_recovery, rec.pipe, a.snd_una, a.snd_max, len(net.sent))
        out = on_segment(seg, now=now)
        net._from_a(out)                      # what this ACK sent, counted before the next one
        sent = len(net.sent) - before[4]
        if not before[0] and rec.in_recovery:
            flight = before[3] - before[2]
            assert rec.pipe == flight - 3 * MSS + (sent - 1) * MSS
            checked.append("enter")
        elif before[0]:
            partial = before[2] < a.snd_una < rec.recovery_point
            expected = before[1] - MSS * (2 if partial else 1) + sent * MSS
            if rec.in_recovery:
                assert rec.pipe == expected
                checked.append("partial" if partial else "ack")
        return []
    a.on_segment = recorded
    net.run()
    assert net.delivered == DATA
    assert checked.count("enter") == 1 and "partial" in checked and checked.count("ack") > 5
    resent = [s.number for s in net.sent if s.number > 36 and s.seq in
              {net.sent[n - 1].seq for n in (30, 33, 36)}]
    assert len(resent) == 3 and a.stats["timeouts"] == 0


def test_max_burst_bounds_what_one_instant_sends():
    """max_burst (ns-2's maxburst_): at most that many segments under cwnd on one event; the
    rest follow on later ACKs, and the transfer completes."""
    def most_at_one_instant(config):
        net = TestNetwork(config, DATA, serialization=0.001)
        net.run()
        assert net.delivered == DATA
        times = [s.time for s in net.sent]
        return max(times.count(t) for t in set(times))
    assert most_at_one_instant(TcpConfig(mss=MSS, initial_window_segments=4)) >= 2
    assert most_at_one_instant(TcpConfig(mss=MSS, initial_window_segments=4, max_burst=1)) == 1
    with pytest.raises(ValueError, match="max_burst must be >= 1"):
        TcpConfig(max_burst=0)
