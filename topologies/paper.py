"""The dumbbell of RD-TCP's simulations ([RDTCP] §4).

::

        10 Mb/s, 1 ms          5 Mb/s, 50 ms          10 Mb/s, 1 ms
    a ----------------- r1 ====================== r2 ----------------- b
    10.0.1.1        port 1   port 2         port 2   port 1        10.0.2.1
                             (drop-tail 65)
                         port 3 - - - - - - - - - port 3   (optional alternate path)

Use with Mininet: ``sudo mn --custom live/mininet.py --topo rdtcp_paper --switch p4 --controller none``
(the P4 gateways configured as the simulator configures them).
"""

from __future__ import annotations

try:  # the real Mininet when installed, so `mn --custom` gets its own class
    from mininet.topo import Topo
except ImportError:  # pragma: no cover - depends on the machine
    from topologies.base import Topo

from netbase.units import parse_delay

__all__ = ["PaperTopo", "RrTcpTopo", "FrtoTopo", "topos", "rrtcp_capacity_mbps", "RRTCP_MAXWND",
           "RRTCP_PACKET_BYTES"]


def _mac(i: int) -> str:
    return "00:00:00:00:00:%02x" % i


class PaperTopo(Topo):
    """Hosts a and b behind gateways r1 and r2; r1's port 2 is the bottleneck.

    Keyword parameters (Mininet style, all with the paper's defaults):
    ``access_bw``/``access_delay`` for a–r1 and r2–b, ``bottleneck_bw``/``bottleneck_delay`` and
    ``queue`` (packets, drop-tail) for r1–r2, ``link_buffer`` (packets the link layer holds
    ahead of its serialiser, after the queue; 0: none), and ``alt_extra_delay`` (e.g. "20ms"): when set, a
    second r1–r2 link on port 3 with that much extra propagation delay, the alternate path
    the gateway's delay-based reordering injection sends packets over.

    The alternate path is a path of its own, as in multipath routing: same rate, its own
    drop-tail queue and more propagation delay. A packet sent over it does not wait in the
    bottleneck queue, so while that queue holds more than ``alt_extra_delay`` of traffic
    (four 1500-byte packets at 5 Mb/s per 10 ms) it arrives *before* packets that left r1's
    ingress ahead of it, and while it is in use the two links carry more than the bottleneck's
    rate. Reordering that only delays a packet, on the bottleneck's capacity, is the gateway's
    recirculation injection.
    """

    def build(self, access_bw: float = 10, access_delay: str = "1ms",  # noqa: D401
              bottleneck_bw: float = 5, bottleneck_delay: str = "50ms",
              queue: int = 65, alt_extra_delay: str | None = None,
              link_buffer: int = 0) -> None:
        extra = {"link_buffer": link_buffer} if link_buffer else {}
        a = self.addHost("a", ip="10.0.1.1/24", mac=_mac(0x0A), defaultRoute="via 10.0.1.254")
        b = self.addHost("b", ip="10.0.2.1/24", mac=_mac(0x0B), defaultRoute="via 10.0.2.254")
        r1 = self.addSwitch("r1")
        r2 = self.addSwitch("r2")
        self.addLink(a, r1, port1=0, port2=1, bw=access_bw, delay=access_delay)
        self.addLink(r1, r2, port1=2, port2=2, bw=bottleneck_bw, delay=bottleneck_delay,
                     max_queue_size=queue, **extra)
        self.addLink(r2, b, port1=1, port2=0, bw=access_bw, delay=access_delay)
        if alt_extra_delay is not None:
            self.addLink(r1, r2, port1=3, port2=3, bw=bottleneck_bw,
                         delay=_add_delays(bottleneck_delay, alt_extra_delay),
                         max_queue_size=queue, **extra)


