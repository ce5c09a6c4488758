"""The incremental-deployment series ([RDTCP] §7): RD-TCP and its k-adapting
forms when the router that drops a segment is a legacy one, beside SACK and RACK-TLP.

[RDTCP] §7 asks how RD-TCP fares "when there are some routers in a network which have not been
upgraded to use our mechanism". On the paper's dumbbell either gateway, or both, can be a legacy
router (``RunSpec.legacy``: the gateway program's legacy mode, the same queue without EPDN), and
loss can happen at either: at R1, whose bottleneck queue overflows (drop-tail, 65 packets), or
at R2, which drops data segments on their way to B with a small probability (``RunSpec.r2_drop``,
the gateway's drop injection: loss downstream of the bottleneck, a lossy last hop or a router
congested by other traffic; with it the window stays below what fills R1's queue, so R2 is
where nearly every loss happens). A drop at a legacy router reaches B without a stamp, and B's
RD-TCP receiver takes the gap for reordering ([RDTCP] §3's fallback): the sender waits 3 + k
duplicate ACKs, or for the RTO, instead of 3.

A point is (sender, legacy setting, drop site, swaps per second): its throughput (mean, sample
sd over seeds), relative to the same sender with both gateways upgraded at the same drop site
and swaps, and per run the drops at each router, the stamps B honoured, the ACKs it sent with
the reorder bit, the fast retransmits, RTOs and spurious retransmissions. SACK and RACK-TLP read
no EPDN option, so a legacy router cannot change their runs (a test checks it); they run with
both gateways upgraded and stand beside every deployment as its reference.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Iterable

from experiments.runner.gateways import LEGACY_SETTINGS, legacy_routers
from experiments.runner.spec import RDTCP_VARIANTS
from experiments.studies.rdtcp.scenario import RDTCP_K

__all__ = ["LEGACY_REFERENCES", "LEGACY_INTERVAL", "DROP_SITES", "series_variants", "drop_site",
           "legacy_points", "legacy_rows", "legacy_markdown", "plot_legacy", "LEGACY_FIGURE"]

LEGACY_REFERENCES = ("sack", "rack")    # beside RD-TCP: the senders that read no EPDN option
LEGACY_INTERVAL = 1.0                   # the swaps' interval: the paper's quoted 15 per 1 s
DROP_SITES = ("r1", "r2")
LEGACY_FIGURE = "fig10_legacy.png"
# per-run means a point reports beside its throughput: (column, row fields summed)
COUNTS = (("r1_drops", ("r1_drops_buffer", "r1_drops_random", "r1_drops_pattern")),
          ("r2_drops", ("r2_drops_buffer", "r2_drops_random", "r2_drops_pattern")),
          ("rcv_epdn_stamps", ("rcv_epdn_stamps",)),
          ("rcv_reorder_acks", ("rcv_reorder_acks",)),
          ("fast_retransmits", ("fast_retransmits",)),
          ("timeouts", ("timeouts",)),
          ("spurious_retransmits", ("spurious_retransmits",)))


def series_variants(variants: Iterable[str]) -> list[str]:
    """The senders of ``variants`` the series runs: the RD-TCP ones under every deployment,
    SACK and RACK-TLP as references."""
    return [v for v in variants if v in RDTCP_VARIANTS or v in LEGACY_REFERENCES]


def drop_site(row: dict) -> str:
    """Where the series' run loses segments: at R2 when R2 drops them, else at R1's queue."""
    return "r2" if row.get("r2_drop", 0.0) else "r1"


def _in_series(row: dict, swaps: tuple[int, ...], swap_span: int) -> bool:
    return ("error" not in row and row["injection"] == "swap" and row["swaps"] in swaps
            and (not row["swaps"] or (row["interval"] == LEGACY_INTERVAL
                                      and row.get("swap_span", 0) == swap_span))
            and row.get("scenario", "rdtcp") == "rdtcp"
            and (row["variant"] in LEGACY_REFERENCES
                 or (row["variant"] in RDTCP_VARIANTS and row.get("k", RDTCP_K) == RDTCP_K)))


def legacy_points(rows: Iterable[dict], *, swaps: tuple[int, ...],
                  swap_span: int = 0) -> dict[tuple, dict]:
    """The series' points keyed (variant, legacy, drop site, r2_drop, swaps), from the rows of
    its runs (those of the sweep's figures with both gateways upgraded and no drop at R2 count
    too: they are the same runs)."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if _in_series(r, swaps, swap_span):
            key = (r["variant"], r.get("legacy", "none"), drop_site(r), r.get("r2_drop", 0.0),
                   r["swaps"])
            groups.setdefault(key, []).append(r)
    points = {key: _point(runs) for key, runs in groups.items()}
    for (variant, legacy, site, r2_drop, n_swaps), p in points.items():
        base = points.get((variant, "none", site, r2_drop, n_swaps))
        p["vs_upgraded"] = p["mean"] / base["mean"] if base and base["mean"] else None
        p["paired_std"] = _paired_std(p, base) if legacy != "none" else None
    return dict(sorted(points.items(), key=lambda kv: _order(kv[0])))


