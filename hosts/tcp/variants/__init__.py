"""TCP variants as small policies over the one engine (hosts/tcp/connection.py).

The contract is code: ``base.py`` has the hooks (``LossRecoveryPolicy``, one docstring per
hook), what a hook is given (``SenderView``) and the decisions it returns. A variant overrides
only the hooks its paper or RFC changes and registers by name; importing this package
registers them all. Which file holds which variant, and which hook holds which of its rules:
hosts/README.md, "Variants". How a planned variant maps onto the hooks: docs/architecture.md §4.

- sack.py: ``sack`` (RFC 2018, 5681, 6675: the engine's defaults)
- dsack.py: ``dsack``, ``dsack-inc``, ``dsack-avg`` (DSACK undo; Blanton and Allman's BL-R,
  BL-INC, BL-AVG, 000 §5.1); spurious.py: the false-fast-retransmit detector and the undo
  they and RD-TCP/RR-TCP share
- rdtcp.py: ``rdtcp``, ``rdtcp-adaptive``, ``rdtcp-measured``, ``rdtcp-measured-undo`` (003)
- eifel.py: ``eifel`` (RFC 3522, RFC 4015); frto.py: ``frto``, ``frto-undo``, ``frto-rfc4015``
  (001, RFC 5682); newreno.py: ``newreno`` and their NewReno forms (001 §5.1)
- rack.py: ``rack`` (RACK-TLP, RFC 8985)
- rrtcp.py: ``rrtcp``, ``rrtcp-fa`` (RR-TCP, 000); rrtcp_rtt.py: ``rrtcp-faes``, ``rrtcp-taes``,
  ``rrtcp-hg`` (DSACK-ES and DSACK-HG); rrtcp_rtx.py: ``rrtcp-fa-rtx``, ``rrtcp-rtx`` (the RTX
  bit); blanton.py: ``dsack-ewma``, ``dsack-timedel``, ``dsack-timeinc`` (BL-EWMA, -TIMEDEL,
  -TIMEINC, 000 §3)
- netreno.py: ``netreno``, ``netreno-sack`` and the loss-sensitive senders ``lsnr``, ``lssack``
  with each of Net Reno's optimizations (002); netreno_parts.py: the rules' pieces; reno.py:
  ``reno``, the NetBSD Reno sender Net Reno modifies (002's baseline)
"""

from __future__ import annotations

from hosts.tcp.variants.base import DUPTHRESH, VARIANTS, LossRecoveryPolicy, get_variant, register
# importing the variants registers them
from hosts.tcp.variants import sack, dsack, eifel, frto, netreno, rack, rdtcp, rrtcp  # noqa: F401
from hosts.tcp.variants import newreno  # noqa: F401  (001's NewReno forms, on frto and eifel)
from hosts.tcp.variants import blanton, rrtcp_rtt, rrtcp_rtx  # noqa: F401  (000's other forms)
from hosts.tcp.variants import reno  # noqa: F401  (002's baseline)

__all__ = ["LossRecoveryPolicy", "VARIANTS", "register", "get_variant", "DUPTHRESH"]
