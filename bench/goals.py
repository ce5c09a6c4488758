"""How every benchmark states a goal: one line, the goal, the figure measured, met or NOT MET.

    goal: >= 50,000 segments/s through the engines (sack): met (61,203)

A goal that the run cannot judge (a PyPy goal measured on CPython, a live goal without root)
says so and why instead of a verdict. A goal not met does not change the exit status: the
figures are measurements, and a shared machine's load can stretch them; bench/README.md has
the figures of quiet machines.
"""

from __future__ import annotations

__all__ = ["at_least", "at_most", "not_judged"]


def _line(goal: str, verdict: str, figure: str) -> str:
    line = f"goal: {goal}: {verdict}" + (f" ({figure})" if figure else "")
    print(line, flush=True)
    return line


def at_least(goal: str, value: float, target: float, figure: str) -> bool:
    """``value`` must be ``target`` or more."""
    met = value >= target
    _line(goal, "met" if met else "NOT MET", figure)
    return met


def at_most(goal: str, value: float, target: float, figure: str) -> bool:
    """``value`` must be ``target`` or less."""
    met = value <= target
    _line(goal, "met" if met else "NOT MET", figure)
    return met


def not_judged(goal: str, why: str, figure: str = "") -> None:
    """A goal this run cannot judge, and why."""
    _line(goal, f"not judged: {why}", figure)
