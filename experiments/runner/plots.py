"""What every study's figures share: one colour and one marker per sender, the same in every
figure of every study (``sender_style``); a curve of points with their error bars (the sample
standard deviation over a point's seeds; none for a point from one seed) and the note saying
so (``plot_curve``, ``stats_note``); and PNG files written whole (``save_figure``)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from experiments.runner.spec import SENDERS  # noqa: E402

__all__ = ["save_figure", "plot_curve", "stats_note", "sender_style", "STYLES"]

# one (colour, marker) per sender, the same in every figure: a base sender and its extensions
# share a hue family (DSACK oranges/browns, RD-TCP reds/greens/purples kept apart from SACK's blue)
STYLES = {"sack": ("tab:blue", "o"), "dsack": ("tab:orange", "s"), "rdtcp": ("tab:red", "D"),
          "dsack-inc": ("tab:brown", "v"), "dsack-avg": ("tab:olive", "^"),
          "rdtcp-adaptive": ("tab:green", "P"), "rdtcp-measured": ("tab:purple", "X"),
          "rdtcp-measured-undo": ("indigo", "8"),
          "eifel": ("tab:cyan", "h"), "rack": ("tab:gray", "p"),
          # seed 000's senders, drawn together in its figures: DSACK-TA's family in pinks and
          # purples, DSACK-FA's in greys and teal, Blanton and Allman's in browns and yellows
          "rrtcp": ("tab:pink", "<"), "rrtcp-rtx": ("mediumvioletred", "<"),
          "rrtcp-taes": ("darkmagenta", "*"), "rrtcp-hg": ("mediumpurple", "d"),
          "rrtcp-fa": ("black", ">"), "rrtcp-fa-rtx": ("dimgray", ">"),
          "rrtcp-faes": ("teal", "*"), "dsack-ewma": ("goldenrod", "P"),
          "dsack-timedel": ("sienna", "X"), "dsack-timeinc": ("yellowgreen", "h")}
# the senders without an entry, in the registry's order, take these in turn (colour and marker
# cycles of coprime lengths: no two of the first 13 * 12 share both)
_SPARE_COLOURS = ("steelblue", "darkorange", "forestgreen", "firebrick", "slateblue",
                  "saddlebrown", "orchid", "darkgray", "darkolivegreen", "darkcyan", "navy",
                  "maroon", "darkgoldenrod")
_SPARE_MARKERS = ("o", "s", "^", "v", "D", "<", ">", "p", "h", "P", "X", "d")


def sender_style(variant: str) -> tuple[str, str]:
    """(colour, marker) of ``variant``, fixed for every figure. A sender without an entry in
    STYLES gets a spare colour and marker by its place among the registered senders
    (``SENDERS``) that have none, so it too is fixed across figures and differs from
    every other sender's."""
    if variant in STYLES:
        return STYLES[variant]
    extra = [v for v in SENDERS if v not in STYLES]
    n = extra.index(variant) if variant in extra else len(extra)
    return _SPARE_COLOURS[n % len(_SPARE_COLOURS)], _SPARE_MARKERS[n % len(_SPARE_MARKERS)]


def save_figure(fig, path: Path) -> None:
    # tight: the legends below the axes and the notes above them are part of the figure
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def plot_curve(ax, xs, points, *, colour, marker, line="-", filled=True, label=None):
    """One curve: the means joined by a line, and an error bar (± sd) only where the point has
    an sd; a point from one seed (sd None) gets no bar rather than a zero-length one."""
    ys = [p["mean"] for p in points]
    # filled curves (1 s) above open ones: the zero-swap point both intervals share shows filled
    ax.plot(xs, ys, line, color=colour, marker=marker, ms=6, zorder=3 if filled else 2,
            mfc=colour if filled else "white", mec=colour, label=label)
    bars = [(x, y, p["std"]) for x, y, p in zip(xs, ys, points)
            if p.get("std") is not None]
    if bars:
        ax.errorbar([b[0] for b in bars], [b[1] for b in bars], yerr=[b[2] for b in bars],
                    fmt="none", ecolor=colour, capsize=3, lw=1)


def stats_note(points: list[dict]) -> str:
    """'mean ± sd over n = 2 seeds per point' for the points drawn, saying which have no bar."""
    ns = sorted({p["n"] for p in points}) or [0]
    n = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}-{ns[-1]}"
    note = f"mean ± sample sd over n = {n} seed{'s' if ns[-1] > 1 else ''} per point"
    if ns[0] == 1:
        note += " (n = 1: no bar)"
    return note
