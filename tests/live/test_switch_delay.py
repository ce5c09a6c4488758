"""rdtcp-switch's --port-delay: the delay line itself, its option, and the switch loop holding
frames for the delay after the traffic manager's departure (a fake clock, socket-pair ports)."""

from __future__ import annotations

import pytest

from controller import Controller
from controller.drivers import EmbeddedDriver
from hosts.tcp import Segment
from netbase.packet_socket import DelayLine, PortError, SocketPairPort, parse_port_delay
from netbase.segment import ACK
from netbase.wire import encode_frame
from toolchain.switch import SimpleSwitch
from toolchain.switch.process import main as switch_main
from toolchain.switch.process.main import SwitchProcess


# -- the delay line -------------------------------------------------------------------------------
def test_delay_line_releases_each_frame_its_delay_after_it_was_pushed():
    line = DelayLine(0.05)
    assert line.next_due() is None
    assert line.push(b"a", 1.0) == 1.0          # no rate: it departs when pushed
    line.push(b"b", 1.02)
    assert line.next_due() == pytest.approx(1.05)
    assert line.pop_due(1.049) == []
    assert line.pop_due(1.05) == [b"a"]
    assert line.pop_due(1.2) == [b"b"]
    assert len(line) == 0 and line.max_backlog == 2


def test_delay_line_is_fifo_even_when_a_later_frame_would_be_due_first():
    line = DelayLine(0.01)
    line.push(b"late", 5.0)
    line.push(b"early", 1.0)                     # a sender going back in time: still behind
    assert line.pop_due(4.0) == []
    assert line.pop_due(5.01) == [b"late", b"early"]


def test_delay_line_with_a_rate_serialises_back_to_back_like_a_host_nic():
    line = DelayLine(0.001, rate_bps=10e6)
    frame = bytes(1250)                          # 1 ms at 10 Mb/s
    assert line.push(frame, 0.0) == pytest.approx(0.001)
    assert line.push(frame, 0.0) == pytest.approx(0.002)      # waits for the first
    assert line.push(frame, 0.5) == pytest.approx(0.501)      # the link was idle
    assert line.pop_due(0.0025) == [frame]
    assert line.pop_due(0.003) == [frame]


@pytest.mark.parametrize("delay, rate", [(-1, None), (float("nan"), None), (float("inf"), None),
                                         (0, 0), (0, -5.0), (0, float("nan"))])
def test_delay_line_refuses_nonsense(delay, rate):
    with pytest.raises(ValueError):
        DelayLine(delay, rate)


def test_port_delay_option_parses_port_and_milliseconds():
    assert parse_port_delay("2:50") == (2, 0.05)
    assert parse_port_delay("0:0.5") == (0, 0.0005)
    assert parse_port_delay("510:0") == (510, 0.0)


@pytest.mark.parametrize("spec, words", [("2", "expected <port-num>:<milliseconds>"),
                                         ("x:5", "expected"), ("2:abc", "expected"),
                                         ("511:5", "0..510"), ("2:-1", "0..3600000"),
                                         ("2:nan", "0..3600000"), ("2:inf", "0..3600000")])
def test_port_delay_option_errors_name_the_problem(spec, words):
    with pytest.raises(PortError, match="--port-delay") as e:
        parse_port_delay(spec)
    assert words in str(e.value)


