"""Net Reno's rules as pieces ([NETRENO]): the state each rule keeps
and the small tests it makes, apart from the policy (netreno.py) that calls them from the
engine's hooks and turns their answers into decisions.

Units: the paper counts packets; the engine counts bytes, so every count here is of segments
(bytes // SMSS). Positions are unwrapped offsets from the ISS (variants/base.py).

- ``SmallWindow``: NR-SW, early sends below ten segments and the accounting of a positive ACK
  that comes before the third duplicate ACK ([NETRENO] §4.2).
- ``AckClock``: NR-LRX, lost retransmissions timed by duplicate ACKs ([NETRENO] §6.1-6.2).
- ``ReorderGuard``: NR-OOO, the marker M and the 3 - D duplicate ACKs a partial ACK close to it
  waits ([NETRENO] §5.3).
- ``BackToBack``: NR-B2B, the second fast retransmit a full ACK below the marker starts on the
  next duplicate ACK ([NETRENO] §6.4).
- ``Markers``: NR-MARK, the marked new segments of the 5th and 7th duplicate ACK and the ACK
  clock corrected when one returns ([NETRENO] §6.3).
- ``LimitedData``: NR-LD option (a), segments sent again from SND.UNA on when recovery has no
  new data to keep its ACK clock going ([NETRENO] §6.5).
- ``exit_window``: NR-LSNR rule 2, the window a full ACK leaves ([NETRENO] §5.1).
"""

from __future__ import annotations

from typing import Sequence

from hosts.tcp.scoreboard import END, RETRANS, SACKED, START
from hosts.tcp.variants.base import DUPTHRESH, MarkLost, RecordView, SendNew, SenderView

__all__ = ["SW_MAX", "REORDER_TICKS", "MARK_DUPACKS", "SmallWindow", "AckClock",
           "ReorderGuard", "BackToBack", "Markers", "LimitedData", "exit_window"]

SW_MAX = 10             # [NETRENO] §4.2: "triggered only if the congestion window ... less than ten"
REORDER_TICKS = 3       # [NETRENO] §6.2: "three additional duplicate ACKs" after an ACK-clock RTT
MARK_DUPACKS = (5, 7)   # [NETRENO] §6.3: "one marked new packet upon receiving the fifth and the
                        # seventh duplicate ACK"


def segments(nbytes: int, view: SenderView) -> int:
    """Whole segments in ``nbytes`` (the paper's packet numbers)."""
    return nbytes // view.mss


