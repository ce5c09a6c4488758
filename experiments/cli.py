"""Command-line helpers shared by the experiments' CLIs (``rdtcp_figures``, ``one_run``): the
error a user can correct, finite-number and comma-list argument types, --help that shows the
defaults, and creating the output directory."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Iterable

__all__ = ["UsageError", "finite_float", "csv_list", "HelpFormatter", "check_out_dir",
           "make_out_dir"]


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


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows every default argparse holds; an option without one (None: the mode's
    value, or a flag) says its default in its own help text instead of "(default: None)"."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False:
            return action.help or ""
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
