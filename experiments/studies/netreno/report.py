"""The report of Net Reno's reproduction (experiments.netreno_tables): [NETRENO]'s Tables 1-3 and
Fig. 1 from the runs' rows, our numbers beside the paper's, and [NETRENO]'s statements
judged on them.

Tables 1 and 2 sum each connection's RTOs and drops over the runs, as [NETRENO] does over its ten
runs of about 30 s; when the sweep ran other runs or durations, a column scales our sums to
[NETRENO]'s 10 x 30 s (drops grow with time; RTOs are few and shown as counted too). Table 3 is the
mean goodput (kb/s) of each sender's runs. Fig. 1 is the share of RTOs at a window of X
segments or more, in all and per cause, over every simulated 100 KB transfer's RTOs. [NETRENO]'s
statements on them, judged by direction and size, are ``experiments.studies.netreno.statements``.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Sequence

from analyzer.rto_classes import (LOST_RETRANSMISSION, MULTIPLE_LOSS, NON_TRIGGER, RTO_CLASSES,
                                  class_counts, window_shares)
from experiments.runner.verdicts import markdown as verdicts_markdown
from experiments.studies.netreno.scenario import TRACE_DELAY

__all__ = ["PAPER_TABLE1", "PAPER_TABLE2", "TABLE3_ROWS", "PAPER_FIG1", "SIM_NAMES",
           "table12_rows", "table3_rows", "fig1_data", "markdown",
           "plot_fig1", "PAPER_RUNS", "PAPER_SECONDS", "CONNECTIONS"]

CONNECTIONS = ("c1", "c2", "c3", "c4", "c5")
PAPER_RUNS, PAPER_SECONDS = 10, 30.0    # [NETRENO] §7.1: "10 times, each simulating about 30 s"
# [NETRENO] §7: "New-Reno and SACK ... represent, respectively, Loss-Sensitive New-Reno and SACK"
SIM_NAMES = {"lsnr": "new-reno (loss-sensitive, [NETRENO] §5.1)",
             "lssack": "sack (loss-sensitive, [NETRENO] §5.2)",
             "netreno": "net-reno", "netreno-sack": "net-reno-sack",
             "newreno": "RFC 6582 NewReno (not in [NETRENO])", "sack": "RFC 6675 SACK (not in [NETRENO])"}
# [NETRENO] Table 1: RTOs over ten runs, C1..C5
PAPER_TABLE1 = {"lsnr": (19, 33, 36, 28, 13), "lssack": (28, 35, 26, 26, 8),
                "netreno": (0, 0, 0, 0, 0), "netreno-sack": (0, 0, 0, 0, 0)}
# [NETRENO] Table 2: drops over ten runs, C1..C5
PAPER_TABLE2 = {"lsnr": (2627, 2528, 2491, 2442, 708), "lssack": (2691, 2645, 2562, 2504, 734),
                "netreno": (2674, 2625, 2610, 2553, 695),
                "netreno-sack": (2748, 2704, 2682, 2690, 691)}
# [NETRENO] Table 3 (kb/s): row, the new-reno column's sender and [NETRENO]'s number, the sack column's
TABLE3_ROWS = (("Reno (standard)", "reno", 4006, None, None),
               ("none", "lsnr", 5274, "lssack", 5009),
               ("smallwnd", "lsnr-sw", 6027, "lssack-sw", 5321),
               ("lrxt", "lsnr-lrx", 5782, "lssack-lrx", 5406),
               ("back-to-back", "lsnr-b2b", 5584, "lssack-b2b", 4985),
               ("smallwnd+lrxt", "lsnr-sw-lrx", 6717, "lssack-sw-lrx", 5925),
               ("smallwnd+lrxt+back", "netreno", 6739, "netreno-sack", 5842))
# [NETRENO] §4.1 / Fig. 1 at X = 1: "over 85% ... 11% ... 4%"; "less than 10% of timeouts have
# congestion window larger than 10 packets"
PAPER_FIG1 = {NON_TRIGGER: 0.85, MULTIPLE_LOSS: 0.11, LOST_RETRANSMISSION: 0.04}
FIG1_XS = tuple(range(1, 33))


def _sim_rows(rows: Sequence[dict]) -> list[dict]:
    return [r for r in rows if "error" not in r and str(r.get("scenario", "")).startswith(
        "netreno-sim")]


def table12_rows(rows: Sequence[dict], variants: Sequence[str]) -> list[dict]:
    """Per sender: RTOs and drops of each connection summed over its runs, the runs and
    seconds they cover, and [NETRENO]'s numbers."""
    out = []
    sim = _sim_rows(rows)
    for v in variants:
        runs = [r for r in sim if r["variant"] == v]
        if not runs:
            continue
        seconds = sum(float(r["duration"]) for r in runs)
        row = {"variant": v, "sender": SIM_NAMES.get(v, v), "runs": len(runs),
               "seconds": seconds}
        for what in ("rtos", "drops"):
            row[what] = [sum(int(r[f"{c}_{what}"]) for r in runs) for c in CONNECTIONS]
            row[f"{what}_total"] = sum(row[what])
        row["syn_rtos_total"] = sum(int(r[f"{c}_syn_rtos"]) for r in runs for c in CONNECTIONS)
        row["drops_scaled"] = [round(d * PAPER_RUNS * PAPER_SECONDS / seconds)
                               for d in row["drops"]]
        row["goodput_Mbps"] = [round(statistics.mean(float(r[f"{c}_goodput_Bps"])
                                                     for r in runs) * 8 / 1e6, 2)
                               for c in CONNECTIONS]
        row["paper_rtos"] = list(PAPER_TABLE1[v]) if v in PAPER_TABLE1 else None
        row["paper_drops"] = list(PAPER_TABLE2[v]) if v in PAPER_TABLE2 else None
        out.append(row)
    return out