@pytest.mark.parametrize("argv, words", [
    (["-i", "1@nosuch0", "--port-delay", "2:5"], "port 2 has no interface"),
    (["-i", "1@nosuch0", "--port-delay", "1:5", "--port-delay", "1:6"], "given twice for port 1"),
    (["-i", "1@nosuch0", "--port-delay", "1"], "expected <port-num>:<milliseconds>"),
])
def test_switch_refuses_bad_port_delays_before_opening_anything(argv, words, gateway, capsys):
    assert switch_main.main(argv + [gateway[0]]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err


def test_port_delay_is_documented_as_ours_in_the_help(capsys):
    with pytest.raises(SystemExit):
        switch_main.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--port-delay" in text and "not a simple_switch option" in text


# -- the switch loop, with a fake clock -----------------------------------------------------------
class FakePort(SocketPairPort):
    """RawPort's interface over a datagram socket pair; the test holds ``peer``."""

    def __init__(self, port: int):
        super().__init__(port, ifname=f"fake{port}")


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _frame(seq: int) -> bytes:
    seg = Segment(40000, 5001, seq, 1, ACK, 1000, (), b"x" * 100)
    return encode_frame(seg, src_ip="10.0.1.1", dst_ip="10.0.2.1", src_mac="00:00:00:00:00:0a",
                        dst_mac="02:00:00:00:01:01")


@pytest.fixture
def delayed(gateway):
    """A gateway forwarding 10.0.2.1 to port 2, which delays by 50 ms; the clock at 0."""
    sw = SimpleSwitch(gateway[1])
    Controller(EmbeddedDriver(sw)).apply({"routes": [
        {"prefix": "10.0.2.1", "port": 2, "next_hop_mac": "02:00:00:00:02:02"}]})
    clock = Clock()
    ports = {1: FakePort(1), 2: FakePort(2)}
    proc = SwitchProcess(sw, ports, None,
                         port_delays={2: 0.05}, clock=clock, wall_clock=lambda: 1000.0)
    yield proc, clock, ports
    proc.close()


def test_a_delayed_port_sends_the_frame_its_delay_after_the_departure(delayed):
    proc, clock, ports = delayed
    clock.t = 0.010
    ports[1].peer.send(_frame(1))
    proc.turn(max_wait=1.0)                     # received and departed at 0.010
    assert ports[2].received() == []
    assert proc.next_deadline() == pytest.approx(0.060)
    clock.t = 0.0599
    proc.turn(max_wait=0)
    assert ports[2].received() == []
    clock.t = 0.0601
    proc.turn(max_wait=0)
    out = ports[2].received()
    assert len(out) == 1 and out[0][:6] == bytes.fromhex("020000000202")   # routed, rewritten
    assert proc.next_deadline() is None


def test_the_delay_counts_from_the_queue_departure_and_keeps_the_order(delayed):
    proc, clock, ports = delayed
    proc.sw.cli("set_queue_rate 100 2")     # one departure per 10 ms
    for seq in (1, 2, 3):
        ports[1].peer.send(_frame(seq * 1000))
    proc.turn(max_wait=1.0)
    seen = []
    for i in range(120):                        # the clock in 1 ms steps
        clock.t = i / 1000
        proc.turn(max_wait=0)
        seen += [(clock.t, f) for f in ports[2].received()]
    # departures at 0, 10 and 20 ms; each frame leaves at the first step at or after its due time
    assert [t for t, _ in seen] == pytest.approx([0.05, 0.06, 0.07], abs=0.0011)
    seqs = [int.from_bytes(f[38:42], "big") for _, f in seen]
    assert seqs == [1000, 2000, 3000]


def test_undelayed_ports_are_unchanged(gateway):
    sw = SimpleSwitch(gateway[1])
    Controller(EmbeddedDriver(sw)).apply({"routes": [
        {"prefix": "10.0.2.1", "port": 2, "next_hop_mac": "02:00:00:00:02:02"}]})
    clock = Clock()
    ports = {1: FakePort(1), 2: FakePort(2)}
    proc = SwitchProcess(sw, ports, None, clock=clock)
    try:
        ports[1].peer.send(_frame(1))
        proc.turn(max_wait=1.0)
        assert len(ports[2].received()) == 1 and proc.next_deadline() is None
    finally:
        proc.close()


def test_the_out_pcap_is_stamped_at_the_departure(delayed, tmp_path):
    from netbase.pcap import read_pcap
    from toolchain.switch.process.main import PcapSet

    proc, clock, ports = delayed
    proc.pcap = PcapSet(tmp_path, ports)
    clock.t = 0.020
    ports[1].peer.send(_frame(1))
    proc.turn(max_wait=1.0)
    clock.t = 0.080
    proc.turn(max_wait=0)
    proc.pcap.close()
    (rec,) = list(read_pcap(tmp_path / "fake2_out.pcap"))
    assert rec.time == pytest.approx(1000.020)   # where the delayed link begins
    (rin,) = list(read_pcap(tmp_path / "fake1_in.pcap"))
    assert rin.time == pytest.approx(1000.020)
