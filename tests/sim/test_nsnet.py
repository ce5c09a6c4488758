"""sim.nsnet: the network ns-2 builds (drop-tail links, error models, routes, its trace), run
by the engine; hosts.tcp.ns2: ns-2's agents as engine configurations."""

import pytest

from hosts.tcp.ns2 import Ns2Agent, Ns2Unsupported
from hosts.tcp.profiles import get_profile, profile_config
from sim.nsnet import (ListErrorModel, NsNetwork, PeriodicErrorModel, parse_ns_bandwidth,
                       parse_ns_time)


def _dumbbell(**kw):
    net = NsNetwork(**kw)
    s1, s2, r1, k1 = (net.node() for _ in range(4))
    net.duplex_link(s1, r1, "8Mb", "5ms")
    net.duplex_link(s2, r1, "8Mb", "5ms")
    net.duplex_link(r1, k1, "800Kb", "100ms")
    return net, (s1, s2, r1, k1)


def _events(net, link):
    return [ln.split() for ln in net.trace_lines if ln.split()[2:4] == list(link)]


def test_units_read_as_ns2_reads_them():
    assert parse_ns_bandwidth("800Kb") == 800e3 and parse_ns_bandwidth("1.5Mb") == 1.5e6
    assert parse_ns_bandwidth("1MB") == 8e6
    assert parse_ns_time("100ms") == 0.1 and parse_ns_time("0") == 0.0
    with pytest.raises(ValueError, match="cannot read bandwidth 'fast'"):
        parse_ns_bandwidth("fast")
    with pytest.raises(ValueError, match="cannot read time '5 parsecs'"):
        parse_ns_time("5 parsecs")


def test_a_packet_crosses_links_as_ns2_times_it():
    net, (s1, _, r1, k1) = _dumbbell()
    net.tcp(s1, k1, 0, Ns2Agent("Sack1", "Sack1").configs(), start=1.0, limit=1000)
    net.run(2.0)
    syn = _events(net, ("0", "2"))[:3]
    assert [e[0] for e in syn] == ["+", "-", "r"] and syn[0][4] == "tcp" and syn[0][10] == "0"
    size = int(syn[0][5])
    # enqueued and dequeued at once on an idle link; received after 8*size/bw + delay
    assert float(syn[2][1]) == pytest.approx(1.0 + 8 * size / 8e6 + 0.005, abs=1e-6)
    data = [e for e in _events(net, ("2", "3")) if e[4] == "tcp" and e[10] == "1"]
    assert data and int(data[0][5]) == 1040           # packetSize_ 1000 + 40 header bytes
    acks = [e for e in _events(net, ("3", "2")) if e[0] == "+"]
    assert acks[0][4] == "ack" and acks[0][10] == "0"   # the SYN's ACK: packet 0
    assert acks[-1][10] == "1"                          # the one data packet


def test_packets_are_sized_as_ns2_sizes_them():
    """The one-way opening's SYN and its ACK are 40-byte packets; a SACK sink's ACK is 40 bytes
    and 8 per block (ns-2's traces), at most maxSackBlocks_ (3) blocks."""
    net, (s1, _, r1, k1) = _dumbbell()
    net.error_model(r1, k1, 0, ListErrorModel([3, 5, 7, 9]))
    cfg = Ns2Agent("Sack1", "Sack1", {"windowInit_": 12, "window_": 12}).configs()
    net.tcp(s1, k1, 0, cfg, start=0.0, limit=20000)
    net.run(3.0)
    ev = [e for e in _events(net, ("2", "3")) + _events(net, ("3", "2")) if e[0] == "+"]
    assert [int(e[5]) for e in ev if e[4] == "tcp" and e[10] == "0"] == [40]
    acks = {int(e[5]) for e in ev if e[4] == "ack"}
    assert acks == {40, 48, 56, 64}


