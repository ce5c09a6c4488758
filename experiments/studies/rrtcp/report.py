"""RR-TCP's evaluation read off the runs: each point's metrics (mean and sample sd over its
seeds), the figures' curves as numbers, and [RRTCP]'s two tables with its numbers beside ours.

The metrics, per run, then averaged over a point's seeds ([RRTCP] §5's measures, as defined here
where [RRTCP] leaves them open):

* ``throughput``: data bytes delivered in order per second; ``relative``: over the point's
  SACK-NODELAY (SACK on the same path, same drops, nothing delayed), [RRTCP] §5.1.1's ideal.
* ``ffr_ratio`` (Fig. 5): false fast retransmits per delayed packet, the share of reorderings
  the sender failed to tolerate; only from runs that lost nothing (then every fast retransmit
  is false).
* ``timeout_fraction`` (Figs. 8a, 11, 12: "fraction of packets that encounter timeout"):
  retransmission timeouts per data segment sent; ``fr_fraction`` (Figs. 8b, 18): fast
  retransmits per segment sent; ``fr_ratio_pct`` (Table 4's "FR ratio %"): fast retransmits
  per packet delivered, in per cent.
* ``rto_mean_s`` (Table 3): the RTO in force, averaged over the run; ``rto_at_timeouts_s``: the
  RTO of each timeout, averaged.
* ``fa_ratio_mean``, ``dupthresh_mean`` (Figs. 5, 9): the sender's FA ratio and dupthresh,
  averaged over the run.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Sequence

from experiments.runner.spec import RunSpec
from experiments.studies.rrtcp.evaluation import PAPER_NAMES, Panel, TableSpec, ideal_key, point_key

__all__ = ["points_of", "run_metrics", "curve_values", "point_value", "table_markdown",
           "TABLE3_PAPER", "TABLE4_PAPER", "METRICS", "point_rows"]

METRICS = ("throughput", "ffr_ratio", "timeout_fraction", "fr_fraction", "fr_ratio_pct",
           "delivered_packets", "rto_mean_s", "rto_at_timeouts_s", "fa_ratio_mean",
           "fa_ratio_end", "dupthresh_mean", "timeouts", "fast_retransmits", "dsack_undos",
           "delayed")
# [RRTCP] Table 3: mean RTO (s); Table 4: (total packets, FR ratio %) without and with drops
TABLE3_PAPER = {"sack": 1.0, "dsack": 1.0, "rrtcp-fa": 3.1, "rrtcp": 1.6, "rrtcp-taes": 3.1,
                "rrtcp-hg": 2.3}
TABLE4_PAPER = {("dsack-inc", False): (97184, 0.13), ("dsack-inc", True): (60708, 0.48),
                ("rrtcp", False): (103770, 0.03), ("rrtcp", True): (81916, 0.19)}


def _lost(row: dict) -> int:
    """Packets the network lost in a run: the gateways' drops and the drop bursts'."""
    return sum(int(v) for k, v in row.items() if "_drops_" in k) + int(row.get("burst_lost", 0))


def _delayed(row: dict) -> int:
    """Data packets reordered: by the delay element, or over the gateway's alternate path."""
    return int(row.get("delayed_segments", 0)) + int(row.get("r1_reorders_alternate_port", 0))


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def run_metrics(row: dict) -> dict[str, float | None]:
    """One run's metrics (see the module docstring)."""
    sent = int(row.get("segments_sent", 0))
    fr = int(row["fast_retransmits"])
    delayed = _delayed(row)
    delivered = int(row.get("delivered_packets", 0))
    return {
        "throughput": float(row["throughput_Bps"]),
        "ffr_ratio": None if _lost(row) else _ratio(fr, delayed),
        "timeout_fraction": _ratio(int(row["timeouts"]), sent),
        "fr_fraction": _ratio(fr, sent),
        "fr_ratio_pct": None if not delivered else 100.0 * fr / delivered,
        "delivered_packets": float(delivered),
        "rto_mean_s": row.get("rto_mean_s"),
        "rto_at_timeouts_s": row.get("rto_at_timeouts_mean_s"),
        "fa_ratio_mean": row.get("fa_ratio_mean"),
        "fa_ratio_end": row.get("fa_ratio_end"),
        "dupthresh_mean": row.get("dupthresh_mean"),
        "timeouts": float(row["timeouts"]),
        "fast_retransmits": float(fr),
        "dsack_undos": float(row.get("dsack_undos", 0)),
        "delayed": float(delayed),
    }


