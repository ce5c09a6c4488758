"""Mininet-style topologies; ``sim.Network.from_topo`` builds the simulator twin of each.

``topos`` names them for ``mn --custom live/mininet.py --topo rdtcp_paper`` (live/mininet.py).
"""

from topologies import netreno as _netreno
from topologies.netreno import NetRenoLabTopo, NetRenoTopo
from topologies.paper import FrtoTopo, PaperTopo, RrTcpTopo, topos

topos = {**topos, **_netreno.topos}     # [NETRENO] §7's networks (topologies/netreno.py) beside them

__all__ = ["PaperTopo", "RrTcpTopo", "FrtoTopo", "NetRenoTopo", "NetRenoLabTopo", "topos"]
