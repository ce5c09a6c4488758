"""The networks of Net Reno's evaluation ([NETRENO] §7).

§7.1, Fig. 6 (``NetRenoTopo``): four local senders and one long-distance sender share a gateway's
link to one sink::

    c1 ---(1 ms, 103.3 Mb/s)---+
    c2 ---(1 ms, 103.3 Mb/s)---+
    c3 ---(1 ms, 103.3 Mb/s)---+ r1 ===(2 ms, 51.7 Mb/s)=== d    (RED: buffer 16 at r1's port 6)
    c4 ---(1 ms, 103.3 Mb/s)---+
    c5 ---(16 ms, 31.0 Mb/s)---+
    ports of r1: ci on i, d on 6

§7.2, Fig. 7 (``NetRenoLabTopo``): one sender on 100 Mb/s Ethernet, the RED gateway, the sink on
10 Mb/s Ethernet, "all links are less than two feet" (no propagation delay to speak of)::

    s ---(100 Mb/s)--- r1 ===(10 Mb/s)=== d        (RED: buffer 20 at r1's port 2)

The paper's §7.1 simulator is an ATM network: a 512-byte TCP packet is 12 cells of 53 bytes,
636 bytes on the wire, and its link rates are cell rates. Our links carry Ethernet frames (566
bytes for 512 bytes of data, 40 of IP and TCP, 14 of Ethernet), so with ``atm_cells`` (the
default) each link's rate is scaled by 566 / 636: a full-size packet takes as long on our link
as on [NETRENO]'s, and the rates in packets per second are [NETRENO]'s. The gateway's buffer is the P4
program's (``max_queue_size``, its drop-tail limit or RED's buffer), RED itself is the gateway
configuration's (experiments.studies.netreno.scenario).

Use with Mininet: ``mn --custom topologies/netreno.py --topo netreno_sim --link tc``.
"""

from __future__ import annotations

try:  # the real Mininet when installed, so `mn --custom` gets its own class
    from mininet.topo import Topo
except ImportError:  # pragma: no cover - depends on the machine
    from topologies.base import Topo

__all__ = ["NetRenoTopo", "NetRenoLabTopo", "topos", "ATM_SCALE", "SEGMENT", "SINK_PORT"]

SEGMENT = 512                           # [NETRENO] §3: "Maximum segment size is 512 bytes"
ETHERNET_FRAME = SEGMENT + 40 + 14      # data, IPv4 + TCP headers, Ethernet header
ATM_PDU = 12 * 53                       # [NETRENO] §7: "512 data-byte TCP packets ... in 12 ATM cells"
ATM_SCALE = ETHERNET_FRAME / ATM_PDU
SINK_PORT = 6                           # r1's port towards d in NetRenoTopo


def _mac(i: int) -> str:
    return "00:00:00:00:01:%02x" % i


def _rate(mbps: float, atm_cells: bool) -> float:
    return mbps * ATM_SCALE if atm_cells else mbps


class NetRenoTopo(Topo):
    """[NETRENO] §7.1's network (Fig. 6): senders c1-c5 on gateway r1's ports 1-5, the sink d on
    port 6 behind the shared link (r1's queue towards it: ``queue`` packets).

    Keyword parameters, with [NETRENO]'s values: ``local_bw``/``local_delay`` (C1-C4),
    ``long_bw``/``long_delay`` (C5), ``shared_bw``/``shared_delay``, ``queue`` (the gateway's
    buffer, packets), ``senders`` (how many of c1-c5: the first four are local), ``atm_cells``
    (rates as [NETRENO]'s cell rates, see the module docstring)."""

    def build(self, local_bw: float = 103.3, local_delay: str = "1ms",  # noqa: D401
              long_bw: float = 31.0, long_delay: str = "16ms", shared_bw: float = 51.7,
              shared_delay: str = "2ms", queue: int = 16, senders: int = 5,
              atm_cells: bool = True) -> None:
        if not 1 <= senders <= 5:
            raise ValueError(f"senders must be 1..5 ([NETRENO]'s C1-C5), got {senders}")
        r1 = self.addSwitch("r1")
        for i in range(1, senders + 1):
            c = self.addHost(f"c{i}", ip=f"10.0.{i}.1/24", mac=_mac(i),
                             defaultRoute=f"via 10.0.{i}.254")
            bw, delay = (long_bw, long_delay) if i == 5 else (local_bw, local_delay)
            self.addLink(c, r1, port1=0, port2=i, bw=_rate(bw, atm_cells), delay=delay)
        d = self.addHost("d", ip="10.0.9.1/24", mac=_mac(9), defaultRoute="via 10.0.9.254")
        self.addLink(r1, d, port1=SINK_PORT, port2=0, bw=_rate(shared_bw, atm_cells),
                     delay=shared_delay, max_queue_size=queue)


class NetRenoLabTopo(Topo):
    """[NETRENO] §7.2's laboratory (Fig. 7): sender s, RED gateway r1, sink d; r1's port 2 (towards
    d, the 10 Mb/s side) holds ``queue`` packets. ``delay`` is each link's propagation delay
    ([NETRENO]: links "less than two feet", 0); a wide-area version of the path sets it."""

    def build(self, fast_bw: float = 100, slow_bw: float = 10, delay: str = "0ms",  # noqa: D401
              queue: int = 20) -> None:
        s = self.addHost("s", ip="10.0.1.1/24", mac=_mac(0x0A), defaultRoute="via 10.0.1.254")
        d = self.addHost("d", ip="10.0.2.1/24", mac=_mac(0x0B), defaultRoute="via 10.0.2.254")
        r1 = self.addSwitch("r1")
        self.addLink(s, r1, port1=0, port2=1, bw=fast_bw, delay=delay)
        self.addLink(r1, d, port1=2, port2=0, bw=slow_bw, delay=delay, max_queue_size=queue)


topos = {"netreno_sim": NetRenoTopo, "netreno_lab": NetRenoLabTopo}
