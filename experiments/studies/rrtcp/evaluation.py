"""RR-TCP's evaluation ([RRTCP] §5) as data: every figure of [RRTCP] drawn from
runs, its curves and the runs behind each point, and the runs of its two tables.

A point's key is the ``RunSpec`` of its first seed (``point_key``); the sweep runs each key for
every seed (a key with no random element, such as SACK without delays, for seed 1 only). Figures
share runs where [RRTCP]'s setups coincide (Fig. 15's normal curve is Fig. 4's, Table 3 is read off
Fig. 12's runs, Fig. 8's fixed-FA sender at 90 % is DSACK-FA), so a sweep runs each once. The
one-run figures (1, 9 and 19) are traces of a single run each (``TRACES``), run by the driver.

[RRTCP]'s numbers in the captions are kept; the x values of each figure are the mode's
(``RrConfig``): [RRTCP]'s figure images are missing, so its exact points are unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable

from experiments.runner.spec import RunSpec
from experiments.studies.rrtcp.scenario import PATH_DELAY
from hosts.tcp.variants import VARIANTS as ALL_VARIANTS
from topologies.paper import RRTCP_MAXWND

__all__ = ["RrConfig", "Curve", "Panel", "TableSpec", "Trace", "panels", "tables", "traces",
           "build_specs", "point_key", "point_keys", "ideal_key", "PAPER_NAMES", "FA_VARIANTS",
           "DISTRIBUTIONS", "random_elements", "base_spec", "BURSTS"]

PAPER_NAMES = {"sack": "SACK", "dsack": "DSACK-R", "rrtcp-fa": "DSACK-FA",
               "rrtcp-fa-rtx": "DSACK-FA-RTX", "rrtcp": "DSACK-TA", "rrtcp-rtx": "DSACK-TA-RTX",
               "rrtcp-faes": "DSACK-FAES", "rrtcp-taes": "DSACK-TAES", "rrtcp-hg": "DSACK-HG",
               "dsack-inc": "BL-INC", "dsack-avg": "BL-AVG", "dsack-ewma": "BL-EWMA",
               "dsack-timedel": "BL-TIMEDEL", "dsack-timeinc": "BL-TIMEINC",
               "rack": "RACK-TLP (RFC 8985)"}
# the senders whose FA ratio is fixed ([RRTCP] §4.2), which a run's fa_ratio sets
FA_VARIANTS = ("rrtcp-fa", "rrtcp-fa-rtx", "rrtcp-faes")
FA_DEFAULT = 0.90               # [RRTCP] Table 2: the initial (DSACK-FA: fixed) FA ratio
# [RRTCP] §5.5: the delay distributions, each with mean 25 ms (Fig. 15), ns-2's default shapes
DISTRIBUTIONS = {"normal": "normal:0.025,0.008", "exponential": "exponential:0.025",
                 "hyperexponential": "hyperexponential:0.025,4",
                 "pareto": "pareto:0.025,1.5", "pareto II": "pareto2:0.025,1.2",
                 "uniform": "uniform:0,0.05"}
BURSTS = 0.0002                 # [RRTCP] §5.7: "a small fraction (0.02%) of packet drops"


@dataclass(frozen=True)
class RrConfig:
    """A mode of the sweep: run length, seeds, which figures, and each figure's x values."""

    duration: float                     # s per run (at P = 50 ms, see ``per_packet``)
    seeds: int
    figures: tuple[str, ...]            # "1", "4", ..., "19", "t3", "t4"
    levels: tuple[float, ...]           # Figs. 4/5: fractions of data packets delayed
    drops: tuple[float, ...]            # Fig. 6: drop rates
    path_delays: tuple[float, ...]      # Fig. 7: P, s
    fa_ratios: tuple[float, ...]        # Figs. 8 and 12/13: fixed FA ratios
    long_k: tuple[float, ...]           # Figs. 10/11: mean delay kP, P = 200 ms
    ack_levels: tuple[float, ...]       # Fig. 14: fractions of ACKs delayed
    dist_levels: tuple[float, ...]      # Fig. 15: fractions delayed, every distribution
    path_gaps: tuple[float, ...]        # Fig. 16: delay of the second path, s
    bl_k: tuple[float, ...]             # Figs. 17/18: mean delay kP, P = 50 ms
    variants: tuple[str, ...] = ()      # only these senders (empty: each figure's own)
    # runs on a slower path (P > 50 ms, capacity M/2P) last P/50 ms times ``duration``, so that
    # every run carries as many packets (quick mode's short runs); False: all ``duration`` ([RRTCP])
    per_packet: bool = False


