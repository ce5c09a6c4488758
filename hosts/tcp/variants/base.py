"""The base class of every TCP variant's policy and the registry of variants by name.

Kept apart from the package's ``__init__`` (which imports every variant so that they register)
so that a variant module imports its base without importing the package that imports it.
The hooks are documented in hosts/tcp/variants/__init__.py.
"""

from __future__ import annotations

__all__ = ["LossRecoveryPolicy", "VARIANTS", "register", "get_variant", "DUPTHRESH"]


DUPTHRESH = 3   # RFC 5681 §3.2, RFC 6675 §2: DupThresh


class LossRecoveryPolicy:
    name = "base"
    needs_timestamps = False    # the variant works only with the timestamp option (RFC 7323)
    offers_sack = True          # experiments offer SACK-permitted for it (False: a NewReno sender)
    observes_deliveries = False     # the engine calls on_delivered
    dupthresh_loss_marking = True   # the engine's IsLost (RFC 6675 §4) marks losses

    def __init__(self, config):
        self.config = config
        self.dupthresh = config.dupthresh      # 3 (RFC 5681) unless an OS profile says (004)

    # sender
    def on_dupack(self, conn, seg, dupacks: int) -> None:
        pass

    def should_fast_retransmit(self, conn, dupacks: int) -> bool:
        return dupacks >= self.dupthresh            # RFC 5681 §3.2 step 2, RFC 6675 §5 (4)

    def ssthresh_after_loss(self, conn) -> int:
        # RFC 5681 §3.1 equation (4), FlightSize without limited transmit's data (§3.2 step 2)
        return max(conn.flight_size_before_limited_transmit // 2, 2 * conn.mss)

    def on_new_ack(self, conn) -> None:
        pass

    def retransmit_on_partial_ack(self, conn) -> bool:
        return True                 # RFC 6582 §3.2 step 5: retransmit the next hole at once

    def on_enter_recovery(self, conn, prior_cwnd: int, prior_ssthresh: int) -> None:
        pass

    def on_retransmit(self, conn, start: int, end: int) -> None:
        pass

    def on_dsack(self, conn, start: int, end: int, retransmitted: bool) -> None:
        pass

    def timeout_enters_recovery(self, conn) -> bool:
        return False

    def on_timeout(self, conn) -> None:
        pass

    def on_ack(self, conn, seg, prior_una: int) -> None:
        pass

    def timeout_retransmits_all(self, conn) -> bool:
        return True                 # RFC 6675 §5.1: after an RTO every unSACKed segment is lost

    def new_data_allowance(self, conn) -> int:
        return 0

    def on_delivered(self, conn, start: int, end: int, sent_at: float, transmissions: int) -> None:
        pass

    def on_deadline(self, conn, now: float) -> list:
        return []

    # receiver
    def on_data(self, rcv, start: int, end: int, stamp) -> None:
        pass

    def ack_reorder_bit(self, rcv) -> bool:
        return False


VARIANTS: dict[str, type[LossRecoveryPolicy]] = {}


def register(cls: type[LossRecoveryPolicy]) -> type[LossRecoveryPolicy]:
    VARIANTS[cls.name] = cls
    return cls


def get_variant(name: str) -> type[LossRecoveryPolicy]:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown TCP variant {name!r}; choose from "
                         f"{', '.join(sorted(VARIANTS))}") from None
