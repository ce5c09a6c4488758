"""[TCPDEBUG] ch. 4-5 on any trace: every connection's RTT series scored by the delay-based
congestion estimators (analyzer/dbce.py) and its timer replayed under other parameters
(analyzer/rto_replay.py), then summarised over the connections as the thesis reports them.

    python -m analyzer.study run/sender.pcap [--vantage path] [--json F] [--series F]

``evaluate(series)`` turns one flow's ``analyzer.series.FlowSeries`` into a JSON-ready dict (the
experiments keep these per connection); ``summarize(connections)`` gives the per-estimator and
per-setting figures (``estimator_rows``, ``setting_rows``) and the breakdowns by throughput and
flight size ([TCPDEBUG] §5.5's features). A trace with no RTT sample, no loss or one connection gives
a sentence saying what cannot be scored, never a division by zero.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import textwrap
import zlib
from typing import Sequence

from analyzer import dbce, rto_replay
from analyzer.cli import UsageError, _check_trace, analyze_file
from analyzer.trace import VANTAGES, AnalyzerConfig
from netbase.pcap import PcapFormatError

__all__ = ["evaluate", "detection_times", "cluster_features", "summarize", "estimator_rows", "setting_rows", "breakdowns", "main",
           "MIN_SEGMENTS", "FLIGHT_BINS", "ESTIMATOR_ORDER"]

MIN_SEGMENTS = 10               # [TCPDEBUG] §5.2: connections of at least 10 segments
FLIGHT_BINS = ((1, 4), (5, 16), (17, None))     # median flight size, segments (§5.5)
ESTIMATOR_ORDER = tuple(dbce.ESTIMATORS) + tuple(dbce.VARIANTS)
_KINDS = ("nothing", "spurious_timeout", "spurious_fast", "by_fast", "by_timer")


def _quantile(values: list, q: float):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def evaluate(series, *, seed: int = 1, settings=None, baseline: str | None = None) -> dict:
    """One flow: its characteristics, each estimator's score on every ACK's samples and on one
    sample a flight, the best case, and the timer replay under every setting against a
    baseline: the analyzer profile ``baseline`` (a sender known to be that stack), else the one
    the analyzer identified."""
    settings = rto_replay.SETTINGS if settings is None else settings
    samples, flights = series.per_ack(), series.per_flight()
    losses = series.losses
    duration = (series.last_time - series.first_time) if series.first_time is not None else 0.0
    rtts = [s.rtt for s in samples]
    eps = dbce.episodes(losses)
    out = {
        "connection": series.connection, "sender": series.sender,
        "receiver": series.receiver, "profile": series.profile,
        "data_bytes": series.data_bytes, "segments": series.data_segments,
        "duration": duration,
        "throughput": series.data_bytes / duration if duration > 0 else None,
        "samples": len(samples), "samples_per_flight": len(flights),
        "min_rtt": min(rtts) if rtts else None,
        "rtt_p90": _quantile(rtts, 0.9),
        "median_flight": statistics.median(s.flight for s in samples) if samples else None,
        "losses": len(losses), "episodes": len(eps),
        "loss_rate": len(losses) / series.data_segments if series.data_segments else 0.0,
        **cluster_features(samples, eps, duration),
        "retransmissions": series.retransmissions,
    }
    # a seed of its own per connection, so Random(0.8) repeats (zlib.crc32: stable across
    # interpreters, unlike hash())
    own = zlib.crc32(f"{seed}/{series.sender}/{series.connection}".encode())
    scores = {}
    for name in ESTIMATOR_ORDER:
        fn = dbce.ESTIMATORS.get(name) or dbce.VARIANTS[name]
        row = {}
        for mode, use in (("all", samples), ("flight", flights)):
            sc = dbce.score(use, losses, fn, seed=own)
            row[mode] = [sc.lpa, sc.fpa, round(sc.additive, 6), round(sc.multiplicative, 6),
                         sc.predicted, sc.cn_phases, sc.false_positives,
                         sum(1 for x in sc.lead if x >= 1), len(sc.lead),
                         [round(x, 4) for x in sc.lead]]
        scores[name] = row
    out["dbce"] = scores
    add, mult = dbce.best_case(samples, losses)
    out["best"] = [round(add, 6), round(mult, 6)]
    out["rto"] = _replay(series, settings, baseline or series.profile)
    out["detect"] = detection_times(series)
    return out


def _correlation(xs: list, ys: list):
    """Pearson's correlation of ``xs`` and ``ys`` (None when either does not vary)."""
    if len(xs) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else None


