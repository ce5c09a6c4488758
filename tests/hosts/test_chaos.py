"""Whole connections over a hostile path: every variant, under three OS profiles ([TCPDEBUG]),
through 25 % drops, 25 % duplicates and 25 % reordering of every segment both ways, with both
sequence spaces crossing 2^32. Each transfer must arrive byte for byte, and both ends must
close without error: the side that closes first stays in TIME-WAIT for 2*MSL (RFC 9293
§3.10.7.4), acknowledging the peer's retransmitted FIN and restarting, so the peer's LAST-ACK
ends in CLOSED instead of a timeout."""

import pytest

from hosts.tcp import TcpConfig
from hosts.tcp.profiles import profile_config
from hosts.tcp.variants import VARIANTS, get_variant
from hosts.testing import ChaosNetwork

PROFILES = ("linux-2.4", "windows-xp", "freebsd-4.10")
TOTAL = 200_000


def config(variant: str, profile: str) -> TcpConfig:
    """The variant as the experiments run it (SACK offered unless it is a NewReno sender,
    timestamps where it needs them), under ``profile``'s timers and thresholds."""
    policy = get_variant(variant)
    base = TcpConfig(variant=variant, sack=policy.offers_sack,
                     timestamps=policy.needs_timestamps, rdtcp=variant.startswith("rdtcp"))
    return profile_config(profile, base)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_transfer_under_chaos_is_exact_and_both_ends_close_without_error(variant, profile):
    seed = 1000 * PROFILES.index(profile) + sorted(VARIANTS).index(variant)
    net = ChaosNetwork(config(variant, profile), TOTAL, seed=seed).run()
    assert net.sink.ok and net.sink.bytes == TOTAL
    assert (net.a.state, net.a.error) == ("CLOSED", None)
    assert (net.b.state, net.b.error) == ("CLOSED", None)


def test_the_path_is_as_hostile_as_it_says():
    net = ChaosNetwork(config("sack", "linux-2.4"), TOTAL, seed=7).run()
    assert net.sink.ok and net.sink.bytes == TOTAL
    for count in (net.dropped, net.duplicated, net.delayed):
        assert 0.15 * net.segments < count < 0.35 * net.segments
    assert net.a.stats["retransmits"] >= net.dropped / 4
    assert net.a.iss > 2**32 - 4000 and net.b.iss > 2**32 - 4000     # both cross 2^32
