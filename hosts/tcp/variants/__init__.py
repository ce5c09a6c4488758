"""TCP variants as small policies over the one engine (hosts/tcp/connection.py).

The contract is code: ``base.py`` has the hooks (``LossRecoveryPolicy``, one docstring per
hook), what a hook is given (``SenderView``) and the decisions it returns. A variant overrides
only the hooks its paper or RFC changes and registers by name; importing this package
registers them all. Which file holds which variant, and which hook holds which of its rules:
hosts/README.md, "Variants". How a planned variant maps onto the hooks: docs/architecture.md §4.

- sack.py: ``sack`` (RFC 2018, 5681, 6675: the engine's defaults)
- dsack.py: ``dsack``, ``dsack-inc``, ``dsack-avg`` (DSACK undo; Blanton and Allman's BL-R,
  BL-INC, BL-AVG, [RRTCP] §5.1); spurious.py: the false-fast-retransmit detector and the undo
  they and RD-TCP/RR-TCP share
- rdtcp.py: ``rdtcp``, ``rdtcp-adaptive``, ``rdtcp-measured``, ``rdtcp-measured-undo`` ([RDTCP])
- eifel.py: ``eifel`` (RFC 3522, RFC 4015); frto.py: ``frto``, ``frto-undo``, ``frto-rfc4015``
  ([FRTO], RFC 5682); newreno.py: ``newreno`` and their NewReno forms ([FRTO] §5.1)
- rack.py: ``rack`` (RACK-TLP, RFC 8985)
- rrtcp.py: ``rrtcp``, ``rrtcp-fa`` (RR-TCP, [RRTCP]); rrtcp_rtt.py: ``rrtcp-faes``, ``rrtcp-taes``,
  ``rrtcp-hg`` (DSACK-ES and DSACK-HG); rrtcp_rtx.py: ``rrtcp-fa-rtx``, ``rrtcp-rtx`` (the RTX
  bit); blanton.py: ``dsack-ewma``, ``dsack-timedel``, ``dsack-timeinc`` (BL-EWMA, -TIMEDEL,
  -TIMEINC, [RRTCP] §3)
- netreno.py: ``netreno``, ``netreno-sack`` and the loss-sensitive senders ``lsnr``, ``lssack``
  with each of Net Reno's optimizations ([NETRENO]); netreno_parts.py: the rules' pieces; reno.py:
  ``reno``, the NetBSD Reno sender Net Reno modifies ([NETRENO]'s baseline)
"""

from __future__ import annotations

import textwrap

from hosts.tcp.variants.base import DUPTHRESH, VARIANTS, LossRecoveryPolicy, get_variant, register
# importing the variants registers them
from hosts.tcp.variants import sack, dsack, eifel, frto, netreno, rack, rdtcp, rrtcp  # noqa: F401
from hosts.tcp.variants import newreno  # noqa: F401  ([FRTO]'s NewReno forms, on frto and eifel)
from hosts.tcp.variants import blanton, rrtcp_rtt, rrtcp_rtx  # noqa: F401  ([RRTCP]'s other forms)
from hosts.tcp.variants import reno  # noqa: F401  ([NETRENO]'s baseline)
from hosts.tcp.variants import tahoe  # noqa: F401  (ns-2's Agent/TCP)

__all__ = ["LossRecoveryPolicy", "VARIANTS", "register", "get_variant", "DUPTHRESH", "BY_PAPER",
           "by_paper", "variant_listing"]

# The variants by the paper or RFC that defines them (keys: docs/references.md), for listings in
# --help: heading -> the modules holding them. A module not named here is listed under "other".
BY_PAPER = {
    "RD-TCP [RDTCP]": ("rdtcp",),
    "RR-TCP [RRTCP], and Blanton and Allman's DSACK senders it compares": (
        "rrtcp", "rrtcp_rtt", "rrtcp_rtx", "dsack", "blanton"),
    "F-RTO [FRTO], Eifel (RFC 3522, RFC 4015) and their NewReno forms (RFC 6582)": (
        "frto", "eifel", "newreno"),
    "Net Reno [NETRENO], its loss-sensitive senders and NetBSD's Reno": ("netreno", "reno"),
    "Tahoe: fast retransmit without fast recovery (ns-2's Agent/TCP)": ("tahoe",),
    "SACK (RFC 2018, RFC 6675) and RACK-TLP (RFC 8985)": ("sack", "rack"),
}


def by_paper(names=None) -> list[tuple[str, list[str]]]:
    """(heading, sorted variant names) in BY_PAPER's order, for ``names`` (default: every
    registered variant); headings with none of them are left out."""
    names = sorted(VARIANTS) if names is None else sorted(names)
    module_of = {name: VARIANTS[name].__module__.rsplit(".", 1)[-1] for name in names}
    groups = [(heading, [n for n in names if module_of[n] in modules])
              for heading, modules in BY_PAPER.items()]
    placed = {n for _, members in groups for n in members}
    groups.append(("other", [n for n in names if n not in placed]))
    return [(heading, members) for heading, members in groups if members]


def variant_listing(names=None, width: int = 79) -> str:
    """The variants as --list-variants prints them: a heading per paper, the names under it."""
    lines = []
    for heading, members in by_paper(names):
        lines.append(heading + ":")
        lines += textwrap.wrap(", ".join(members), width, initial_indent="  ",
                               subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join(lines)
