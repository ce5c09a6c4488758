"""Rules of ns-2's agents (hosts.tcp.ns2) as engine knobs: the one-way opening (TcpConfig.opening
"one-way": the SYN and its answer carry no options, ends configured alike take their
configuration as agreed, the handshake's ACK rides on the first data segment, ns Manual "TCP
Agents" and RFC 9293 §3.10.7.3; a peer whose SYN carries options is negotiated with as RFC 9293
says), the DelAck sink's delayed answer to the SYN (delayed_ack_syn, SYN_immediate_ack_
false), the SACK sink's block limit (max_sack_blocks, maxSackBlocks_) and DupThresh raised with
the window (dupthresh_cwnd_fraction, numdupacksFrac_)."""

from dataclasses import replace

import pytest

from hosts.tcp import TcpConfig, TcpConnection
from hosts.tcp.connection import ESTABLISHED, SYN_RCVD
from hosts.tcp.ns2 import Ns2Agent
from hosts.testing import TestNetwork
from netbase.segment import ACK, SYN

ONE_WAY = Ns2Agent("Sack1", "Sack1", {"packetSize_": 1000}).configs().sender


def _pair(client_cfg, server_cfg):
    a = TcpConnection(client_cfg, local_port=40000, remote_port=80, iss=0)
    b = TcpConnection(server_cfg, local_port=80, remote_port=40000, iss=0)
    b.listen()
    return a, b


def test_ns2_agents_open_one_way_and_the_default_handshakes():
    assert ONE_WAY.opening == "one-way" and ONE_WAY.max_sack_blocks == 3
    assert TcpConfig().opening == "rfc9293" and TcpConfig().max_sack_blocks is None
    with pytest.raises(ValueError, match="opening must be 'rfc9293' or 'one-way', got 'two'"):
        TcpConfig(opening="two")
    with pytest.raises(ValueError, match="max_sack_blocks must be >= 1"):
        TcpConfig(max_sack_blocks=0)


def test_one_way_opening_sends_bare_syns_and_acknowledges_the_syn_with_the_first_data():
    a, b = _pair(ONE_WAY, ONE_WAY)
    a.send(bytes(5000))
    [syn] = a.connect(now=0.0)
    assert syn.flags == SYN and syn.options == ()
    [answer] = b.on_segment(syn, now=0.1)
    assert answer.flags == SYN | ACK and answer.options == () and b.state == SYN_RCVD
    out = a.on_segment(answer, now=0.2)
    # no segment of its own for the handshake's ACK: windowInit_ 2 data packets, each an ACK
    assert [len(s.payload) for s in out] == [1000, 1000]
    assert all(s.flags & ACK and s.ack == 1 for s in out)
    # configured alike: what the options would have agreed on, without them
    assert (a.mss, a.sack_ok, a.snd_wscale, a.rcv_wscale) == (1000, True, 7, 7)
    b.on_segment(out[0], now=0.3)
    assert b.state == ESTABLISHED and (b.mss, b.sack_ok, b.snd_wscale) == (1000, True, 7)
    assert b.receive() == bytes(1000)


def test_one_way_opening_without_data_to_send_acknowledges_the_syn_alone():
    a, b = _pair(ONE_WAY, ONE_WAY)
    [syn] = a.connect(now=0.0)
    [ack] = a.on_segment(b.on_segment(syn, now=0.1)[0], now=0.2)
    assert ack.flags == ACK and ack.payload == b"" and a.state == ESTABLISHED


def test_a_peer_that_sends_options_is_negotiated_with():
    rfc = replace(ONE_WAY, opening="rfc9293")
    # a one-way sender and a listener of RFC 9293: nothing offered, so no SACK; the MSS option
    # of the listener's SYN-ACK is read as usual
    a, b = _pair(ONE_WAY, rfc)
    [syn] = a.connect(now=0.0)
    [answer] = b.on_segment(syn, now=0.1)
    assert ("MSS", 1000) in answer.options and not b.sack_ok
    a.on_segment(answer, now=0.2)
    assert a.state == ESTABLISHED and not a.sack_ok
    # a one-way listener answers an RFC 9293 SYN with the options it offered
    a, b = _pair(rfc, ONE_WAY)
    [syn] = a.connect(now=0.0)
    [answer] = b.on_segment(syn, now=0.1)
    assert ("SAckOK", b"") in answer.options and ("MSS", 1000) in answer.options
    a.on_segment(answer, now=0.2)
    assert a.sack_ok and b.sack_ok


def _most_blocks(config) -> int:
    net = TestNetwork(config, bytes(60_000), serialization=0.001)
    net.drop(3, 5, 7, 9, 11)
    net.run()
    return max(len(value) for seg in net.acks for name, value in seg.options
               if name == "SAck")


def test_max_sack_blocks_caps_the_blocks_of_an_ack():
    base = TcpConfig(mss=1000)
    assert _most_blocks(base) == 4                      # RFC 2018 §3: as many as fit
    assert _most_blocks(replace(base, max_sack_blocks=3)) == 3
    assert _most_blocks(replace(base, max_sack_blocks=9)) == 4


