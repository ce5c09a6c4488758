"""[NETRENO]'s Figs. 2-5 ([NETRENO] §4.2, §6.2, §6.4): time-sequence diagrams of one connection,
each showing one of Net Reno's mechanisms at work.

- Fig. 2 (§4.2, NR-SW): a loss in a window of three recovered by fast retransmission, the
  segments sent on the first two duplicate ACKs bringing the third (``lsnr-sw``);
- Fig. 3 (§6.2): the SACK sender's fast retransmission is lost too, and the connection waits
  for its timer (``lssack``);
- Fig. 4 (§6.2, NR-LRX): the same connection with the ACK clock, which sends the segment again
  one counted round trip and three duplicate ACKs later, without a timeout (``lssack-lrx``);
- Fig. 5 (§6.4, NR-B2B): a New-Reno connection's second recovery starts on the first duplicate
  ACK after the full ACK of the first one (``lsnr-b2b``).

[NETRENO] drew each from a trace of its simulations. Here each is drawn from one traced run of [NETRENO]'s
networks (``experiments.studies.netreno.scenario``): Figs. 2-4 from the lab's single connection
(§7.2, RED from 100 to 10 Mb/s, with ``LAB_LEVEL`` random drops so that losses come often in
a few seconds), Fig. 5 from sender C1 of the five of §7.1, whose windows reach the tens of
segments a second recovery needs. Each figure's run is the first seed (1, 2, ... up to
``SEARCH_SEEDS``) whose trace shows the figure's event, found from the sender's engine events
(``fast-retransmit``, ``retransmit``, ``timeout``, ``recovery-exit``); Fig. 4 runs with Fig. 3's
seed, the same connection up to the lost retransmission, as [NETRENO]'s. The capture is at the
sender's interface; the diagrams are drawn by ``experiments.runner.timeseq``, as every study's
are, with the event's points labelled, and each figure's points are written beside it as a
CSV (time, segment, what).
"""

from __future__ import annotations

import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from experiments.runner.report import write_csv
from experiments.runner.spec import RunSpec
from experiments.runner.timeseq import TimeSequence, read_time_sequence, time_sequence_panels
from experiments.studies.netreno.scenario import run_netreno_lab, run_netreno_sim

__all__ = ["TRACE_FIGURES", "SEARCH_SEEDS", "LAB_SECONDS", "SIM_SECONDS", "LAB_LEVEL",
           "Traced", "Event", "trace_figures"]

SEARCH_SEEDS = 10       # seeds tried per figure before saying the event did not happen
LAB_SECONDS = 3.0       # each lab run: some 7,000 segments at 10 Mb/s
SIM_SECONDS = 2.0       # each run of the five senders (they open within the first second)
LAB_LEVEL = 0.03        # data packets the gateway drops at random besides RED's
SMALL_WINDOW = 3        # [NETRENO] Fig. 2: "The connection has a window size of three packets"
NEAR = 0.002            # s: a captured segment and the engine event that sent it
SEGMENT = 512           # [NETRENO]'s segment size (netbsd_config)


@dataclass
class Traced:
    """One traced run: its counters, the diagram of its capture, the engine events (time,
    event, fields) of the traced sender."""
    variant: str
    seed: int
    row: dict
    ts: TimeSequence
    events: list


@dataclass
class Event:
    """What a figure shows: the stretches to draw (t0, t1) and the labelled points."""
    windows: list
    marks: list             # (time, segment, text)
    summary: str


def _resent_near(ts: TimeSequence, t: float, segment: float | None = None):
    """The captured retransmission the engine sent at ``t`` (of ``segment`` when given)."""
    found = [(tt, s) for tt, s in ts.resent
             if t - 1e-9 <= tt <= t + NEAR and (segment is None or s == segment)]
    return found[0] if found else None


def _first_sent(ts: TimeSequence, segment: float) -> float | None:
    return next((t for t, s in ts.sent if s == segment), None)


def _pad(t0: float, t1: float, after: float = 1.0, before: float = 0.4) -> tuple[float, float]:
    """The stretch from ``t0`` to ``t1`` with ``before`` and ``after`` of its length around."""
    span = max(t1 - t0, 1e-3)
    return max(0.0, t0 - before * span), t1 + after * span


def _small_window(run: Traced, end: float) -> Event | None:
    """A fast retransmission of a segment with at most two segments sent above it before its
    first duplicate ACK (Reno's window of three: two duplicate ACKs, never the third), the
    segments NR-SW sent on the duplicate ACKs bringing the rest."""
    ts = run.ts
    for t, event, fields in run.events:
        if event != "fast-retransmit" or t > end:
            continue
        point = _resent_near(ts, t)
        if point is None:
            continue
        t_fr, lost = point
        t_sent = _first_sent(ts, lost)
        if t_sent is None:
            continue
        above = [(tt, s) for tt, s in ts.sent if t_sent < tt < t_fr and s > lost]
        dups = [tt for tt, a in ts.acks if t_sent < tt < t_fr and a == lost]
        first_dup = dups[1] if len(dups) > 1 else None   # the first ACK at it moves it there
        if first_dup is None:
            continue
        window = [p for p in above if p[0] <= first_dup]
        early = [p for p in above if p[0] > first_dup]
        if len(window) + 1 <= SMALL_WINDOW and early:
            marks = [(t_sent, lost, f"segment {lost:g} lost"),
                     *[(tt, s, f"{s:g} sent on duplicate ACK {i + 1}")
                       for i, (tt, s) in enumerate(early[:2])],
                     (t_fr, lost, f"fast retransmission of {lost:g}")]
            return Event([_pad(t_sent, t_fr, 0.8)], marks,
                         f"a window of {len(window) + 1}: segment {lost:g} lost, "
                         f"{len(early)} sent on duplicate ACKs, fast retransmission at "
                         f"{t_fr:.4f} s")
    return None


