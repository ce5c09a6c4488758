"""[TCPDEBUG] ch. 4's figures (§4.4, Figs. 4.2-4.11) from the timer replay of the simulated
connections (``analyzer.rto_replay`` through ``analyzer.study.evaluate``: every connection's
own stack's timer, the best case and each setting of ``rto_replay.SETTINGS``), drawn as the
thesis draws them, each with a CSV of what it plots beside it:

- Fig. 4.2: the distribution of the detection time of the needed retransmissions (first
  transmission to retransmission, in RTTs of a moving average of weight 1/4), fast retransmits
  and timeouts apart, one curve per sender stack;
- Fig. 4.3: the distribution of the best case's reduction of each connection's duration, in
  percent, one curve per stack;
- Figs. 4.4-4.9 and 4.11: each connection's reduction under one setting (y) against its best
  case (x), both in RTTs, binned logarithmically on x: per bin the mean and the 95th percentile
  (as an error bar) against the bin's mean best case (§4.4.2). Figs. 4.4-4.6: Linux, k = 2, 3,
  6; Fig. 4.7: Solaris with minRTO = 100 ms and Linux with 400 ms; Fig. 4.8: Linux, a = 1/2;
  Fig. 4.9: Linux, D = 2, small and large connections apart; Fig. 4.11: Smart-Config;
- Fig. 4.10: the distribution of the percent change under Smart-Config, one curve per stack.

The population is ch. 4's (§4.3.1): the connections with at least one retransmission whose
timer the replay could follow (an RTT sample). Where the thesis states a number, the figure
marks it. [TCPDEBUG]'s "small" connections (§4.3.3: at most ~10 segments, "such connections do not
achieve a flight size larger than 4") do not occur in the workload (every transfer is 14
segments or more, ``experiments.studies.dbce.scenario.SIZE_MIN``): Fig. 4.9 splits by the
property the thesis' argument rests on, a median flight of at most 4 segments.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, NullFormatter

from experiments.runner.plots import save_figure
from experiments.runner.report import write_csv
from experiments.studies.dbce.figures import (best_case_axes, cdf_from_floor, curve_styles,
                                              plain_number)

__all__ = ["population", "detection_times", "best_percent", "changes", "binned", "SMART",
           "chapter4_figures", "OS_ORDER", "SMALL_FLIGHT", "BIN_FLOOR"]

OS_ORDER = ("windows-xp", "linux-2.4", "solaris", "freebsd-4.10")
OS_LABEL = {"windows-xp": "Windows", "linux-2.4": "Linux", "solaris": "Solaris",
            "freebsd-4.10": "FreeBSD"}
LINUX = "Linux 2.4 (Table 4.5)"
SOLARIS = "Solaris (Table 4.5)"
SMART = "Smart-Config"          # the setting whose name begins so (analyzer.rto_replay.SMART)
SMALL_FLIGHT = 4                # segments: Fig. 4.9's small connections (see the docstring)
BIN_FLOOR = 0.01                # RTTs: best cases at or under it share the axis' left edge
PERCENT_FLOOR = 0.01            # %: reductions at or under it at Fig. 4.3's left edge
DETECT_FLOOR = 0.1              # RTTs: detection times at Fig. 4.2's left edge
# Figs. 4.4-4.9, 4.11: file, title, [(panel title, stack or None for every stack, setting,
# a filter of the connections or None)]
BINNED = (
    ("fig4_4_linux_k2.png", "Fig. 4.4: Linux, impact of k = 2",
     [("k = 2", LINUX, "Linux, k = 2", None)]),
    ("fig4_5_linux_k3.png", "Fig. 4.5: Linux, impact of k = 3",
     [("k = 3", LINUX, "Linux, k = 3", None)]),
    ("fig4_6_linux_k6.png", "Fig. 4.6: Linux, impact of k = 6",
     [("k = 6", LINUX, "Linux, k = 6", None)]),
    ("fig4_7_minrto.png", "Fig. 4.7: impact of minRTO",
     [("Solaris, minRTO = 100 ms", SOLARIS, "Solaris, minRTO = 100 ms", None),
      ("Linux, minRTO = 400 ms", LINUX, "Linux, minRTO = 400 ms", None)]),
    ("fig4_8_linux_a.png", "Fig. 4.8: Linux, impact of a = 1/2",
     [("a = 1/2", LINUX, "Linux, a = 1/2", None)]),
    ("fig4_9_linux_d2.png", "Fig. 4.9: Linux, impact of D = 2",
     [(f"small (median flight <= {SMALL_FLIGHT} segments)", LINUX, "Linux, D = 2", "small"),
      (f"large (median flight > {SMALL_FLIGHT})", LINUX, "Linux, D = 2", "large")]),
    ("fig4_11_smart_vs_best.png", "Fig. 4.11: Smart-Config, reduction against the upper bound",
     [("every stack", None, SMART, None)]),
)


# --------------------------------------------------------------------------- the data
def population(connections: list) -> list:
    """ch. 4's connections (§4.3.1): a replay with an RTT unit and at least one
    retransmission."""
    out = []
    for c in connections:
        rto = c.get("rto") or {}
        retx = c.get("retransmissions") or {}
        if rto.get("rtts") and any(sum(by.values()) for by in retx.values()):
            out.append(c)
    return out


def _setting(c: dict, name: str):
    """The outcome of setting ``name`` (or the one whose name begins with it) for ``c``."""
    settings = c["rto"]["settings"]
    if name in settings:
        return settings[name]
    return next((v for k, v in settings.items() if k.startswith(name)), None)


def best_case(c: dict) -> float:
    """The best case's reduction of ``c``'s duration (RTTs, §4.4.1)."""
    return c["rto"]["base"][0] - c["rto"]["best"]


def detection_times(conns: list) -> dict:
    """{(os, "fast" | "timer"): [RTTs]} over ``conns`` (Fig. 4.2); rows analysed without the
    times give none."""
    out: dict = {(os, kind): [] for os in OS_ORDER for kind in ("fast", "timer")}
    for c in conns:
        for kind, times in (c.get("detect") or {}).items():
            if (c.get("os"), kind) in out:
                out[(c["os"], kind)] += times
    return out


def best_percent(conns: list) -> dict:
    """{os: [best-case reduction of each connection's duration, %]} (Fig. 4.3)."""
    out: dict = {os: [] for os in OS_ORDER}
    for c in conns:
        if c.get("os") in out:
            out[c["os"]].append(100 * best_case(c) / c["rto"]["rtts"])
    return out


def changes(conns: list, setting: str, *, stack: str | None = None, part: str | None = None
            ) -> list[tuple[float, float, float]]:
    """[(best case, reduction under ``setting``, reduction in % of the duration)] of the
    connections of ``stack`` (every stack: None), ``part`` "small"/"large" by median flight."""
    out = []
    for c in conns:
        if stack is not None and c["rto"]["baseline"] != stack:
            continue
        flight = c.get("median_flight") or 0
        if part == "small" and flight > SMALL_FLIGHT or part == "large" and flight <= SMALL_FLIGHT:
            continue
        got = _setting(c, setting)
        if got is None:
            continue
        delta = c["rto"]["base"][0] - got[0]
        out.append((best_case(c), delta, 100 * delta / c["rto"]["rtts"]))
    return out


def _p95(values: list) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def binned(pairs: list) -> list[dict]:
    """§4.4.2's bins: the best cases (x) in logarithmic bins of half a decade from BIN_FLOOR,
    those at or under it in a bin of their own at BIN_FLOOR; per bin its connections, mean best
    case, and the mean and 95th percentile of the reduction (y)."""
    bins: dict = {}
    for x, y in pairs:
        key = -math.inf if x <= BIN_FLOOR else math.floor(2 * math.log10(x))
        bins.setdefault(key, []).append((x, y))
    rows = []
    for key in sorted(bins):
        got = bins[key]
        ys = [y for _, y in got]
        lo, hi = (0.0, BIN_FLOOR) if key == -math.inf else (10 ** (key / 2), 10 ** ((key + 1) / 2))
        rows.append({"bin_lo": lo, "bin_hi": hi, "connections": len(got),
                     "best_mean": BIN_FLOOR if key == -math.inf
                     else statistics.fmean(x for x, _ in got),
                     "mean": statistics.fmean(ys), "p95": _p95(ys)})
    return rows


# --------------------------------------------------------------------------- drawing
def _cdf_frame(ax, floor: float, xlabel: str, ylabel: str) -> None:
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(plain_number))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(floor * 0.8, None)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def _mark(ax, x, y, text, *, colour="0.2", marker="D", left=False, below=False) -> None:
    """A value [TCPDEBUG] states, drawn as an open marker with its words beside it (right, or
    ``left`` of it, or ``below``; no legend entry)."""
    ax.plot([x], [y], marker=marker, ms=7, mfc="none", mec=colour, mew=1.4, ls="none",
            label="_004")
    offset, ha = ((-6, -3), "right") if left else (((-4, -16), "left") if below
                                                    else ((6, -3), "left"))
    ax.annotate(text, (x, y), xytext=offset, textcoords="offset points", fontsize=6.5,
                color=colour, ha=ha, va="top" if below else "baseline")


def _os_styles() -> dict:
    return curve_styles([OS_LABEL[os] for os in OS_ORDER])


def _figure_4_2(conns: list, out: Path) -> tuple[list, list]:
    times = detection_times(conns)
    if not any(times.values()):
        return [], [("Fig. 4.2", "no needed retransmission with a detection time (rows of an "
                                 "analyzer without per-loss detection times)")]
    styles = _os_styles()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    rows = []
    for ax, kind, title in ((axes[0], "fast", "fast retransmit (FR/R)"),
                            (axes[1], "timer", "retransmission timeout (RTO)")):
        for os in OS_ORDER:
            values = times[(os, kind)]
            if values:
                for x, y in cdf_from_floor(ax, values, DETECT_FLOOR, OS_LABEL[os], styles[OS_LABEL[os]]):
                    rows.append({"mechanism": kind, "os": os, "rtts": x, "fraction": y})
        _cdf_frame(ax, DETECT_FLOOR, "detection time (RTTs)",
                   "fraction of needed retransmissions" if kind == "fast" else "")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].axvspan(1, 2, color="0.85", zorder=0)
    axes[0].text(1.05, 0.04, "[TCPDEBUG]: most\n1-2 RTTs", fontsize=6.5, color="0.3")
    _mark(axes[1], 4, 0.5, "[TCPDEBUG]: Windows, Linux median ~4 RTTs", left=True)
    _mark(axes[1], 20, 0.5, "[TCPDEBUG]: Solaris, FreeBSD\nmedian > 20", marker=">", below=True)
    _mark(axes[1], 10, 0.90, "[TCPDEBUG]: Linux 10 % over 10", colour="C1", marker="s")
    _mark(axes[1], 10, 0.75, "[TCPDEBUG]: Windows 25 % over 10", colour="C0", marker="o")
    fig.suptitle(f"[TCPDEBUG] Fig. 4.2: loss detection time of needed retransmissions "
                 f"({len(conns):,} connections with a retransmission), in RTTs of a moving "
                 f"average (weight 1/4); under {DETECT_FLOOR:g} at the left edge", fontsize=9)
    fig.tight_layout()
    save_figure(fig, out / "fig4_2_detection.png")
    write_csv(out / "fig4_2_detection.csv", rows)
    return ["fig4_2_detection.png"], []


