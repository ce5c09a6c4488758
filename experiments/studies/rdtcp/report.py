"""Aggregate a sweep's runs into points, figures, the paper comparison table and a summary."""

from __future__ import annotations

import statistics
from typing import Any, Iterable

from experiments.runner.spec import RDTCP_VARIANTS
from experiments.runner.verdicts import relative
from experiments.studies.rdtcp.scenario import (BOTTLENECK_BPS, PAPER, PAPER_VARIANTS, RDTCP_K,
                                                VARIANTS)
from hosts.tcp.variants import get_variant

__all__ = ["aggregate", "aggregate_all", "deployment_run", "figure_points", "k_study",
           "shape_checks", "paper_table", "paper_sender", "table_markdown", "point_rows",
           "STATISTICS_NOTE"]

# aggregate_all(): (variant, injection, interval or None, swaps, level, k, swap span)
# aggregate(), figure_points(): the first five, for the figures' k and span
PointKey = tuple


def aggregate(rows: Iterable[dict], *, swap_span: int = 0, k: int = RDTCP_K) -> dict:
    """The figures' points (keyed (variant, injection, interval, swaps, level)): RD-TCP at
    ``k``, swaps drawn with ``swap_span``."""
    return figure_points(aggregate_all(rows), swap_span=swap_span, k=k)


def aggregate_all(rows: Iterable[dict]) -> dict[PointKey, dict]:
    """Per point: mean, sample standard deviation and count of throughput, and the swaps the
    runs realised; errored runs left out. Zero swaps is keyed with interval None and span 0: it
    is the same network whatever the interval or span. k only matters to the RD-TCP senders (the
    k-adapting ones start from it); the others' points carry the default. Points may have different counts (a deterministic point may run
    one seed only)."""
    groups: dict[PointKey, list[dict]] = {}
    for r in rows:
        if "error" in r or deployment_run(r):
            continue
        swapping = r["injection"] == "swap" and r["swaps"]
        interval = r["interval"] if swapping else None
        span = r.get("swap_span", 0) if swapping else 0
        k = r.get("k", RDTCP_K) if r["variant"] in RDTCP_VARIANTS else RDTCP_K
        key = (r["variant"], r["injection"], interval, r["swaps"], r["level"], k, span)
        groups.setdefault(key, []).append(r)
    return {k: _point(v) for k, v in sorted(groups.items(), key=lambda kv: str(kv[0]))}


def deployment_run(row: dict) -> bool:
    """A run of the incremental-deployment series ([RDTCP] §7: a legacy router, or drops at R2),
    reported apart (experiments.studies.rdtcp.legacy), never in the figures' points."""
    return row.get("legacy", "none") != "none" or bool(row.get("r2_drop", 0.0))


def _point(rows: list[dict]) -> dict:
    """One point from its runs. ``std`` is the sample standard deviation (n - 1: the seeds are a
    sample of the random swaps), None for a single run: no spread was measured, which 0.0 would
    claim. ``swaps_done``/``swaps_asked``: mean per run of the swaps made and of those asked (made
    + skipped because fewer than two packets waited), None when the rows do not say."""
    tputs = [float(r["throughput_Bps"]) for r in rows]
    point = {"mean": statistics.fmean(tputs),
             "std": statistics.stdev(tputs) if len(tputs) > 1 else None, "n": len(tputs),
             "swaps_done": None, "swaps_asked": None}
    if all("swaps_done" in r and "swaps_skipped" in r for r in rows):
        point["swaps_done"] = statistics.fmean(int(r["swaps_done"]) for r in rows)
        point["swaps_asked"] = statistics.fmean(int(r["swaps_done"]) + int(r["swaps_skipped"])
                                                for r in rows)
    return point


def figure_points(points: dict, *, swap_span: int = 0, k: int = RDTCP_K) -> dict:
    """The points of Figures 1-5: RD-TCP at the figures' k, swaps drawn with ``swap_span``;
    keyed (variant, injection, interval, swaps, level)."""
    return {key[:5]: p for key, p in points.items()
            if key[5] == k and (key[6] == swap_span or not key[3] or key[1] != "swap")}


