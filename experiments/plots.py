"""Figures 1–4 of the paper (throughput against swaps), the P4 injection series and the k study."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from experiments.paper import PAPER  # noqa: E402
from experiments.report import baseline, swap_curve  # noqa: E402

__all__ = ["plot_all"]

LABELS = {"sack": "TCP SACK", "dsack": "TCP DSACK (undo)", "rdtcp": "RD-TCP (k=3)",
          "dsack-inc": "TCP DSACK, dupthresh +1 (BL-INC)",
          "dsack-avg": "TCP DSACK, dupthresh avg (BL-AVG)",
          "rdtcp-adaptive": "RD-TCP, k +1 per false FR (003 §3)",
          "rdtcp-measured": "RD-TCP, k from measured reordering (003 §3)"}
FIGURES = {
    "fig1_sack.png": ("Fig. 1: TCP SACK", ("sack",)),
    "fig2_rdtcp.png": ("Fig. 2: RD-TCP", ("rdtcp", "rdtcp-adaptive", "rdtcp-measured")),
    "fig3_sack_vs_rdtcp.png": ("Fig. 3: TCP SACK and RD-TCP", ("sack", "rdtcp", "rdtcp-adaptive",
                                                            "rdtcp-measured")),
    "fig4_dsack_vs_rdtcp.png": ("Fig. 4: TCP DSACK and RD-TCP",
                                ("dsack", "dsack-inc", "dsack-avg", "rdtcp")),
}


def plot_all(points: dict, out: Path, *, k_study: dict | None = None) -> list[str]:
    """Write every figure the points support into ``out``; returns the file names."""
    written = []
    intervals = sorted({k[2] for k in points if k[2] is not None})
    for name, (title, variants) in FIGURES.items():
        if any(swap_curve(points, v, i) for v in variants for i in intervals):
            _plot_swaps(points, variants, intervals, title, out / name)
            written.append(name)
    if any(k[1] != "swap" for k in points):
        _plot_injections(points, out / "fig5_injection.png")
        written.append("fig5_injection.png")
    if k_study:
        _plot_k_study(k_study, out / "fig6_k_study.png")
        written.append("fig6_k_study.png")
    return written


def _plot_k_study(study: dict, path: Path) -> None:
    """RD-TCP at 15 swaps/s relative to no reordering against k, one line per swap span."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for (span, points), style in zip(sorted(study.items()), ("-o", "--s", ":^", "-.d")):
        points = [p for p in points if p["vs_no_reordering"] is not None]
        if not points:
            continue
        label = ("swaps anywhere in the queue" if span == 0
                 else f"swapped packets at most {span} places apart")
        ax.errorbar([p["k"] for p in points], [p["vs_no_reordering"] for p in points],
                    yerr=[p["std"] / (p["mean"] / p["vs_no_reordering"]) for p in points],
                    fmt=style, capsize=3, label=label)
    ax.plot([3], [PAPER[("rdtcp", 15)] / PAPER[("none", 0)]], "k*", ms=10,
            label="paper, k = 3 (607,440 / 607,500 B/s)")
    ax.axhline(0.99, color="grey", lw=0.8, ls=":", label="1 % below no reordering")
    ax.set_xlabel("k (RD-TCP waits 3 + k duplicate ACKs on a reordered hole)")
    ax.set_ylabel("throughput / throughput without reordering")
    ax.set_title("RD-TCP at 15 swaps every 1 s against k")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best", framealpha=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_swaps(points, variants, intervals, title, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    for n, variant in enumerate(variants):       # one colour per sender, one style per interval
        for interval, style in zip(intervals, ("-o", "--s", ":^")):
            curve = swap_curve(points, variant, interval)
            if not curve:
                continue
            xs = [s for s, _ in curve]
            ax.errorbar(xs, [p["mean"] for _, p in curve], yerr=[p["std"] for _, p in curve],
                        fmt=style, color=f"C{n}", capsize=3,
                        label=f"{LABELS[variant]}, every {interval:g} s")
        if (variant, 15) in PAPER:
            ax.plot([15], [PAPER[(variant, 15)]], "k*", ms=10)
    ax.axhline(PAPER[("none", 0)], color="grey", lw=0.8, ls=":",
               label="paper, no reordering (607,500 B/s); * paper at 15 swaps/s")
    ax.set_xlabel("number of random queue swaps per interval")
    ax.set_ylabel("throughput (data bytes/s)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    # below the axes: inside, it would hide the paper's points at 15 swaps
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def _plot_injections(points, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = sorted({(k[0], k[1]) for k in points if k[1] != "swap"})
    for variant, injection in series:
        curve = sorted((k[4], p) for k, p in points.items()
                       if k[0] == variant and k[1] == injection)
        base = baseline(points, variant)
        if base is not None:
            curve.insert(0, (0.0, base))
        ax.errorbar([lv * 100 for lv, _ in curve], [p["mean"] for _, p in curve],
                    yerr=[p["std"] for _, p in curve], fmt="-o" if injection == "altpath" else "--s",
                    capsize=3, label=f"{LABELS[variant]}, {injection}")
    ax.set_xlabel("packets diverted by the P4 gateway's reordering injection (%)")
    ax.set_ylabel("throughput (data bytes/s)")
    ax.set_title("P4 injection: alternate path and recirculation")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best", framealpha=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
