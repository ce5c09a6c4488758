"""A new variant is a small policy registered by name: the engine calls its hooks."""

from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS, LossRecoveryPolicy, register
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes(i % 251 for i in range(30_000))


class FiveDupacksGentle(LossRecoveryPolicy):
    """Fast retransmit after 5 dupacks; reduce ssthresh to 3/4 of the flight, not 1/2."""
    name = "test-five-gentle"

    def should_fast_retransmit(self, conn, dupacks, *, now):
        return dupacks >= 5

    def ssthresh_after_loss(self, conn, *, now):
        return max(conn.flight_size * 3 // 4, 2 * conn.mss)


def test_registered_policy_decides_fast_retransmit_and_reduction():
    register(FiveDupacksGentle)
    try:
        net = TestNetwork(TcpConfig(variant="test-five-gentle", mss=MSS, initial_window_segments=10),
                          DATA)
        net.drop(5)
        net.run()
        assert net.delivered == DATA
        (fr,) = net.events_named("fast-retransmit")
        assert fr[2]["dupacks"] == 5
        (rtx,) = net.retransmissions()
        assert rtx.seq == net.sent[4].seq
        assert fr[2]["ssthresh"] == fr[2]["flight"] * 3 // 4 > fr[2]["flight"] // 2
        assert net.a.stats["fast_retransmits"] == 1
    finally:
        VARIANTS.pop("test-five-gentle", None)


class DeliveryRecorder(LossRecoveryPolicy):
    """Records every on_delivered call, and where each ACK's on_ack fell among them."""
    name = "test-delivery-recorder"
    observes_deliveries = True

    def __init__(self, config):
        super().__init__(config)
        self.calls: list[tuple] = []
        self.acks: list[int] = []          # len(self.calls) at each on_ack

    def on_delivered(self, conn, start, end, sent_at, transmissions, *, now):
        self.calls.append((start, end, sent_at, transmissions, now))

    def on_ack(self, conn, seg, prior_una, *, now):
        self.acks.append(len(self.calls))


def test_on_delivered_reports_each_segment_once_with_send_time_and_transmissions():
    register(DeliveryRecorder)
    try:
        net = TestNetwork(TcpConfig(variant="test-delivery-recorder", mss=MSS,
                                    initial_window_segments=10), DATA)
        net.drop(5)         # the 5th data segment is lost once, then retransmitted
        net.run()
        assert net.delivered == DATA
        policy = net.a.policy
        data_calls = [c for c in policy.calls if c[1] - c[0] == MSS]
        # every data segment is reported exactly once, in sequence order per ACK
        starts = [c[0] for c in data_calls]
        assert sorted(starts) == sorted(set(starts)) and len(starts) == len(DATA) // MSS
        lost = net.sent[4]
        (rtx,) = net.retransmissions()
        hole = (lost.seq - net.iss_a) % 2**32          # the engine's unwrapped offset
        (call,) = [c for c in data_calls if c[0] == hole]
        assert call[3] == 2 and call[2] == rtx.time      # the latest transmission's time
        # the segments above the hole were reported when SACKed, before the hole was filled
        later = [c for c in data_calls if c[0] > hole]
        assert later and all(c[4] < call[4] for c in later[:3])
        for c in data_calls:
            assert c[2] <= c[4]                          # sent before it was acknowledged
        # on_ack comes after the deliveries of its ACK: counts never go backwards
        assert policy.acks == sorted(policy.acks) and policy.acks[-1] == len(policy.calls)
    finally:
        VARIANTS.pop("test-delivery-recorder", None)


def test_policies_that_do_not_observe_deliveries_are_not_called():
    class Refuses(DeliveryRecorder):
        name = "test-delivery-off"
        observes_deliveries = False
    register(Refuses)
    try:
        net = TestNetwork(TcpConfig(variant="test-delivery-off", mss=MSS,
                                    initial_window_segments=10), DATA)
        net.drop(5)
        net.run()
        assert net.delivered == DATA and net.a.policy.calls == []
    finally:
        VARIANTS.pop("test-delivery-off", None)