def _order(key: tuple) -> tuple:
    variant, legacy, site, r2_drop, swaps = key
    senders = LEGACY_REFERENCES + RDTCP_VARIANTS
    rank = senders.index(variant) if variant in senders else len(senders)
    return (site, r2_drop, swaps, rank, LEGACY_SETTINGS.index(legacy))


def _paired_std(point: dict, base: dict | None) -> float | None:
    """The sample sd over seeds of a run's throughput less that of the same seed's run with
    both gateways upgraded: the runs of a seed share its swaps and drops, so what varies from
    seed to seed alike in both cancels, and what is left is the deployment's own effect. None
    with fewer than two seeds in common."""
    if base is None:
        return None
    diffs = [t - base["by_seed"][seed] for seed, t in point["by_seed"].items()
             if seed in base["by_seed"]]
    return statistics.stdev(diffs) if len(diffs) > 1 else None


def _point(runs: list[dict]) -> dict:
    tputs = [float(r["throughput_Bps"]) for r in runs]
    point = {"mean": statistics.fmean(tputs),
             "std": statistics.stdev(tputs) if len(tputs) > 1 else None, "n": len(tputs),
             "by_seed": {r.get("seed"): float(r["throughput_Bps"]) for r in runs}}
    for column, fields in COUNTS:
        # rows of an older journal may lack the endpoints' columns: no mean rather than 0
        have = [r for r in runs if all(f in r for f in fields)]
        point[column] = (statistics.fmean(sum(int(r[f]) for f in fields) for r in have)
                         if len(have) == len(runs) else None)
    return point


def legacy_rows(points: dict[tuple, dict]) -> list[dict]:
    """legacy.csv's rows (and summary.json's ``legacy.points``): one per point, counts as means
    per run."""
    out = []
    for (variant, legacy, site, r2_drop, swaps), p in points.items():
        row = {"variant": variant, "legacy": legacy, "drop_site": site, "r2_drop": r2_drop,
               "swaps_per_s": swaps, "n": p["n"], "throughput_mean_Bps": round(p["mean"], 3),
               "throughput_std_Bps": None if p["std"] is None else round(p["std"], 3),
               "vs_upgraded": None if p["vs_upgraded"] is None else round(p["vs_upgraded"], 4)}
        row.update({column: None if p[column] is None else round(p[column], 1)
                    for column, _ in COUNTS})
        out.append(row)
    return out


def _where(legacy: str) -> str:
    return {"none": "none (both RD-TCP)", "r1": "R1", "r2": "R2", "both": "R1 and R2"}[legacy]


def _count(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}".rstrip("0").rstrip(".")


