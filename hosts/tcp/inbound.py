"""The receiving half of a synchronized connection: which segments are acceptable, their data
and FIN into the reassembly buffer (receiver.py), the EPDN stamps they carry, and the ACKs we
owe (RFC 5681 §4.2, SACK and DSACK blocks, RD-TCP's reorder bit).

Positions are unwrapped offsets from the peer's initial sequence number (IRS); the peer's SYN
is offset 0, its data starts at 1.
"""

from __future__ import annotations

from hosts.tcp.receiver import MAX_SACK_BLOCKS, MAX_SACK_BLOCKS_WITH_TS, Receiver
from hosts.tcp.sender import MAX_WINDOW_UNSCALED, RTX_BIT
from hosts.tcp.variants.base import overrides
from netbase.segment import FIN, REORDER_BIT, Segment
from netbase.seq import SEQ_MOD, seq_geq, seq_sub

__all__ = ["Inbound"]


class Inbound:
    def __init__(self, conn, irs: int, buffer: int):
        self.conn = conn                            # state machine, segment building, counters
        self.irs = irs
        self.rcv = Receiver(1, buffer, mss=conn.mss)
        self.peer_fin: int | None = None            # offset of the peer's FIN not yet reached
        self.peer_fin_at: int | None = None         # offset of the peer's FIN once reached
        self.unacked_segments = 0                   # data segments not yet acknowledged
        self.last_ack_sent = 1                      # RCV.NXT our last segment acknowledged
                                                    # (RFC 7323 §4.3 Last.ACK.sent, as an offset)
        self.rtx_echo = 0                           # the RTX bit of the last data segment
        # the policy's receiver hooks, when it has them (variants/base.py)
        self._on_data = overrides(conn.policy, "on_data")
        self._ack_reorder_bit = overrides(conn.policy, "ack_reorder_bit")

    def offset(self, seq: int) -> int:
        """A wire sequence number of the peer's as an offset from its IRS."""
        return self.rcv.rcv_nxt + seq_sub(seq, (self.irs + self.rcv.rcv_nxt) % SEQ_MOD)

    def wire_ack(self) -> int:
        return (self.irs + self.rcv.rcv_nxt) % SEQ_MOD

    def acceptable(self, seg: Segment, start: int) -> bool:
        """RFC 9293 §3.10.7.4 segment acceptability test (window of the receiver). With a zero
        window the segment at RCV.NXT passes, for the "special allowance" made to its ACK
        field; its data is then trimmed off (``on_data``)."""
        rcv = self.rcv
        nxt = rcv.rcv_nxt
        wnd = rcv.window or 1
        length = seg.seg_len or 1
        return start < nxt + wnd and start + length > nxt

    def note_timestamp(self, seg: Segment, start: int) -> None:
        """An acceptable segment's TSval becomes TS.Recent, the TSecr of what we send, when it
        is not older and the segment starts at or below Last.ACK.sent (RFC 7323 §4.3 (2)): an
        ACK echoes the earliest segment it acknowledges when ACKs are delayed (§4.2 (A)), and
        the one that advanced RCV.NXT or filled a hole, never one held above a hole (§4.2
        (B), (C))."""
        ts = seg.option("Timestamp")
        conn = self.conn
        if ts is not None and start <= self.last_ack_sent and seq_geq(ts[0], conn.ts_recent):
            conn.ts_recent = ts[0]

    def note_duplicate(self, seg: Segment, start: int) -> None:
        """An unacceptable segment entirely below RCV.NXT: report its data by DSACK."""
        rcv = self.rcv
        self.rtx_echo = seg.reserved & RTX_BIT
        if seg.seg_len and start + seg.seg_len <= rcv.rcv_nxt:
            rcv.dsack = (max(start, 1), start + len(seg.payload)) if seg.payload else None

    # ------------------------------------------------------------------ data and FIN
    def on_data(self, seg: Segment, start: int, now: float) -> list[Segment]:
        conn = self.conn
        rcv = self.rcv
        self.rtx_echo = seg.reserved & RTX_BIT     # an ACK echoes it (Ludwig's RTX bit)
        payload = seg.payload
        end = start + len(payload)
        if payload and start < 1:                  # bytes before the first data byte: trim
            payload = payload[1 - start:]
            start = 1
        has_fin = seg.flags & FIN
        if end > rcv.right_edge:            # (the edge as last computed: it never moves left)
            edge = rcv.rcv_nxt + rcv.window
            if end > edge:
                # RFC 9293 §3.10.7.4: data beyond the window is trimmed off, and a FIN after
                # it with it (a sender that overran the window, or sent into a shut one);
                # what is left is processed, nothing left is answered with an ACK
                payload = payload[:max(0, edge - start)]
                end = start + len(payload)
                has_fin = 0
                if not payload:
                    return [self.ack_segment(now)]
        fin = self.peer_fin if self.peer_fin is not None else self.peer_fin_at
        if payload and fin is not None and end > fin:
            # no data follows the peer's FIN: RFC 9293 §3.10.7.4 (seventh step) ignores the text
            # of segments after it (CLOSE-WAIT and later), and a FIN still beyond a hole ends
            # the stream where it stands; the segment is acknowledged as a duplicate would be
            payload = payload[:max(0, fin - start)]
            end = start + len(payload)
            if not payload:
                return [self.ack_segment(now)]
        if payload:
            stamp = self._epdn_of(seg, start, end)
            if self._on_data is not None:
                self._on_data(rcv, start, end, stamp, now=now)
            how = rcv.on_data(start, payload)
        else:
            how = "in-order"
        if has_fin and end >= rcv.rcv_nxt and self.peer_fin is None \
                and self.peer_fin_at is None:
            # a FIN beyond a hole is kept, like its data, until the hole fills (RFC 9293
            # §3.10.7.4: segments are processed in sequence; dropping it would leave the sender
            # to repair it by RTO, since no SACK block can cover a FIN)
            self.peer_fin = end
        if self.peer_fin is not None and self.peer_fin == rcv.rcv_nxt:
            self.peer_fin_at, self.peer_fin = self.peer_fin, None
            rcv.rcv_nxt += 1                        # the FIN takes one sequence number
            conn.on_peer_fin(now)
            return [self.ack_segment(now)]
        if not payload:
            return []
        # RFC 5681 §4.2: ACK out-of-order, duplicate and hole-filling data at once; otherwise
        # every segment (delayed ACKs off, as in the paper's ns-2 runs) or every second one
        self.unacked_segments += 1
        if not conn.cfg.delayed_ack or how != "in-order" or self.unacked_segments >= 2:
            return [self.ack_segment(now)]
        timers = conn.timers
        if timers.ack_due is None:
            timers.ack_due = now + conn.cfg.delayed_ack_timeout
        return []

    def _epdn_of(self, seg: Segment, start: int, end: int):
        """The EPDN stamp of ``seg`` as unwrapped offsets, or None (logged when ignored)."""
        stamp = seg.option("EPDN")
        if stamp is None:
            return None
        conn = self.conn
        if seg.options[0][0] != "EPDN":
            # Trust boundary (docs/architecture.md §4): a gateway always inserts EPDN
            # as the first option, and edge gateways strip only that position, so an EPDN option
            # further in was put there by a host and is not evidence of a drop.
            return self._ignore(stamp, "EPDN is not the first option")
        if not conn.rdtcp_ok:
            return self._ignore(stamp, "flow did not negotiate RD-TCP")
        base = self.wire_ack()
        nxt = self.rcv.rcv_nxt
        lo = nxt + seq_sub(stamp[0], base)
        hi = nxt + seq_sub(stamp[1], base)
        limit = nxt + conn.cfg.rcv_buffer + len(seg.payload)
        if lo > hi or lo < 1 or hi > limit:
            return self._ignore(stamp, "range reversed or outside the window")
        ooo = self.rcv.ooo
        if lo < nxt or (ooo and ooo.overlap(lo, hi)):
            # a gateway reports bytes it discarded: bytes this receiver holds were not lost on
            # the way, so the range is stale or forged (a host sending in another's name into
            # a full queue, p4src/include/trust.p4), not evidence about the hole it would explain
            return self._ignore(stamp, "range over data already received")
        conn.stats["epdn_stamps"] += 1
        return (lo, hi)

    def _ignore(self, stamp, reason: str) -> None:
        self.conn.stats["epdn_ignored"] += 1
        self.conn.trace("epdn-ignored", reason=reason, stamp=stamp)
        return None

    # ------------------------------------------------------------------ the application reads
    def on_read(self, now: float) -> None:
        """The application read what was delivered (``now``: the last event's time, which the
        read follows), while the window offered was at most half the buffer and the peer's FIN
        is not in (TcpConnection.receive checks that, inline, on every read); when the freed
        buffer opens the window to at least twice what the peer was last offered, tell the
        peer at once (Linux's tcp_cleanup_rbuf): a window update. Above all after a zero
        window: the sender can only wait, and probe (RFC 9293 §3.8.6.1). How far the window
        opens is §3.8.6.2.2's (Receiver.window)."""
        rcv = self.rcv
        conn = self.conn
        # the window as last offered (the edge as last computed; a delayed ACK may not have
        # told it yet, and tells it soon), which receive() checked is at most half
        offered = max(rcv.right_edge - rcv.rcv_nxt, 0)
        wscale = conn.rcv_wscale
        new = min(rcv.window >> wscale, MAX_WINDOW_UNSCALED) << wscale
        if new > 0 and new >= 2 * offered:
            timers = conn.timers
            if timers.ack_due is None or timers.ack_due > now:
                timers.ack_due = now
            conn.stats["window_updates"] += 1
            conn.trace("window-update", window=new, offered=offered)

    # ------------------------------------------------------------------ our ACKs
    def ack_segment(self, now: float) -> Segment:
        """A pure ACK with SACK/DSACK blocks and, on RD-TCP flows, the reorder bit."""
        conn = self.conn
        conn.timers.ack_due = None
        self.unacked_segments = 0
        opts = conn.ts_options()
        rcv = self.rcv
        if conn.sack_ok and (rcv.ooo or rcv.dsack):
            most = MAX_SACK_BLOCKS_WITH_TS if conn.ts_ok else MAX_SACK_BLOCKS
            cap = conn.cfg.max_sack_blocks
            blocks = rcv.sack_blocks(most if cap is None or cap > most else cap)
            if blocks:
                irs = self.irs
                wire = tuple(((irs + s) % SEQ_MOD, (irs + e) % SEQ_MOD) for s, e in blocks)
                opts = opts + (("NOP", None), ("NOP", None), ("SAck", wire))
        reserved = self.rtx_echo
        if conn.rdtcp_ok and self._ack_reorder_bit is not None \
                and self._ack_reorder_bit(rcv, now=now):
            reserved |= REORDER_BIT
            conn.stats["reorder_acks_sent"] += 1
        return conn.make(conn.sender.snd_nxt, b"", 0, opts, reserved)