def cluster_features(samples: list, eps: list, duration: float) -> dict:
    """[TCPDEBUG] §5.5.1's characteristics that the other fields do not give: the mean RTT, the
    correlation between the flight and the RTT of the per-ACK samples (self-induced
    congestion), and the average loss distance in mean RTTs: the mean gap between the starts
    of consecutive loss episodes; with one episode, the connection's duration (no second
    episode came within it); None without an episode or an RTT sample."""
    rtts = [s.rtt for s in samples]
    mean = statistics.fmean(rtts) if rtts else None
    corr = _correlation([s.flight for s in samples], rtts)
    distance = None
    if eps and mean:
        starts = [e.start for e in eps]
        gap = (starts[-1] - starts[0]) / (len(starts) - 1) if len(starts) > 1 else duration
        distance = gap / mean
    return {"rtt_mean": mean, "flight_rtt_corr": None if corr is None else round(corr, 4),
            "loss_distance": distance}


def detection_times(series) -> dict:
    """[TCPDEBUG] Fig. 4.2's detection times of the flow's needed retransmissions, by what detected
    them ("fast": duplicate ACKs, "timer": the timer, as the identified sender's classes say):
    from the lost segment's first transmission to its first retransmission (§4.3.2), in RTTs of
    the moving average (weight 1/4, ch. 4 footnote 3) of the per-ACK samples acknowledged by
    then (1 s before any)."""
    use = series.per_ack()
    out: dict = {"fast": [], "timer": []}
    unit = None
    i = 0
    for loss in sorted(series.losses, key=lambda x: x.detected):
        while i < len(use) and use[i].acked <= loss.detected:
            r = use[i].rtt
            unit = r if unit is None else unit + rto_replay.WAIT_RTT_GAIN * (r - unit)
            i += 1
        out["timer" if loss.by_timer else "fast"].append(
            round((loss.detected - loss.sent) / (unit or 1.0), 4))
    return out


def _replay(series, settings, profile: str) -> dict:
    base_setting = rto_replay.baseline_for(profile)
    runs = rto_replay.replay_flow(series.samples, series.waits, [base_setting] + list(settings))
    base, rest = runs[0], runs[1:]
    unit = statistics.mean(s.rtt for s in series.per_ack()) if series.per_ack() else None
    duration = series.last_time - series.first_time if series.first_time is not None else 0
    out = {"baseline": base_setting.name, "base": _outcome(base, base),
           "best": round(rto_replay.best_case_cost(series.samples, series.waits), 6),
           "rtts": duration / unit if unit else None, "settings": {}}
    for setting, run in zip(settings, rest):
        out["settings"][setting.name] = _outcome(run, base)
    return out


def _outcome(run, base) -> list:
    """[cost, by_fast, by_timer, spurious timeouts, spurious fast retransmits, sum of timer
    waits (RTTs), timer detections, RTO -> fast, fast -> RTO, spurious timeouts caused,
    avoided] against the baseline's outcome of the same waits."""
    pairs = list(zip(base.per_wait, run.per_wait))
    t, f, st = rto_replay.BY_TIMER, rto_replay.BY_FAST, rto_replay.SPURIOUS_TIMEOUT
    return [round(run.cost, 6), run.by_fast, run.by_timer, run.spurious_timeouts,
            run.spurious_fast, round(sum(run.timer_waits), 6), len(run.timer_waits),
            sum(1 for b, r in pairs if b == t and r == f),
            sum(1 for b, r in pairs if b == f and r == t),
            sum(1 for b, r in pairs if b != st and r == st),
            sum(1 for b, r in pairs if b == st and r != st)]


