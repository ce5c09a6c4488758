"""live.host without root: two real-time hosts over a datagram socket pair (the engine driven
by the clock, frames through netbase.wire), the command line's checks, the engine configuration."""

from __future__ import annotations

import socket
import threading

import pytest

from hosts.tcp import TcpConnection
from live import host as live
from netbase.packet_socket import SocketPairPort


class PairPort(SocketPairPort):
    """RawPort's interface over one end of a datagram socket pair, recording what it sent."""

    def __init__(self, sock: socket.socket):
        super().__init__(sock=sock)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
        self.sent: list[bytes] = []

    def send(self, frame: bytes) -> bool:
        self.sent.append(frame)
        return super().send(frame)


A = dict(ip="10.0.1.1", mac="00:00:00:00:00:0a", gateway_mac="02:00:00:00:01:01")
B = dict(ip="10.0.2.1", mac="00:00:00:00:00:0b", gateway_mac="02:00:00:00:02:01")


def _transfer(variant: str, *, total: int | None = None, duration: float | None = None,
              delay: float = 0.0, rate_bps: float | None = None, pcap=None,
              max_cwnd: int = 500):
    """A sender on one end of a socket pair, a checking receiver on the other (own thread)."""
    s1, s2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a = live.LiveHost(PairPort(s1), delay=delay, rate_bps=rate_bps, pcap=pcap, **A)
    b = live.LiveHost(PairPort(s2), delay=delay, rate_bps=rate_bps, **B)
    cfg = live.tcp_config(variant, time_wait=0.05, max_cwnd_segments=max_cwnd)
    ca = TcpConnection(cfg, local_port=40000, remote_port=5001, iss=123)
    cb = TcpConnection(cfg, local_port=5001, remote_port=40000, iss=456)
    cb.listen()
    tx, rx = live.WindowedSender(total, seed=7), live.ClosingSink(seed=7)
    ea = a.add_endpoint(ca, remote_ip=B["ip"], app=tx, window=duration)
    tx.endpoint = ea
    eb = b.add_endpoint(cb, remote_ip=A["ip"], app=rx, window=duration)
    result = {}
    th = threading.Thread(target=lambda: result.update(
        b=b.run(lambda: cb.state == "CLOSED" and eb.opened_at is not None, timeout=20)))
    th.start()
    a.connect(ea)
    finished = a.run(lambda: ca.state == "CLOSED" and a.idle(), timeout=20)
    th.join(timeout=30)
    for h in (a, b):
        h.close()
    s1.close()
    s2.close()
    return finished and result.get("b"), ea, eb, a


def test_a_transfer_between_two_live_hosts_delivers_every_byte():
    finished, ea, eb, _ = _transfer("rdtcp", total=300_000)
    assert finished
    s, r = ea.summary(), eb.summary()
    assert r["pattern_ok"] and r["bytes"] == 300_000 and s["bytes"] == 300_000
    assert s["rdtcp"] and s["mss"] == 1448           # negotiated: 12 bytes kept for EPDN
    assert s["state"] == r["state"] == "CLOSED" and s["error"] is None


def test_the_host_link_delay_shows_in_the_handshake_rtt():
    finished, ea, eb, _ = _transfer("sack", total=20_000, delay=0.04)
    assert finished and eb.summary()["pattern_ok"]
    rtt = ea.summary()["handshake_rtt_s"]
    assert 0.08 <= rtt < 0.2                         # 40 ms each way, sent by each host


def test_a_duration_run_stops_writing_when_its_window_ends_and_closes():
    # 10 Mb/s serialisation on each host, at most 40 segments in flight
    finished, ea, eb, _ = _transfer("sack", duration=0.5, rate_bps=10e6, max_cwnd=40)
    assert finished
    s, r = ea.summary(), eb.summary()
    assert r["pattern_ok"] and r["bytes"] == s["bytes"] > 0
    assert s["bytes_in_window"] is not None and 0 < s["bytes_in_window"] <= s["bytes"]
    # after the window: what was in flight and the little written ahead, not a send buffer
    assert s["bytes"] - s["bytes_in_window"] <= live.WindowedSender.AHEAD + 40 * 1460 + 1460
    assert s["closed_at"] - s["established_at"] < 0.5 + 1.0
    assert r["throughput_Bps"] == pytest.approx(r["bytes_in_window"] / 0.5)


def test_the_host_pcap_holds_what_it_sent_and_received(tmp_path):
    from netbase.pcap import PcapWriter, read_pcap
    from netbase.wire import decode_frame

    writer = PcapWriter(tmp_path / "a.pcap")
    # 1 Mb/s: a 1.5 kB frame leaves 12 ms after it is sent, behind ACKs received meanwhile
    finished, ea, _, a = _transfer("sack", total=30_000, pcap=writer, rate_bps=1e6)
    assert finished
    recs = list(read_pcap(tmp_path / "a.pcap"))
    assert len(recs) == a.frames_in + a.frames_out
    srcs = {decode_frame(r.data)[0] for r in recs}
    assert srcs == {A["ip"], B["ip"]}
    assert all(x.time <= y.time for x, y in zip(recs, recs[1:]))       # in time order


