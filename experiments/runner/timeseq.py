"""Time-sequence diagrams from one traced run, as the papers draw them ([FRTO] Figs. 1-4, [RDTCP]'s
per-run figures): every data segment the sender sends at its time and sequence number, the
retransmissions marked apart, and the cumulative ACK the sender gets back as a step line.

``read_time_sequence`` reads a capture (a pcap of the run: ``one_run --pcap`` writes one) and
keeps the connection that carries the most payload; ``plot_time_sequence`` draws it on an axes;
``time_sequence_figure`` writes a PNG of it, ``time_sequence_panels`` one of several runs or
stretches stacked. Every study's time-sequence figure is drawn by
these three, so the diagrams of different papers read alike.

Sequence numbers are in segments (the connection's largest payload, its MSS) from the first
data byte, the unit [FRTO]'s figures use; times in seconds from the connection's first packet
(its SYN). A retransmission is a data segment that starts below the highest sequence number
sent before it (RFC 793's sequence space, compared modulo 2^32).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from analyzer.frames import MalformedFrame, NotTcp, parse_frame
from netbase.pcap import read_pcap
from netbase.seq import seq_sub

__all__ = ["TimeSequence", "read_time_sequence", "plot_time_sequence", "time_sequence_figure",
           "time_sequence_panels", "MAX_PACKETS"]

SYN = 0x02
# the diagram holds a point per packet of its connection: a bound keeps a huge or crafted file
# from taking unbounded memory and time (a 10-minute run at 5 Mb/s sends about 260,000 segments)
MAX_PACKETS = 2_000_000


@dataclass
class TimeSequence:
    """One connection's data direction: ``sent`` and ``resent`` (time, segment number of the
    segment's first byte), ``acks`` (time, cumulative ACK in segments) of the ACKs going back,
    times from the connection's first packet; ``mss`` the bytes of a segment; ``origin`` the
    capture's time of that first packet (a simulated run's clock, to place its events)."""
    mss: int
    sent: list = field(default_factory=list)
    resent: list = field(default_factory=list)
    acks: list = field(default_factory=list)
    origin: float = 0.0

    def window(self, t0: float, t1: float) -> "TimeSequence":
        """The same connection between ``t0`` and ``t1`` seconds."""
        def cut(points):
            return [p for p in points if t0 <= p[0] <= t1]
        return TimeSequence(self.mss, cut(self.sent), cut(self.resent), cut(self.acks),
                            self.origin)


def _packets(path: str | Path):
    """(time, Packet) of the TCP frames of the capture; other frames are skipped."""
    for n, record in enumerate(read_pcap(str(path))):
        if n >= MAX_PACKETS:
            raise ValueError(f"{path}: more than {MAX_PACKETS:,} packets; cut the capture to "
                             f"the part to draw (editcap -A/-B)")
        try:
            yield record.time, parse_frame(record.data, record.orig_len)
        except (NotTcp, MalformedFrame):
            continue


def read_time_sequence(path: str | Path) -> TimeSequence:
    """The time-sequence diagram of the connection in capture ``path`` that carries the most
    payload (the data direction of the run's transfer). Two passes over the file: the first
    finds that connection, the second keeps only its points, so memory follows the diagram,
    not the capture. ValueError when it holds no TCP data (netbase.pcap.PcapFormatError, a
    ValueError, when it is not a pcap)."""
    payload: dict = {}
    for _, p in _packets(path):
        key = (p.src, p.sport, p.dst, p.dport)
        payload[key] = payload.get(key, 0) + p.length
    if not payload or max(payload.values()) == 0:
        raise ValueError(f"{path}: no TCP segment with data")
    data_key = max(payload, key=payload.get)
    ack_key = (data_key[2], data_key[3], data_key[0], data_key[1])
    start = first = None
    sent: list = []
    resent: list = []
    acks: list = []
    highest = mss = 0                   # bytes from ``first`` sent so far; largest payload
    for t, p in _packets(path):
        key = (p.src, p.sport, p.dst, p.dport)
        if key not in (data_key, ack_key):
            continue
        if start is None:
            start = t
        if key == data_key:
            if first is None:
                first = p.seq + 1 if p.flags & SYN else p.seq
            if not p.length:
                continue
            rel = seq_sub(p.seq, first)
            (resent if rel < highest else sent).append((t - start, rel))
            highest = max(highest, rel + p.length)
            mss = max(mss, p.length)
        elif p.flags & 0x10 and first is not None:     # ACK set: the cumulative ACK back
            acks.append((t - start, max(0, seq_sub(p.ack, first))))
    # in segments of the MSS, known only once every segment is seen
    return TimeSequence(mss, [(t, b / mss) for t, b in sent], [(t, b / mss) for t, b in resent],
                        [(t, b / mss) for t, b in acks], start or 0.0)


def plot_time_sequence(ax, ts: TimeSequence, *, colour: str = "tab:blue",
                       label: str = "") -> None:
    """Draw ``ts`` on ``ax``: segments sent as dots, retransmissions as open red squares, the
    cumulative ACK as a grey step line. ``label`` prefixes the legend's entries (a sender's
    name when one axes holds several runs)."""
    prefix = f"{label}: " if label else ""
    if ts.acks:
        ax.step([t for t, _ in ts.acks], [s for _, s in ts.acks], where="post", color="0.55",
                lw=0.9, label=f"{prefix}cumulative ACK received")
    ax.plot([t for t, _ in ts.sent], [s for _, s in ts.sent], ".", color=colour, ms=3.5,
            label=f"{prefix}segment sent")
    if ts.resent:
        ax.plot([t for t, _ in ts.resent], [s for _, s in ts.resent], "s", mfc="none",
                mec="tab:red", ms=5, mew=1.0, label=f"{prefix}retransmission")
    ax.set_xlabel("time (s from the connection's SYN)")
    ax.set_ylabel(f"sequence number (segments of {ts.mss} B)")
    ax.grid(alpha=0.3)


def time_sequence_figure(ts: TimeSequence, path: Path, *, title: str,
                         zoom: tuple[float, float] | None = None) -> bool:
    """Write ``ts`` as a PNG: the whole connection, and with ``zoom`` (t0, t1) a second panel of
    that stretch (a spurious timeout's few seconds, say). False when matplotlib is missing."""
    panels = [("", ts, None)] + ([(f"{zoom[0]:g}-{zoom[1]:g} s", ts, zoom)] if zoom else [])
    return time_sequence_panels(panels, path, title=title, shade=zoom)


def time_sequence_panels(panels: list, path: Path, *, title: str,
                         shade: tuple[float, float] | None = None) -> bool:
    """Write a PNG of time-sequence diagrams stacked one above another, as [FRTO]'s Figs. 2-4
    compare the conventional recovery with F-RTO's: ``panels`` are (subtitle, TimeSequence,
    (t0, t1) or None for the whole connection), optionally with a fourth item, the points
    the figure is about as (time, segment, text), each labelled with an arrow ([NETRENO]'s Figs.
    2-5 name their points so in the text). ``shade`` marks a stretch on the first panel
    (the one the others zoom on). False when matplotlib is missing."""
    try:                                # deferred on purpose: PyPy runs the drivers without it
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    from experiments.runner.plots import save_figure
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 1.0 + 3.3 * len(panels)),
                             squeeze=False)
    for ax, (subtitle, ts, window, *marks) in zip(axes[:, 0], panels):
        part = ts if window is None else ts.window(*window)
        plot_time_sequence(ax, part)
        if window is not None:
            ax.set_xlim(*window)
            seqs = [s for _, s in part.sent + part.resent + part.acks]
            if seqs:
                ax.set_ylim(min(seqs) - 1, max(seqs) + 1)
        if subtitle:
            ax.set_title(subtitle, fontsize=9)
        for i, (t, seq, text) in enumerate(marks[0] if marks else ()):
            _mark(ax, t, seq, text, i)
        ax.legend(fontsize=7, loc="upper left", markerscale=1.5)
    if shade is not None:
        axes[0, 0].axvspan(*shade, color="0.85", zorder=0)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)
    return True


def _mark(ax, t: float, seq: float, text: str, i: int = 0) -> None:
    """Label the point (t, seq) with ``text`` below and right of it, an arrow pointing at it
    (below: the points of a time-sequence diagram climb to the upper right, the legend sits
    upper left); the ``i``-th label of a panel a step lower than the one before, three steps
    round, so that labels of points close together do not overprint."""
    ax.annotate(text, xy=(t, seq), xytext=(14, -22 - 14 * (i % 3)), textcoords="offset points",
                fontsize=7,
                arrowprops={"arrowstyle": "->", "color": "black", "lw": 0.8},
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "0.6", "alpha": 0.9})