def k_study(points: dict, *, swaps: int, interval: float) -> dict[int, list[dict]]:
    """RD-TCP at ``swaps`` per ``interval`` against k, per swap span: {span: [{k, mean, std,
    n, vs_no_reordering}]}, relative to RD-TCP without reordering (where k plays no part)."""
    base = points.get(("rdtcp", "swap", None, 0, 0.0, RDTCP_K, 0))
    out: dict[int, list[dict]] = {}
    for key, p in sorted(points.items(), key=lambda kv: (kv[0][6], kv[0][5])):
        variant, injection, ivl, n_swaps, _level, k, span = key
        if variant == "rdtcp" and injection == "swap" and ivl == interval and n_swaps == swaps:
            out.setdefault(span, []).append(
                {"k": k, "mean": p["mean"], "std": p["std"], "n": p["n"],
                 "vs_no_reordering": round(p["mean"] / base["mean"], 4) if base else None})
    return out


def baseline(points: dict, variant: str) -> dict | None:
    return points.get((variant, "swap", None, 0, 0.0))


def swap_curve(points: dict, variant: str, interval: float) -> list[tuple[int, dict]]:
    """(swaps, point) in increasing swaps for one variant and interval, zero swaps included."""
    curve = [(k[3], p) for k, p in points.items()
             if k[0] == variant and k[1] == "swap" and k[2] == interval]
    base = baseline(points, variant)
    if base is not None:
        curve.append((0, base))
    return sorted(curve, key=lambda sp: sp[0])


def shape_checks(points: dict) -> dict[str, Any]:
    """Whether the curves have the shape the paper reports (§5-6, Figs. 1-3): SACK falls as
    swaps rise (every level at most 0.5% above the previous one, the tolerance for the seeds'
    noise, and the last below zero swaps); RD-TCP stays within 1% of its own zero-swap
    throughput at every level and interval."""
    out: dict[str, Any] = {}
    intervals = sorted({k[2] for k in points if k[2] is not None})
    for interval in intervals:
        sack = [p["mean"] for _, p in swap_curve(points, "sack", interval)]
        if len(sack) >= 2:
            steps_ok = all(b <= a * 1.005 for a, b in zip(sack, sack[1:]))
            out[f"sack_falls_interval_{interval:g}s"] = bool(steps_ok and sack[-1] < sack[0])
    # the paper's claim is for its RD-TCP (k = 3); the extensions that set k from what the
    # sender learns ([RDTCP] §3's further research) are held to the same bound beside it
    for variant in RDTCP_VARIANTS:
        prefix = variant.replace("-", "_")
        base = baseline(points, variant)
        if base is not None:
            worst = max((abs(p["mean"] / base["mean"] - 1.0) for interval in intervals
                         for s, p in swap_curve(points, variant, interval) if s), default=0.0)
            out[f"{prefix}_max_relative_change"] = worst
            out[f"{prefix}_within_1pct"] = worst <= 0.01
    return out


def paper_sender(variant: str) -> str | None:
    """The paper's sender whose number stands for ``variant`` in the table: the variant itself
    for SACK, DSACK and RD-TCP (k = 3), the only senders the paper ran; for one of our
    extensions, the paper's sender its policy derives from (BL-INC/BL-AVG from DSACK undo, the
    RD-TCPs that set k from RD-TCP), as the scenario's PAPER copies that sender's number."""
    if variant in PAPER_VARIANTS:
        return variant
    policy = get_variant(variant)
    # most derived first: RD-TCP and DSACK before a sender they might both derive from
    for base in reversed(PAPER_VARIANTS):
        if issubclass(policy, get_variant(base)):
            return base
    return None


def paper_table(points: dict, *, duration: float | None = None, ns2_points: dict | None = None,
                ns2_lacking: dict[str, str] | None = None) -> list[dict]:
    """The paper's quoted numbers beside ours (no reordering; 15 swaps every second).
    ``paper_value_for`` names the paper's sender each paper number was reported for: a row of
    one of our extensions shows its base sender's number, not one the paper gave for it.
    ``duration``: our transfers' length in seconds, recorded in the rows when given.
    ``ns2_points``: ns-2's points of the same runs (``--ns2``), set beside ours in ``ns2_*``
    fields with their own size verdict; ``ns2_lacking``: the senders ns-2 has not, with why
    (their ``ns2_note``)."""
    rows = []
    # the paper's three senders always (not run: say so); the extensions when they ran
    variants = PAPER_VARIANTS + tuple(v for v in VARIANTS[len(PAPER_VARIANTS):]
                                      if any(k[0] == v for k in points))
    for variant in variants:
        base = baseline(points, variant)
        rows.append(_table_row("no reordering", variant, PAPER[("none", 0)], base, base))
    for variant in variants:
        ours = points.get((variant, "swap", 1.0, 15, 0.0))
        rows.append(_table_row("15 swaps every 1 s", variant, PAPER[(variant, 15)], ours,
                               baseline(points, variant)))
    if duration is not None:
        for row in rows:
            row["ours_duration_s"] = duration
    if ns2_points is not None:
        for row in rows:
            _ns2_fields(row, ns2_points, ns2_lacking or {})
    return rows


