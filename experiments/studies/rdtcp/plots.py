"""Figures 1–4 of the paper (throughput against swaps), the P4 injection series and the k study.

Every sender has one colour and one marker in every figure (``sender_style``); the swap interval
is the line style (and a filled or open marker). The paper's numbers are stars in the colour of
the paper's sender they belong to, except in the k study (Fig. 6), whose curves are all RD-TCP
and coloured by swap span: there the paper's RD-TCP (k = 3) is a star of its own colour
(``K_STUDY_PAPER_STAR``) that no curve uses. Error bars are the sample standard deviation over a
point's seeds; a point from one seed has none.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from experiments.runner.plots import (direct_labels, plot_curve,  # noqa: E402
                                      plot_reference_curve, save_figure, sender_style,
                                      stats_note)
from experiments.runner.spec import P4_INJECTIONS  # noqa: E402
from experiments.studies.rdtcp.report import baseline, paper_sender, swap_curve  # noqa: E402
from experiments.studies.rdtcp.scenario import PAPER, PAPER_VARIANTS, VARIANTS  # noqa: E402

__all__ = ["plot_all", "swap_figure", "injection_figure", "delay_figure", "k_study_figure",
           "LABELS", "K_STUDY_SPAN_STYLES", "K_STUDY_PAPER_STAR"]

LABELS = {"sack": "TCP SACK", "dsack": "TCP DSACK (undo)", "rdtcp": "RD-TCP (k=3)",
          "dsack-inc": "TCP DSACK, dupthresh +1 (BL-INC)",
          "dsack-avg": "TCP DSACK, dupthresh avg (BL-AVG)",
          "rdtcp-adaptive": "RD-TCP, k +1 per false FR ([RDTCP] §3)",
          "rdtcp-measured": "RD-TCP, k from measured reordering ([RDTCP] §3)",
          "rdtcp-measured-undo": "RD-TCP, k measured, false FRs undone (DSACK)",
          "eifel": "TCP SACK with Eifel undo (timestamps, RFC 3522)",
          "rack": "TCP SACK with RACK-TLP (time-based, RFC 8985)",
          "rrtcp": "RR-TCP (DSACK, dupthresh from reordering histogram)",
          "rrtcp-fa": "RR-TCP with a fixed FA ratio (DSACK-FA)"}
# the paper's names for its own senders, for its stars ("TCP using DSACK": [RDTCP] §6 does not say
# which DSACK response it ran, so not "undo")
PAPER_LABELS = {"sack": "TCP SACK", "dsack": "TCP using DSACK", "rdtcp": "RD-TCP (k=3)"}
# per interval: line style and whether the marker is filled (1 s solid and filled, 8 s dashed, open)
INTERVAL_STYLES = (("-", True), ("--", False), (":", False), ("-.", False))
_LINE_NAMES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
FIGURES = {
    "fig1_sack.png": ("Fig. 1: TCP SACK", ("sack",)),
    "fig2_rdtcp.png": ("Fig. 2: RD-TCP", ("rdtcp", "rdtcp-adaptive", "rdtcp-measured",
                                          "rdtcp-measured-undo")),
    "fig3_sack_vs_rdtcp.png": ("Fig. 3: TCP SACK and RD-TCP", ("sack", "rdtcp", "rdtcp-adaptive",
                                                            "rdtcp-measured",
                                                            "rdtcp-measured-undo")),
    "fig4_dsack_vs_rdtcp.png": ("Fig. 4: TCP DSACK and RD-TCP",
                                ("dsack", "dsack-inc", "dsack-avg", "rrtcp", "rdtcp")),
    "fig7_undo.png": ("Fig. 7 (not in the paper): undoing false fast retransmits, by DSACK and "
                      "by timestamps (Eifel)", ("sack", "dsack", "eifel")),
    "fig8_rack.png": ("Fig. 8 (not in the paper): RD-TCP against time-based loss detection "
                      "(RACK-TLP)", ("sack", "rdtcp", "rdtcp-measured", "rdtcp-measured-undo",
                                     "rack")),
}
# a figure is drawn when, of each group, a sender ran: its title names what it compares (Fig. 4
# without a DSACK sender would be Fig. 2 under another title; Figs. 7 and 8 without Eifel or
# RACK-TLP would repeat Figs. 1 and 4)
_RDTCPS = ("rdtcp", "rdtcp-adaptive", "rdtcp-measured", "rdtcp-measured-undo")
FIGURE_NEEDS = {"fig1_sack.png": (("sack",),), "fig2_rdtcp.png": (_RDTCPS,),
                "fig3_sack_vs_rdtcp.png": (("sack",), _RDTCPS),
                "fig4_dsack_vs_rdtcp.png": (("dsack", "dsack-inc", "dsack-avg", "rrtcp"),
                                            _RDTCPS),
                "fig7_undo.png": (("eifel",),), "fig8_rack.png": (("rack",),)}
THROUGHPUT_LABEL = "throughput (data bytes/s delivered in order to B)"
# Fig. 6: one (line style, marker, colour) per swap span, in increasing span (0: anywhere first);
# and the paper's RD-TCP point, a star in a colour none of the curves has (the spans' curves are
# all RD-TCP, so RD-TCP's own red, which the first span's curve had, would read as that curve)
K_STUDY_SPAN_STYLES = (("-", "o", "tab:red"), ("--", "s", "tab:cyan"), (":", "^", "tab:gray"),
                       ("-.", "d", "black"))
K_STUDY_PAPER_STAR = {"marker": "*", "color": "gold", "mec": "black"}


def plot_all(points: dict, out: Path, *, k_study: dict | None = None,
             duration: float | None = None, ns2_points: dict | None = None,
             ns2_figures: list[str] | None = None) -> list[str]:
    """Write every figure the points support into ``out``; returns the file names.
    ``duration``: the transfers' length in seconds, named in the titles. ``ns2_points``: ns-2's
    points of the same runs (``--ns2``), drawn beside ours in every figure that has a sender
    of theirs (``NS2_STYLE_NOTE``); the names of those figures are appended to
    ``ns2_figures``."""
    written = []

    def save(fig, name: str) -> None:
        if ns2_figures is not None and any(str(line.get_label()).startswith(NS2_LABEL)
                                           for ax in fig.axes for line in ax.get_lines()):
            ns2_figures.append(name)
        save_figure(fig, out / name)
        written.append(name)
    intervals = sorted({k[2] for k in points if k[2] is not None})
    for name, (title, variants) in FIGURES.items():
        if all(any(swap_curve(points, v, i) for v in group for i in intervals)
               for group in FIGURE_NEEDS.get(name, (variants,))):
            save(swap_figure(points, variants, intervals, title, duration=duration,
                             ns2_points=ns2_points), name)
    if any(k[1] in P4_INJECTIONS for k in points):
        save(injection_figure(points, duration=duration), "fig5_injection.png")
    if any(k[1] == "delay" for k in points):
        save(delay_figure(points, duration=duration, ns2_points=ns2_points), "fig9_delay.png")
    if k_study:
        save(k_study_figure(k_study, duration=duration), "fig6_k_study.png")
    return written


# --------------------------------------------------------------------------- helpers
def _transfers(duration: float | None, *, paper: bool = True) -> str:
    """'60 s transfers (the paper's: 600 s)'; ``paper``: the figure redraws one of the paper's."""
    if duration is None:
        return ""
    if not paper:
        return f"{duration:g} s transfers"
    same = duration == 600
    return f"{duration:g} s transfers" + (" (as the paper's)" if same else " (the paper's: 600 s)")


def _titles(ax, title: str, *notes: str) -> None:
    """The title, and below it the notes (interval, duration, what the bars are), one a line."""
    subtitle = "\n".join(n for n in notes if n)
    ax.set_title(title, fontsize=11, pad=12 + 10 * (subtitle.count("\n") + 1))
    ax.text(0.5, 1.015, subtitle, transform=ax.transAxes, ha="center", va="bottom", fontsize=7.5)


def _bytes_axis(ax) -> None:
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.set_ylabel(THROUGHPUT_LABEL)


def _paper_stars(ax, variants) -> None:
    """The paper's throughput at 15 swaps every 1 s for the paper's senders behind
    ``variants`` (an extension's base sender: the paper did not run the extension), each
    star in that sender's colour, its number written beside it."""
    bases = [b for b in PAPER_VARIANTS if b in {paper_sender(v) for v in variants}]
    for base in bases:
        if (base, 15) in PAPER:
            colour, _ = sender_style(base)
            ax.plot([15], [PAPER[(base, 15)]], "*", color=colour, mec="black", mew=0.6, ms=14,
                    zorder=5, label=f"paper: {PAPER_LABELS[base]}, 15 swaps every 1 s "
                                    f"({PAPER[(base, 15)]:,} B/s)")
            ax.annotate(f"[RDTCP]: {PAPER_LABELS[base]} {PAPER[(base, 15)]:,}", (15, PAPER[(base, 15)]),
                        xytext=(9, -3), textcoords="offset points", fontsize=6.5, color=colour,
                        va="top")


def _paper_line(ax) -> None:
    """[RDTCP]'s throughput without reordering, a dotted line named at its left end."""
    ax.axhline(PAPER[("none", 0)], color="grey", lw=0.8, ls=":",
               label=f"paper: no reordering, any sender ({PAPER[('none', 0)]:,} B/s)")
    ax.annotate(f"[RDTCP]: no reordering {PAPER[('none', 0)]:,}", (0, PAPER[("none", 0)]),
                xytext=(2, 2), textcoords="offset points", fontsize=6.5, color="grey")


def _end_labels(ax, curves: dict) -> None:
    """Each sender named at the end of its first curve, in its colour (``direct_labels``):
    the line style (interval or injection) is said in the subtitle, so a legend would repeat
    every sender once per style."""
    entries = []
    for variant, (xs, ys) in curves.items():
        if not ys:
            continue
        if isinstance(variant, tuple):      # (engine, variant): another simulator's curve
            engine, variant = variant
            entries.append((ys[-1], f"{engine}: {LABELS.get(variant, variant)}",
                            sender_style(variant)[0]))
        else:
            entries.append((ys[-1], LABELS.get(variant, variant), sender_style(variant)[0]))
    direct_labels(ax, entries)


NS2_STYLE_NOTE = "ns-2 2.35's runs: wide pale lines, x markers, in the sender's colour"
NS2_LABEL = "ns-2: "        # the start of an ns-2 curve's label


# --------------------------------------------------------------------------- figures
def swap_figure(points: dict, variants, intervals, title: str, *,
                duration: float | None = None, ns2_points: dict | None = None):
    """Figures 1-4: throughput against swaps per interval, one colour and marker per sender,
    one line style per interval, and ns-2's curve of each sender it has beside ours
    (``ns2_points``); returns the matplotlib Figure."""
    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    drawn: list[dict] = []
    ends: dict = {}
    ns2_drawn = False
    for variant in variants:
        colour, _ = sender_style(variant)
        for interval, (line, _filled) in zip(intervals, INTERVAL_STYLES):
            curve = swap_curve(ns2_points or {}, variant, interval)
            if not curve or not swap_curve(points, variant, interval):
                continue
            plot_reference_curve(ax, [s for s, _ in curve], [p for _, p in curve],
                                 colour=colour, line=line,
                                 label=f"{NS2_LABEL}{LABELS.get(variant, variant)}, every "
                                       f"{interval:g} s")
            ns2_drawn = True
            ends.setdefault(("ns-2", variant), ([s for s, _ in curve],
                                                [p["mean"] for _, p in curve]))
    for variant in variants:
        colour, marker = sender_style(variant)
        for interval, (line, filled) in zip(intervals, INTERVAL_STYLES):
            curve = swap_curve(points, variant, interval)
            if not curve:
                continue
            plot_curve(ax, [s for s, _ in curve], [p for _, p in curve], colour=colour,
                    marker=marker, line=line, filled=filled,
                    label=f"{LABELS.get(variant, variant)}, every {interval:g} s")
            drawn += [p for _, p in curve]
            ends.setdefault(variant, ([s for s, _ in curve], [p["mean"] for _, p in curve]))
    _paper_stars(ax, [v for v in variants if any(swap_curve(points, v, i) for i in intervals)])
    _paper_line(ax)
    lines = ", ".join(f"{i:g} s ({_LINE_NAMES[style]}, {'filled' if filled else 'open'} "
                      f"markers)" for i, (style, filled) in zip(intervals, INTERVAL_STYLES))
    _titles(ax, title, "; ".join(filter(None, (f"swaps every {lines}", _transfers(duration)))),
            stats_note(drawn) + "; senders named at their 1 s curve's end",
            NS2_STYLE_NOTE if ns2_drawn else "")
    ax.set_xlabel("random queue swaps asked per interval at R1's bottleneck queue\n"
                  "(a swap needs at least 2 waiting packets: swaps done in points.csv)")
    _bytes_axis(ax)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    _end_labels(ax, ends)
    return fig


def injection_figure(points: dict, *, duration: float | None = None):
    """Fig. 5: throughput against the share of packets the P4 gateway's injection diverts,
    one colour and marker per sender, one line style per injection."""
    return _level_figure(
        points, P4_INJECTIONS,
        "Fig. 5 (not in the paper): P4 injections, alternate path (solid) and recirculation "
        "(dashed)", "data packets diverted by the P4 gateway's reordering injection (%)",
        duration)


def delay_figure(points: dict, *, duration: float | None = None,
                 ns2_points: dict | None = None):
    """Fig. 9: throughput against the share of data packets delayed on the bottleneck link by
    a further N(25 ms, 8 ms) ([RDTCP] §7's "reordering based on delays", [RRTCP]'s model), every
    sender that ran."""
    return _level_figure(
        points, ("delay",),
        "Fig. 9 (not in the paper): reordering by delay", "data packets delayed on the "
        "bottleneck link by a further N(25 ms, 8 ms) (%)",
        duration, ns2_points=ns2_points)


def _level_curve(points: dict, variant: str, injection: str) -> list[tuple[float, dict]]:
    """(level, point) of one sender's injection series, from its no-reordering point."""
    curve = sorted((k[4], p) for k, p in points.items() if k[0] == variant and k[1] == injection)
    base = baseline(points, variant)
    if base is not None:
        curve.insert(0, (0.0, base))
    return curve


def _level_figure(points: dict, injections: tuple, title: str, xlabel: str,
                  duration: float | None, *, ns2_points: dict | None = None):
    """Throughput against an injection's level, from each sender's no-reordering point: one
    colour and marker per sender, solid for the first injection named, dashed for others;
    ns-2's curve beside ours where ``ns2_points`` has the sender's series."""
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    drawn: list[dict] = []
    ends: dict = {}
    series = sorted({(k[0], k[1]) for k in points if k[1] in injections},
                    key=lambda vi: (VARIANTS.index(vi[0]) if vi[0] in VARIANTS else len(VARIANTS),
                                    vi[1]))
    ns2_drawn = False
    for variant, injection in series:
        curve = _level_curve(ns2_points or {}, variant, injection)
        if len(curve) < 2:
            continue
        first = injection == injections[0]
        plot_reference_curve(ax, [lv * 100 for lv, _ in curve], [p for _, p in curve],
                             colour=sender_style(variant)[0], line="-" if first else "--",
                             label=f"{NS2_LABEL}{LABELS.get(variant, variant)}, {injection}")
        ns2_drawn = True
        ends.setdefault(("ns-2", variant), ([lv for lv, _ in curve],
                                            [p["mean"] for _, p in curve]))
    for variant, injection in series:
        curve = _level_curve(points, variant, injection)
        colour, marker = sender_style(variant)
        first = injection == injections[0]
        label = LABELS.get(variant, variant) + (f", {injection}" if len(injections) > 1 else "")
        plot_curve(ax, [lv * 100 for lv, _ in curve], [p for _, p in curve], colour=colour,
                marker=marker, line="-" if first else "--", filled=first, label=label)
        drawn += [p for _, p in curve]
        ends.setdefault(variant, ([lv for lv, _ in curve], [p["mean"] for _, p in curve]))
    ax.set_xlabel(xlabel)
    _bytes_axis(ax)
    _titles(ax, title, _transfers(duration, paper=False),
            stats_note(drawn) + "; senders named at their first curve's end",
            NS2_STYLE_NOTE if ns2_drawn else "")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    _end_labels(ax, ends)
    return fig


def k_study_figure(study: dict, *, duration: float | None = None):
    """Fig. 6: RD-TCP at 15 swaps every 1 s relative to no reordering against k, one line per
    swap span; the error bars are the point's sd relative to the same no-reordering mean."""
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    drawn: list[dict] = []
    for (span, points), (line, marker, colour) in zip(sorted(study.items()),
                                                      K_STUDY_SPAN_STYLES):
        points = [p for p in points if p["vs_no_reordering"] is not None]
        if not points:
            continue
        label = ("swaps anywhere in the queue" if span == 0
                 else f"swapped packets at most {span} places apart")
        plot_curve(ax, [p["k"] for p in points], [_relative(p) for p in points], colour=colour,
                marker=marker, line=line, label=label)
        drawn += points
    star = K_STUDY_PAPER_STAR
    ax.plot([3], [PAPER[("rdtcp", 15)] / PAPER[("none", 0)]], ls="none", marker=star["marker"],
            color=star["color"], mec=star["mec"], mew=0.6, ms=15, zorder=5,
            label=f"paper: RD-TCP, k = 3, 15 swaps every 1 s ("
                  f"{PAPER[('rdtcp', 15)]:,} / {PAPER[('none', 0)]:,} B/s)")
    ax.axhline(0.99, color="grey", lw=0.8, ls=":", label="1 % below no reordering")
    ax.set_xlabel("k (RD-TCP waits 3 + k duplicate ACKs on a reordered hole)")
    ax.set_ylabel("throughput / RD-TCP's throughput without reordering")
    _titles(ax, "Fig. 6 (not in the paper): RD-TCP at 15 swaps every 1 s against k",
            _transfers(duration), stats_note(drawn))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right", framealpha=0.85)
    fig.tight_layout()
    return fig


def _relative(p: dict) -> dict:
    """A k-study point on the relative axis: mean and sd divided by the no-reordering mean."""
    scale = p["vs_no_reordering"] / p["mean"] if p["mean"] else 0.0
    return {**p, "mean": p["vs_no_reordering"],
            "std": None if p["std"] is None else p["std"] * scale}
