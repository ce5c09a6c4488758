"""Discrete-event, virtual-time simulator: real TCP engines (``hosts``) and the real P4 gateway
(``toolchain.switch`` running BMv2 JSON) on a twin of a ``topologies`` Topo.

    net = Network.from_topo(PaperTopo(), program=gateway_json(), configure=..., seed=1)
    flow = add_bulk_flow(net, "a", "b", config=TcpConfig(variant="rdtcp"))
    net.run(until=600.0)
"""

from importlib import import_module

__all__ = ["EventQueue", "Channel", "Nic", "Network", "Route", "port_mac", "add_bulk_flow",
           "QueueSwapper", "FlowSampler", "gateway_json"]

_HOME = {"EventQueue": "sim.events", "Channel": "sim.links", "Nic": "sim.links",
         "Network": "sim.network", "Route": "sim.network", "port_mac": "sim.network",
         "add_bulk_flow": "sim.flows", "QueueSwapper": "sim.reorder",
         "FlowSampler": "sim.trace", "gateway_json": "sim.program"}


def __getattr__(name: str):
    # Lazy, so that `sim.events` alone does not pull in the TCP engine and the P4 target.
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module 'sim' has no attribute {name!r}")