# ---------------------------------------------------------------------- over connections
def _share(flags: list):
    return sum(flags) / len(flags) if flags else None


def _mean(values: list):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _median(values: list):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def scored(connections: list) -> list:
    """The connections [TCPDEBUG] ch. 5 keeps: at least 10 data segments and an RTT sample."""
    return [c for c in connections if c["segments"] >= MIN_SEGMENTS and c["samples"]]


def estimator_rows(connections: list, *, mode: str = "all") -> list:
    """Per estimator, over the scored connections (``scored``): LPA (mean over connections with
    a loss episode; shares with LPA = 0 and >= 0.5: Fig. 5.2), FPA (mean; share with no false
    positive, FPA = 1, and with some: Fig. 5.4), the share of predicted episodes whose
    congestion phase began at least an RTT before (Fig. 5.3), the modelled change in duration
    over the lossy connections (median, shares improved and worsened, additive and
    multiplicative: Figs. 5.6-5.11)."""
    conns = scored(connections)
    lossy = [c for c in conns if c["episodes"]]
    rows = []
    for name in ESTIMATOR_ORDER:
        got = [c["dbce"][name][mode] for c in conns]
        lossy_got = [c["dbce"][name][mode] for c in lossy]
        lpas = [g[0] for g in lossy_got if g[0] is not None]
        fpas = [g[1] for g in got if g[1] is not None]
        adds = [g[2] for g in lossy_got]
        mults = [g[3] for g in lossy_got]
        leads = sum(g[7] for g in got)
        predicted = sum(g[8] for g in got)
        rows.append({
            "estimator": name, "row": dbce.ROWS[name], "connections": len(conns),
            "lossy": len(lossy),
            "lpa_mean": _mean(lpas), "lpa_zero": _share([x == 0 for x in lpas]),
            "lpa_half": _share([x >= 0.5 for x in lpas]),
            "fpa_mean": _mean(fpas), "fp_none": _share([x == 1.0 for x in fpas]),
            "fp_some": _share([x < 1.0 for x in fpas]),
            "no_congestion_phase": _share([g[5] == 0 for g in got]),
            "lead_1rtt": leads / predicted if predicted else None,
            "add_median": _median(adds), "add_improved": _share([x > 0 for x in adds]),
            "add_worsened": _share([x < 0 for x in adds]),
            "mult_median": _median(mults), "mult_improved": _share([x > 0 for x in mults]),
            "mult_worsened": _share([x < 0 for x in mults]),
        })
    return rows


def best_case_row(connections: list) -> dict:
    """§5.4.3, Fig. 5.5: the ideal estimator's savings over the scored connections (those
    without loss save nothing)."""
    conns = scored(connections)
    adds = [c["best"][0] for c in conns]
    return {"connections": len(conns), "add_median": _median(adds),
            "below_0.1": _share([x < 0.1 for x in adds]),
            "above_10": _share([x > 10 for x in adds]),
            "mult_median": _median([c["best"][1] for c in conns])}


def _bin_label(lo, hi) -> str:
    return f"{lo}+" if hi is None else f"{lo}-{hi}"


