"""The command-line parser of the project's long-running tools (the switch process, the live
hosts, the delay stage): argparse's, except that a usage error prints the usage line, then one
line ``error: MESSAGE``, and exits with the tool's usage-error status (argparse's 2, or
simple_switch's 1 for ``rdtcp-switch``, whose command line is simple_switch's)."""
from __future__ import annotations

import argparse
import sys

__all__ = ["CommandLineParser"]


class CommandLineParser(argparse.ArgumentParser):
    def __init__(self, *args, error_status: int = 2, **kwargs):
        super().__init__(*args, **kwargs)
        self.error_status = error_status

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(self.error_status, f"error: {message}\n")