def table3_rows(rows: Sequence[dict]) -> list[dict]:
    """Per row of [NETRENO] Table 3: the mean goodput (kb/s) of each column's sender over its runs,
    with its RTOs and loss rate, beside [NETRENO]'s."""
    lab = [r for r in rows if "error" not in r and str(r.get("scenario", "")).startswith(
        "netreno-lab")]

    def cell(v):
        runs = [r for r in lab if r["variant"] == v]
        if not v or not runs:
            return None
        return {"variant": v, "runs": len(runs),
                "goodput_kbps": round(statistics.mean(float(r["goodput_kbps"]) for r in runs), 1),
                "rtos": round(statistics.mean(int(r["rtos"]) for r in runs), 2),
                "loss_rate": round(statistics.mean(float(r["loss_rate"]) for r in runs), 5)}
    return [{"row": label, "newreno": cell(nr), "paper_newreno": pnr,
             "sack": cell(sk), "paper_sack": psk}
            for label, nr, pnr, sk, psk in TABLE3_ROWS if cell(nr) or cell(sk)]


def fig1_data(rows: Sequence[dict]) -> dict[str, dict]:
    """Per sender of the trace study: every RTO (cause, window), the counts, the shares at
    each X of ``FIG1_XS``, the transfers and the engines' own timeout count."""
    out: dict[str, dict] = {}
    for r in rows:
        if "error" in r or r.get("scenario") != "netreno-trace":
            continue
        d = out.setdefault(r["variant"], {"rtos": [], "transfers": 0, "completed": 0,
                                          "engine_timeouts": 0, "levels": set()})
        d["rtos"] += [(cls, int(w)) for cls, w in r["rtos"]]
        d["transfers"] += int(r["transfers"])
        d["completed"] += int(r["completed"])
        d["engine_timeouts"] += int(r["engine_timeouts"])
        d["levels"].add(float(r["level"]))
    for d in out.values():
        d["counts"] = class_counts(d["rtos"])
        d["shares"] = window_shares(d["rtos"], FIG1_XS)
        d["levels"] = sorted(d["levels"])
        d["mean_window"] = (round(statistics.mean(w for _, w in d["rtos"]), 2)
                            if d["rtos"] else None)
    return out