def test_timestamps_add_ns2s_ten_bytes_to_data_packets_and_none_to_acks():
    """timestamps_: a data packet is packetSize_ + 40 + ts_option_size_ (10) bytes with
    packetSize_ bytes of data, numbered as without; the sink's ACKs stay 40 bytes."""
    net, (s1, _, r1, k1) = _dumbbell()
    cfg = Ns2Agent("Newreno", "", {"timestamps_": True, "windowInit_": 4}).configs()
    net.tcp(s1, k1, 0, cfg, start=0.0, limit=6000)
    net.run(2.0)
    ev = [e for e in _events(net, ("2", "3")) + _events(net, ("3", "2")) if e[0] == "+"]
    data = [e for e in ev if e[4] == "tcp" and e[10] != "0"]
    assert [int(e[5]) for e in data] == [1050] * 6
    assert [int(e[10]) for e in data] == [1, 2, 3, 4, 5, 6]
    assert {int(e[5]) for e in ev if e[4] == "ack"} == {40}


def test_a_drop_tail_queue_of_limit_l_holds_l_minus_one_behind_the_one_sent():
    net, (s1, _, r1, k1) = _dumbbell()
    net.queue_limit(r1, k1, 3)
    cfg = Ns2Agent("Sack1", "Sack1", {"windowInit_": 8, "window_": 8}).configs()
    net.tcp(s1, k1, 0, cfg, start=0.0, limit=8000)
    net.run(1.0)
    ev = _events(net, ("2", "3"))
    first_burst = [e for e in ev if e[4] == "tcp" and e[10] != "0"][:24]
    dropped = [e[10] for e in first_burst if e[0] == "d"]
    # the burst of 8 reaches R1 every 1.04 ms, a packet leaves every 10.4 ms: with packet 1 on
    # the wire and 2, 3 waiting, 4 to 8 find the queue full (ns-2: length + 1 >= limit)
    assert dropped[:5] == ["4", "5", "6", "7", "8"]
    # a queue drop is traced "+" then "d", as ns-2 writes it
    assert [e[0] for e in ev if e[4] == "tcp" and e[10] == "4"][:2] == ["+", "d"]


def test_a_list_error_model_drops_the_counted_packets_of_its_flow_only():
    net, (s1, s2, r1, k1) = _dumbbell()
    net.error_model(r1, k1, 1, ListErrorModel([2, 4]))
    net.tcp(s1, k1, 1, Ns2Agent("Sack1", "Sack1").configs(), start=0.0, limit=6000)
    net.tcp(s2, k1, 2, Ns2Agent("Sack1", "Sack1").configs(), start=0.0, limit=6000)
    net.run(3.0)
    drops = [(e[7], e[10]) for e in _events(net, ("2", "3")) if e[0] == "d"]
    # count 0 is the SYN, 1 the first data packet (a one-way opening sends no third segment)
    assert drops[:2] == [("1", "2"), ("1", "4")]
    assert all(fid == "1" for fid, _ in drops)
    # an error-model drop happens before the queue: no "+" for that packet there
    first = [e for e in _events(net, ("2", "3")) if e[7] == "1" and e[10] == "2"]
    assert first[0][0] == "d"


def test_an_error_model_with_a_delay_holds_the_packet_back():
    net, (s1, _, r1, k1) = _dumbbell()
    net.error_model(s1, r1, 0, ListErrorModel([3], delay=0.05))
    net.tcp(s1, k1, 0, Ns2Agent("Sack1", "Sack1", {"windowInit_": 4}).configs(), start=0.0,
            limit=4000)
    net.run(2.0)
    sent = [(float(e[1]), e[10]) for e in _events(net, ("0", "2")) if e[0] == "+"]
    times = {seq: t for t, seq in sent}
    assert times["3"] - times["2"] > 0.049         # count 3 = data packet 3: 50 ms late
    assert [seq for _, seq in sent].index("4") < [seq for _, seq in sent].index("3")


def test_periodic_error_model_counts_in_packets():
    m = PeriodicErrorModel(period=3)
    assert [m.corrupt(None) for _ in range(7)] == [False, False, True, False, False, True,
                                                   False]
    with pytest.raises(ValueError, match="period must be >= 1"):
        PeriodicErrorModel(period=0)


def test_a_flow_without_syn_is_opened_before_ns2s_clock():
    cfg = Ns2Agent("Sack1", "Sack1", {"syn_": False}).configs()
    net, (s1, _, r1, k1) = _dumbbell()
    with pytest.raises(ValueError, match="needs NsNetwork\\(preopen"):
        net.tcp(s1, k1, 0, cfg, start=0.0)
    net, (s1, _, r1, k1) = _dumbbell(preopen=5.0)
    net.tcp(s1, k1, 0, cfg, start=0.5, limit=2000)
    net.run(2.0)
    first = net.trace_lines[0].split()
    assert float(first[1]) == 0.5 and first[4] == "tcp" and first[10] == "0"


