"""RR-TCP's figures ([RRTCP] Figs. 1 and 4-19) as PNG files: the sweep's curves, and the traces of
the one-run figures. Each title carries [RRTCP]'s caption, the run length and seeds, and which
element of the network made the impairments (the P4 gateway or the simulator)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from experiments.runner.plots import (plot_curve, plot_reference_curve,  # noqa: E402
                                      save_figure, sender_style, stats_note, thousands)
from experiments.studies.rrtcp.evaluation import Panel, Trace, ideal_key  # noqa: E402
from experiments.studies.rrtcp.scenario import mechanisms  # noqa: E402

__all__ = ["plot_panels", "plot_traces", "panel_mechanisms", "run_lengths"]

# figures whose curves lie within a few per cent of each other get a second panel, each curve
# relative to one of them, as papers zoom on close curves: Fig. 10's FA, TAES and HG (FA hidden
# under the other two), Fig. 17's five Blanton-Allman schemes (one band)
RATIO_TO = {"10": "rrtcp-fa", "17": "rrtcp"}
# Fig. 15: one line style and marker per delay distribution (the colour is the sender's)
DIST_STYLES = {"normal": ("-", "o"), "exponential": ("--", "s"), "hyperexponential": (":", "^"),
               "pareto": ("-.", "v"), "pareto II": ((0, (6, 2, 1, 2, 1, 2)), "D"),
               "uniform": ((0, (10, 3)), "x")}


def panel_mechanisms(keys, *, delay_nth: frozenset | None = None) -> str:
    """Where the impairments of these runs were made, one clause per impairment."""
    seen: dict[str, set] = {}
    for key in keys:
        for what, how in mechanisms(key, delay_nth=delay_nth).items():
            seen.setdefault(what, set()).add(how.split(",")[0] if what == "reordering" and
                                             "delay element" in how else how)
    return "; ".join(f"{what}: {' / '.join(sorted(hows))}" for what, hows in seen.items()) \
        or "no impairment"


def _keys(panel: Panel) -> list:
    return [key for c in panel.curves for _, key in c.points if key != ideal_key(key)]


def _shown(point: dict, metric: str) -> dict:
    return {"mean": point[metric], "std": point.get(metric + "_std"), "n": point["n"]}


def run_lengths(keys) -> str:
    """'60 s' or '120-240 s': the run lengths of these points."""
    lengths = sorted({k.duration for k in keys})
    if not lengths:
        return "no"
    return f"{lengths[0]:g} s" if len(lengths) == 1 else f"{lengths[0]:g}-{lengths[-1]:g} s"


NS2_LABEL = "ns-2: "        # the start of an ns-2 curve's label


def plot_panels(points: dict, panels: Sequence[Panel], out: Path, *,
                ns2_points: dict | None = None, ns2_figures: list[str] | None = None
                ) -> list[str]:
    """One PNG per panel with at least one point; returns the names written. ``ns2_points``:
    ns-2's points of the same runs (``--ns2``), each of its curves drawn beside ours
    (``plot_reference_curve``: the sender's colour, wide and pale, crosses) where it has the
    panel's metric; the names of those figures are appended to ``ns2_figures``."""
    written = []
    for panel in panels:
        ref = RATIO_TO.get(panel.number)
        if ref:
            fig, (ax, low) = plt.subplots(2, 1, figsize=(8.5, 7.0), sharex=True,
                                          gridspec_kw={"height_ratios": (3, 1.6)})
        else:
            fig, ax = plt.subplots(figsize=(8.5, 5.2))
            low = None
        drawn = []
        ns2_drawn = False
        for curve in panel.curves:
            pts = [(x, points[key]) for x, key in curve.points
                   if key in points and points[key].get(panel.metric) is not None]
            if not pts:
                continue
            colour, marker = sender_style(curve.variant)
            if curve.label == "SACK-NODELAY":   # SACK's own reference: drawn apart from SACK
                colour, marker = ("gold" if len(pts) == 1 else "darkgoldenrod"), "*"
            theirs = [(x, ns2_points[key]) for x, key in curve.points
                      if key in (ns2_points or {})
                      and ns2_points[key].get(panel.metric) is not None]
            if theirs and not curve.hline:
                plot_reference_curve(ax, [x for x, _ in theirs],
                                     [_shown(p, panel.metric) for _, p in theirs],
                                     colour=colour, label=f"{NS2_LABEL}{curve.label}")
                ns2_drawn = True
            if curve.hline:
                ax.axhline(pts[0][1][panel.metric], color=colour, ls="--", lw=1.5,
                           label=f"{curve.label} (its own dupthresh)")
                drawn.append(pts[0][1])
                continue
            xs, shown = [x for x, _ in pts], [_shown(p, panel.metric) for _, p in pts]
            if curve.style:
                linestyle, marker = DIST_STYLES[curve.style]
                _styled_curve(ax, xs, shown, colour, marker, linestyle, curve.label)
            else:
                plot_curve(ax, xs, shown, colour=colour, marker=marker, label=curve.label)
            drawn += [p for _, p in pts]
        if not drawn:
            plt.close(fig)
            continue
        (low or ax).set_xlabel(panel.xlabel)
        ax.set_ylabel(panel.ylabel)
        if panel.log_y:
            ax.set_yscale("symlog", linthresh=1e-3)
        elif panel.metric == "throughput":
            thousands(ax)
        ax.set_ylim(bottom=0)
        if low is not None:
            _ratio_panel(low, points, panel, ref)
        ax.set_title(f"[RRTCP] Fig. {panel.number}: {panel.title}\n{run_lengths(_keys(panel))} runs "
                     f"([RRTCP]: 1000 s), {stats_note(drawn)}\n{panel_mechanisms(_keys(panel))}"
                     + (f"\n{NS2_STYLE_NOTE}" if ns2_drawn else ""), fontsize=8)
        ax.grid(alpha=0.3)
        # below the figure: under the curves it would hide them (below the lower panel when
        # there is one: between the panels the lower one would cover it)
        (low or ax).legend(*ax.get_legend_handles_labels(), fontsize=7, loc="upper center",
                           bbox_to_anchor=(0.5, -0.13 if low is None else -0.3), ncol=3)
        save_figure(fig, out / panel.name)
        written.append(panel.name)
        if ns2_drawn and ns2_figures is not None:
            ns2_figures.append(panel.name)
    return written


NS2_STYLE_NOTE = ("ns-2 2.35's runs of the same points (ns-2: in the legend): wide pale lines, "
                  "x markers, in the sender's colour; [RRTCP]'s delays as ns-2 error models")


def _ratio_panel(ax, points: dict, panel: Panel, ref: str) -> None:
    """Each curve of ``panel`` over ``ref``'s at the x both have: differences of a per cent
    show here that the upper panel's scale hides. SACK, far below the DSACK schemes, is left
    out: on the panel's scale it would squash the differences the panel is for."""
    ref_curve = next((c for c in panel.curves if c.variant == ref and not c.style), None)
    base = {x: points[k][panel.metric] for x, k in (ref_curve.points if ref_curve else ())
            if k in points and points[k].get(panel.metric)}
    name = next((c.label for c in panel.curves if c.variant == ref), ref)
    for curve in panel.curves:
        if curve.hline or curve.label == "SACK-NODELAY" or curve.variant == "sack":
            continue
        pts = [(x, points[k][panel.metric] / base[x]) for x, k in curve.points
               if k in points and x in base and points[k].get(panel.metric) is not None]
        if pts:
            colour, marker = sender_style(curve.variant)
            ax.plot([x for x, _ in pts], [y for _, y in pts], "-", color=colour, marker=marker,
                    ms=5, label=f"{curve.label} / {name}")
    ax.axhline(1.0, color="0.5", lw=0.8)
    ax.set_ylabel(f"relative to {name}")
    ax.grid(alpha=0.3)


def _styled_curve(ax, xs, shown, colour, marker, linestyle, label) -> None:
    """A curve in a line style of its own (a dash pattern ``plot_curve`` cannot take)."""
    ax.plot(xs, [p["mean"] for p in shown], color=colour, marker=marker, ms=5,
            linestyle=linestyle, label=label)
    bars = [(x, p["mean"], p["std"]) for x, p in zip(xs, shown) if p.get("std") is not None]
    if bars:
        ax.errorbar([b[0] for b in bars], [b[1] for b in bars], yerr=[b[2] for b in bars],
                    fmt="none", ecolor=colour, capsize=3, lw=1)


# ------------------------------------------------------------------------------- traces
def plot_traces(results: dict[str, list[dict]], traces: Sequence[Trace], out: Path
                ) -> list[str]:
    """Figs. 1, 9 and 19 from their runs (``results[number]``: the runs' series and stats)."""
    draw = {"1": _fig1, "9": _fig9, "19": _fig19}
    written = []
    for trace in traces:
        runs = results.get(trace.number)
        if not runs:
            continue
        fig = draw[trace.number](runs)
        where = panel_mechanisms([r["spec"] for r in runs], delay_nth=trace.delay_nth)
        fig.axes[0].set_title(f"[RRTCP] Fig. {trace.number}: {trace.title}\n"
                              f"{runs[0]['spec'].duration:g} s, seed 1; {where}", fontsize=8)
        save_figure(fig, out / trace.name)
        written.append(trace.name)
    return written


def _fig1(runs: list[dict]):
    run = runs[0]
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    marks = {"sent": ("o", "tab:blue", 3, "data sent"),
             "retransmitted": ("x", "tab:red", 8, "retransmitted"),
             "ack": (".", "tab:gray", 3, "ACK received"),
             "dsack": ("*", "gold", 12, "DSACK received")}
    for what, (marker, colour, size, label) in marks.items():
        pts = [(t, n) for t, n, w in run["stats"]["sender_trace"] if w == what]
        if pts:
            ax.plot([t for t, _ in pts], [n for _, n in pts], marker, color=colour, ms=size,
                    ls="none", label=label, mec="black" if what == "dsack" else colour)
    ax.set_xlabel("time at the sender (s)")
    ax.set_ylabel("packet number")
    ax.set_xlim(0, run["spec"].duration)
    ax.set_ylim(0, max((n for t, n, _ in run["stats"]["sender_trace"]
                        if t <= run["spec"].duration), default=1) * 1.05)
    cw = ax.twinx()
    cw.step([r[0] for r in run["series"]], [r[1] / run["mss"] for r in run["series"]],
            where="post", color="tab:green", lw=1, label="cwnd (packets)")
    cw.set_ylabel("cwnd (packets)", color="tab:green")
    handles = ax.get_legend_handles_labels()
    extra = cw.get_legend_handles_labels()
    ax.legend(handles[0] + extra[0], handles[1] + extra[1], fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return fig


def _fig9(runs: list[dict]):
    series = runs[0]["series"]
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    ax.plot([r[0] for r in series], [100 * r[4] for r in series], color="tab:pink", lw=1,
            label="FA ratio (%)")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("FA ratio (%)", color="tab:pink")
    dt = ax.twinx()
    dt.plot([r[0] for r in series], [r[3] for r in series], color="black", lw=0.8,
            label="dupthresh")
    dt.set_ylabel("dupthresh (packets)")
    ax.grid(alpha=0.3)
    handles = ax.get_legend_handles_labels()
    extra = dt.get_legend_handles_labels()
    ax.legend(handles[0] + extra[0], handles[1] + extra[1], fontsize=7, loc="lower right")
    return fig


def _fig19(runs: list[dict]):
    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    for run in runs:
        series, variant = run["series"], run["spec"].variant
        colour, _ = sender_style(variant)
        ax.plot([r[0] for r in series], [r[3] for r in series], color=colour, lw=1,
                label=run["label"])
        timeouts = [b[0] for a, b in zip(series, series[1:]) if b[6] > a[6]]
        ax.plot(timeouts, [1.5] * len(timeouts), "|", color=colour, ms=10,
                label=f"{run['label']}: timeouts")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("dupthresh (packets)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    return fig