# ----------------------------------------------------------------------------- markdown
def _cells(values) -> str:
    return " / ".join(str(v) for v in values) if values is not None else "-"


def table1_markdown(t12: list[dict], cfg) -> str:
    lines = [f"**Table 1 ([NETRENO] §7.1): RTOs per connection, C1 / C2 / C3 / C4 / C5 = total**, "
             f"summed over the runs ({_runs_text(t12, cfg)}; [NETRENO]: 10 runs of about 30 s); "
             f"gateway: {_queue_text(cfg)}. RTOs of data; the handshake's (a SYN lost by a "
             f"sender opening into a full queue) apart.", "",
             "| sender | ours | [NETRENO] | handshake RTOs |", "|---|---|---|---:|"]
    for r in t12:
        paper = r["paper_rtos"]
        lines.append(f"| {r['sender']} (`{r['variant']}`) | {_cells(r['rtos'])} = "
                     f"{r['rtos_total']} | " + (f"{_cells(paper)} = {sum(paper)}" if paper
                                               else "-") + f" | {r['syn_rtos_total']} |")
    return "\n".join(lines)


def table2_markdown(t12: list[dict], cfg) -> str:
    lines = [f"**Table 2 ([NETRENO] §7.1): drops per connection, C1 / C2 / C3 / C4 / C5 = total**, "
             f"summed over the runs ({_runs_text(t12, cfg)}), and scaled to [NETRENO]'s 10 x 30 s; "
             f"gateway: {_queue_text(cfg)}. Goodput: each connection's mean (Mb/s).", "",
             "| sender | ours | ours, scaled to 10 x 30 s | [NETRENO] | goodput (Mb/s) |",
             "|---|---|---|---|---|"]
    for r in t12:
        paper = r["paper_drops"]
        lines.append(f"| {r['sender']} (`{r['variant']}`) | {_cells(r['drops'])} = "
                     f"{r['drops_total']} | {_cells(r['drops_scaled'])} = "
                     f"{sum(r['drops_scaled'])} | "
                     + (f"{_cells(paper)} = {sum(paper)}" if paper else "-")
                     + f" | {_cells(r['goodput_Mbps'])} |")
    return "\n".join(lines)


def table3_markdown(t3: list[dict], cfg) -> str:
    lines = [f"**Table 3 ([NETRENO] §7.2): goodput (kb/s)** of one sender through the gateway "
             f"({_lab_queue_text(cfg)}), mean of {cfg.lab_runs} run(s) of {cfg.lab_duration:g} s "
             f"([NETRENO]: 300 s); in brackets the RTOs per run and the loss rate at the gateway "
             f"([NETRENO]: 1 %).", "",
             "| optimizations | new-reno: ours | [NETRENO] | sack: ours | [NETRENO] |",
             "|---|---|---:|---|---:|"]

    def cell(c):
        if c is None:
            return "-"
        return (f"{c['goodput_kbps']:.0f} (`{c['variant']}`; {c['rtos']:g} RTOs, "
                f"{c['loss_rate']:.2%})")
    for r in t3:
        lines.append(f"| {r['row']} | {cell(r['newreno'])} | {r['paper_newreno'] or '-'} | "
                     f"{cell(r['sack'])} | {r['paper_sack'] or '-'} |")
    return "\n".join(lines)