@dataclass(frozen=True)
class Curve:
    """One line of a figure: ``variant`` at each (x, point key); ``hline``: a sender drawn as a
    horizontal line at its one point (a fixed reference, such as DSACK-TA in Fig. 8)."""

    label: str
    variant: str
    points: tuple[tuple[float, RunSpec], ...]
    hline: bool = False
    style: str = ""                     # a distribution's name (Fig. 15): line style by it


@dataclass(frozen=True)
class Panel:
    """One figure of [RRTCP]: what it plots and the curves it has."""

    number: str                         # "4", "8a"
    name: str                           # the PNG's name
    title: str                          # [RRTCP]'s caption
    xlabel: str
    metric: str                         # a field of the report's points
    ylabel: str
    curves: tuple[Curve, ...]
    log_y: bool = False


@dataclass(frozen=True)
class TableSpec:
    """One table of [RRTCP]: its rows (label, point key)."""

    number: str
    name: str
    title: str
    rows: tuple[tuple[str, RunSpec], ...]


@dataclass(frozen=True)
class Trace:
    """A one-run figure: the run, and what the driver draws of it."""

    number: str
    name: str
    title: str
    specs: tuple[RunSpec, ...]
    step: float                         # sampling step of the series, s
    delay_nth: frozenset = field(default_factory=frozenset)


# ------------------------------------------------------------------------------- keys
def base_spec(cfg: RrConfig, variant: str, **kw) -> RunSpec:
    """A point's key: ``variant`` on [RRTCP]'s scenario with ``kw``; delayed packets (``level``)
    mean injection "delay" unless another is given; a fixed FA ratio of 90 % is the FA
    senders' own, so the key leaves it unset and the point is theirs."""
    if kw.get("fa_ratio") == FA_DEFAULT:
        kw["fa_ratio"] = 0.0
    if kw.get("level") and "injection" not in kw:
        kw["injection"] = "delay"
    duration = cfg.duration
    if cfg.per_packet and kw.get("path_delay", 0.0) > PATH_DELAY:
        duration = round(cfg.duration * kw["path_delay"] / PATH_DELAY, 6)
    return RunSpec(variant, scenario="rrtcp", duration=duration,
                   max_cwnd_segments=RRTCP_MAXWND, **kw)


def point_key(spec_or_row) -> RunSpec:
    """The key of the point a run (spec or row) belongs to: its spec at seed 1, no series."""
    if isinstance(spec_or_row, dict):
        names = RunSpec.__dataclass_fields__
        spec_or_row = RunSpec(**{k: v for k, v in spec_or_row.items() if k in names})
    return replace(spec_or_row, seed=1, sample_step=0.0)


def ideal_key(key: RunSpec) -> RunSpec:
    """SACK-NODELAY of a point ([RRTCP] §5.1.1): SACK on the same path with the same random drops,
    nothing delayed or burst."""
    return replace(key, variant="sack", injection="swap", level=0.0, delay="", ack_level=0.0,
                   bursts=0.0, fa_ratio=0.0, alt_extra_delay=RunSpec.alt_extra_delay)


def random_elements(key: RunSpec) -> bool:
    """Whether a seed changes the run beyond the connections' initial sequence numbers."""
    return bool(key.level or key.ack_level or key.drop or key.bursts)


def _senders(cfg: RrConfig, names: Iterable[str]) -> list[str]:
    return [v for v in names if v in ALL_VARIANTS and (not cfg.variants or v in cfg.variants)]


def _label(variant: str, suffix: str = "") -> str:
    return PAPER_NAMES.get(variant, variant) + suffix


def _curve(cfg, variant, xs, make, *, scale: float = 1.0, suffix: str = "", **kw) -> Curve:
    """``variant``'s curve over ``xs``, each point ``make(variant, x)``, drawn at x * ``scale``
    (the figure's unit: per cent, milliseconds)."""
    return Curve(_label(variant, suffix), variant,
                 tuple((round(x * scale, 9), make(variant, x)) for x in xs), **kw)


