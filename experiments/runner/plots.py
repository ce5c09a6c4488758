"""What every study's figures share: one colour and one marker per sender, the same in every
figure of every study (``sender_style``); a curve of points with their error bars (the sample
standard deviation over a point's seeds; none for a point from one seed) and the note saying
so (``plot_curve``, ``stats_note``); labels written at the curves' ends instead of a legend
(``direct_labels``), thousands separated on an axis (``thousands``); PNG files written whole
(``save_figure``); and what makes a figure hard to read, found from its artists
(``readability_problems``: a legend larger than a quarter of its axes or under another axes,
two curves of one axes drawn alike)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from matplotlib.colors import to_rgba  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from experiments.runner.spec import SENDERS  # noqa: E402

__all__ = ["save_figure", "plot_curve", "plot_reference_curve", "REFERENCE_STYLE", "stats_note",
           "sender_style", "STYLES", "direct_labels", "thousands", "readability_problems",
           "LEGEND_SHARE"]

# one (colour, marker) per sender, the same in every figure: a base sender and its extensions
# share a hue family (DSACK oranges/browns, RD-TCP reds/greens/purples kept apart from SACK's blue)
STYLES = {"sack": ("tab:blue", "o"), "dsack": ("tab:orange", "s"), "rdtcp": ("tab:red", "D"),
          "dsack-inc": ("tab:brown", "v"), "dsack-avg": ("tab:olive", "^"),
          "rdtcp-adaptive": ("tab:green", "P"), "rdtcp-measured": ("tab:purple", "X"),
          "rdtcp-measured-undo": ("indigo", "8"),
          "eifel": ("tab:cyan", "h"), "rack": ("tab:gray", "p"),
          # [RRTCP]'s senders, drawn together in its figures: DSACK-TA's family in pinks and
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


# another simulator's curve beside ours (ns-2's, ``--ns2``): the sender's colour and the
# series' line style, drawn wide and pale under ours with crosses for its points, so that it
# reads as a band ours runs along or leaves
REFERENCE_STYLE = {"alpha": 0.4, "lw": 4.0, "marker": "x", "ms": 8, "mew": 2.0}


def plot_reference_curve(ax, xs, points, *, colour, line="-", label=None):
    """Another simulator's curve (REFERENCE_STYLE), with its ± sd bars where it has them."""
    ys = [p["mean"] for p in points]
    ax.plot(xs, ys, line, color=colour, zorder=1.5, label=label, **REFERENCE_STYLE)
    bars = [(x, y, p["std"]) for x, y, p in zip(xs, ys, points) if p.get("std") is not None]
    if bars:
        ax.errorbar([b[0] for b in bars], [b[1] for b in bars], yerr=[b[2] for b in bars],
                    fmt="none", ecolor=colour, alpha=REFERENCE_STYLE["alpha"], capsize=4, lw=2)


def stats_note(points: list[dict]) -> str:
    """'mean ± sd over n = 2 seeds per point' for the points drawn, saying which have no bar."""
    ns = sorted({p["n"] for p in points}) or [0]
    n = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}-{ns[-1]}"
    note = f"mean ± sample sd over n = {n} seed{'s' if ns[-1] > 1 else ''} per point"
    if ns[0] == 1:
        note += " (n = 1: no bar)"
    return note


def thousands(ax, axis: str = "y") -> None:
    """Numbers on ``axis`` with thousands separated (607,500, not 607500 or 6e5)."""
    fmt = FuncFormatter(lambda v, _pos: f"{v:,.0f}" if abs(v) >= 1000 or v == int(v)
                        else f"{v:g}")
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def direct_labels(ax, entries, *, fontsize: float = 7.5, gap: float = 0.045) -> None:
    """Each curve's label written just right of the axes at the height of its last point, in
    its colour, as papers label curves instead of with a legend. ``entries``: (y of the last
    point in data units, text, colour). Labels closer than ``gap`` (a share of the axes' height)
    are moved apart, keeping their order, and joined to their curve's end by a thin line."""
    if not entries:
        return
    lo, hi = ax.get_ylim()
    span = (hi - lo) or 1.0
    placed = sorted(((y - lo) / span, text, colour) for y, text, colour in entries)
    ys = [y for y, _, _ in placed]
    for i in range(1, len(ys)):          # push up what sits too close to the one below
        ys[i] = max(ys[i], ys[i - 1] + gap)
    overflow = ys[-1] - 1.0
    if overflow > 0:                     # then shift the whole column down to fit
        ys = [y - overflow for y in ys]
        for i in range(len(ys) - 2, -1, -1):
            ys[i] = min(ys[i], ys[i + 1] - gap)
    for (y0, text, colour), y in zip(placed, ys):
        ax.annotate(text, xy=(1.0, y0), xycoords="axes fraction", xytext=(1.03, y),
                    textcoords="axes fraction", va="center", ha="left", fontsize=fontsize,
                    color=colour, annotation_clip=False,
                    arrowprops=None if abs(y - y0) < 1e-9 else
                    {"arrowstyle": "-", "color": colour, "lw": 0.5, "shrinkA": 0,
                     "shrinkB": 0})