def fig1_markdown(fig1: dict, cfg) -> str:
    lines = [f"**Fig. 1 ([NETRENO] §4.1): causes of RTOs** over simulated 100 KB transfers "
             f"(the lab path with {TRACE_DELAY} of delay a link, drop-tail, random drops of "
             f"{', '.join(f'{x:g}' for x in cfg.trace_levels)}), classified by the analyzer "
             f"(analyzer/rto_classes.py); [NETRENO]: 2,000 Internet transfers of 1995.", "",
             "| sender | transfers | RTOs (engine's) | non-trigger | multiple loss | "
             "lost retransmission | mean window | window > 10 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for v, d in fig1.items():
        n = len(d["rtos"]) or 1
        over = sum(1 for _, w in d["rtos"] if w > 10)
        lines.append(f"| `{v}` | {d['transfers']} | {len(d['rtos'])} ({d['engine_timeouts']}) "
                     f"| {d['counts'][NON_TRIGGER] / n:.0%} | {d['counts'][MULTIPLE_LOSS] / n:.0%}"
                     f" | {d['counts'][LOST_RETRANSMISSION] / n:.0%} | {d['mean_window']} | "
                     f"{over / n:.0%} |")
    lines.append("| [NETRENO] | 2,000 | - | > 85 % | 11 % | 4 % | - | < 10 % |")
    return "\n".join(lines)


def _runs_text(t12: list[dict], cfg) -> str:
    runs = sorted({r["runs"] for r in t12})
    return f"{'/'.join(map(str, runs))} run(s) of {cfg.duration:g} s per sender"


def _queue_text(cfg) -> str:
    return ("RED in the P4 program (buffer 16, min_th 4, max_th 8, w_q 0.002, max_p 1/50)"
            if cfg.queue == "red" else "the P4 program's drop-tail buffer of 16 (not RED)")


def _lab_queue_text(cfg) -> str:
    q = ("RED in the P4 program (buffer 20, min_th 5, max_th 10, w_q 1/512, max_p 0.02)"
         if cfg.queue == "red" else "the P4 program's drop-tail buffer of 20 (not RED)")
    return q + (f", {cfg.lab_loss:.1%} of data packets dropped at random" if cfg.lab_loss
                else "")


def markdown(t12, t3, fig1, stated, cfg) -> str:
    """Every table of the run, then [NETRENO]'s statements with their two verdicts."""
    parts = []
    if t12:
        parts += [table1_markdown(t12, cfg), table2_markdown(t12, cfg)]
    if t3:
        parts.append(table3_markdown(t3, cfg))
    if fig1:
        parts.append(fig1_markdown(fig1, cfg))
    parts.append(f"**[NETRENO]'s statements** ({_runs_text(t12, cfg) if t12 else 'no sim runs'}; "
                 f"[NETRENO]: 10 runs of about 30 s)\n\n"
                 + verdicts_markdown(stated, paper="[NETRENO]", columns=(("paper", "[NETRENO]"),
                                                                  ("ours", "ours"))))
    return "\n\n".join(parts)


def plot_fig1(fig1: dict, path: Path) -> bool:
    """Fig. 1: for each X, the share of RTOs at a window of X segments or more, in all and
    per cause; [NETRENO]'s shares at X = 1 as stars. False when there is nothing to draw."""
    if not any(d["rtos"] for d in fig1.values()):
        return False
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(fig1), figsize=(6.5 * len(fig1), 4.5), squeeze=False)
    styles = {"total": ("black", "-"), NON_TRIGGER: ("tab:blue", "--"),
              MULTIPLE_LOSS: ("tab:orange", "-."), LOST_RETRANSMISSION: ("tab:red", ":")}
    for ax, (v, d) in zip(axes[0], fig1.items()):
        for name, (colour, line) in styles.items():
            ax.plot(FIG1_XS, d["shares"][name], line, color=colour,
                    label=name.replace("_", " "))
        ax.plot([1, 1, 1], [PAPER_FIG1[c] for c in RTO_CLASSES], "*", ms=12, color="gold",
                mec="black", label="[NETRENO] at X = 1 (85, 11, 4 %)")
        ax.axvline(10, color="0.6", lw=0.6, ls=":")
        ax.set_xlabel("X: window at the RTO (segments)")
        ax.set_ylabel("share of RTOs with window >= X")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"{v}: {len(d['rtos'])} RTOs in {d['transfers']} transfers of 100 KB",
                     fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True