def _fast_retransmit_at(config, drop=30):
    """(duplicate ACKs, DupThresh) when A enters fast recovery, and cwnd in segments then."""
    net = TestNetwork(config, bytes(120_000), serialization=0.001)
    net.drop(drop)
    a = net.a
    on_segment = a.on_segment
    seen = []

    def recorded(seg, *, now):
        cwnd = a.cwnd
        out = on_segment(seg, now=now)
        if a.in_recovery and not seen:
            seen.append((a.recovery.dupacks, a.dupthresh, cwnd // a.mss))
        return out
    a.on_segment = recorded
    net.run()
    assert net.delivered == bytes(120_000)
    return seen[0]


def test_numdupacks_frac_raises_dupthresh_to_a_fraction_of_the_window():
    assert Ns2Agent("Sack1", "Sack1", {"numdupacksFrac_": 4}).configs().sender \
        .dupthresh_cwnd_fraction == 4
    assert ONE_WAY.dupthresh_cwnd_fraction is None          # 2.35's default -1: off
    base = TcpConfig(mss=1000, initial_window_segments=40)
    assert _fast_retransmit_at(base)[:2] == (3, 3)
    dupacks, dupthresh, cwnd = _fast_retransmit_at(replace(base, dupthresh_cwnd_fraction=4))
    assert cwnd >= 40 and dupacks == dupthresh == cwnd // 4
    # below 4 x numdupacks_ packets of window the fraction is smaller: DupThresh stays 3
    small = replace(base, initial_window_segments=8, dupthresh_cwnd_fraction=4)
    assert _fast_retransmit_at(small, drop=4)[:2] == (3, 3)
    with pytest.raises(ValueError, match="dupthresh_cwnd_fraction must be >= 1"):
        TcpConfig(dupthresh_cwnd_fraction=0)
    with pytest.raises(ValueError, match="for variant 'sack'"):
        TcpConfig(variant="reno", dupthresh_cwnd_fraction=4)


def test_a_delack_sink_without_syn_immediate_ack_answers_the_syn_when_its_timer_fires():
    delack = Ns2Agent("Sack1", "Sack1/DelAck", {"packetSize_": 1000},
                      {"SYN_immediate_ack_": False}).configs().receiver
    assert delack.delayed_ack_syn and delack.delayed_ack_timeout == 0.1
    # without syn_ there is no SYN for ns-2's sink to delay
    assert not Ns2Agent("Sack1", "Sack1/DelAck", {"syn_": False},
                        {"SYN_immediate_ack_": False}).configs().receiver.delayed_ack_syn
    a, b = _pair(ONE_WAY, delack)
    a.send(bytes(3000))
    [syn] = a.connect(now=0.0)
    assert b.on_segment(syn, now=0.05) == [] and b.state == SYN_RCVD
    assert b.next_timer() == pytest.approx(0.15)
    [answer] = b.on_timer(now=b.next_timer())
    assert answer.flags == SYN | ACK and answer.options == ()
    assert b.next_timer() == pytest.approx(0.15 + delack.initial_rto)   # the SYN-ACK's RTO
    assert len(a.on_segment(answer, now=0.2)) == 2
    # the immediate answer where the sink does not delay it
    a, b = _pair(ONE_WAY, replace(delack, delayed_ack_syn=False))
    [syn] = a.connect(now=0.0)
    assert [s.flags for s in b.on_segment(syn, now=0.05)] == [SYN | ACK]


def _sent_on_first_dupacks(config):
    """Segments of new data A sends on the duplicate ACKs before its fast retransmit."""
    net = TestNetwork(config, bytes(60_000), serialization=0.001)
    net.drop(12)
    a = net.a
    on_segment = a.on_segment
    grown = []

    def recorded(seg, *, now):
        before = a.snd_max
        out = on_segment(seg, now=now)
        if 0 < a.recovery.dupacks < a.dupthresh and not a.in_recovery:
            grown.append((a.snd_max - before) // a.mss)
        return out
    a.on_segment = recorded
    net.run()
    assert net.delivered == bytes(60_000)
    return grown[:2]


def test_singledup_gives_ns2s_reno_limited_transmit():
    reno = Ns2Agent("Reno", "", {"packetSize_": 1000, "window_": 100}).configs().sender
    assert reno.variant == "reno" and reno.limited_transmit_always
    assert _sent_on_first_dupacks(reno) == [1, 1]           # RFC 3042: one on each
    # singledup_ 0, and the engine's own reno (BSD Reno): nothing before the fast retransmit
    off = Ns2Agent("Reno", "", {"packetSize_": 1000, "window_": 100, "singledup_": 0})
    assert _sent_on_first_dupacks(off.configs().sender) == [0, 0]
    assert _sent_on_first_dupacks(replace(reno, limited_transmit_always=False)) == [0, 0]