def _ns2_fields(row: dict, ns2_points: dict, lacking: dict[str, str]) -> None:
    """ns-2's number for a paper_table row: the mean of its runs of the same point, relative
    to its own no-reordering run, within 10 % of the paper's or not (as ours); for a sender
    ns-2 lacks, why (``ns2_note``)."""
    variant = row["variant"]
    key = ((variant, "swap", None, 0, 0.0) if row["scenario"] == "no reordering"
           else (variant, "swap", 1.0, 15, 0.0))
    point, base = ns2_points.get(key), baseline(ns2_points, variant)
    row.update(ns2_Bps=None, ns2_std_Bps=None, ns2_n=0, ns2_vs_no_reordering=None,
               ns2_size="-", ns2_note=lacking.get(variant, "" if point else "not run"))
    if point:
        row.update(ns2_Bps=round(point["mean"], 1), ns2_std_Bps=_round(point["std"], 1),
                   ns2_n=point["n"])
        if base:
            row["ns2_vs_no_reordering"] = round(point["mean"] / base["mean"], 4)
        row["ns2_size"] = paper_number_verdict({**row, "ours_Bps": row["ns2_Bps"]})


ANY_SENDER = "any sender"


def _table_row(scenario: str, variant: str, paper: float, ours: dict | None,
               base: dict | None) -> dict:
    # the paper quotes one no-reordering throughput, of the network whatever the sender ([RDTCP] §4)
    row = {"scenario": scenario, "variant": variant, "paper_Bps": paper,
           "paper_value_for": ANY_SENDER if scenario == "no reordering" else
           paper_sender(variant),
           "paper_vs_no_reordering": round(paper / PAPER[("none", 0)], 4),
           "ours_Bps": None, "ours_std_Bps": None, "ours_n": 0, "ours_vs_no_reordering": None,
           "ours_vs_link_capacity": None, "ours_swaps_done": None, "ours_swaps_asked": None}
    if ours:
        row.update(ours_Bps=round(ours["mean"], 1), ours_std_Bps=_round(ours["std"], 1),
                   ours_n=ours["n"], ours_vs_link_capacity=round(ours["mean"] /
                                                                  (BOTTLENECK_BPS / 8), 4),
                   ours_swaps_done=_round(ours.get("swaps_done"), 1),
                   ours_swaps_asked=_round(ours.get("swaps_asked"), 1))
        if base:
            row["ours_vs_no_reordering"] = round(ours["mean"] / base["mean"], 4)
    row["size"] = paper_number_verdict(row)
    return row


SIZE_TOLERANCE = 0.10       # a throughput within 10 % of the paper's (runner.verdicts.REL)


def paper_number_verdict(row: dict) -> str:
    """The size verdict of a paper_table row: our throughput within 10 % of the paper's
    number, for the paper's own senders; '-' for a number borrowed from the base sender or a
    point not run."""
    if row["ours_Bps"] is None or row["paper_value_for"] not in (row["variant"], ANY_SENDER):
        return "-"
    return "ok" if relative(SIZE_TOLERANCE).holds(row["ours_Bps"], row["paper_Bps"]) \
        else "not ok"


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


BASE_MARK = "†"


