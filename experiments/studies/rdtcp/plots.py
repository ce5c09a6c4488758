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

from experiments.runner.plots import plot_curve, save_figure, sender_style, stats_note  # noqa: E402
from experiments.runner.spec import P4_INJECTIONS  # noqa: E402
from experiments.studies.rdtcp.report import baseline, paper_sender, swap_curve  # noqa: E402
from experiments.studies.rdtcp.scenario import PAPER, PAPER_VARIANTS, VARIANTS  # noqa: E402

__all__ = ["plot_all", "swap_figure", "injection_figure", "delay_figure", "k_study_figure",
           "LABELS", "K_STUDY_SPAN_STYLES", "K_STUDY_PAPER_STAR"]

LABELS = {"sack": "TCP SACK", "dsack": "TCP DSACK (undo)", "rdtcp": "RD-TCP (k=3)",
          "dsack-inc": "TCP DSACK, dupthresh +1 (BL-INC)",
          "dsack-avg": "TCP DSACK, dupthresh avg (BL-AVG)",
          "rdtcp-adaptive": "RD-TCP, k +1 per false FR (003 §3)",
          "rdtcp-measured": "RD-TCP, k from measured reordering (003 §3)",
          "rdtcp-measured-undo": "RD-TCP, k measured, false FRs undone (DSACK)",
          "eifel": "TCP SACK with Eifel undo (timestamps, RFC 3522)",
          "rack": "TCP SACK with RACK-TLP (time-based, RFC 8985)",
          "rrtcp": "RR-TCP (DSACK, dupthresh from reordering histogram)",
          "rrtcp-fa": "RR-TCP with a fixed FA ratio (DSACK-FA)"}
# the paper's names for its own senders, for its stars ("TCP using DSACK": 003 §6 does not say
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
# figures drawn only when one of these senders ran (else they would repeat Figs. 1 and 4)
FIGURE_NEEDS = {"fig7_undo.png": ("eifel",), "fig8_rack.png": ("rack",)}
THROUGHPUT_LABEL = "throughput (data bytes/s delivered in order to B)"
# Fig. 6: one (line style, marker, colour) per swap span, in increasing span (0: anywhere first);
# and the paper's RD-TCP point, a star in a colour none of the curves has (the spans' curves are
# all RD-TCP, so RD-TCP's own red, which the first span's curve had, would read as that curve)
K_STUDY_SPAN_STYLES = (("-", "o", "tab:red"), ("--", "s", "tab:cyan"), (":", "^", "tab:gray"),
                       ("-.", "d", "black"))
K_STUDY_PAPER_STAR = {"marker": "*", "color": "gold", "mec": "black"}


def plot_all(points: dict, out: Path, *, k_study: dict | None = None,
             duration: float | None = None) -> list[str]:
    """Write every figure the points support into ``out``; returns the file names.
    ``duration``: the transfers' length in seconds, named in the titles."""
    written = []
    intervals = sorted({k[2] for k in points if k[2] is not None})
    for name, (title, variants) in FIGURES.items():
        needs = FIGURE_NEEDS.get(name, variants)    # a sender the figure is about ran
        if any(swap_curve(points, v, i) for v in needs for i in intervals):
            save_figure(swap_figure(points, variants, intervals, title, duration=duration),
                        out / name)
            written.append(name)
    if any(k[1] in P4_INJECTIONS for k in points):
        save_figure(injection_figure(points, duration=duration), out / "fig5_injection.png")
        written.append("fig5_injection.png")
    if any(k[1] == "delay" for k in points):
        save_figure(delay_figure(points, duration=duration), out / "fig9_delay.png")
        written.append("fig9_delay.png")
    if k_study:
        save_figure(k_study_figure(k_study, duration=duration), out / "fig6_k_study.png")
        written.append("fig6_k_study.png")
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
    star in that sender's colour and named in the legend."""
    bases = [b for b in PAPER_VARIANTS if b in {paper_sender(v) for v in variants}]
    for base in bases:
        if (base, 15) in PAPER:
            colour, _ = sender_style(base)
            ax.plot([15], [PAPER[(base, 15)]], "*", color=colour, mec="black", mew=0.6, ms=14,
                    zorder=5, label=f"paper: {PAPER_LABELS[base]}, 15 swaps every 1 s "
                                    f"({PAPER[(base, 15)]:,} B/s)")