class SmallWindow:
    """NR-SW ([NETRENO] §4.2). Below ten segments of cwnd, duplicate ACKs 1 and 2 each send one new
    segment (the engine's Limited Transmit, allowed for the episode by ``early_sends``); at
    ten or more, none (the NetBSD Reno sender the paper modifies waits for the third). The
    segments sent early are not in ssthresh ("the inflated congestion window should be
    deflated back for computing the slow start threshold"), and a positive ACK for k segments
    before the third duplicate ACK, j sent early: k >= j clears dupacks, else the next
    unacknowledged segment inherits dupacks - k ("if we have received N ACKs, but can only
    shift the congestion window less than N packets to the right, this next unacknowledged
    packet must be either out-of-order or missing")."""

    __slots__ = ("mark", "dupacks", "una", "carried")

    def __init__(self) -> None:
        self.mark: int | None = None    # SND.MAX at the episode's first duplicate ACK
        self.dupacks = 0                # duplicate ACKs the episode counts
        self.una = 0                    # SND.UNA they acknowledged
        self.carried = False            # dupacks were carried over a positive ACK

    @staticmethod
    def early_sends(view: SenderView) -> bool:
        return view.cwnd < SW_MAX * view.mss

    def on_dupack(self, view: SenderView, dupacks: int) -> None:
        if dupacks == 1:
            self.mark = view.snd_max if self.early_sends(view) else None
        self.dupacks, self.una = dupacks, view.snd_una

    def flight_before_early_sends(self, view: SenderView) -> int:
        """FlightSize without the segments sent on duplicate ACKs; across a carried positive
        ACK the engine no longer knows where the episode began, the mark does."""
        flight = view.flight_size_before_limited_transmit
        if self.carried and self.mark is not None:
            flight = min(flight, max(0, self.mark - view.snd_una))
        return flight

    def carry(self, view: SenderView) -> int | None:
        """After a positive ACK outside recovery: the duplicate ACKs the next unacknowledged
        segment inherits, or None (the episode ends)."""
        if self.mark is None or not self.dupacks:
            self.end()
            return None
        k = -(-(view.snd_una - self.una) // view.mss)       # segments acked, partial ones too
        j = segments(view.snd_max - self.mark, view)        # segments sent early
        carry = self.dupacks - k
        if k < j and carry > 0:
            self.dupacks, self.una, self.carried = carry, view.snd_una, True
            return carry
        self.end()
        return None

    def end(self) -> None:
        self.mark, self.dupacks, self.carried = None, 0, False


class AckClock:
    """NR-LRX ([NETRENO] §6.1-6.2): the ACK clock of one recovery. Ticks T = its duplicate ACKs plus
    one per retransmission ("a lost packet removes one ACK"); T_ref = 3 at fast retransmit;
    the first RTT is W ticks (W the flight at fast retransmit, without the early sends), each
    later one W / 2. When T >= T_ref + RTT + 3 with SND.UNA still unacknowledged, its
    retransmission was lost: it is sent "again", and timed from there (a positive ACK that
    leaves holes does the same for the next unacknowledged segment)."""

    __slots__ = ("ticks", "t_ref", "round", "half", "resends", "last_resend")

    def __init__(self) -> None:
        self.ticks = self.t_ref = self.round = self.half = 0
        self.resends = 0                # re-sends made (counts for tests and reports)
        self.last_resend = 0            # T at the last of them

    def start(self, dupacks: int, flight_segments: int) -> None:
        self.ticks = self.t_ref = max(dupacks, DUPTHRESH)
        self.round = flight_segments
        self.half = flight_segments // 2

    def tick(self) -> None:
        self.ticks += 1

    def due(self) -> bool:
        return self.ticks >= self.t_ref + self.round + REORDER_TICKS

    def restart(self) -> None:
        """Time the next unacknowledged segment: W / 2 ticks an RTT from now on."""
        self.t_ref, self.round = self.ticks, self.half

    def resent(self) -> None:
        self.resends += 1
        self.last_resend = self.ticks
        self.restart()

    def boundary_seen(self) -> None:
        """NR-MARK ([NETRENO] §6.3): a marker returned, so the first RTT is over whatever the
        ticks say; three more duplicate ACKs then resend SND.UNA (the same guard against
        reordering as at the end of a counted RTT)."""
        self.ticks = max(self.ticks, self.t_ref + self.round)


class ReorderGuard:
    """NR-OOO ([NETRENO] §5.3). "When a packet is retransmitted, set a marker at the in-flight
    packet with the largest sequence number (snd_nxt)"; on a partial ACK A, D = (M - A) / S
    segments sent before the last retransmission lie above A: D >= 3, A's segment is lost;
    else it may be reordered by fewer than three places, so one new segment goes out and the
    retransmission waits for 3 - D more duplicate ACKs."""

    __slots__ = ("marker", "wait")

    def __init__(self) -> None:
        self.marker = 0                 # M: SND.MAX at the last retransmission
        self.wait = 0                   # duplicate ACKs until the deferred retransmission

    def distance(self, view: SenderView) -> int:
        return segments(self.marker - view.snd_una, view)

    def dupack(self) -> bool:
        """A duplicate ACK while a retransmission waits: True when it is due now."""
        self.wait -= 1
        return self.wait == 0


class BackToBack:
    """NR-B2B ([NETRENO] §6.4). At the full ACK the sender expects W/2 - c segments outstanding, all
    sent after the last retransmission; more (without SACK: data sent before the marker still
    unacknowledged; with SACK: "this positive ACK would carry a SACK block") means a segment
    sent during recovery was lost. "We set the dupacks counter to two packets and send out a
    new packet ... the second recovery will be triggered by the next incoming duplicate ACK"
    (without the rule, the third: "the connection needs to accumulate another three duplicate
    ACKs for the second recovery")."""

    __slots__ = ("wait", "cwnd", "starting")

    def __init__(self) -> None:
        self.wait = 0                   # duplicate ACKs until the second fast retransmit
        self.cwnd = 0                   # the full ACK's window, if it does not come
        self.starting = False           # the second fast retransmit is being entered

    def ssthresh(self, view: SenderView) -> int:
        """"The sender should indeed reduce the window again": half the window the first
        recovery left (its FlightSize still holds the segments the receiver keeps above the
        hole, everything that recovery sent)."""
        self.starting = False
        return max(self.cwnd // 2, 2 * view.mss)

    def suspects(self, view: SenderView, marker: int) -> bool:
        if view.sack_ok:
            if view.sacked_out <= 0:
                return False
            self.wait = 1
        else:
            if view.snd_una >= marker:
                return False
            d = segments(marker - view.snd_una, view)
            self.wait = max(1, DUPTHRESH - d)
        return True

    def dupack(self) -> bool:
        """A duplicate ACK while the second recovery waits: True when it starts now."""
        self.wait -= 1
        self.starting = self.wait == 0
        return self.starting


class Markers:
    """NR-MARK ([NETRENO] §6.3), with SACK: the new segments sent on the 5th and 7th duplicate ACK
    of a recovery are markers ("the corresponding ACK will carry a SACK block outside the
    original window"). The first ACK that SACKs data at or beyond the first marker shows the
    first RTT boundary: everything sent before it, the fast retransmission included, has had
    an RTT to be acknowledged. The paper leaves open how the boundary resets the clock
    ([NETRENO] leaves it open); here it ends the counted first RTT (``AckClock.boundary_seen``).
    Without SACK the paper marks with timestamps, which a receiver echoes only for in-sequence
    data (RFC 7323 §4.3: an ACK for an out-of-order segment echoes TS.Recent of the last one in
    sequence), so a duplicate ACK cannot carry a marker back: not built on that path."""

    __slots__ = ("first", "active")

    def __init__(self) -> None:
        self.first: int | None = None   # where the first marker starts
        self.active = False             # the first RTT of a recovery, not yet bounded

    def start(self) -> None:
        self.first, self.active = None, True

    def stop(self) -> None:
        self.active = False

    def on_dupack(self, view: SenderView, dupacks: int) -> SendNew | None:
        if not self.active or dupacks not in MARK_DUPACKS or view.unsent <= 0:
            return None
        if self.first is None:
            self.first = view.snd_max
        return SendNew(1)

    def returned(self, view: SenderView) -> bool:
        if self.active and self.first is not None and view.highest_sacked() > self.first:
            self.active = False
            return True
        return False


class LimitedData:
    """NR-LD, option (a) ([NETRENO] §6.5): when New-Reno recovery has no new data to send (the
    application's or the peer's window's limit), the duplicate ACK's segment is one sent
    again "starting from the first unacknowledged packet at snd_una", which draws a duplicate
    ACK and keeps the clock going until the partial ACKs finish the recovery. Segments whose
    retransmission is in flight are passed over (NR-LRX repairs those). Option (b),
    header-only segments above SND.UNA, needs a receiver that acknowledges a segment without
    data, which RFC 9293 §3.10.7.4 does not ask for (nor does this engine's): not built."""

    __slots__ = ("next", "picked")

    def __init__(self) -> None:
        self.next = 0                   # the next offset to send again
        self.picked: int | None = None  # the start of the segment just picked, until sent

    def sending(self, start: int) -> bool:
        """Whether the retransmission of ``start`` is this rule's (not a lost segment's: it
        moves no marker and adds no tick, since its duplicate ACK does come back)."""
        if self.picked == start:
            self.picked = None
            return True
        return False

    def restart(self, view: SenderView) -> None:
        self.next, self.picked = view.snd_una, None

    @staticmethod
    def out_of_data(view: SenderView) -> bool:
        return view.unsent <= 0 or view.snd_max + view.mss > view.snd_una + view.snd_wnd

    def resend(self, view: SenderView) -> MarkLost | None:
        """The segment this duplicate ACK sends again, or None (new data, or a lost one, will
        go instead, or cwnd releases nothing)."""
        if not self.out_of_data(view) or view.cwnd - view.pipe < view.mss:
            return None
        sb = view.scoreboard
        if sb.next_lost() is not None:
            return None
        records = sb.records
        i = _first_ending_after(records, sb.head, max(self.next, view.snd_una))
        while i < len(records):
            r = records[i]
            if not r[SACKED] and not r[RETRANS]:
                self.next, self.picked = r[END], r[START]
                return MarkLost([r], "net-reno-limited-data")
            i += 1
        return None


def _first_ending_after(records: Sequence[RecordView], lo: int, offset: int) -> int:
    """Index of the first record (from ``lo``) that ends after ``offset`` (records are in
    sequence order)."""
    hi = len(records)
    while lo < hi:
        mid = (lo + hi) // 2
        if records[mid][END] <= offset:
            lo = mid + 1
        else:
            hi = mid
    return lo


def exit_window(view: SenderView) -> int:
    """NR-LSNR rule 2 ([NETRENO] §5.1), NR-LSSACK rule 3 (§5.2): "at most one packet can be sent" by
    the full ACK; RFC 6582 §3.2 step 3 option (1), min(ssthresh, max(FlightSize, SMSS) +
    SMSS): at least two segments, so an empty pipe does not restart from one segment that a
    delayed ACK holds back 200 ms. Slow start follows (cwnd < ssthresh)."""
    return min(view.cwnd, max(view.flight_size, view.mss) + view.mss)