def test_frames_for_another_address_are_not_ours():
    from hosts.tcp import Segment
    from netbase.segment import SYN
    from netbase.wire import encode_frame

    s1, s2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    b = live.LiveHost(PairPort(s2), **B)
    cb = TcpConnection(live.tcp_config("sack"), local_port=5001, remote_port=40000)
    cb.listen()
    b.add_endpoint(cb, remote_ip=A["ip"], app=live.ClosingSink())
    syn = Segment(40000, 5001, 1, 0, SYN, 1000, (), b"")
    s1.send(encode_frame(syn, src_ip=A["ip"], dst_ip="10.0.9.9"))      # not b's address
    s1.send(b"\x00" * 20)                                               # not a frame
    b.turn(max_wait=1.0)
    assert (b.unmatched, b.malformed, cb.state) == (1, 1, "LISTEN")
    b.close()
    s1.close()
    s2.close()


def test_a_segment_for_no_endpoint_of_ours_is_answered_with_a_reset():
    # RFC 9293 §3.10.7.1, the engine's rule (hosts.tcp.reset_for): <SEQ=SEG.ACK><CTL=RST>
    from hosts.tcp import Segment
    from netbase.segment import ACK, RST
    from netbase.wire import decode_frame, encode_frame

    s1, s2 = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    port = PairPort(s2)
    b = live.LiveHost(port, **B)
    stray = Segment(40000, 5999, 1, 4242, ACK, 1000, (), b"late")
    s1.send(encode_frame(stray, src_ip=A["ip"], dst_ip=B["ip"]))
    b.turn(max_wait=1.0)
    assert b.unmatched == 1
    ((src, dst, rst),) = [decode_frame(f) for f in port.sent]
    assert (src, dst) == (B["ip"], A["ip"])
    assert (rst.src_port, rst.dst_port, rst.seq, rst.flags) == (5999, 40000, 4242, RST)
    b.close()
    s1.close()
    s2.close()


# -- configuration and command line ----------------------------------------------------------------
@pytest.mark.parametrize("variant", ["sack", "rdtcp", "eifel", "rdtcp-adaptive"])
def test_live_run_gives_the_hosts_the_simulators_engine_configuration(variant):
    from experiments.live_run import host_options
    from experiments.runner.spec import RunSpec, tcp_config

    spec = RunSpec(variant=variant, k=2)
    args = live.build_parser().parse_args(
        ["--role", "sender", "--interface", "x", "--ip", "10.0.1.1", "--mac", A["mac"],
         "--gateway-mac", A["gateway_mac"], "--peer-ip", "10.0.2.1", *host_options(spec)])
    onoff = {"auto": None, "on": True, "off": False}
    cfg = live.tcp_config(args.variant, mss=args.mss, k=args.k, max_cwnd_segments=args.max_cwnd,
                          timestamps=onoff[args.timestamps], rdtcp=onoff[args.rdtcp])
    assert cfg == tcp_config(spec)


BASE = ["--interface", "lo", "--ip", "10.0.1.1", "--mac", A["mac"], "--gateway-mac",
        A["gateway_mac"], "--peer-ip", "10.0.2.1"]


@pytest.mark.parametrize("argv, words", [
    (["--role", "sender", *BASE[:3], "10.0.1", *BASE[4:]], "is not an IPv4 address"),
    (["--role", "sender", *BASE[:5], "00:00:00:0a", *BASE[6:]], "is not a MAC address"),
    (["--role", "sender", *BASE, "--duration", "0"], "--duration 0.0: out of range"),
    (["--role", "sender", *BASE, "--duration", "nan"], "out of range"),
    (["--role", "sender", *BASE, "--delay", "-1"], "--delay -1.0: out of range"),
    (["--role", "sender", *BASE, "--port", "70000"], "not a TCP port"),
    (["--role", "sender", *BASE, "--duration", "1", "--bytes", "5"], "not both"),
    (["--role", "receiver", *BASE, "--bytes", "5"], "the sender's option"),
    (["--role", "sender", *BASE, "--variant", "cubic"], "invalid choice"),
])
def test_bad_options_are_one_error_line_and_status_2(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        live.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("error: ") and words in err
    assert "Traceback" not in err


def test_an_address_the_kernel_owns_is_refused(capsys):
    # 127.0.0.1 is local in every namespace: the kernel's TCP would reset our segments
    with pytest.raises(live.HostError, match="the kernel owns 127.0.0.1"):
        live.check_address_not_local("127.0.0.1")
    live.check_address_not_local("10.255.255.254")    # not local here: fine
    assert live.main(["--role", "sender", *BASE[:3], "127.0.0.1", *BASE[4:]]) == 2
    assert "error: the kernel owns 127.0.0.1" in capsys.readouterr().err


def test_a_missing_interface_or_out_directory_is_an_error_not_a_traceback(tmp_path, capsys):
    argv = ["--role", "receiver", "--interface", "nosuch-if0", *BASE[2:]]
    assert live.main(argv + ["--out", str(tmp_path / "no" / "x.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    if __import__("os").geteuid() == 0:
        assert live.main(argv) == 2
        assert "interface 'nosuch-if0'" in capsys.readouterr().err
