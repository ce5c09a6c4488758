"""A new variant is a small policy registered by name: the engine calls its hooks."""

from hosts.tcp import TcpConfig
from hosts.tcp.variants import VARIANTS, LossRecoveryPolicy, register
from hosts.testing import TestNetwork

MSS = 1000
DATA = bytes(i % 251 for i in range(30_000))


class FiveDupacksGentle(LossRecoveryPolicy):
    """Fast retransmit after 5 dupacks; reduce ssthresh to 3/4 of the flight, not 1/2."""
    name = "test-five-gentle"

    def should_fast_retransmit(self, conn, dupacks):
        return dupacks >= 5

    def ssthresh_after_loss(self, conn):
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