def _retransmissions(run: Traced, end: float) -> list:
    """(time, captured segment) of the engine's retransmissions up to ``end``, each once."""
    out: list = []
    for t, event, _ in run.events:
        if event == "retransmit" and t <= end:
            point = _resent_near(run.ts, t)
            if point is not None and point not in out:
                out.append(point)
    return out


def _lost_retransmission(run: Traced, end: float) -> Event | None:
    """A timeout that sends a segment whose fast retransmission was lost."""
    resent = _retransmissions(run, end)
    for t, event, _ in run.events:
        if event != "timeout" or t > end:
            continue
        point = _resent_near(run.ts, t)
        if point is None:
            continue
        t_to, seg = point
        before = [tt for tt, s in resent if s == seg and tt < t_to]
        t_sent = _first_sent(run.ts, seg)
        if before and t_sent is not None:
            t_fr = before[0]
            marks = [(t_sent, seg, f"segment {seg:g} lost"),
                     (t_fr, seg, "its fast retransmission, lost"),
                     (t_to, seg, f"timeout: {seg:g} sent a third time")]
            return Event([_pad(t_sent, t_fr, 3.0), _pad(t_sent, t_to, 0.1, 0.05)], marks,
                         f"segment {seg:g}: fast retransmission at {t_fr:.4f} s lost, "
                         f"timeout at {t_to:.3f} s")
    return None


def _ack_clock(run: Traced, end: float) -> Event | None:
    """A segment sent a third time during its recovery, with no timeout before it (NR-LRX's
    re-send of a lost retransmission)."""
    timeouts = [t for t, event, _ in run.events if event == "timeout"]
    resent = _retransmissions(run, end)
    for i, (t2, seg) in enumerate(resent):
        before = [tt for tt, s in resent[:i] if s == seg]
        if not before or any(before[-1] < t <= t2 + NEAR for t in timeouts):
            continue
        t_sent = _first_sent(run.ts, seg)
        if t_sent is None:
            continue
        marks = [(t_sent, seg, f"segment {seg:g} lost"),
                 (before[-1], seg, "its fast retransmission, lost"),
                 (t2, seg, f"ACK clock: {seg:g} sent again")]
        return Event([_pad(t_sent, t2, 1.0)], marks,
                     f"segment {seg:g}: fast retransmission at {before[-1]:.4f} s, sent again "
                     f"by the ACK clock at {t2:.4f} s without a timeout")
    return None


def _back_to_back(run: Traced, end: float) -> Event | None:
    """A fast retransmission on fewer than three duplicate ACKs right after a recovery's full
    ACK (NR-B2B: dupacks set to two)."""
    last_fr = last_exit = None
    for t, event, fields in run.events:
        if t > end:
            break
        if event == "recovery-exit":
            last_exit = t
        elif event == "fast-retransmit":
            if fields["dupacks"] < 3 and last_fr is not None and last_exit is not None \
                    and last_fr < last_exit <= t:
                first = _resent_near(run.ts, last_fr)
                second = _resent_near(run.ts, t)
                if first is None or second is None:
                    last_fr = t
                    continue
                full = [(tt, a) for tt, a in run.ts.acks if last_exit - NEAR <= tt <= last_exit]
                marks = [(first[0], first[1], "first recovery: fast retransmission"),
                         *([(full[-1][0], full[-1][1], "full ACK")] if full else []),
                         (second[0], second[1], f"second recovery on duplicate ACK "
                                                f"{fields['dupacks']}")]
                return Event([_pad(first[0], second[0], 0.6)], marks,
                             f"first fast retransmission at {first[0]:.4f} s, full ACK at "
                             f"{last_exit:.4f} s, second on duplicate ACK {fields['dupacks']} "
                             f"at {second[0]:.4f} s")
            last_fr = t
    return None


@dataclass(frozen=True)
class TraceFigure:
    name: str                       # the PNG's file name (and the CSV's)
    scenario: str                   # netreno-lab or netreno-sim
    variant: str
    event: Callable[[Traced, float], Event | None]
    title: str
    seed_of: str | None = None      # run with this figure's seed instead of searching


