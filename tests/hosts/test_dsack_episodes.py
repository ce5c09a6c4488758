"""DSACK undo counts the retransmissions of one fast-recovery episode (RFC 3708; Blanton and
Allman's BL-R, [RRTCP] §5.1): a late DSACK for an earlier episode must not undo the current one.

Driven through the policy's hooks with a stand-in for the engine's public state (the part
of ``TcpConnection`` the hooks read and call), because arranging a DSACK to arrive late,
after a second episode has begun, is a matter of timing that the policy itself does not see.
"""

from types import SimpleNamespace

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.variants import get_variant

MSS = 1000


class _Conn(SimpleNamespace):
    def undo_reduction(self, *, cwnd, ssthresh):
        self.undos.append((cwnd, ssthresh))

    def apply(self, undo):
        """What the engine does with the Undo a hook returns (None: nothing)."""
        if undo is not None:
            self.undo_reduction(cwnd=undo.cwnd, ssthresh=undo.ssthresh)


def _policy(variant):
    return get_variant(variant)(TcpConfig(variant=variant, mss=MSS))


@pytest.mark.parametrize("variant, restored", [
    ("dsack", (30 * MSS, 20 * MSS)), ("rdtcp-measured-undo", (30 * MSS, 20 * MSS)),
    # Blanton and Allman's undo (BA02): ssthresh back to the old cwnd, cwnd slow-starts to it
    ("dsack-inc", (20 * MSS, 30 * MSS)), ("dsack-avg", (20 * MSS, 30 * MSS))])
def test_late_dsack_of_an_earlier_episode_does_not_undo_the_current_one(variant, restored):
    conn = _Conn(snd_una=10_001, dupacks=3, cwnd=20 * MSS, mss=MSS, undos=[])
    policy = _policy(variant)
    # episode 1 retransmits [10001, 11001) (later shown spurious, but its DSACK is late)
    policy.on_enter_recovery(conn, 40 * MSS, 1 << 30, now=1.0)
    policy.on_retransmit(conn, 10_001, 11_001, 0.5, now=1.0)
    # episode 2 begins at snd_una 50001 and retransmits one segment
    conn.snd_una = 50_001
    policy.on_enter_recovery(conn, 30 * MSS, 20 * MSS, now=2.0)
    policy.on_retransmit(conn, 50_001, 51_001, 1.5, now=2.0)
    conn.apply(policy.on_dsack(conn, 10_001, 11_001, True, now=2.1))   # episode 1's DSACK now
    assert conn.undos == []
    conn.apply(policy.on_dsack(conn, 50_001, 51_001, True, now=2.2))   # episode 2's: all spurious
    assert conn.undos == [restored]


def test_dsack_for_data_never_retransmitted_does_not_count():
    conn = _Conn(snd_una=1, dupacks=3, cwnd=20 * MSS, mss=MSS, undos=[])
    policy = _policy("dsack")
    policy.on_enter_recovery(conn, 40 * MSS, 1 << 30, now=1.0)
    policy.on_retransmit(conn, 1, 1001, 0.5, now=1.0)
    conn.apply(policy.on_dsack(conn, 5001, 6001, False, now=1.1))  # the network's duplicate
    assert conn.undos == []
