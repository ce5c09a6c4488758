"""[TCPDEBUG] §5.5's cluster study on the simulated connections: the lossy scored connections
clustered by their characteristics (§5.5.1), then each estimator's change in duration per
cluster (Figs. 5.18-5.29), as the thesis does it (§5.5.2):

- the six characteristics: the loss rate, the RTT variability (90th percentile of the RTT over
  the minimum), the average loss distance (RTTs between loss episodes), the correlation between
  flight and RTT (self-induced congestion), the throughput (the RTT sampling rate) and the
  median flight size (``analyzer.study.evaluate`` and ``cluster_features``);
- each taken as its logarithm and scaled to [0, 1] by its minimum and maximum, except the
  correlation, which can be negative and is scaled as it is (the thesis takes the log of every
  characteristic and does not say how of a negative one);
- principal component analysis: the components that carry 95 % of the variance;
- k-means with K = 5 (the thesis' "most insightful setting"), k-means++ starts from a fixed
  seed, the best of ``RESTARTS`` by the sum of squared distances.

The clusters are numbered by their median throughput, lowest first; which of ours plays [TCPDEBUG]'s
Cluster 2 ("very high throughput, high loss rate, large flight size", the one that benefits
most) is read from the characteristics: the cluster with the largest median flight. Table 5.4
describes each cluster by where its medians rank among the clusters' (very low ... very high).
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

from experiments.runner.plots import save_figure
from experiments.runner.report import write_csv
from experiments.studies.dbce.figures import (best_case_axes, curve_styles, log_bins,
                                              plain_number)

__all__ = ["FEATURES", "K", "cluster", "cluster_rows", "table_5_4_markdown",
           "cluster_figures", "MIN_CONNECTIONS"]

K = 5
RESTARTS = 20
SEED = 1
VARIANCE_KEPT = 0.95
MIN_CONNECTIONS = 10 * K        # fewer: too few to cluster into K groups worth comparing
# name, label, its value of a connection, on a log scale
FEATURES = (
    ("loss_rate", "loss rate (lost / data segments)", lambda c: c["loss_rate"], True),
    ("rtt_variability", "RTT variability (90th percentile / minimum RTT)",
     lambda c: c["rtt_p90"] / c["min_rtt"] if c["rtt_p90"] and c["min_rtt"] else None, True),
    ("flight", "median flight size (segments)", lambda c: c["median_flight"], True),
    ("throughput", "throughput (kB/s)",
     lambda c: c["throughput"] / 1000 if c["throughput"] else None, True),
    ("correlation", "correlation between flight size and RTT",
     lambda c: c.get("flight_rtt_corr"), False),
    ("loss_distance", "loss distance (RTTs between loss episodes)",
     lambda c: c.get("loss_distance"), True),
)
FIGURE_OF = {"loss_rate": "5.12", "rtt_variability": "5.13", "flight": "5.14",
             "throughput": "5.15", "correlation": "5.16", "loss_distance": "5.17"}
# Figs. 5.18-5.29: the three estimators the thesis plots per cluster
PER_CLUSTER = (("Vegas", "5.18-5.21"), ("CIM", "5.22-5.25"), ("Tri-S", "5.26-5.29"))
RANK_WORDS = ("very low", "low", "", "high", "very high")
ZERO = 0.5              # RTTs: a change "zero" (statements.ABOUT_ZERO)


def _values(c: dict):
    out = []
    for _, _, get, logged in FEATURES:
        v = get(c)
        if v is None or (logged and v <= 0):
            return None
        out.append(v)
    return out


def _kmeans(x: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """Lloyd's k-means from a k-means++ start: (labels, sum of squared distances)."""
    centres = [x[rng.integers(len(x))]]
    for _ in range(1, k):
        d = np.min([((x - c) ** 2).sum(axis=1) for c in centres], axis=0)
        total = d.sum()
        centres.append(x[rng.choice(len(x), p=d / total)] if total > 0
                       else x[rng.integers(len(x))])
    centres = np.array(centres)
    labels = np.zeros(len(x), dtype=int)
    for _ in range(300):
        dist = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new = dist.argmin(axis=1)
        if _ and (new == labels).all():
            break
        labels = new
        for j in range(k):
            if (labels == j).any():
                centres[j] = x[labels == j].mean(axis=0)
    inertia = float(((x - centres[labels]) ** 2).sum())
    return labels, inertia