def _normal_k(k: float, p: float) -> str:
    """[RRTCP] §5.3/§5.7: N(kP, kP/3)."""
    return f"normal:{k * p:g},{k * p / 3:g}"


# ------------------------------------------------------------------------------- figures
def _fig4_5(cfg: RrConfig) -> list[Panel]:
    senders = _senders(cfg, ("sack", "dsack", "rrtcp-fa", "rrtcp-fa-rtx", "rrtcp", "rrtcp-rtx"))
    def make(v, x):
        return base_spec(cfg, v, level=x)
    curves = [_curve(cfg, v, cfg.levels, make, scale=100) for v in senders]
    ideal = Curve("SACK-NODELAY", "sack", ((0.0, base_spec(cfg, "sack")),))
    caption = "50 ms propagation delay, normally distributed pkt delay, mean 25 ms, stdev 8 ms"
    return [Panel("4", "fig04_throughput_vs_delayed.png",
                  f"Throughput vs. fraction of delayed packets. {caption}",
                  "data packets delayed (%)", "throughput", "throughput (B/s)",
                  tuple(curves) + (ideal,)),
            Panel("5", "fig05_ffr_ratio_vs_delayed.png",
                  f"False fast retransmit ratio vs. fraction of delayed packets. {caption}",
                  "data packets delayed (%)", "ffr_ratio",
                  "false fast retransmits per delayed packet",
                  tuple(c for c in curves if c.variant != "sack"), log_y=True)]


def _fig6(cfg: RrConfig) -> list[Panel]:
    senders = _senders(cfg, ("sack", "dsack", "rrtcp-fa", "rrtcp"))
    def make(v, x):
        return base_spec(cfg, v, level=0.05, drop=x)
    curves = [_curve(cfg, v, cfg.drops, make, scale=100) for v in senders]
    curves.append(Curve("SACK-NODELAY", "sack",
                        tuple((round(x * 100, 9), base_spec(cfg, "sack", drop=x))
                              for x in cfg.drops)))
    return [Panel("6", "fig06_throughput_vs_drops.png",
                  "Throughput vs. drop rate. 5% of packets delayed. 50 ms propagation delay, "
                  "normally distributed pkt delay, mean 25 ms, stdev 8 ms",
                  "data packets dropped (%)", "throughput", "throughput (B/s)", tuple(curves))]


def _timeout_setup(cfg: RrConfig, v: str, p: float, **kw) -> RunSpec:
    """[RRTCP] §5.2: 1.4 % delayed by U[0, 4P], 0.6 % dropped."""
    return base_spec(cfg, v, level=0.014, drop=0.006, delay=f"uniform:0,{4 * p:g}",
                     path_delay=p, **kw)


def _fig7_8(cfg: RrConfig) -> list[Panel]:
    senders = _senders(cfg, ("sack", "dsack", "rrtcp-fa", "rrtcp"))
    fig7 = [_curve(cfg, v, cfg.path_delays, lambda v, x: _timeout_setup(cfg, v, x), scale=1e3)
            for v in senders]
    fa = _senders(cfg, ("rrtcp-fa",))
    fixed = [_curve(cfg, v, cfg.fa_ratios, lambda v, x: _timeout_setup(cfg, v, 0.1, fa_ratio=x),
                    scale=100, suffix=" (fixed)") for v in fa]
    refs = [Curve(_label(v), v, ((0.0, _timeout_setup(cfg, v, 0.1)),), hline=True)
            for v in _senders(cfg, ("rrtcp", "dsack"))]
    fig8 = tuple(fixed + refs)
    caption = "P = 100 ms, 1.4% of packets delayed by U[0, 4P], 0.6% dropped"
    return [Panel("7", "fig07_throughput_vs_path_delay.png",
                  "Throughput vs. link propagation delay. 1.4% of packets delayed; 0.6% of "
                  "packets dropped; uniform packet delay in [0, 4P]",
                  "propagation delay P of (R1, R2) (ms)", "throughput", "throughput (B/s)",
                  tuple(fig7)),
            Panel("8a", "fig08a_timeouts_vs_fa_ratio.png",
                  f"Timeout avoidance: DSACK-FA and DSACK-TA. {caption}", "FA ratio (%)",
                  "timeout_fraction", "timeouts per packet sent", fig8),
            Panel("8b", "fig08b_fast_retransmits_vs_fa_ratio.png",
                  f"Timeout avoidance: DSACK-FA and DSACK-TA. {caption}", "FA ratio (%)",
                  "fr_fraction", "fast retransmits per packet sent", fig8),
            Panel("8c", "fig08c_throughput_vs_fa_ratio.png",
                  f"Timeout avoidance: DSACK-FA and DSACK-TA. {caption}", "FA ratio (%)",
                  "throughput", "throughput (B/s)", fig8)]