def test_routes_and_bad_links_are_named():
    net, (s1, s2, r1, k1) = _dumbbell()
    lonely = net.node()
    with pytest.raises(ValueError, match="no link from node 0 to node 3"):
        net.queue_limit(s1, k1, 5)
    with pytest.raises(ValueError, match="queue limit must be >= 1"):
        net.queue_limit(r1, k1, 0)
    net.tcp(s1, lonely, 0, Ns2Agent().configs(), start=0.0)
    with pytest.raises(ValueError, match="no route from node 0 to node 4"):
        net.run(1.0)


# ---------------------------------------------------------------------- the ns2 agents
def test_ns2_defaults_become_engine_knobs():
    c = Ns2Agent("Sack1", "Sack1").configs()
    s = c.sender
    assert (s.variant, s.sack, s.mss, s.initial_window_segments, s.send_window_segments,
            s.max_cwnd_segments) == ("sack", True, 1000, 2, 20, 20)
    assert (s.clock_granularity, s.initial_rto, s.min_rto, s.max_rto, s.rtt_sampling,
            s.timestamps, s.delayed_ack) == (0.01, 3.0, 0.2, 60.0, "per-flight", False, False)
    assert c.wire_bytes == 1040 and c.syn and c.unmodelled == ()


def test_ns2_variables_map_and_what_the_engine_lacks_is_named():
    c = Ns2Agent("Newreno", "DelAck", {"useHeaders_": False, "minrto_": 0, "tcpTick_": 0.1,
                                       "singledup_": 0, "maxburst_": 4, "numdupacks_": 2,
                                       "bugFix_": False},
                 {"interval_": 0.2}).configs()
    s = c.sender
    assert (s.variant, s.sack, s.mss, s.min_rto, s.limited_transmit_cwnds, s.dupthresh) == \
        ("sack", False, 960, 0.2, 0.0, 2)         # minrto_ 0: ns-2's floor of two ticks
    assert (s.delayed_ack, s.delayed_ack_timeout, c.wire_bytes) == (True, 0.2, 1000)
    assert (s.max_burst, s.cwnd_model, s.pipe_model) == (4, "ns2", "rfc6675")
    assert not any(n.startswith("maxburst_") for n in c.unmodelled)
    # bugFix_ is a rule of the engine's recovery without SACK, Newreno's and Reno's alike
    assert s.recover_guard == "off" and not any(n.startswith("bugFix_") for n in c.unmodelled)
    reno = Ns2Agent("Reno", "", {"bugFix_": False}).configs()
    assert (reno.sender.variant, reno.sender.recover_guard) == ("reno", "off")
    assert not any(n.startswith("bugFix_") for n in reno.unmodelled)
    sack1 = Ns2Agent("Sack1", "Sack1", {"bugFix_": False}).configs()
    assert any(n.startswith("bugFix_ False:") for n in sack1.unmodelled)
    frto = Ns2Agent("Sack1", "Sack1", {"frto_enabled_": 1}).configs().sender
    assert frto.variant == "frto"
    assert Ns2Agent("Tahoe", "").configs().sender.variant == "tahoe"
    with pytest.raises(Ns2Unsupported, match="has no Tahoe form"):
        Ns2Agent("Tahoe", "", {"frto_enabled_": 1}).configs()
    with pytest.raises(ValueError, match="unknown Agent/TCP variable\\(s\\) windw_"):
        Ns2Agent("Sack1", "Sack1", {"windw_": 3})
    with pytest.raises(ValueError, match="unknown ns-2 sink 'Sack2'"):
        Ns2Agent("Sack1", "Sack2")


def test_the_ns2_profile_is_one_of_the_os_profiles():
    p = get_profile("ns2")
    assert (p.clock_granularity, p.initial_rto, p.min_rto, p.rtt_sampling) == \
        (0.01, 3.0, 0.2, "per-flight")
    c = profile_config("ns2", mss=1460, max_cwnd_segments=500)
    assert (c.initial_window_segments, c.timestamps, c.mss, c.max_cwnd_segments) == \
        (2, False, 1460, 500)
