"""TCP SACK with DSACK undo (RFC 2883 §5; 000 §3; 003 §2): when DSACKs show that every
retransmission of a recovery episode was spurious, restore cwnd and ssthresh to their values
before the reduction (the comparison of 003 Fig. 4)."""

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