LONG_P = 0.2        # [RRTCP] §5.3: P = 200 ms
LONG_LEVEL = 0.04   # [RRTCP] §5.3: 4 % of packets delayed, no drops
TABLE3_K = 6.0      # [RRTCP] §5.3: "we fix k at 6" (N(1200, 400) ms) for Figs. 12/13 and Table 3


def _long_delay(cfg: RrConfig, v: str, k: float, **kw) -> RunSpec:
    return base_spec(cfg, v, level=LONG_LEVEL, delay=_normal_k(k, LONG_P), path_delay=LONG_P,
                     **kw)


def _fig10_13(cfg: RrConfig) -> list[Panel]:
    senders = _senders(cfg, ("sack", "rrtcp-fa", "rrtcp", "rrtcp-taes", "rrtcp-hg"))
    long = tuple(_curve(cfg, v, cfg.long_k, lambda v, x: _long_delay(cfg, v, x), scale=LONG_P)
                 for v in senders)
    fixed = [_curve(cfg, v, cfg.fa_ratios,
                    lambda v, x: _long_delay(cfg, v, TABLE3_K, fa_ratio=x), scale=100,
                    suffix=" (fixed)") for v in _senders(cfg, ("rrtcp-fa", "rrtcp-faes"))]
    refs = [Curve(_label(v), v, ((0.0, _long_delay(cfg, v, TABLE3_K)),), hline=True)
            for v in _senders(cfg, ("rrtcp", "rrtcp-taes", "rrtcp-hg"))]
    caption = ("4% of packets delayed; no packet drops; P = 200 ms propagation delay; "
               "normally distributed pkt delay")
    by_fa = tuple(fixed + refs)
    return [Panel("10", "fig10_throughput_vs_mean_delay.png",
                  f"Throughput vs. average delay time. {caption}; mean kP, stdev kP/3",
                  "mean packet delay kP (s)", "throughput", "throughput (B/s)", long),
            Panel("11", "fig11_timeouts_vs_mean_delay.png",
                  f"Fraction of packets that encounter timeout vs. average delay time. "
                  f"{caption}; mean kP, stdev kP/3", "mean packet delay kP (s)",
                  "timeout_fraction", "timeouts per packet sent", long),
            Panel("12", "fig12_timeouts_vs_fa_ratio.png",
                  f"Fraction of packets that encounter timeout vs. FA ratio. {caption}; mean "
                  f"1200 ms, stdev 400 ms", "FA ratio (%)", "timeout_fraction",
                  "timeouts per packet sent", by_fa),
            Panel("13", "fig13_throughput_vs_fa_ratio.png",
                  f"Throughput vs. FA ratio. {caption}; mean 1200 ms, stdev 400 ms",
                  "FA ratio (%)", "throughput", "throughput (B/s)", by_fa)]


def _fig14(cfg: RrConfig) -> list[Panel]:
    def make(v, x):
        return base_spec(cfg, v, level=0.035, drop=0.005, delay="normal:0.1,0.033",
                         path_delay=0.2, ack_level=x)
    curves = tuple(_curve(cfg, v, cfg.ack_levels, make, scale=100)
                   for v in _senders(cfg, ("dsack", "rrtcp-fa", "rrtcp", "rrtcp-taes")))
    return [Panel("14", "fig14_throughput_vs_ack_reordering.png",
                  "Throughput vs. fraction of reordered ACKs. 200 ms propagation delay, 0.5% of "
                  "data packets dropped, 3.5% of data packets delayed, normally distributed data "
                  "and ACK pkt delay, mean 100 ms, stdev 33 ms", "ACKs delayed (%)",
                  "throughput", "throughput (B/s)", curves)]


