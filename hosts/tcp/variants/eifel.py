"""Eifel: TCP SACK that tells a spurious retransmission from the timestamps the first ACK after
it echoes, and takes back what the retransmission cost.

Detection, RFC 3522 §3 (needs the timestamp option, RFC 7323, on both ends): remember the
TSval of the first retransmission of a recovery episode (RetransmitTS). An ACK that acknowledges
new data ("acceptable ACK") echoes the TSval of the segment that arrived and made the receiver
send it: when that TSecr is older than RetransmitTS, the original got there, so the
retransmission was not needed. A retransmission sent in the same millisecond as its original
cannot be told apart and counts as needed (RFC 3522 §3.2 compares strictly).

Which acceptable ACK: after a timeout, the first (RFC 3522 §3.2). After a fast retransmit the
SACK recovery may be repairing several holes, and the first acceptable ACK speaks for the first
hole only: undoing there restores the full window while a later hole is a real loss (its
retransmission then drowns in the refilled queue and only the timer recovers it). So a fast
retransmit is judged on the ACK that ends its recovery, as Linux's tcp_try_undo_recovery does
with timestamps: TS.Recent never moves backwards (RFC 7323 §4.3), so that ACK's TSecr is the
newest TSval of the segments that filled the holes, older than RetransmitTS only when no
retransmission filled one.

Response:
- a spurious fast retransmit: restore the window it cut, as DSACK undo does ([RRTCP] §2, BL-R), an
  RTT earlier than a DSACK could say it; dupthresh stays 3.
- a spurious timeout: the Eifel response, RFC 4015 §3 (``spurious.respond_to_spurious_timeout``:
  no go-back-N, cwnd <- FlightSize + min(bytes_acked, IW), ssthresh <- pipe_prev).

Without negotiated timestamps there is nothing to compare and the variant behaves as ``sack``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hosts.tcp.timers import ts_val
from hosts.tcp.variants.base import Decisions, SenderView, Undo, register
from hosts.tcp.variants.sack import Sack
from hosts.tcp.variants.spurious import respond_to_spurious_timeout
from netbase.seq import seq_lt

if TYPE_CHECKING:
    from hosts.tcp.config import TcpConfig
    from netbase.segment import Segment

FAST_RETRANSMIT, TIMEOUT = "fast retransmit", "timeout"


@register
class Eifel(Sack):
    name = "eifel"
    needs_timestamps = True

    def __init__(self, config: TcpConfig) -> None:
        super().__init__(config)
        self.episode: str | None = None         # FAST_RETRANSMIT or TIMEOUT, until judged
        self.retransmit_ts: int | None = None   # RFC 3522 RetransmitTS
        self.prior: tuple[int, int] | None = None   # fast retransmit: (cwnd, ssthresh) before
        self.pipe_prev = 0                      # timeout: RFC 4015 pipe_prev

    def on_enter_recovery(self, view: SenderView, prior_cwnd: int, prior_ssthresh: int, *,
                          now: float) -> None:
        self._start(view, FAST_RETRANSMIT)
        self.prior = (prior_cwnd, prior_ssthresh)

    def on_timeout(self, view: SenderView, *, now: float) -> Decisions:
        # a timeout that interrupts an episode not yet judged starts a new one (RFC 3522 §3.1:
        # RetransmitTS is that of the first retransmission of this recovery)
        self._start(view, TIMEOUT)
        self.pipe_prev = max(view.flight_size, view.ssthresh)
        return None

    def _start(self, view, kind: str) -> None:
        self.episode = kind if view.ts_ok else None
        self.retransmit_ts = None

    def on_retransmit(self, view: SenderView, start: int, end: int, last_sent_at: float, *,
                      now: float) -> Decisions:
        if self.episode is not None and self.retransmit_ts is None:
            self.retransmit_ts = ts_val(now)    # the TSval this retransmission carries
        return None

    def on_ack(self, view: SenderView, seg: Segment, prior_una: int, *, now: float) -> Decisions:
        if self.retransmit_ts is None or view.snd_una <= prior_una:
            return None                         # no retransmission to judge, or not acceptable
        if self.episode == FAST_RETRANSMIT and view.in_recovery:
            return None                         # judged when the recovery ends (see above)
        kind, self.episode = self.episode, None
        retransmit_ts, self.retransmit_ts = self.retransmit_ts, None
        ts = seg.option("Timestamp")
        if ts is None or not seq_lt(ts[1], retransmit_ts):
            return None                         # the retransmission is what arrived
        if kind == FAST_RETRANSMIT:
            assert self.prior is not None       # set as the fast retransmit began
            cwnd, ssthresh = self.prior
            return Undo(cwnd, ssthresh, detector="eifel")
        return respond_to_spurious_timeout(view, prior_una, self.pipe_prev)
