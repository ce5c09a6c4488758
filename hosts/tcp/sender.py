"""The sending half's sequence space: SND.UNA, SND.NXT, SND.MAX, the peer's window, the bytes
the application wrote (the send buffer), our FIN, and the segments that carry them.

Positions are unwrapped offsets from the ISS (the SYN is offset 0, data starts at 1), so
plain integer order is sequence order (connection.py converts at the edges). Every segment sent
has a record in the scoreboard (scoreboard.py); which segment goes out when is decided by
loss recovery and congestion control (recovery.py), which asks this part for it; this part
knows nothing of them.

Collaborators, passed in: the scoreboard, ``make`` (the connection's segment builder, which
fills in the ACK, the window and the timestamp option) and the counters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from hosts.tcp.scoreboard import END, SACKED, SENT_AT, START, Record, Scoreboard
from hosts.tcp.sendbuf import SendBuffer
from hosts.tcp.timers import TS_HZ, ts_val
from netbase.segment import FIN, Segment
from netbase.seq import SEQ_MOD

if TYPE_CHECKING:
    from hosts.tcp.rtt import RttEstimator

# the connection's segment builder: (offset, payload, flags, options or None, reserved bits)
MakeSegment = Callable[[int, bytes, int, Optional[tuple], int], Segment]

__all__ = ["Sender", "MAX_WINDOW_UNSCALED", "RTX_BIT"]

MAX_WINDOW_UNSCALED = 65535         # RFC 9293 §3.1: the 16-bit window field
# an echoed timestamp further back than half the clock's range is not one of ours (RFC 7323
# §5.2: timestamps compare in 2^31 of the 32-bit space)
TS_ECHO_LIMIT = 1 << 31
# Ludwig's RTX bit ([RRTCP] §3, §5.1.1): a reserved bit marking a retransmission, which the ACK it
# draws echoes, so the sender knows which transmission an ACK is for. Bit 0x04 of header byte
# 12 (Segment.reserved), beside RD-TCP's reorder bit (0x02).
RTX_BIT = 0x04


class Sender:
    def __init__(self, scoreboard: Scoreboard, make: MakeSegment, stats: dict[str, int], *,
                 mss: int, per_flight: bool, marks_retransmissions: bool = False):
        self.sb = scoreboard
        self.make = make
        self.stats = stats
        self.mss = mss                  # SMSS; the handshake sets the one agreed
        self.snd_una = self.snd_nxt = self.snd_max = 0
        self.snd_wnd = MAX_WINDOW_UNSCALED    # until the peer's SYN says (RFC 9293 §3.1)
        self.max_wnd = 0                # the largest window the peer offered (§3.8.6.2.1)
        self.buf = SendBuffer(1)        # data starts at offset 1 (after the SYN)
        self.app_end = 1                # end of what the application wrote
        self.fin_pending = False        # close() was called, the FIN is not sent yet
        self.fin_at: int | None = None  # offset of our FIN once sent
        self.per_flight = per_flight    # one RTT measurement per flight (BSD's t_rtt)
        self.timed: Record | None = None    # per-flight sampling: the record being timed
        # the reserved bits of a retransmission: Ludwig's RTX bit for a variant that marks them
        self.rtx_mark = RTX_BIT if marks_retransmissions else 0

    @property
    def flight_size(self) -> int:
        return self.snd_max - self.snd_una

    @property
    def unsent(self) -> int:
        """Bytes the application has written that were never sent."""
        return self.app_end - self.snd_max

    def write(self, data: bytes) -> None:
        self.buf.append(data)
        self.app_end += len(data)

    @property
    def closing(self) -> bool:
        """close() was called (the FIN is queued or sent)."""
        return self.fin_pending or self.fin_at is not None

    def set_window(self, wnd: int) -> None:
        """The peer's window (SND.WND), in bytes."""
        self.snd_wnd = wnd
        if wnd > self.max_wnd:
            self.max_wnd = wnd

    def window_blocks(self) -> bool:
        """Data waits, nothing is in flight (else the RTO runs) and the peer's window lets no
        segment go, shut or too small to fill (``sendable``): only the persist timer can get
        things moving (persist.py)."""
        return self.snd_max == self.snd_una < self.app_end and self.sendable() <= 0

    def zero_window_probe(self) -> Segment:
        """A probe of the peer's shut window (RFC 9293 §3.8.6.1, MUST-35), Linux's
        (tcp_xmit_probe_skb): no data, sequence number SND.UNA - 1. The peer finds it
        unacceptable, an old segment, and answers with an ACK that carries its window as it
        stands (§3.10.7.4), so a window update that was lost is sent again, and nothing enters
        the sequence space or the scoreboard (RFC 9293's probe of one octet would be a segment
        to retransmit, time and release)."""
        return self.make(self.snd_una - 1, b"", 0, None, 0)

    def sendable(self, force: bool = False) -> int:
        """How many bytes of new data the next segment carries under the peer's window: a
        full segment, all the data written (the application pushes what it writes), or at
        least half the largest window the peer offered; 0 for less, which SWS avoidance holds
        back (RFC 9293 §3.8.6.2.1, MUST-38: a sender fills no sliver of window with a small
        segment), unless ``force`` (the override, (4) there), and 0 for a shut window."""
        start = self.snd_nxt
        avail = self.app_end - start
        n = self.snd_una + self.snd_wnd - start
        mss = self.mss
        if n >= mss:
            return mss if avail > mss else avail
        if n >= avail:
            return avail
        return n if n > 0 and (force or 2 * n >= self.max_wnd) else 0

    # ------------------------------------------------------------------ segments out
    def new_data(self, now: float, *, force: bool = False) -> Segment | None:
        """The next segment of new data the peer's window allows (at most one MSS), or None.
        ``force``: whatever part of the window is open, SWS avoidance overridden (the persist
        timer's expiry, RFC 9293 §3.8.6.2.1 (4))."""
        start = self.snd_nxt
        avail = self.app_end - start
        if avail <= 0:
            return None
        n = self.snd_una + self.snd_wnd - start
        mss = self.mss
        if n >= mss:                        # the usual case, inline: a full segment or the rest
            n = mss if avail > mss else avail
        else:
            n = self.sendable(force)
            if n <= 0:
                return None
        r = self.sb.add(start, start + n, now)
        if self.per_flight and self.timed is None:
            self.timed = r                          # time this one; the next after its ACK
        self.snd_nxt = self.snd_max = start + n
        return self.make(start, self.buf.read(start, start + n), 0, None, 0)

    def mark_resent(self, r: Record, now: float) -> None:
        """Record ``r`` is being sent again (``resent_segment`` builds it). Per-flight timing
        stops here (Karn's algorithm as BSD runs it: t_rtt = 0 at a timeout, a fast retransmit
        and, in FreeBSD's NewReno, a partial ACK's retransmission; ns-2's agents alike,
        reset_rtx_timer): the next new segment sent is the one timed."""
        if self.per_flight:
            self.timed = None
        self.sb.on_retransmit(r, now)
        self.stats["retransmits"] += 1

    def resent_segment(self, r: Record) -> Segment:
        """The segment that carries record ``r`` again: our FIN, or its data (with the RTX
        bit when the variant marks retransmissions)."""
        start = r[START]
        if self.fin_at is not None and start == self.fin_at:
            return self.make(start, b"", FIN, None, 0)
        return self.make(start, self.buf.read(start, r[END]), 0, None, self.rtx_mark)

    def send_fin(self, now: float) -> Segment:
        """Our FIN, after the last byte written (RFC 9293 §3.10.4); it takes one offset."""
        self.fin_pending = False
        self.fin_at = self.snd_nxt
        self.sb.add(self.fin_at, self.fin_at + 1, now)
        self.snd_nxt = self.snd_max = self.fin_at + 1
        return self.make(self.fin_at, b"", FIN, None, 0)

    def last_unsacked(self) -> Record | None:
        """The highest-sequence record not SACKed, what TLP's probe sends again when it has no
        new data (RFC 8985 §7.3); a FIN alone is passed over for the data below it, since a
        FIN beyond a hole draws no ACK (it waits unSACKed, see Inbound.on_data)."""
        segs = self.sb.records
        for i in range(len(segs) - 1, self.sb.head - 1, -1):
            r = segs[i]
            if not r[SACKED] and r[START] != self.fin_at:
                return r
        return None

    # ------------------------------------------------------------------ acknowledgments
    def advance(self, ack: int, now: float, rtt: RttEstimator, tsecr: int | None = None) -> None:
        """The cumulative ACK moved SND.UNA to ``ack``: its RTT sample (``tsecr``: the
        timestamp it echoes, when the connection uses timestamps), its records off the
        scoreboard, the acknowledged bytes freed."""
        self._rtt_sample(ack, now, rtt, tsecr)
        self.sb.trim(ack, now)
        self.snd_una = ack
        self.buf.release(ack)                       # acknowledged bytes leave the send buffer

    def _rtt_sample(self, ack: int, now: float, rtt: RttEstimator, tsecr: int | None) -> None:
        """The RTT measurement of an ACK that acknowledges new data.

        With timestamps, RFC 7323 §4 (RTTM): the time since the TSval the ACK echoes. The
        receiver echoes the segment that last advanced its cumulative ACK, or filled a hole
        (§4.2, §4.3), so a retransmission is timed by its own copy and data held behind a hole
        does not count its wait (RFC 6298 §3: timestamps remove Karn's ambiguity).
        Otherwise RFC 6298 §3, Karn: the newest segment the ACK covers that was sent once, and
        nothing when it also covers a retransmission (Scoreboard.karn_timed; Linux's
        FLAG_RETRANS_DATA_ACKED); with per-flight sampling (BSD's t_rtt), the one segment
        being timed once it is acknowledged: a retransmission stopped the timing of any
        segment sent before it (``retransmit``), so the one timed was sent after the last
        retransmission and its ACK is its own, whatever else the ACK covers."""
        timed = None
        if self.per_flight:
            r = self.timed
            if r is not None and r[END] <= ack:
                self.timed = None
                timed = r
        elif tsecr is None:
            timed = self.sb.karn_timed(ack)
        if tsecr is not None:
            elapsed = (ts_val(now) - tsecr) % SEQ_MOD
            if elapsed < TS_ECHO_LIMIT:
                rtt.sample(elapsed / TS_HZ, snd_una=ack, snd_nxt=self.snd_nxt)
                return
            if not self.per_flight:         # not an echo of ours: time by sequence instead
                timed = self.sb.karn_timed(ack)
        if timed is not None:
            rtt.sample(now - timed[SENT_AT], snd_una=ack, snd_nxt=self.snd_nxt)