def points_of(rows: Iterable[dict]) -> dict[RunSpec, dict]:
    """Per point key: ``n`` runs, each metric's mean over the runs that have it and its sample
    sd (``<metric>_std``, None from one run), and ``relative`` throughput; ``by_seed``: each
    run's throughput by its seed (the statements' paired tests: the runs of one seed share the
    impairments' random draws)."""
    groups: dict[RunSpec, list[dict]] = {}
    seeds: dict[RunSpec, dict[int, float]] = {}
    for row in rows:
        if "error" not in row:
            key = point_key(row)
            groups.setdefault(key, []).append(run_metrics(row))
            seeds.setdefault(key, {})[int(row["seed"])] = float(row["throughput_Bps"])
    points = {}
    for key, runs in groups.items():
        point: dict[str, Any] = {"n": len(runs), "by_seed": seeds[key]}
        for m in METRICS:
            values = [r[m] for r in runs if r[m] is not None]
            point[m] = statistics.fmean(values) if values else None
            point[m + "_std"] = statistics.stdev(values) if len(values) > 1 else None
        points[key] = point
    for key, point in points.items():
        ideal = points.get(ideal_key(key))
        point["relative"] = point["throughput"] / ideal["throughput"] \
            if ideal and ideal["throughput"] else None
        point["relative_std"] = point["throughput_std"] / ideal["throughput"] \
            if ideal and ideal["throughput"] and point["throughput_std"] is not None else None
    return points


def point_value(points: dict, key: RunSpec, metric: str) -> Any:
    p = points.get(key)
    return None if p is None else p.get(metric)


def curve_values(points: dict, panels: Sequence[Panel], number: str, variant: str,
                 metric: str | None = None, *, style: str = "", label: str | None = None
                 ) -> dict[float, float]:
    """The values of a figure's curve by x (the points that ran): ``metric`` of the panel's
    own unless given; the curve by sender (and ``style``, or its ``label``)."""
    for panel in panels:
        if panel.number != number:
            continue
        for curve in panel.curves:
            if curve.variant != variant or curve.style != style or \
                    (label is not None and curve.label != label):
                continue
            out = {}
            for x, key in curve.points:
                v = point_value(points, key, metric or panel.metric)
                if v is not None:
                    out[x] = v
            return out
    return {}


def point_rows(points: dict) -> list[dict]:
    """points.csv: one row per point, its key's fields that vary and every metric."""
    out = []
    for key, p in points.items():
        out.append({"variant": key.variant, "injection": key.injection, "level": key.level,
                    "delay": key.delay, "alt_extra_delay": key.alt_extra_delay
                    if key.injection == "altpath" else "", "ack_level": key.ack_level,
                    "drop": key.drop, "bursts": key.bursts, "path_delay": key.path_delay,
                    "fa_ratio": key.fa_ratio, "duration": key.duration,
                    **{k: v for k, v in p.items() if k != "by_seed"}})
    return out


# ------------------------------------------------------------------------------- tables
def _fmt(v: float | None, digits: int = 3) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def table_markdown(table: TableSpec, points: dict) -> str:
    """Table 3 or 4 with [RRTCP]'s numbers beside ours."""
    if table.number == "3":
        return _table3(table, points)
    return _table4(table, points)


def _table3(table: TableSpec, points: dict) -> str:
    lines = [f"[RRTCP] Table 3: {table.title}. Ours: the RTO in force averaged over each run "
             f"(and the RTO of each timeout, averaged), mean over seeds.", "",
             "| sender | [RRTCP] (s) | ours (s) | ours at timeouts (s) | timeouts per run |",
             "|---|---:|---:|---:|---:|"]
    for label, key in table.rows:
        p = points.get(key) or {}
        lines.append(f"| {label} (`{key.variant}`) | {TABLE3_PAPER.get(key.variant, '-')} | "
                     f"{_fmt(p.get('rto_mean_s'), 2)} | {_fmt(p.get('rto_at_timeouts_s'), 2)} | "
                     f"{_fmt(p.get('timeouts'), 1)} |")
    return "\n".join(lines)


def _table4(table: TableSpec, points: dict) -> str:
    duration = table.rows[0][1].duration if table.rows else 1000.0
    scale = 1000.0 / duration
    lines = [f"[RRTCP] Table 4: {table.title} (P = 200 ms, 2% delayed by N(100, 33) ms; drops: "
             f"events started by 0.02% of packets, each dropping everything for U[300, 400] "
             f"ms). Total packets: delivered, ours scaled to [RRTCP]'s 1000 s"
             + (f" from {duration:g} s runs" if duration != 1000.0 else "") + ".", "",
             "| sender | [RRTCP] total packets | ours | [RRTCP] FR ratio % | ours | timeouts per run |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, key in table.rows:
        p = points.get(key) or {}
        paper = TABLE4_PAPER.get((key.variant, bool(key.bursts)), (None, None))
        packets = p.get("delivered_packets")
        lines.append(f"| {label} (`{key.variant}`) | {paper[0] if paper[0] else '-'} | "
                     f"{'-' if packets is None else f'{packets * scale:,.0f}'} | "
                     f"{paper[1] if paper[1] is not None else '-'} | "
                     f"{_fmt(p.get('fr_ratio_pct'), 2)} | {_fmt(p.get('timeouts'), 1)} |")
    return "\n".join(lines)


def sender_name(variant: str) -> str:
    return PAPER_NAMES.get(variant, variant)