def breakdowns(connections: list, *, estimators=("CIM", "Vegas", "Tri-S", "DUAL", "CARD",
                                                  "Random(0.8)")) -> dict:
    """[TCPDEBUG] §5.5's two features that matter, throughput and median flight size: per group of
    lossy scored connections, the best case and each estimator's median change (additive) and
    mean LPA. Throughput groups are the terciles of the connections' throughput."""
    lossy = [c for c in scored(connections) if c["episodes"]]
    groups: dict = {"throughput": {}, "flight": {}}
    ranked = sorted(lossy, key=lambda c: c["throughput"] or 0.0)
    n = len(ranked)
    if n:
        for k, label in enumerate(("low", "middle", "high")):
            part = ranked[k * n // 3:(k + 1) * n // 3]
            if part:
                lo = part[0]["throughput"] or 0.0
                hi = part[-1]["throughput"] or 0.0
                groups["throughput"][f"{label} ({lo / 1000:,.0f}-{hi / 1000:,.0f} kB/s)"] = part
    for lo, hi in FLIGHT_BINS:
        part = [c for c in lossy if c["median_flight"] is not None and c["median_flight"] >= lo
                and (hi is None or c["median_flight"] <= hi)]
        if part:
            groups["flight"][_bin_label(lo, hi) + " segments"] = part
    out: dict = {}
    for feature, parts in groups.items():
        out[feature] = []
        for label, part in parts.items():
            row = {"group": label, "connections": len(part),
                   "best_median": _median([c["best"][0] for c in part])}
            for name in estimators:
                got = [c["dbce"][name]["all"] for c in part]
                row[f"{name} median"] = _median([g[2] for g in got])
                row[f"{name} LPA"] = _mean([g[0] for g in got])
            out[feature].append(row)
    return out


def setting_rows(connections: list, *, stack: str | None = None) -> list:
    """Per replayed setting ([TCPDEBUG] §4.4.2-4.4.4), over the connections with a usable wait (those
    whose own stack is ``stack``, when given: [TCPDEBUG] shows each OS against its own defaults): the
    timer's spurious timeouts and the waiting time of the losses it detects (RTTs, EWMA 1/4),
    fast retransmits, conversions against each connection's own sender, and the modelled
    change in duration (RTTs; share of connections more than 10 % shorter or longer)."""
    conns = [c for c in connections if c["rto"]["rtts"]
             and (stack is None or c["rto"]["baseline"] == stack)]
    if not conns:
        return []
    names = list(conns[0]["rto"]["settings"])
    rows = []
    for name in names:
        tot = [0] * 11
        deltas, gains, losses_ = [], [], []
        for c in conns:
            got = c["rto"]["settings"][name]
            tot = [a + b for a, b in zip(tot, got)]
            delta = c["rto"]["base"][0] - got[0]
            deltas.append(delta)
            gains.append(delta > 0.1 * c["rto"]["rtts"])
            losses_.append(delta < -0.1 * c["rto"]["rtts"])
        timer = tot[2]
        rows.append({
            "setting": name, "connections": len(conns), "by_fast": tot[1], "by_timer": timer,
            "spurious_timeouts": tot[3], "spurious_fast": tot[4],
            "spurious_share": (tot[3] / (tot[3] + timer)) if tot[3] + timer else None,
            "wait_mean": tot[5] / tot[6] if tot[6] else None,
            "rto_to_fast": tot[7], "fast_to_rto": tot[8], "spurious_caused": tot[9],
            "spurious_avoided": tot[10],
            "delta_mean": _mean(deltas), "delta_median": _median(deltas),
            "shorter_10pct": _share(gains), "longer_10pct": _share(losses_),
        })
    return rows


def baseline_row(connections: list) -> dict:
    """The senders' own timers and the best case (§4.4.1, App. A.1): totals over connections."""
    conns = [c for c in connections if c["rto"]["rtts"]]
    tot = [0] * 11
    for c in conns:
        tot = [a + b for a, b in zip(tot, c["rto"]["base"])]
    best = [c["rto"]["base"][0] - c["rto"]["best"] for c in conns]
    return {"connections": len(conns), "by_fast": tot[1], "by_timer": tot[2],
            "spurious_timeouts": tot[3], "spurious_fast": tot[4],
            "wait_mean": tot[5] / tot[6] if tot[6] else None,
            "best_delta_mean": _mean(best), "best_delta_median": _median(best),
            "best_shorter_10pct": _share([d > 0.1 * c["rto"]["rtts"]
                                          for d, c in zip(best, conns)])}


def summarize(connections: list) -> dict:
    """Everything the study reports over ``connections`` (``evaluate``'s dicts), and the
    sentences saying what could not be scored."""
    conns = scored(connections)
    notes = []
    if not connections:
        notes.append("no connection sent data")
    elif not conns:
        notes.append(f"no connection has {MIN_SEGMENTS} or more data segments and an RTT "
                     f"sample ([TCPDEBUG] §5.2): nothing to score")
    elif not any(c["episodes"] for c in conns):
        notes.append("no loss episode in any connection: LPA is not defined (FPA is)")
    if len(conns) == 1:
        notes.append("one connection: the shares over connections are that connection's")
    return {"connections": len(connections), "scored": len(conns),
            "lossy": sum(1 for c in conns if c["episodes"]),
            "estimators": estimator_rows(connections),
            "estimators_per_flight": estimator_rows(connections, mode="flight"),
            "best_case": best_case_row(connections),
            "breakdowns": breakdowns(connections),
            "rto_settings": setting_rows(connections),
            "rto_by_stack": {stack: setting_rows(connections, stack=stack) for stack in
                             sorted({c["rto"]["baseline"] for c in connections})},
            "rto_baseline": baseline_row(connections),
            "notes": notes}


# ---------------------------------------------------------------------- text
# what the columns of the two tables mean, printed under each and in --help ([TCPDEBUG] §5.3, §4.4)
ESTIMATOR_LEGEND = (
    "LPA: loss prediction accuracy, the share of loss episodes a congestion phase preceded "
    "(mean over lossy connections); LPA=0: share of those connections with none predicted; "
    "FPA: 1 - the share of congestion phases no loss followed (mean); no FP: share of "
    "connections with FPA = 1; >=1RTT: share of predicted episodes whose congestion phase "
    "began at least an RTT before; median d(add): the modelled change in duration, RTTs "
    "saved by reacting as additive decrease (positive: shorter), median over lossy "
    "connections; better: share of those connections it shortens; worse: share it lengthens")
TIMER_LEGEND = (
    "spur.TO: spurious timeouts under the setting (summed over connections); wait: mean wait "
    "of the losses the timer detects, in RTTs; FR: losses detected by fast retransmit; d mean: "
    "the modelled change in duration against the sender's own timer, RTTs saved per "
    "connection (positive: shorter)")


def _legend(text: str, width: int = 100) -> list[str]:
    """The legend under a table: one wrapped paragraph per column group."""
    return [line for part in text.split("; ")
            for line in textwrap.wrap(part, width, initial_indent="  ",
                                      subsequent_indent="    ")]


def _f(x, spec=".2f") -> str:
    return "-" if x is None else format(x, spec)


def render(summary: dict) -> str:
    out = [f"{summary['connections']} connection(s) sent data; {summary['scored']} scored "
           f"(>= {MIN_SEGMENTS} segments, an RTT sample), {summary['lossy']} with a loss "
           f"episode"]
    out += [f"note: {n}" for n in summary["notes"]]
    if summary["scored"]:
        out += ["", "delay-based congestion estimators ([TCPDEBUG] ch. 5, every ACK's samples):",
                f"{'estimator':20s} {'LPA':>5s} {'LPA=0':>6s} {'FPA':>5s} {'no FP':>6s} "
                f"{'>=1RTT':>6s} {'median d(add)':>13s} {'better':>6s} {'worse':>6s}"]
        for r in summary["estimators"]:
            out.append(f"{r['estimator']:20s} {_f(r['lpa_mean']):>5s} {_f(r['lpa_zero']):>6s} "
                       f"{_f(r['fpa_mean']):>5s} {_f(r['fp_none']):>6s} "
                       f"{_f(r['lead_1rtt']):>6s} {_f(r['add_median'], '.3f'):>13s} "
                       f"{_f(r['add_improved']):>6s} {_f(r['add_worsened']):>6s}")
        out += _legend(ESTIMATOR_LEGEND)
        b = summary["best_case"]
        out.append(f"best case (LPA = FPA = 1): median saving {_f(b['add_median'], '.3f')} RTTs")
    if summary["rto_settings"]:
        base = summary["rto_baseline"]
        out += ["", f"timer replay ([TCPDEBUG] ch. 4) over {base['connections']} connection(s); the "
                    f"senders' own timers: {base['by_timer']} losses by the timer (mean wait "
                    f"{_f(base['wait_mean'])} RTTs), {base['spurious_timeouts']} spurious "
                    f"timeouts",
                f"{'setting':70s} {'spur.TO':>7s} {'wait':>6s} {'FR':>5s} {'d mean':>7s}"]
        for r in summary["rto_settings"]:
            out.append(f"{r['setting'][:70]:70s} {r['spurious_timeouts']:7d} "
                       f"{_f(r['wait_mean']):>6s} {r['by_fast']:5d} "
                       f"{_f(r['delta_mean']):>7s}")
        out += _legend(TIMER_LEGEND)
    return "\n".join(out) + "\n"


def write_series_csv(path: str, all_series: list) -> None:
    """One row per RTT sample and per loss of every flow."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("connection", "sender", "kind", "sent", "acked_or_detected", "rtt",
                    "flight", "per_ack", "per_flight", "detected_by"))
        for s in all_series:
            for x in s.samples:
                w.writerow((s.connection, s.sender, "sample", f"{x.sent:.6f}",
                            f"{x.acked:.6f}", f"{x.rtt:.6f}", x.flight, int(x.per_ack),
                            int(x.per_flight), ""))
            for x in s.losses:
                w.writerow((s.connection, s.sender, "loss", f"{x.sent:.6f}",
                            f"{x.detected:.6f}", "", x.flight, "", "",
                            "timer" if x.by_timer else "dupacks"))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m analyzer.study", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=textwrap.fill(
            "Score [TCPDEBUG]'s delay-based congestion estimators (ch. 5: LPA, FPA, the "
            "modelled change in duration) on every connection of a pcap, and replay its "
            "retransmission timer under other RTO parameters (ch. 4).", 79),
        epilog="columns of the estimators' table:\n" + "\n".join(_legend(ESTIMATOR_LEGEND, 79))
               + "\ncolumns of the timer replay's table:\n" + "\n".join(_legend(TIMER_LEGEND, 79)))
    p.add_argument("trace", metavar="TRACE.pcap")
    p.add_argument("--vantage", choices=VANTAGES, default="sender",
                   help="where the capture was taken (as python -m analyzer)")
    p.add_argument("--json", metavar="F", help="write every connection's scores and the "
                                              "summary as JSON to F")
    p.add_argument("--series", metavar="F", help="write every flow's RTT samples and losses "
                                                "as CSV to F")
    args = p.parse_args(argv)
    for opt, path in (("--json", args.json), ("--series", args.series)):
        if path and os.path.realpath(path) == os.path.realpath(args.trace):
            print(f"error: {opt} {path} is the trace itself", file=sys.stderr)
            return 2
    all_series: list = []
    try:
        _check_trace(args.trace)
        report = analyze_file(args.trace, AnalyzerConfig(vantage=args.vantage),
                              on_flow=lambda s: None, on_series=all_series.append)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except PcapFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {exc.filename or args.trace}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not report["tcp_frames"]:
        print(f"error: {args.trace}: no TCP segments in its {report['frames']:,} frames",
              file=sys.stderr)
        return 2
    connections = [evaluate(s) for s in all_series]
    summary = summarize(connections)
    if not any(c["samples"] for c in connections):
        print(f"error: {args.trace}: no RTT sample in any connection (no data segment was "
              f"acknowledged unambiguously): nothing to score", file=sys.stderr)
        return 1
    try:
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"trace": args.trace, "summary": summary,
                           "connections": connections}, f, indent=1)
        if args.series:
            write_series_csv(args.series, all_series)
    except OSError as exc:
        print(f"error: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    sys.stdout.write(render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
