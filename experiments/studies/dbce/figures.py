"""[TCPDEBUG] ch. 5's distributions over connections, drawn as [TCPDEBUG] draws them (cumulative
fractions of connections or events), from the scored connections of
``experiments.dbce_tables`` (``analyzer.study``'s rows):

- Fig. 5.1: the per-connection loss rate (lost data segments / data segments), one curve per
  network, as [TCPDEBUG] draws one per trace; "60-85 % of connections have no losses";
- Fig. 5.3: how long before a loss episode its congestion phase began, in the connection's
  smoothed RTT (gain 1/8), one curve per estimator; "50-70 % of congestion-phases that are
  actually followed by a loss-episode begin at least one RTT before the first loss";
- Fig. 5.5: the best case, the change in duration an ideal estimator (LPA = FPA = 1) would
  bring, additive and multiplicative decrease (App. B's model, in RTTs); "60 % of the
  connection can gain less than 10 % of a RTT".

Loss rates and savings of 0 (most connections) cannot sit on a logarithmic axis: each curve
starts at the share of its zeros, printed at the axis' left edge, which the x label says.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, NullFormatter

from experiments.runner.plots import save_figure

__all__ = ["chapter5_figures", "loss_rates", "leads", "best_cases", "curve_styles", "log_bins",
           "plain_number", "cdf_from_floor", "best_case_axes"]

LOSS_FLOOR = 1e-4       # loss rates: the axis' left edge (0 plotted there)
SAVING_FLOOR = 1e-3     # RTTs saved: the axis' left edge (0 and less plotted there)
LEAD_FLOOR = 1e-2       # sRTTs before the loss: the axis' left edge


def loss_rates(conns: list) -> dict:
    """{network: [loss rate of each connection]} of the scored connections (Fig. 5.1)."""
    out: dict = {}
    for c in conns:
        out.setdefault(c["network"], []).append(c["loss_rate"])
    return out


def leads(conns: list, estimators: list) -> dict:
    """{estimator: [sRTTs between the start of a congestion phase and the loss episode that
    ended it]} over every predicted episode (Fig. 5.3); rows analysed without the list (a
    journal of an older analyzer) give none."""
    out: dict = {}
    for est in estimators:
        out[est] = [x for c in conns for x in (c["dbce"][est]["all"][9:10] or [[]])[0]]
    return out


def best_cases(conns: list) -> dict:
    """{policy: [best-case saving of each connection, RTTs]} (Fig. 5.5; 0 without loss)."""
    return {"additive": [c["best"][0] for c in conns],
            "multiplicative": [c["best"][1] for c in conns]}


def cdf_from_floor(ax, values: list, floor: float, label: str, style: dict) -> list[tuple]:
    """The cumulative fraction of ``values``, those at or below ``floor`` counted at the left
    edge (the curve starts at their share); the curve's points (none for no values)."""
    if not values:
        return []
    n = len(values)
    at_floor = sum(1 for v in values if v <= floor)
    rest = sorted(v for v in values if v > floor)
    xs = [floor] + rest
    ys = [at_floor / n] + [(at_floor + i + 1) / n for i in range(len(rest))]
    ax.step(xs, ys, where="post", label=f"{label} ({n:,})", **style)
    return list(zip(xs, ys))


def best_case_axes(ax, linthresh: float) -> None:
    """The frame of a figure of savings against the best case: the best case on a log axis,
    the saving on a symmetric log axis (linear within ``linthresh``: savings may be negative),
    both in plain numbers, and the line of no change."""
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(plain_number))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yscale("symlog", linthresh=linthresh)
    ax.yaxis.set_major_formatter(FuncFormatter(plain_number))


def log_bins(values: list) -> list:
    """Bin edges half a decade apart spanning the positive ``values`` (whole decades at the
    ends)."""
    positive = [v for v in values if v > 0]
    if not positive:
        return [0.01, 1.0]
    lo = 10 ** math.floor(math.log10(min(positive)))
    hi = 10 ** math.ceil(math.log10(max(positive)) + 1e-9)
    edges, x = [], lo
    while x <= hi * 1.0001:
        edges.append(x)
        x *= math.sqrt(10)
    return edges


