"""Property: under any pattern of drops, reordering, duplication and EPDN stamps,
every variant delivers the exact byte stream and the transfer terminates."""

from hypothesis import HealthCheck, given, settings, strategies as st

from hosts.tcp import TcpConfig
from hosts.testing import TestNetwork

DATA = bytes((i * 31 + 7) % 251 for i in range(30_000))
N = 30     # first-transmission segments at MSS 1000

rules = st.lists(st.tuples(st.sampled_from(["drop", "hold", "dup", "stamp"]),
                           st.integers(1, N + 10), st.integers(1, 8)), max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(["sack", "dsack", "rdtcp", "eifel", "frto"]), rules=rules, sack=st.booleans(),
       delayed_ack=st.booleans(), timestamps=st.booleans())
def test_every_variant_delivers_the_exact_stream(variant, rules, sack, delayed_ack, timestamps):
    cfg = TcpConfig(variant=variant, rdtcp=variant == "rdtcp", sack=sack, delayed_ack=delayed_ack,
                    timestamps=timestamps, mss=1012 if variant == "rdtcp" else 1000,
                    initial_window_segments=10)
    net = TestNetwork(cfg, DATA)
    for kind, n, k in rules:
        if kind == "drop":
            net.drop(n)
        elif kind == "hold":
            net.hold(n, positions=k)
        elif kind == "dup":
            net.duplicate(n)
        elif n > 1:
            net.stamp(n, drop_lo_of=max(1, n - k), drop_hi_of=n - 1)
    net.run(until=3000.0)
    assert net.delivered == DATA
    assert net.a.state in ("TIME-WAIT", "CLOSED") and net.b.state == "CLOSED"
