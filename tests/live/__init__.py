"""Live runs on network namespaces, Mininet and real simple_switch (root only)."""

# The paper dumbbell's handshake RTT in a live run: 2 x (1 + 50 + 1) ms of propagation, put in
# by the switches and hosts, so never less; under 0.2 s, so that a delay applied twice (0.208 s)
# fails, with the rest as room for a loaded machine's wake-ups (six process hops each way).
HANDSHAKE_RTT_MIN, HANDSHAKE_RTT_MAX = 0.104, 0.2


def plausible_handshake_rtt(seconds: float) -> bool:
    return HANDSHAKE_RTT_MIN <= seconds < HANDSHAKE_RTT_MAX