def plain_number(v, _pos=None) -> str:
    """A tick label without powers of ten: 1,000, 10, 0.1, -0.01."""
    return f"{v:,.0f}" if abs(v) >= 10 or v == 0 else f"{v:g}"


def curve_styles(names: list) -> dict:
    """One line style and colour per name, in order: the curves of a CDF figure told apart."""
    cycle = ["-", "--", ":", "-."]
    return {n: {"ls": cycle[i % 4], "color": f"C{i % 10}", "lw": 1.3}
            for i, n in enumerate(names)}


def _log_cdf_axes(ax, floor: float, mark: float, mark_text: str, xlabel: str, ylabel: str,
                  title: str) -> None:
    """The frame of a cumulative figure on a log axis whose values at or under ``floor`` sit
    at its left edge (``cdf_from_floor``), with a reference line at ``mark``."""
    ax.axvline(mark, color="0.3", lw=0.8)
    ax.text(mark * 1.05, 0.03, mark_text, fontsize=7, color="0.3")
    ax.set_xscale("log")
    ax.set_xlim(floor * 0.8, None)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)


def chapter5_figures(conns: list, estimators: list, styles: dict, out: Path) -> list[str]:
    """Write fig5_1_loss_rate.png, fig5_3_lead.png and fig5_5_best_case.png from the scored
    connections ``conns``; ``styles`` are the estimators' (those of Figs. 5.2 and 5.4, so an
    estimator looks alike in every figure). Returns the names written."""
    written = []
    if not conns:
        return written
    rates = loss_rates(conns)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, style in curve_styles(sorted(rates)).items():
        cdf_from_floor(ax, rates[name], LOSS_FLOOR, name, style)
    ax.set_xscale("log")
    ax.set_xlim(LOSS_FLOOR * 0.8, 1.0)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"loss rate per connection (lost / data segments; no loss at "
                  f"{LOSS_FLOOR:g})")
    ax.set_ylabel("fraction of connections")
    ax.set_title("[TCPDEBUG] Fig. 5.1: per-connection loss rate ([TCPDEBUG]: 60-85 % without loss)",
                 fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    save_figure(fig, out / "fig5_1_loss_rate.png")
    written.append("fig5_1_loss_rate.png")

    phases = leads(conns, estimators)       # congestion phases before each predicted loss
    if any(phases.values()):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for est in estimators:
            cdf_from_floor(ax, phases[est], LEAD_FLOOR, est, styles[est])
        _log_cdf_axes(ax, LEAD_FLOOR, 1.0, "1 RTT",
                      f"congestion phase before a loss episode (sRTTs; under {LEAD_FLOOR:g} "
                      f"at the left edge)", "fraction of predicted loss episodes",
                      "[TCPDEBUG] Fig. 5.3: congestion-phase durations before loss "
                      "([TCPDEBUG]: 50-70 % at least one RTT)")
        ax.legend(fontsize=6.5, loc="upper left", ncol=2)
        save_figure(fig, out / "fig5_3_lead.png")
        written.append("fig5_3_lead.png")

    best = best_cases(conns)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (policy, values), style in zip(best.items(), ({"ls": "-", "color": "C0", "lw": 1.6},
                                                      {"ls": "--", "color": "C3", "lw": 1.3})):
        cdf_from_floor(ax, values, SAVING_FLOOR, f"{policy} decrease", style)
    _log_cdf_axes(ax, SAVING_FLOOR, 0.1, "0.1 RTT",
                  f"best-case saving in duration (RTTs; {SAVING_FLOOR:g} or less, no loss "
                  f"among them, at the left edge)", "fraction of connections",
                  "[TCPDEBUG] Fig. 5.5: best-case savings in connection durations "
                  "([TCPDEBUG]: 60 % gain under 0.1 RTT)")
    ax.legend(fontsize=7, loc="lower right")
    save_figure(fig, out / "fig5_5_best_case.png")
    written.append("fig5_5_best_case.png")
    return written