def legacy_markdown(rows: list[dict], *, duration: float | None = None) -> str:
    """The series as a Markdown table: which router dropped (drops per run at each) and what
    reached B (stamps, reorder-bit ACKs) beside each sender's throughput."""
    per = f" per {duration:g} s run" if duration else " per run"
    lines = ["Incremental deployment ([RDTCP] §7): throughput when the router that drops is a "
             "legacy router; drops, stamps and ACKs are means" + per + ".", "",
             "| sender | legacy routers | loss at | swaps/s | throughput (B/s) | vs both "
             "upgraded | drops R1 / R2 | stamps at B | reorder-bit ACKs | fast rtx / RTOs |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        sd = f" ± {r['throughput_std_Bps']:,.0f}" if r["throughput_std_Bps"] is not None else ""
        rel = "-" if r["vs_upgraded"] is None else f"{r['vs_upgraded']:.3f}"
        site = ("R1 (queue)" if r["drop_site"] == "r1"
                else f"R2 (p = {r['r2_drop']:g})")
        lines.append(
            f"| {r['variant']} | {_where(r['legacy'])} | {site} | {r['swaps_per_s']} | "
            f"{r['throughput_mean_Bps']:,.0f}{sd} (n={r['n']}) | {rel} | "
            f"{_count(r['r1_drops'])} / {_count(r['r2_drops'])} | "
            f"{_count(r['rcv_epdn_stamps'])} | {_count(r['rcv_reorder_acks'])} | "
            f"{_count(r['fast_retransmits'])} / {_count(r['timeouts'])} |")
    return "\n".join(lines)


def plot_legacy(points: dict[tuple, dict], path: Path, *,
                duration: float | None = None) -> bool:
    """Fig. 10: one panel per (swaps, drop site); in each, every RD-TCP sender's throughput
    (mean over seeds) against the deployment, SACK and RACK-TLP as horizontal lines, the
    deployments where the dropping router is a legacy one marked, and the drops per run at each
    router in the panel's title. A legacy deployment's bar is the sd over seeds of its
    difference from the same seed's run with both gateways upgraded (``_paired_std``): the
    question is the deployment's effect, which the seeds' spread of throughput (shared by both
    runs of a seed) would swamp. The axis is scaled to the points, not from zero: the
    differences are a few per cent. False when there is nothing to draw."""
    from experiments.runner.plots import save_figure, sender_style
    from experiments.studies.rdtcp.plots import LABELS
    import matplotlib.pyplot as plt

    panels = sorted({(key[4], key[2], key[3]) for key in points})
    if not panels:
        return False
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.2 * len(panels)), squeeze=False)
    for ax, (swaps, site, r2_drop) in zip(axes[:, 0], panels):
        here = {k: p for k, p in points.items() if (k[4], k[2], k[3]) == (swaps, site, r2_drop)}
        _legacy_panel(ax, here, site, LABELS, sender_style)
        _panel_title(ax, here, swaps, site, r2_drop)
        ax.set_ylabel("B/s delivered in order")
    title = "Fig. 10 (not in the paper): incremental deployment ([RDTCP] §7), legacy routers"
    if duration:
        title += f", {duration:g} s transfers"
    title += ("\nmeans over seeds; bars: sd over seeds of the difference from the same seed's "
              "run with both gateways upgraded")
    fig.suptitle(title, fontsize=10)
    handles, labels = [], []
    for ax in axes[:, 0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.tight_layout()
    fig.legend(handles, labels, loc="upper center", ncol=2, fontsize=7,
               bbox_to_anchor=(0.5, 0.0))
    save_figure(fig, path)
    return True


def _legacy_panel(ax, points: dict, site: str, labels: dict, style) -> None:
    rdtcp = [v for v in RDTCP_VARIANTS if any(k[0] == v for k in points)]
    settings = [s for s in LEGACY_SETTINGS if any(k[1] == s and k[0] in rdtcp for k in points)]
    shift = 0.06
    for i, variant in enumerate(rdtcp):
        xs, ys, errs = [], [], []
        for j, setting in enumerate(settings):
            p = next((p for k, p in points.items() if k[:2] == (variant, setting)), None)
            if p is not None:
                xs.append(j + shift * (i - (len(rdtcp) - 1) / 2))   # side by side, not hidden
                ys.append(p["mean"])
                errs.append(p["paired_std"] or 0.0)
        colour, marker = style(variant)
        ax.errorbar(xs, ys, yerr=errs, color=colour, marker=marker, ms=6, lw=1, capsize=2,
                    label=labels.get(variant, variant))
    for variant in LEGACY_REFERENCES:
        p = next((p for k, p in points.items() if k[:2] == (variant, "none")), None)
        if p is not None:
            colour, _ = style(variant)
            ax.axhline(p["mean"], color=colour, lw=1.2, ls="--",
                       label=f"{labels.get(variant, variant)} (reads no EPDN; both upgraded)")
    ax.set_xticks(range(len(settings)))
    ax.set_xticklabels([f"legacy: {_where(s)}"
                        + ("\n(drops there unstamped)" if site in legacy_routers(s) else "")
                        for s in settings], fontsize=8)
    ax.set_xlim(-0.5, len(settings) - 0.5)
    # at least 3 % of the throughput in view: a difference of a few hundred B/s between runs
    # that share every drop must not fill the panel
    means = [p["mean"] for p in points.values()]
    low, high = ax.get_ylim()
    ax.set_ylim(min(low, 0.98 * min(means)), max(high, 1.01 * max(means)))
    ax.grid(alpha=0.3)


def _panel_title(ax, points: dict, swaps: int, site: str, r2_drop: float) -> None:
    where = ("loss at R1 (its bottleneck queue)" if site == "r1"
             else f"loss at R2 (injected, p = {r2_drop:g} per data segment)")
    upgraded = [p for k, p in points.items() if k[1] == "none" and k[0] in RDTCP_VARIANTS]
    drops = ""
    if upgraded and all(p["r1_drops"] is not None for p in upgraded):
        r1 = statistics.fmean(p["r1_drops"] for p in upgraded)
        r2 = statistics.fmean(p["r2_drops"] for p in upgraded)
        drops = f"; drops per run R1 {r1:,.0f}, R2 {r2:,.0f} (RD-TCP, both upgraded)"
    ax.set_title(f"{swaps} swaps/s, {where}{drops}", fontsize=9)