def cluster(conns: list) -> tuple[list, list, str]:
    """(the clustered connections, their cluster numbers 1..K, why not when it cannot):
    the lossy connections of ``conns`` with every characteristic."""
    # in a fixed order (the k-means++ start depends on it), whatever order the runs came in
    usable = sorted((c for c in conns if c["episodes"] and _values(c) is not None),
                    key=lambda c: tuple(str(c.get(k)) for k in ("network", "reordering",
                                                                 "variant", "seed"))
                    + (c["connection"],))
    if len(usable) < MIN_CONNECTIONS:
        return [], [], (f"{len(usable)} lossy connections with every characteristic (fewer "
                        f"than {MIN_CONNECTIONS}: too few for {K} clusters)")
    raw = np.array([_values(c) for c in usable], dtype=float)
    for j, (_, _, _, logged) in enumerate(FEATURES):
        col = np.log(raw[:, j]) if logged else raw[:, j]
        span = col.max() - col.min()
        raw[:, j] = (col - col.min()) / span if span > 0 else 0.0
    centred = raw - raw.mean(axis=0)
    _, sing, vt = np.linalg.svd(centred, full_matrices=False)
    share = np.cumsum(sing ** 2) / max((sing ** 2).sum(), 1e-300)
    keep = int(np.searchsorted(share, VARIANCE_KEPT) + 1)
    x = centred @ vt[:keep].T
    rng = np.random.default_rng(SEED)
    labels, best = None, math.inf
    for _ in range(RESTARTS):
        got, inertia = _kmeans(x, K, rng)
        if inertia < best - 1e-12:
            labels, best = got, inertia
    # numbered by median throughput, lowest first
    order = sorted(set(labels.tolist()), key=lambda j: statistics.median(
        c["throughput"] for c, lab in zip(usable, labels) if lab == j))
    number = {j: i + 1 for i, j in enumerate(order)}
    return usable, [number[lab] for lab in labels.tolist()], ""


def _share(flags: list):
    return sum(flags) / len(flags) if flags else None


def cluster_rows(usable: list, numbers: list, estimators: list) -> list[dict]:
    """Table 5.4 and Figs. 5.18-5.29's numbers: per cluster its connections, the median of
    each characteristic, the words of Table 5.4, the best case's median and, per estimator,
    the median additive change, the shares shortened, lengthened, within ``ZERO`` RTTs of no
    change and shortened by more than 10 RTTs."""
    rows = []
    for n in sorted(set(numbers)):
        part = [c for c, m in zip(usable, numbers) if m == n]
        row = {"cluster": n, "connections": len(part)}
        for name, _, get, _ in FEATURES:
            row[name] = statistics.median(get(c) for c in part)
        row["best_median"] = statistics.median(c["best"][0] for c in part)
        for est in estimators:
            adds = [c["dbce"][est]["all"][2] for c in part]
            row[f"{est} median"] = statistics.median(adds)
            row[f"{est} shorter"] = _share([a > 0 for a in adds])
            row[f"{est} longer"] = _share([a < 0 for a in adds])
            row[f"{est} zero"] = _share([abs(a) <= ZERO for a in adds])
            row[f"{est} over 10"] = _share([a > 10 for a in adds])
        rows.append(row)
    for name in ("throughput", "loss_rate", "flight", "loss_distance", "rtt_variability"):
        ranked = sorted(rows, key=lambda r: r[name])
        for i, r in enumerate(ranked):
            word = RANK_WORDS[min(len(RANK_WORDS) - 1, round(i * (len(RANK_WORDS) - 1)
                                                             / max(1, len(ranked) - 1)))]
            if word:
                label = {"loss_rate": "loss rate", "flight": "flight size",
                         "loss_distance": "loss distance",
                         "rtt_variability": "RTT variability"}.get(name, name)
                r.setdefault("summary", []).append(f"{word} {label}")
    for r in rows:
        r["summary"] = ", ".join(r.get("summary", []))
    return rows


def _g(v) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def table_5_4_markdown(rows: list) -> str:
    """Table 5.4 in the thesis' form (clusters, connections, key characteristics), with each
    characteristic's median and the three estimators' median change beside."""
    lines = ["**Table 5.4 ([TCPDEBUG] §5.5.2): key characteristics of the connection "
             "clusters** (k-means, K = 5, on the log-scaled characteristics' principal "
             "components; lossy scored connections; medians; the summary ranks each median "
             "among the clusters'). [TCPDEBUG]: Cluster 2, very high throughput, high loss rate, large "
             "flight size, benefits most.", "",
             "| cluster | connections | summary of key characteristics | loss rate | RTT p90 / "
             "min | median flight | throughput (kB/s) | flight-RTT correlation | loss distance "
             "(RTTs) | best case (RTTs) | Vegas / CIM / Tri-S median change (RTTs) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {r['cluster']} | {r['connections']:,} | {r['summary']} | {r['loss_rate']:.3f} "
            f"| {r['rtt_variability']:.2f} | {r['flight']:.1f} | {_g(r['throughput'])} | "
            f"{r['correlation']:.2f} | {_g(r['loss_distance'])} | {_g(r['best_median'])} | "
            + " / ".join(_g(r[f"{e} median"]) for e, _ in PER_CLUSTER) + " |")
    return "\n".join(lines)


