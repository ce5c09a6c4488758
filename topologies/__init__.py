"""Mininet-style topologies; ``sim.Network.from_topo`` builds the simulator twin of each.

``topos`` names them for ``mn --custom live/mininet.py --topo rdtcp_paper`` (live/mininet.py).
"""

from topologies.paper import FrtoTopo, PaperTopo, RrTcpTopo, topos

__all__ = ["PaperTopo", "RrTcpTopo", "FrtoTopo", "topos"]