# --------------------------------------------------------------------------- figures
def swap_figure(points: dict, variants, intervals, title: str, *,
                duration: float | None = None):
    """Figures 1-4: throughput against swaps per interval, one colour and marker per sender,
    one line style per interval; returns the matplotlib Figure."""
    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    drawn: list[dict] = []
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
    _paper_stars(ax, [v for v in variants if any(swap_curve(points, v, i) for i in intervals)])
    ax.axhline(PAPER[("none", 0)], color="grey", lw=0.8, ls=":",
               label=f"paper: no reordering, any sender ({PAPER[('none', 0)]:,} B/s)")
    lines = ", ".join(f"{i:g} s ({_LINE_NAMES[style]})"
                      for i, (style, _) in zip(intervals, INTERVAL_STYLES))
    _titles(ax, title, "; ".join(filter(None, (f"swaps every {lines}", _transfers(duration)))),
            stats_note(drawn))
    ax.set_xlabel("random queue swaps asked per interval at R1's bottleneck queue\n"
                  "(a swap needs at least 2 waiting packets: swaps done in points.csv)")
    _bytes_axis(ax)
    ax.grid(alpha=0.3)
    # below the axes: inside, it would hide the curves and the paper's stars at 15 swaps
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def injection_figure(points: dict, *, duration: float | None = None):
    """Fig. 5: throughput against the share of packets the P4 gateway's injection diverts,
    one colour and marker per sender, one line style per injection."""
    return _level_figure(
        points, P4_INJECTIONS,
        "Fig. 5 (not in the paper): P4 injections, alternate path (solid) and recirculation "
        "(dashed)", "data packets diverted by the P4 gateway's reordering injection (%)",
        duration)


def delay_figure(points: dict, *, duration: float | None = None):
    """Fig. 9: throughput against the share of data packets delayed on the bottleneck link by
    a further N(25 ms, 8 ms) (003 §7's "reordering based on delays", 000's model), every
    sender that ran."""
    return _level_figure(
        points, ("delay",),
        "Fig. 9 (not in the paper): reordering by delay", "data packets delayed on the "
        "bottleneck link by a further N(25 ms, 8 ms) (%)",
        duration)


def _level_figure(points: dict, injections: tuple, title: str, xlabel: str,
                  duration: float | None):
    """Throughput against an injection's level, from each sender's no-reordering point: one
    colour and marker per sender, solid for the first injection named, dashed for others."""
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    drawn: list[dict] = []
    series = sorted({(k[0], k[1]) for k in points if k[1] in injections},
                    key=lambda vi: (VARIANTS.index(vi[0]) if vi[0] in VARIANTS else len(VARIANTS),
                                    vi[1]))
    for variant, injection in series:
        curve = sorted((k[4], p) for k, p in points.items()
                       if k[0] == variant and k[1] == injection)
        base = baseline(points, variant)
        if base is not None:
            curve.insert(0, (0.0, base))
        colour, marker = sender_style(variant)
        first = injection == injections[0]
        label = LABELS.get(variant, variant) + (f", {injection}" if len(injections) > 1 else "")
        plot_curve(ax, [lv * 100 for lv, _ in curve], [p for _, p in curve], colour=colour,
                marker=marker, line="-" if first else "--", filled=first, label=label)
        drawn += [p for _, p in curve]
    ax.set_xlabel(xlabel)
    _bytes_axis(ax)
    _titles(ax, title, _transfers(duration, paper=False), stats_note(drawn))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    fig.tight_layout()
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
