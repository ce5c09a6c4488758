"""The receiving half of a connection: reassembly, cumulative ACK, SACK and DSACK blocks.

Positions are unwrapped offsets from the peer's initial sequence number (see ranges.py); the
connection converts wire sequence numbers at its edge.
"""

from __future__ import annotations

from hosts.tcp.ranges import RangeSet

__all__ = ["Receiver", "MAX_SACK_BLOCKS", "MAX_SACK_BLOCKS_WITH_TS"]

MAX_SACK_BLOCKS = 4             # RFC 2018 §3: 40 option bytes hold at most 4 blocks
MAX_SACK_BLOCKS_WITH_TS = 3     # RFC 2018 §3: 3 when the timestamp option is present


class Receiver:
    def __init__(self, rcv_nxt: int, buffer: int, *, mss: int):
        self.rcv_nxt = rcv_nxt          # next in-order byte expected (RFC 9293 RCV.NXT)
        self.highest = rcv_nxt          # end of the highest byte received ([RDTCP] §3.1's PNO_k)
        self.buffer = buffer
        # RFC 9293 §3.8.6.2.2: the window opens in steps of min(Fr * RCV.BUFF, Eff.snd.MSS),
        # Fr = 1/2, the receiver's own MSS standing for the sender's
        self.sws_step = max(1, min(buffer // 2, mss))
        # RCV.NXT + RCV.WND as last computed: the right edge of the window never moves left
        # (RFC 9293 §3.8.6, SHLD-14), see ``window``; it moves when the edge the free buffer
        # allows reaches ``_advance_at``, one step beyond it (one comparison per segment)
        self.right_edge = rcv_nxt + buffer
        self._advance_at = self.right_edge + self.sws_step
        self.ooo = RangeSet()           # out-of-order bytes held
        self._ooo_data: dict[int, bytes] = {}
        self._delivered = bytearray()   # in-order bytes the application has not read
        self._recent: list[int] = []    # SACK anchors, most recent first (RFC 2018 §4)
        self.dsack: tuple[int, int] | None = None   # duplicate range to report once (RFC 2883 §4)

    # -- data -----------------------------------------------------------------------------
    def on_data(self, start: int, payload: bytes) -> str:
        """Accept bytes at ``start``. Returns 'in-order', 'filled' (in order after a hole),
        'out-of-order' or 'duplicate'."""
        end = start + len(payload)
        if end <= self.rcv_nxt or self.ooo.covers(start, end):
            self.dsack = (start, end)                       # RFC 2883 §4 (1)
            return "duplicate"
        was_hole = bool(self.ooo)
        dup = self._duplicate_part(start, end)
        if dup is not None:
            self.dsack = dup                                # RFC 2883 §4 (partly duplicate)
        if start > self.rcv_nxt:
            self._store(start, payload)
            self.highest = max(self.highest, end)
            return "out-of-order"
        self._delivered += payload[self.rcv_nxt - start:]
        self.rcv_nxt = end
        self.highest = max(self.highest, end)
        if was_hole:
            self._pull()
            return "filled"
        return "in-order"

    def _duplicate_part(self, start: int, end: int) -> tuple[int, int] | None:
        """The first part of a partly new segment [start, end) that was received before: RFC
        2883 §4 reports "the duplicate", so the block's edges are those of the bytes received
        twice, not of the segment (below RCV.NXT first, else the first overlap with the
        out-of-order data)."""
        if start < self.rcv_nxt:
            return (start, self.rcv_nxt)
        if self.ooo:
            parts = self.ooo.overlap(start, end)
            if parts:
                return parts[0]
        return None

    def _store(self, start: int, payload: bytes) -> None:
        end = start + len(payload)
        old = self._ooo_data.get(start)
        if old is None or len(old) < len(payload):
            self._ooo_data[start] = payload
        self.ooo.add(start, end)
        if start in self._recent:
            self._recent.remove(start)
        self._recent.insert(0, start)
        del self._recent[8:]

    def _pull(self) -> None:
        """Move out-of-order data that became contiguous into the delivered stream."""
        first = self.ooo.first()
        if first is None or first[0] > self.rcv_nxt:
            return
        block_end = first[1]
        for s in sorted(k for k in self._ooo_data if k < block_end):
            data = self._ooo_data.pop(s)
            e = s + len(data)
            if e > self.rcv_nxt:
                self._delivered += data[self.rcv_nxt - s:]
                self.rcv_nxt = e
        self.ooo.drop_below(self.rcv_nxt)

    def read(self) -> bytes:
        data = bytes(self._delivered)
        self._delivered.clear()
        return data

    @property
    def window(self) -> int:
        """RCV.WND (bytes) to advertise: the free receive buffer, except that the right edge
        RCV.NXT + RCV.WND never moves left. "A TCP receiver SHOULD NOT shrink the window"
        (RFC 9293 §3.8.6, SHLD-14): out-of-order segments held fill the buffer but do not take
        back window already offered, so the duplicate ACKs a hole draws all carry the same
        window, as RFC 5681 §2 (e) requires of a duplicate ACK (Linux's tcp_select_window
        keeps the edge the same way). The edge moves right as the buffer frees, by at least
        ``sws_step`` at a time: the receiver's silly window syndrome avoidance (§3.8.6.2.2,
        MUST-39) offers no sliver of window a sender would fill with a small segment."""
        edge = self.rcv_nxt + self.buffer - len(self._delivered) - self.ooo._total  # hot path
        if edge >= self._advance_at:
            self.right_edge = edge
            self._advance_at = edge + self.sws_step
        wnd = self.right_edge - self.rcv_nxt
        return wnd if wnd > 0 else 0

    # -- SACK -----------------------------------------------------------------------------
    def sack_blocks(self, limit: int) -> list[tuple[int, int]]:
        """DSACK block first (RFC 2883 §4), then the block holding the most recently received
        segment and the other recent blocks (RFC 2018 §4)."""
        blocks: list[tuple[int, int]] = []
        seen = set()
        if self.dsack is not None:
            blocks.append(self.dsack)
            ds = self.dsack[0]
            self.dsack = None
            if ds >= self.rcv_nxt:
                # RFC 2883 §4: a duplicate above the cumulative ACK is followed by the block
                # that holds it, which is how the sender tells it from an ordinary SACK block
                for s, e in self.ooo:
                    if s <= ds < e:
                        seen.add(s)
                        blocks.append((s, e))
                        break
        for anchor in self._recent:
            if len(blocks) >= limit:
                break
            if anchor < self.rcv_nxt:
                continue
            for s, e in self.ooo:
                if s <= anchor < e:
                    if s not in seen:
                        seen.add(s)
                        blocks.append((s, e))
                    break
        if len(blocks) < limit and len(self.ooo) > len(seen):
            # RFC 2018 §4: "as many distinct SACK blocks as possible"; blocks no recent anchor
            # names (older than the anchors kept) fill the rest, highest first
            for s, e in reversed(list(self.ooo)):
                if len(blocks) >= limit:
                    break
                if s not in seen:
                    seen.add(s)
                    blocks.append((s, e))
        self._recent = [a for a in self._recent if a >= self.rcv_nxt]
        return blocks[:limit]