def _characteristics_figure(usable, numbers, out: Path) -> None:
    names = [f"cluster {n}" for n in sorted(set(numbers))]
    styles = curve_styles(names)
    fig, axes = plt.subplots(2, 3, figsize=(14, 8))
    for ax, (name, label, get, logged) in zip(axes.flat, FEATURES):
        for n, cname in zip(sorted(set(numbers)), names):
            values = sorted(get(c) for c, m in zip(usable, numbers) if m == n)
            k = len(values)
            ax.step(values, [(i + 1) / k for i in range(k)], where="post",
                    label=f"{cname} ({k:,})", **styles[cname])
        if logged:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(plain_number))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(label, fontsize=8)
        ax.set_ylabel("fraction of the cluster's connections", fontsize=8)
        ax.set_title(f"Fig. {FIGURE_OF[name]}: {label.split(' (')[0]}", fontsize=9)
        ax.grid(alpha=0.3)
    axes.flat[0].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"[TCPDEBUG] Figs. 5.12-5.17: the characteristics across the {K} clusters "
                 f"({len(usable):,} lossy connections)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, out / "fig5_12_17_clusters.png")


def _per_cluster_figure(usable, numbers, est: str, figs: str, out: Path) -> tuple[str, list]:
    clusters = sorted(set(numbers))
    fig, axes = plt.subplots(1, len(clusters), figsize=(3.6 * len(clusters), 4), sharey=True)
    rows = []
    for ax, n in zip(np.atleast_1d(axes), clusters):
        part = [c for c, m in zip(usable, numbers) if m == n]
        best = [c["best"][0] for c in part]
        edges = log_bins(best)
        xs, med, lo, hi = [], [], [], []
        for a, b in zip(edges, edges[1:]):
            ys = sorted(c["dbce"][est]["all"][2] for c, x in zip(part, best) if a <= x < b)
            if not ys:
                continue
            xs.append(math.sqrt(a * b))
            med.append(statistics.median(ys))
            lo.append(ys[len(ys) // 4])
            hi.append(ys[(3 * len(ys)) // 4])
            rows.append({"estimator": est, "cluster": n, "bin_lo": a, "bin_hi": b,
                         "connections": len(ys), "median": med[-1], "q1": lo[-1],
                         "q3": hi[-1]})
        if xs:
            ax.errorbar(xs, med, yerr=[[m - q for m, q in zip(med, lo)],
                                       [q - m for m, q in zip(med, hi)]],
                        marker="o", ms=4, capsize=3, lw=1.1, color="C0",
                        label="median (bar: quartiles)")
        ax.plot(edges, edges, ls="--", color="0.4", lw=1, label="best case (y = x)")
        best_case_axes(ax, 1)
        ax.set_title(f"cluster {n} ({len(part):,})", fontsize=9)
        ax.set_xlabel("best-case saving (RTTs)", fontsize=8)
        ax.grid(alpha=0.3)
    first = np.atleast_1d(axes)[0]
    first.set_ylabel("modelled saving, additive (RTTs;\nlinear within ±1)")
    first.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"[TCPDEBUG] Figs. {figs}: {est}, impact on connection duration (additive "
                 f"decrease) per cluster", fontsize=10)
    fig.tight_layout()
    name = f"fig{figs.split('-')[0].replace('.', '_')}_{est.lower().replace('-', '')}" \
           f"_clusters.png"
    save_figure(fig, out / name)
    return name, rows


def cluster_figures(usable: list, numbers: list, out: Path) -> list[str]:
    """Figs. 5.12-5.17 (one figure, a panel each) and 5.18-5.29 (one figure per estimator, a
    panel per cluster), with fig5_clusters.csv (each connection's cluster and
    characteristics) and fig5_18_29_clusters.csv (the bins drawn)."""
    if not usable:
        return []
    _characteristics_figure(usable, numbers, out)
    write_csv(out / "fig5_clusters.csv",
              [{"network": c.get("network"), "seed": c.get("seed"),
                "connection": c["connection"], "cluster": n,
                **{name: get(c) for name, _, get, _ in FEATURES}}
               for c, n in zip(usable, numbers)])
    written, rows = ["fig5_12_17_clusters.png"], []
    for est, figs in PER_CLUSTER:
        name, got = _per_cluster_figure(usable, numbers, est, figs, out)
        written.append(name)
        rows += got
    write_csv(out / "fig5_18_29_clusters.csv", rows)
    return written
