"""Mininet-style topologies; ``sim.Network.from_topo`` builds the simulator twin of each.

``topos`` exposes them to ``mn --custom topologies/paper.py --topo rdtcp_paper``.
"""

from topologies.paper import FrtoTopo, PaperTopo, RrTcpTopo, topos

__all__ = ["PaperTopo", "RrTcpTopo", "FrtoTopo", "topos"]
