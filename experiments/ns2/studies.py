"""The runs that put ns-2 beside the paper and the lab on the reproductions' open gaps.

Each study is a list of RunSpecs in ns-2's reach (``experiments.ns2.scenario.describe``), with
the paper's number and the lab's own (the figure drivers' runs, experiments/README.md) where
there is one to set beside them. ``python -m experiments.ns2_runs --study NAME`` runs one.
"""

from __future__ import annotations

from dataclasses import dataclass

from experiments.runner.spec import RunSpec

__all__ = ["Study", "STUDIES"]


@dataclass(frozen=True)
class Study:
    name: str
    question: str
    specs: tuple[RunSpec, ...]
    engines: tuple[str, ...] = ("ns2", "engine-nsnet")


def _seeds(n: int, **kw) -> tuple[RunSpec, ...]:
    return tuple(RunSpec(seed=s, **kw) for s in range(1, n + 1))


# [RRTCP] §5.3 (Figs. 10/11, Table 3): P = 200 ms, 4 % of packets delayed by N(kP, kP/3), M = 50
def _long(k: float, **kw) -> dict:
    return dict(scenario="rrtcp", injection="delay", level=0.04, path_delay=0.2,
                delay=f"normal:{k * 0.2:g},{k * 0.2 / 3:g}", max_cwnd_segments=50, **kw)


# [RRTCP] §5.4 (Fig. 14): P = 200 ms, 0.5 % dropped, 3.5 % of data and a share of ACKs delayed by
# N(100, 33) ms
def _fig14(ack_level: float, **kw) -> dict:
    return dict(scenario="rrtcp", injection="delay", level=0.035, drop=0.005, path_delay=0.2,
                delay="normal:0.1,0.033", ack_level=ack_level, max_cwnd_segments=50, **kw)


STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("plain", "[RDTCP]'s dumbbell without reordering: 607,500 B/s in [RDTCP], 602,218 ours",
          (RunSpec("sack", duration=600.0),)),
    Study("swaps", "SACK at 15 swaps/s relative to none: 0.866 in [RDTCP], 0.82 ours",
          (RunSpec("sack", duration=600.0),
           *_seeds(3, variant="sack", swaps=15, interval=1.0, duration=600.0))),
    Study("long-delay", "[RRTCP] Figs. 10/11 and Table 3's setup: SACK (ns-2 has no DSACK-TA) at "
                        "mean delays kP = 0.9-1.6 s",
          tuple(s for k in (4.5, 6.0, 8.0) for s in _seeds(2, variant="sack", duration=1000.0,
                                                          **_long(k)))),
    Study("ack-reordering", "[RRTCP] Fig. 14: the cost of delayed ACKs ([RRTCP]: none; ours 10-14 % "
                            "at 30 %), for SACK (ns-2 has no DSACK senders)",
          tuple(s for a in (0.0, 0.3) for s in _seeds(2, variant="sack", duration=1000.0,
                                                     **_fig14(a)))),
    Study("netreno-lab", "[NETRENO] Table 3's network (§7.2, RED): standard Reno 4006 kb/s in [NETRENO]; "
                         "SACK against NewReno ([NETRENO]: SACK's column below NewReno's)",
          tuple(s for v in ("reno", "newreno", "sack")
                for s in _seeds(3, variant=v, scenario="netreno-lab", duration=300.0)),
          engines=("ns2",)),
)}