class RrTcpTopo(PaperTopo):
    """RR-TCP's path ([RRTCP] §5, Fig. 3 and Table 2): the same dumbbell with
    [RRTCP]'s parameters. The bottleneck's capacity is S = M/R, maxwnd over the round-trip time
    (``rrtcp_capacity_mbps``: 50 packets of 1000 bytes per 2P), so an unimpaired window of M
    packets builds no queue: 4 Mb/s at [RRTCP]'s usual P = 50 ms, 1 Mb/s at P = 200 ms. Give
    ``bottleneck_delay`` alone and the rate follows it; ``bottleneck_bw`` overrides it. [RRTCP] does
    not describe the access links, so they are fast and short and the RTT is the bottleneck's;
    the buffer (200 packets) holds two windows and limited transmit's extra cwnd, so nothing
    overflows it ([RRTCP] injects every drop). ``alt_extra_delay`` adds the second, longer path of
    §5.6 (port 3), at the bottleneck's rate.

    Use with Mininet: ``sudo mn --custom live/mininet.py --topo rrtcp_paper --switch p4 --controller none``
(the P4 gateways configured as the simulator configures them).
    """

    def build(self, access_bw: float = 100, access_delay: str = "0.1ms",  # noqa: D401
              bottleneck_bw: float | None = None, bottleneck_delay: str = "50ms",
              queue: int = 200, alt_extra_delay: str | None = None) -> None:
        if bottleneck_bw is None:
            bottleneck_bw = rrtcp_capacity_mbps(parse_delay(bottleneck_delay))
        super().build(access_bw=access_bw, access_delay=access_delay,
                      bottleneck_bw=bottleneck_bw, bottleneck_delay=bottleneck_delay,
                      queue=queue, alt_extra_delay=alt_extra_delay)


RRTCP_MAXWND = 50           # [RRTCP] Table 2: maximum sending window M, packets
# not given by [RRTCP]: the packetSize_ default of the ns-2 its simulations ran on (2.1b8)
RRTCP_PACKET_BYTES = 1000


def rrtcp_capacity_mbps(one_way_delay: float, *, maxwnd: int = RRTCP_MAXWND,
                        packet_bytes: int = RRTCP_PACKET_BYTES) -> float:
    """[RRTCP] §5: S = M/R packets per second with R = 2P, in Mb/s."""
    if not one_way_delay > 0:
        raise ValueError(f"the bottleneck's delay must be > 0 s to set S = M/R, got "
                         f"{one_way_delay!r}")
    return maxwnd * packet_bytes * 8 / (2 * one_way_delay) / 1e6


class FrtoTopo(PaperTopo):
    """F-RTO's path ([FRTO] §5.1, Fig. 5): a fixed host ``a`` on a LAN, the
    last-hop router ``r1`` with a buffer of seven packets, the emulated wireless link r1–r2
    (28,800 bit/s each way, 200 ms one-way propagation) and the mobile host ``b`` right behind
    it. The LAN (10 Mb/s) and the mobile host's own interface are fast and short; r2 stands for
    the link's far end, so its uplink queue towards r1 has the same seven-packet limit. Each
    direction's link layer holds six 296-byte packets (its 1776-byte send buffer) ahead of the
    serialiser, after the router's queue: ``link_buffer``.

    ::

        10 Mb/s, 0.1 ms     28.8 kbit/s, 200 ms      10 Mb/s, 0.1 ms
      a ---------------- r1 ===================== r2 ---------------- b
      fixed host   (7 packets + 6 in the                                mobile host
                    link's send buffer)

    The paper's delay spikes, random and burst losses are models of the simulator's link
    (``sim.impair``), not parameters of this graph.

    Use with Mininet: ``sudo mn --custom live/mininet.py --topo frto_paper --switch p4 --controller none``
(the P4 gateways configured as the simulator configures them).
    """

    def build(self, access_bw: float = 10, access_delay: str = "0.1ms",  # noqa: D401
              bottleneck_bw: float = 0.0288, bottleneck_delay: str = "200ms",
              queue: int = 7, alt_extra_delay: str | None = None,
              link_buffer: int = 6) -> None:
        super().build(access_bw=access_bw, access_delay=access_delay,
                      bottleneck_bw=bottleneck_bw, bottleneck_delay=bottleneck_delay,
                      queue=queue, alt_extra_delay=alt_extra_delay, link_buffer=link_buffer)


def _add_delays(a: str, b: str) -> str:
    return "%gms" % ((parse_delay(a) + parse_delay(b)) * 1e3)


topos = {"rdtcp_paper": PaperTopo, "rrtcp_paper": RrTcpTopo, "frto_paper": FrtoTopo}