def _fig15(cfg: RrConfig) -> list[Panel]:
    curves = []
    for name, dist in DISTRIBUTIONS.items():
        for v in _senders(cfg, ("sack", "rrtcp")):
            curves.append(_curve(cfg, v, cfg.dist_levels,
                                 lambda v, x: base_spec(cfg, v, level=x, delay=dist),
                                 scale=100, suffix=f", {name}", style=name))
    return [Panel("15", "fig15_throughput_vs_distribution.png",
                  "Throughput vs. fraction of delayed packets. 50 ms propagation delay, mean "
                  "pkt delay 25 ms", "data packets delayed (%)", "throughput",
                  "throughput (B/s)", tuple(curves))]


def _fig16(cfg: RrConfig) -> list[Panel]:
    def make(v, gap):
        if not gap:         # [RRTCP] §5.6: "at a delay of zero ... no reordering"
            return base_spec(cfg, v)
        return base_spec(cfg, v, injection="altpath", level=0.5,
                         alt_extra_delay=f"{gap * 1e3:g}ms")
    curves = tuple(_curve(cfg, v, (0.0,) + tuple(cfg.path_gaps), make, scale=1e3,
                          suffix="-MEAN" if v == "rrtcp" else "")
                   for v in _senders(cfg, ("sack", "rrtcp")))
    return [Panel("16", "fig16_throughput_vs_path_difference.png",
                  "Throughput vs. pkt delay. 50 ms propagation delay, no loss; 50% of packets "
                  "over a second path longer by the delay", "delay of the second path (ms)",
                  "throughput", "throughput (B/s)", curves)]


def _fig17_18(cfg: RrConfig) -> list[Panel]:
    senders = _senders(cfg, ("sack", "dsack", "dsack-inc", "dsack-avg", "dsack-ewma",
                             "dsack-timedel", "dsack-timeinc", "rrtcp"))
    def make(v, k):
        return base_spec(cfg, v, level=0.01, delay=_normal_k(k, 0.05))
    curves = tuple(_curve(cfg, v, cfg.bl_k, make, scale=50) for v in senders)
    caption = ("Link delay P = 50 ms; 1% of packets delayed; none dropped. Packet delay "
               "normally distributed, mean kP, stdev kP/3")
    return [Panel("17", "fig17_throughput_vs_mean_delay_bl.png",
                  f"Throughput vs. average delay time. {caption}", "mean packet delay kP (ms)",
                  "throughput", "throughput (B/s)", curves),
            Panel("18", "fig18_fast_retransmits_vs_mean_delay_bl.png",
                  f"Incidence of fast retransmits vs. average delay time. {caption}",
                  "mean packet delay kP (ms)", "fr_fraction",
                  "fast retransmits per packet sent", curves)]


_FIGURES = {"4": _fig4_5, "6": _fig6, "7": _fig7_8, "10": _fig10_13, "14": _fig14,
            "15": _fig15, "16": _fig16, "17": _fig17_18}
# a figure number asked for -> the builder that draws it
FIGURE_OF = {"4": "4", "5": "4", "6": "6", "7": "7", "8": "7", "10": "10", "11": "10",
             "12": "10", "13": "10", "14": "14", "15": "15", "16": "16", "17": "17", "18": "17"}
ALL_FIGURES = ("1", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
               "17", "18", "19", "t3", "t4")


def panels(cfg: RrConfig) -> list[Panel]:
    """The figures of ``cfg.figures`` drawn from the sweep's points, in [RRTCP]'s order."""
    wanted = set(cfg.figures)
    out = []
    for builder in dict.fromkeys(FIGURE_OF[f] for f in ALL_FIGURES if f in FIGURE_OF):
        for panel in _FIGURES[builder](cfg):
            if panel.number.rstrip("abc") in wanted:
                out.append(panel)
    return out


