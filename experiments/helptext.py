"""What the drivers' --help shares: the name a command was started by, and --list-variants.

A driver installed as a script (``rdtcp-experiment``, ``rdtcp-live``) names itself so in its
usage line, and as ``python -m experiments.X`` when run as a module, as git and pip do.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["prog_name", "add_list_variants"]


def prog_name(module: str, script: str | None = None) -> str:
    """``script`` when this process was started by that installed script, else
    ``python -m module``."""
    started = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return script if script is not None and started == script else f"python -m {module}"


class _PrintAndExit(argparse.Action):
    """An option that prints ``text`` and ends the program, as --version does, but keeps the
    text's line breaks (argparse refills a version string)."""

    def __init__(self, option_strings, dest, text: str = "", **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)
        self.text = text

    def __call__(self, parser, namespace, values, option_string=None):
        print(self.text)
        parser.exit()


def add_list_variants(p: argparse.ArgumentParser, names, others: dict[str, str] | None = None,
                      ) -> None:
    """--list-variants: ``names`` (the engine's senders the driver takes) by the paper that
    defines them, then ``others`` (name: what it is) the driver takes besides; the epilog
    says where the list is."""
    from hosts.tcp.variants import variant_listing
    others = others or {}
    text = "\n".join([variant_listing(names),
                      *(f"{name}: {what}" for name, what in others.items())])
    p.add_argument("--list-variants", action=_PrintAndExit, text=text,
                   help="list the senders by the paper that defines them, and exit")
    p.epilog = ((p.epilog + " ") if p.epilog else "") + (
        f"There are {len(names) + len(others)} senders; --list-variants lists them by the "
        "paper that defines them (docs/references.md has the papers).")
