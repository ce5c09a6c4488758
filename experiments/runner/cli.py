"""Command-line helpers shared by the experiments' CLIs (``rdtcp_figures``, ``one_run``): the
error a user can correct, finite-number and comma-list argument types, --help that shows the
defaults, and creating the output directory."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Iterable

__all__ = ["UsageError", "finite_float", "csv_list", "HelpFormatter", "check_out_dir",
           "make_out_dir", "RANGES", "out_of_range", "series_too_long"]


class UsageError(Exception):
    """Input the user can correct: ``main`` prints it as one ``error:`` line and exits with 2."""


def finite_float(text: str) -> float:
    """argparse type: a finite number (float() alone also takes 'nan' and 'inf', which would
    slip through every '> 0' check and never end a run)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def csv_list(kind, choices: Iterable | None = None):
    what = {int: "integers", finite_float: "finite numbers"}.get(kind, "values")

    def parse(text: str):
        try:
            values = tuple(kind(v.strip()) for v in text.split(",") if v.strip())
        except (ValueError, argparse.ArgumentTypeError):
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated list of {what}, got {text!r}") from None
        if not values:
            raise argparse.ArgumentTypeError("the list is empty")
        if choices is not None:
            bad = [v for v in values if v not in choices]
            if bad:
                raise argparse.ArgumentTypeError(
                    f"unknown {', '.join(map(str, bad))}; choose from {', '.join(choices)}")
        return values
    return parse


# The range of each option the CLIs share, by argparse attribute: (test of one value, the usage
# error when a value fails it). A list option (the sweep's --swaps 0,15) is checked per value.
RANGES = {
    "jobs": (lambda v: v >= 1, "--jobs must be >= 1"),
    "seeds": (lambda v: v >= 1, "--seeds must be >= 1"),
    "seed": (lambda v: v >= 1,
             "--seed must be >= 1 (seeds are numbered 1, 2, ... as in the sweep)"),
    "duration": (lambda v: v > 0, "--duration must be > 0 seconds"),
    "swaps": (lambda v: v >= 0, "--swaps must be >= 0"),
    "interval": (lambda v: v > 0, "--interval must be > 0 seconds"),
    "swap_span": (lambda v: v >= 0, "--swap-span must be >= 0 (0: anywhere in the queue)"),
    "k": (lambda v: v >= 0, "--k must be >= 0"),
    "k_values": (lambda v: v >= 0, "--k-values must be >= 0"),
    "k_spans": (lambda v: v >= 0, "--k-spans must be >= 0 (0: anywhere in the queue)"),
    "level": (lambda v: 0 <= v <= 1, "--level must be a probability in [0, 1]"),
    "levels": (lambda v: 0 <= v <= 1, "--levels are probabilities in [0, 1]"),
    "series": (lambda v: v > 0, "--series must be > 0 seconds"),
    "fairness_runs": (lambda v: v >= 1,
                      "--fairness-runs must be >= 1 (leave the test out with --scenarios)"),
}


def out_of_range(args: argparse.Namespace, names: Iterable[str]) -> str | None:
    """The usage error of the first of ``names`` (RANGES keys, in the order checked) whose
    value is out of range, else None; an option left out (None) is not checked."""
    for name in names:
        value = getattr(args, name)
        if value is None:
            continue
        ok, message = RANGES[name]
        if not all(ok(v) for v in (value if isinstance(value, tuple) else (value,))):
            return message
    return None


def series_too_long(step: float | None, duration: float, what: str) -> str | None:
    """The usage error of a --series step longer than the ``what`` (run or transfers) of
    ``duration`` seconds, else None."""
    if step is not None and step > duration:
        return (f"--series {step:g}: the step is longer than the {duration:g} s {what}, so "
                f"the series would hold only the sample at 0 s")
    return None


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows every default argparse holds; an option without one (None: the mode's
    value, or a flag) says its default in its own help text instead of "(default: None)"."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False:
            return action.help or ""
        if isinstance(action.default, (tuple, list)) and "%(default)" not in (action.help or ""):
            # a list option's default as the user would type it: a,b,c
            text = ",".join(str(x) for x in action.default)
            return f"{action.help or ''} (default: {text})".replace("%", "%%")
        return super()._get_help_string(action)


def check_out_dir(out: Path) -> None:
    """UsageError when --out names something that is not a directory (checked before any work,
    so that nothing is created for a run that cannot write its results)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")


def make_out_dir(out: Path) -> None:
    """Create --out, or UsageError saying why it cannot be (a file of that name, no permission)."""
    check_out_dir(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot create the directory: {exc.strerror or exc}") \
            from None
