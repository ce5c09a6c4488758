"""TCP SACK with DSACK undo: when DSACKs show that every retransmission of a recovery episode
was spurious, restore cwnd and ssthresh to their values before the reduction.

Detection: a DSACK block (RFC 2883 §4) covering data we retransmitted means the original
arrived too, i.e. the retransmission was unnecessary (RFC 3708). Response: the window
restoration of 000 §2 (Figure 1: "the sender restores its old window") as in Blanton and Allman
(000 §3 [7]), which is the DSACK sender 003 §2 and Fig. 4 compare RD-TCP against."""

from hosts.tcp.variants import LossRecoveryPolicy, register


@register
class DsackUndo(LossRecoveryPolicy):
    name = "dsack"

    def __init__(self, config):
        super().__init__(config)
        self.prior: tuple[int, int] | None = None   # (cwnd, ssthresh) before the reduction
        self.undo_retrans = 0                       # retransmissions not yet shown spurious

    def on_enter_recovery(self, conn, prior_cwnd, prior_ssthresh):
        self.prior = (prior_cwnd, prior_ssthresh)
        self.undo_retrans = 0

    def on_timeout(self, conn):
        # a timeout's retransmissions are not undone (only the fast-retransmit reduction is)
        self.prior = None

    def on_retransmit(self, conn, start, end):
        if self.prior is not None:
            self.undo_retrans += 1

    def on_dsack(self, conn, start, end, retransmitted):
        if self.prior is None or not retransmitted:
            return
        self.undo_retrans -= 1
        if self.undo_retrans <= 0:
            cwnd, ssthresh = self.prior
            conn.undo_reduction(cwnd=cwnd, ssthresh=ssthresh)
            self.prior = None