# ------------------------------------------------------------------------------- tables
def tables(cfg: RrConfig) -> list[TableSpec]:
    out = []
    if "t3" in cfg.figures:
        rows = [(_label(v, " (95%)" if v == "rrtcp-fa" else ""),
                 _long_delay(cfg, v, TABLE3_K, **({"fa_ratio": 0.95} if v == "rrtcp-fa" else {})))
                for v in _senders(cfg, ("sack", "dsack", "rrtcp-fa", "rrtcp", "rrtcp-taes",
                                        "rrtcp-hg"))]
        out.append(TableSpec("3", "table3_mean_rto.md", "Mean RTO (s) across all RTOs "
                             "(Fig. 12's setup: P = 200 ms, 4% delayed by N(1200, 400) ms)",
                             tuple(rows)))
    if "t4" in cfg.figures:
        rows = [(f"{_label(v)}, {what}", _bursty(cfg, v, bursts))
                for v in _senders(cfg, ("dsack-inc", "rrtcp"))
                for what, bursts in (("no drops", 0.0), ("drops", BURSTS))]
        out.append(TableSpec("4", "table4_bursty_loss.md", "Throughput and fast retransmit "
                             "ratios, with and without bursty packet loss", tuple(rows)))
    return out


def _bursty(cfg: RrConfig, v: str, bursts: float, **kw) -> RunSpec:
    """[RRTCP] §5.7, Table 4: P = 200 ms, 2 % delayed by N(100, 33) ms, drop events or none."""
    return base_spec(cfg, v, level=0.02, delay="normal:0.1,0.033", path_delay=0.2,
                     bursts=bursts, **kw)


# ------------------------------------------------------------------------------- traces
FIG1_DELAYED_PACKET = 15    # the first packet of the window of 16 (IW 2: 2 + 4 + 8 before it)
FIG1_DELAY = "constant:0.45"    # [RRTCP] §2.1: "The first packet sent is delayed by 0.45 s"
FIG1_DURATION = 1.6     # s: the false fast retransmit and its undo, as [RRTCP]'s Fig. 1 shows


def traces(cfg: RrConfig) -> list[Trace]:
    out = []
    if "1" in cfg.figures and "dsack" in ALL_VARIANTS:
        spec = base_spec(cfg, "dsack", injection="delay", delay=FIG1_DELAY)
        out.append(Trace("1", "fig01_false_fast_retransmit.png",
                         "Example of a false fast retransmit; packet number vs. time. Times "
                         "are at sender. One packet delayed by 0.45 s",
                         (replace(spec, duration=FIG1_DURATION),), 0.01,
                         frozenset({FIG1_DELAYED_PACKET})))
    if "9" in cfg.figures and "rrtcp" in ALL_VARIANTS:
        out.append(Trace("9", "fig09_fa_ratio_over_time.png",
                         "FA ratio and dupthresh vs. simulated time for a single simulation "
                         "(Fig. 8's setup, P = 100 ms)",
                         (_timeout_setup(cfg, "rrtcp", 0.1),), 1.0))
    if "19" in cfg.figures:
        specs = tuple(_bursty(cfg, v, BURSTS) for v in _senders(cfg, ("rrtcp", "dsack-inc")))
        if specs:
            out.append(Trace("19", "fig19_dupthresh_over_time.png",
                             "dupthresh values of DSACK-TA and DSACK-BL-INC vs. time for a "
                             "single simulation (Table 4's setup with drops)", specs, 1.0))
    return out


# ------------------------------------------------------------------------------- runs
def point_keys(cfg: RrConfig) -> list[RunSpec]:
    """Every point the figures and tables read, once each, in [RRTCP]'s order."""
    keys = [key for panel in panels(cfg) for curve in panel.curves for _, key in curve.points]
    keys += [key for table in tables(cfg) for _, key in table.rows]
    # throughput relative to each point's SACK-NODELAY, where that is one run (no random drops)
    keys += [ideal_key(k) for k in keys if not random_elements(ideal_key(k))]
    return list(dict.fromkeys(keys))


def build_specs(cfg: RrConfig) -> list[RunSpec]:
    """The sweep's runs: each point key for every seed (seed 1 only when no random element
    takes part)."""
    return [replace(key, seed=seed) for key in point_keys(cfg)
            for seed in range(1, (cfg.seeds if random_elements(key) else 1) + 1)]