def table_markdown(rows: list[dict], *, duration: float | None = None) -> str:
    """The paper table in Markdown, with footnotes saying which paper numbers belong to another
    sender, what ± means, and how many of the asked swaps the runs could make."""
    ns2 = any("ns2_Bps" in r for r in rows)
    head = ("| scenario | variant | paper (B/s) | paper / no reord. | "
            + ("ns-2 (B/s, mean ± sd, n) | ns-2 / no reord. | ns-2 within 10 % of the paper's | "
               if ns2 else "")
            + "ours (B/s, mean ± sd, n) | ours / no reord. | ours within 10 % of the paper's "
              "| swaps done / asked per run |")
    lines = [head, "|---|---|---:|---:|" + ("---:|---:|:---:|" if ns2 else "")
             + "---:|---:|:---:|---:|"]
    for r in rows:
        paper = f"{r['paper_Bps']:,}"
        if _borrowed(r):
            paper += f" {BASE_MARK} ({r['paper_value_for']})"
        rel = _ratio_cell(r["ours_vs_no_reordering"])
        ns2_cells = (f"{_ns2_cell(r)} | {_ratio_cell(r['ns2_vs_no_reordering'])} | "
                     f"{r['ns2_size']} | " if ns2 else "")
        lines.append(f"| {r['scenario']} | {r['variant']} | {paper} | "
                     f"{r['paper_vs_no_reordering']:.4f} | {ns2_cells}{_ours_cell(r)} | {rel} | "
                     f"{r['size']} | {_swaps_cell(r)} |")
    transfers = f"{duration:g} s transfers" if duration is not None else "transfers"
    lines += ["", f"Paper: 10-minute (600 s) transfers. Ours: mean ± sample standard deviation "
              f"over n seeds of {transfers} (n = 1: no sd)."]
    if ns2:
        lines.append(f"ns-2: the same runs in ns-2 2.35 itself ({NS2_NOTE}); "
                     f"{NS2_LACKS_MARK}: a sender ns-2 does not have.")
    if any(_borrowed(r) for r in rows):
        lines.append(f"{BASE_MARK} The paper ran only sack, dsack and rdtcp (k = 3): for our "
                     "extensions the paper column repeats the number the paper reported for "
                     "the base sender named in brackets, for scale, not a result for the "
                     "extension.")
    lines.append("Within 10 %: the size verdict of our throughput against the paper's number, "
                 "for the paper's own senders (- for a borrowed number or a point not run); "
                 "[RDTCP]'s statements, each with its direction and size, are in the table below.")
    lines.append("Swaps done / asked: mean per run of the random queue swaps made and of those "
                 "asked; a swap is skipped when fewer than two packets wait in R1's queue, so a "
                 "sender that keeps the queue short is reordered less.")
    return "\n".join(lines)


def _borrowed(r: dict) -> bool:
    """The row shows a number the paper reported for another sender (our extensions)."""
    return r["paper_value_for"] not in (r["variant"], ANY_SENDER)


# how the ns-2 column's runs are built (experiments/ns2/scenario.py)
NS2_NOTE = ("SACK as Agent/TCP/Sack1 with Agent/TCPSink/Sack1, on the same dumbbell; [RDTCP]'s "
            "queue swaps as hold-backs before R1's queue, by a swap's displacement in the "
            "queue's length; mean ± sd over the same seeds")
NS2_LACKS_MARK = "—"


def _ratio_cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _ns2_cell(r: dict) -> str:
    if r["ns2_Bps"] is None:
        return f"{NS2_LACKS_MARK} ({r['ns2_note']})" if r["ns2_note"] != "not run" \
            else "not run"
    sd = "" if r["ns2_std_Bps"] is None else f" ± {r['ns2_std_Bps']:,.0f}"
    return f"{r['ns2_Bps']:,.0f}{sd} (n = {r['ns2_n']})"


def _ours_cell(r: dict) -> str:
    if r["ours_Bps"] is None:
        return "not run"
    sd = "" if r["ours_std_Bps"] is None else f" ± {r['ours_std_Bps']:,.0f}"
    return f"{r['ours_Bps']:,.0f}{sd} (n = {r['ours_n']})"


def _swaps_cell(r: dict) -> str:
    done, asked = r.get("ours_swaps_done"), r.get("ours_swaps_asked")
    if not asked:              # no reordering, not run, or rows without swap counts
        return "-"
    return f"{done:,.0f} / {asked:,.0f} ({done / asked:.0%})"


def point_rows(points: dict) -> list[dict]:
    """points.csv's rows (and summary.json's ``points``): one per point of ``aggregate_all``.
    ``throughput_std_Bps`` is the sample standard deviation over the point's ``n`` seeds, empty
    (None) when n = 1; ``swaps_done_mean``/``swaps_asked_mean`` the swaps made and asked per run,
    which differ by sender because a swap needs two packets waiting in the queue."""
    return [{"variant": k[0], "injection": k[1], "interval": k[2], "swaps": k[3],
             "level": k[4], "k": k[5], "swap_span": k[6], "n": p["n"],
             "throughput_mean_Bps": round(p["mean"], 3),
             "throughput_std_Bps": _round(p["std"], 3),
             "swaps_done_mean": _round(p.get("swaps_done"), 1),
             "swaps_asked_mean": _round(p.get("swaps_asked"), 1)}
            for k, p in points.items()]


STATISTICS_NOTE = ("throughput_mean_Bps ± throughput_std_Bps: mean and sample standard deviation "
                   "(n - 1) over the n seeds of a point, std null when n = 1; the figures' error "
                   "bars are this sd. swaps_done_mean / swaps_asked_mean: random queue swaps made "
                   "and asked per run (skipped when fewer than two packets wait).")
