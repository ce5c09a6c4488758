"""TCP SACK (RFC 2018, RFC 6675): fast retransmit after DupThresh = 3 duplicate ACKs.

The engine's defaults are exactly this variant; it exists so that "sack" is a name."""

from __future__ import annotations

from hosts.tcp.variants.base import LossRecoveryPolicy, register


@register
class Sack(LossRecoveryPolicy):
    name = "sack"