def _range_mark(ax, x, lo, hi, text, colour="0.3") -> None:
    """A range of the fraction [TCPDEBUG] states at ``x``: a thick bar from ``lo`` to ``hi``."""
    ax.plot([x, x], [lo, hi], color=colour, lw=4, alpha=0.45, solid_capstyle="butt",
            label="_004")
    ax.annotate(text, (x, hi), xytext=(5, 2), textcoords="offset points", fontsize=6.5,
                color=colour)


def _figure_4_3(conns: list, out: Path) -> list[str]:
    pct = best_percent(conns)
    styles = _os_styles()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    rows = []
    for os in OS_ORDER:
        if pct[os]:
            for x, y in cdf_from_floor(ax, pct[os], PERCENT_FLOOR, OS_LABEL[os], styles[OS_LABEL[os]]):
                rows.append({"os": os, "percent": x, "fraction": y})
    _cdf_frame(ax, PERCENT_FLOOR, f"best-case reduction in duration (%; {PERCENT_FLOOR:g} or "
                                  f"less at the left edge)", "fraction of connections")
    ax.set_xlim(PERCENT_FLOOR * 0.8, max(100.0, max(r["percent"] for r in rows) * 1.2))
    # [TCPDEBUG] §4.4.1: 45-75 % gain under 1 %; 15-40 % over 10 % (the CDF at 10 % in 0.60-0.85);
    # Linux: over 40 % gain over 10 % (its CDF at 10 % under 0.60)
    _range_mark(ax, 1, 0.45, 0.75, "[TCPDEBUG]: 45-75 %\nunder 1 %")
    _range_mark(ax, 10, 0.60, 0.85, "[TCPDEBUG]: 15-40 %\nover 10 %")
    _mark(ax, 10, 0.60, "[TCPDEBUG]: Linux under this", colour=styles["Linux"]["color"], marker="v")
    ax.set_title(f"[TCPDEBUG] Fig. 4.3: best-case reduction in connection duration "
                 f"({len(conns):,} connections with a retransmission)", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    save_figure(fig, out / "fig4_3_best_case.png")
    write_csv(out / "fig4_3_best_case.csv", rows)
    return ["fig4_3_best_case.png"]


def _figure_4_10(conns: list, out: Path) -> list[str]:
    by_os: dict = {os: [] for os in OS_ORDER}
    for c in conns:
        got = _setting(c, SMART)
        if got is not None and c.get("os") in by_os:
            by_os[c["os"]].append(100 * (c["rto"]["base"][0] - got[0]) / c["rto"]["rtts"])
    if not any(by_os.values()):
        return []
    styles = _os_styles()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    rows = []
    for os in OS_ORDER:
        values = sorted(by_os[os])
        if not values:
            continue
        n = len(values)
        ys = [(i + 1) / n for i in range(n)]
        ax.step(values, ys, where="post", label=f"{OS_LABEL[os]} ({n:,})",
                **styles[OS_LABEL[os]])
        rows += [{"os": os, "percent": x, "fraction": y} for x, y in zip(values, ys)]
    ax.set_xscale("symlog", linthresh=1)
    ax.xaxis.set_major_formatter(FuncFormatter(plain_number))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.axvline(10, color="0.5", lw=0.7, ls=":")
    ax.axvline(-10, color="0.5", lw=0.7, ls=":")
    for os, share, marker in (("linux-2.4", 0.40, "s"), ("windows-xp", 0.07, "o"),
                              ("solaris", 0.20, "^"), ("freebsd-4.10", 0.10, "v")):
        _mark(ax, 10, 1 - share, f"[TCPDEBUG]: {OS_LABEL[os]} {share:.0%} > 10 % shorter",
              colour=styles[OS_LABEL[os]]["color"], marker=marker)
    _mark(ax, -10, 0.03, "[TCPDEBUG]: < 3 % over 10 % longer", marker="<")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("reduction in connection duration under Smart-Config (%; negative: longer; "
                  "linear within ±1)")
    ax.set_ylabel("fraction of connections")
    ax.set_title("[TCPDEBUG] Fig. 4.10: Smart-Config, relative change in response time",
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    save_figure(fig, out / "fig4_10_smart.png")
    write_csv(out / "fig4_10_smart.csv", rows)
    return ["fig4_10_smart.png"]


def _binned_panel(ax, rows: list, title: str) -> None:
    xs = [r["best_mean"] for r in rows]
    means = [r["mean"] for r in rows]
    up = [max(0.0, r["p95"] - r["mean"]) for r in rows]
    ax.errorbar(xs, means, yerr=[[0.0] * len(up), up], marker="o", ms=4, capsize=3, lw=1.2,
                color="C0", label="mean per bin (bar: 95th percentile)")
    hi = max(xs + [1.0]) * 3
    ax.plot([BIN_FLOOR, hi], [BIN_FLOOR, hi], ls="--", color="0.4", lw=1,
            label="the best case (y = x)")
    best_case_axes(ax, 0.01)
    ax.set_xlim(BIN_FLOOR * 0.7, hi)
    ax.set_xlabel(f"best-case reduction (RTTs, bins of half a decade; <= {BIN_FLOOR:g} at the "
                  f"left edge)")
    n = sum(r["connections"] for r in rows)
    ax.set_title(f"{title} ({n:,} connections)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")


def _binned_figures(conns: list, out: Path) -> tuple[list, list]:
    written, missing, rows_out = [], [], []
    for name, title, panels in BINNED:
        data = []
        for panel, stack, setting, part in panels:
            rows = binned([(x, y) for x, y, _ in changes(conns, setting, stack=stack,
                                                          part=part)])
            if rows:
                data.append((panel, setting, rows))
            else:
                missing.append((title.split(":")[0], f"{panel}: no connection of that stack "
                                f"with a retransmission, or no replay of {setting!r}"))
        if not data:
            continue
        fig, axes = plt.subplots(1, len(data), figsize=(6.5 * len(data), 4.6), squeeze=False)
        for ax, (panel, setting, rows) in zip(axes[0], data):
            _binned_panel(ax, rows, panel)
            rows_out += [{"figure": name.split("_")[0], "panel": panel, "setting": setting,
                          **r} for r in rows]
        axes[0][0].set_ylabel("reduction in duration (RTTs; negative: longer;\n"
                              "symmetric log, linear within ±0.01)")
        fig.suptitle(f"[TCPDEBUG] {title}", fontsize=10)
        fig.tight_layout()
        save_figure(fig, out / name)
        written.append(name)
    if rows_out:
        write_csv(out / "fig4_binned.csv", rows_out)
    return written, missing


def chapter4_figures(connections: list, out: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Write Figs. 4.2-4.11 (PNGs, and their CSVs: fig4_2_detection.csv, fig4_3_best_case.csv,
    fig4_10_smart.csv, fig4_binned.csv for the binned ones) from ``connections``. Returns the
    figures written and [(figure, why it was not drawn)]."""
    conns = population(connections)
    if not conns:
        return [], [("Figs. 4.2-4.11", "no connection with a retransmission and an RTT "
                                       "sample: nothing the timer replay could judge")]
    written, missing = _figure_4_2(conns, out)
    written += _figure_4_3(conns, out)
    got, lack = _binned_figures(conns, out)
    written += got
    missing += lack
    smart = _figure_4_10(conns, out)
    if not smart:
        missing.append(("Fig. 4.10", "no replay of Smart-Config"))
    written += smart
    return written, missing