TRACE_FIGURES = (
    TraceFigure("fig2_small_window.png", "netreno-lab", "lsnr-sw", _small_window,
                "[NETRENO] Fig. 2: recovering one loss in a window of three (NR-SW)"),
    TraceFigure("fig3_lost_retransmission.png", "netreno-lab", "lssack", _lost_retransmission,
                "[NETRENO] Fig. 3: the retransmission is lost too; SACK waits for its timer"),
    TraceFigure("fig4_ack_clock.png", "netreno-lab", "lssack-lrx", _ack_clock,
                "[NETRENO] Fig. 4: the ACK clock sends the lost retransmission again (NR-LRX)",
                seed_of="fig3_lost_retransmission.png"),
    TraceFigure("fig5_back_to_back.png", "netreno-sim", "lsnr-b2b", _back_to_back,
                "[NETRENO] Fig. 5: the first recovery starts the second at once (NR-B2B)"),
)


def _traced(fig: TraceFigure, seed: int, program: Any, where: Path) -> Traced:
    pcap = where / f"{fig.variant}-{fig.scenario}-{seed}.pcap"
    events: list = []

    def tracer(t: float, event: str, fields: dict) -> None:
        events.append((t, event, fields))

    if fig.scenario == "netreno-lab":
        spec = RunSpec(fig.variant, scenario=fig.scenario, seed=seed, duration=LAB_SECONDS,
                       level=LAB_LEVEL)
        result = run_netreno_lab(spec, program, pcap=str(pcap), tracer=tracer)
    else:
        spec = RunSpec(fig.variant, scenario=fig.scenario, seed=seed, duration=SIM_SECONDS)
        result = run_netreno_sim(spec, program, pcap=str(pcap), traced="c1", tracer=tracer)
    ts = read_time_sequence(pcap)
    pcap.unlink()
    # the engine's clock is the network's; the diagram's starts at the connection's SYN
    return Traced(fig.variant, seed, result.row(), ts,
                  [(t - ts.origin, event, fields) for t, event, fields in events])


def _duration(fig: TraceFigure) -> float:
    return LAB_SECONDS if fig.scenario == "netreno-lab" else SIM_SECONDS


def trace_figures(program: Any, out: Path) -> tuple[list[str], list[str], list[dict]]:
    """Draw TRACE_FIGURES into ``out``, each with a CSV of its points. Returns (PNG names
    written, one note per figure not drawn, one record per figure drawn: its seed, sender,
    scenario and event)."""
    written, notes, records = [], [], []
    seeds: dict = {}
    with tempfile.TemporaryDirectory(prefix="netreno-traces-") as tmp:
        for fig in TRACE_FIGURES:
            end = _duration(fig)      # after it the links stop: no event of the drain counts
            if fig.seed_of is not None:
                if fig.seed_of not in seeds:
                    notes.append(f"{fig.name}: not drawn, as {fig.seed_of} found no seed")
                    continue
                candidates = [seeds[fig.seed_of]]
            else:
                candidates = list(range(1, SEARCH_SEEDS + 1))
            found = None
            for seed in candidates:
                run = _traced(fig, seed, program, Path(tmp))
                event = fig.event(run, end - run.ts.origin)
                if event is not None:
                    found = (run, event)
                    break
            if found is None:
                tried = (f"seed {candidates[0]}" if len(candidates) == 1
                         else f"seeds 1-{SEARCH_SEEDS}")
                what = " ".join((fig.event.__doc__ or "").split())
                notes.append(f"{fig.name}: {fig.variant} on {fig.scenario} shows no such "
                             f"event with {tried}: {what}")
                continue
            run, event = found
            seeds[fig.name] = run.seed
            if _draw(fig, run, event, out):
                written.append(fig.name)
            records.append({"figure": fig.name, "variant": fig.variant,
                            "scenario": fig.scenario, "seed": run.seed,
                            "level": LAB_LEVEL if fig.scenario == "netreno-lab" else 0.0,
                            "seconds": end, "event": event.summary,
                            "csv": fig.name.replace(".png", ".csv")})
    return written, notes, records


def _draw(fig: TraceFigure, run: Traced, event: Event, out: Path) -> bool:
    where = ("the lab's sender (§7.2, RED, "
             f"{LAB_LEVEL:.0%} random drops)" if fig.scenario == "netreno-lab"
             else "sender C1 of §7.1's five (RED)")
    panels = [(f"{run.variant}, {a * 1000:.1f}-{b * 1000:.1f} ms", run.ts, (a, b), event.marks)
              for a, b in event.windows]
    title = f"{fig.title}\n{where}, seed {run.seed}, captured at the sender: {event.summary}"
    points = [{"time_s": round(t, 6), "segment": s, "what": what}
              for what, pts in (("sent", run.ts.sent), ("retransmitted", run.ts.resent),
                                ("cumulative ACK", run.ts.acks))
              for t, s in pts if any(a <= t <= b for a, b in event.windows)]
    points += [{"time_s": round(t, 6), "segment": s, "what": f"event: {text}"}
               for t, s, text in event.marks]
    write_csv(out / fig.name.replace(".png", ".csv"), sorted(points, key=lambda p: p["time_s"]))
    return time_sequence_panels(panels, out / fig.name, title=_wrap(title))


def _wrap(text: str, width: int = 100) -> str:
    return "\n".join(textwrap.fill(line, width) for line in text.split("\n"))