LEGEND_SHARE = 0.25     # a legend at most this share of its axes' area
HIDDEN_SHARE = 0.05     # at most this share of an axes' legend under another axes


def _curves(ax) -> list:
    """The axes' labelled data lines (a legend's entries), not grid lines, error bar caps and
    the like, whose labels start with '_'."""
    return [line for line in ax.get_lines()
            if not str(line.get_label()).startswith("_") and len(line.get_xdata()) > 0]


def _style(line) -> tuple:
    colour = tuple(round(c, 3) for c in to_rgba(line.get_color()))
    face = line.get_markerfacecolor()
    fill = "none" if str(face) == "none" else tuple(round(c, 3) for c in to_rgba(face))
    return colour, str(line.get_linestyle()), str(line.get_marker()), fill


def _opaque(ax) -> bool:
    """Whether ``ax`` paints its background (a twinx axes does not: what lies under it shows)."""
    return ax.patch.get_visible() and to_rgba(ax.patch.get_facecolor())[3] > 0


def readability_problems(fig) -> list[str]:
    """What makes ``fig`` hard to read, one sentence each: a legend (of an axes or of the
    figure) whose box is larger than LEGEND_SHARE of its axes, or covers more than that of an
    axes it lies on, or lies more than HIDDEN_SHARE under another, opaque, axes; two curves of one axes drawn with the same colour, line style, marker and
    fill (the same sender in two panels keeps its style: panels are not compared)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    problems = []
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    legends = [(ax.get_legend(), ax) for ax in axes if ax.get_legend() is not None]
    legends += [(leg, None) for leg in fig.legends]
    for legend, owner in legends:
        box = legend.get_window_extent(renderer)
        area = box.width * box.height
        hosts = [owner] if owner is not None else axes
        for ax in hosts:
            abox = ax.get_window_extent(renderer)
            a_area = abox.width * abox.height or 1.0
            if owner is not None and area > LEGEND_SHARE * a_area:
                problems.append(f"a legend of {area / a_area:.0%} of its axes "
                                f"({ax.get_title()[:40]!r})")
            ix = max(0.0, min(box.x1, abox.x1) - max(box.x0, abox.x0))
            iy = max(0.0, min(box.y1, abox.y1) - max(box.y0, abox.y0))
            if ix * iy > LEGEND_SHARE * a_area:
                problems.append(f"a legend covers {ix * iy / a_area:.0%} of an axes "
                                f"({ax.get_title()[:40]!r})")
        if owner is not None:           # an axes drawn over another's legend hides it
            for ax in axes:
                if ax is owner or not _opaque(ax):     # a twin axes is see-through
                    continue
                abox = ax.get_window_extent(renderer)
                ix = max(0.0, min(box.x1, abox.x1) - max(box.x0, abox.x0))
                iy = max(0.0, min(box.y1, abox.y1) - max(box.y0, abox.y0))
                if ix * iy > HIDDEN_SHARE * (area or 1.0):
                    problems.append(f"a legend of {owner.get_title()[:40]!r} lies "
                                    f"{ix * iy / (area or 1.0):.0%} under another axes")
        if owner is None:
            biggest = max((ax.get_window_extent(renderer) for ax in axes),
                          key=lambda b: b.width * b.height, default=None)
            if biggest is not None and area > LEGEND_SHARE * biggest.width * biggest.height:
                problems.append(f"a figure legend of {area / (biggest.width * biggest.height):.0%}"
                                f" of its largest axes")
    for ax in axes:
        seen: dict = {}
        for line in _curves(ax):
            style = _style(line)
            if style in seen and seen[style] != line.get_label():
                problems.append(f"{seen[style]!r} and {line.get_label()!r} drawn alike "
                                f"({ax.get_title()[:40]!r})")
            seen.setdefault(style, line.get_label())
    return problems
