"""A drop-in stand-in for ``mininet.topo.Topo`` when Mininet is not installed.

Mininet's ``Topo`` is only a graph: ``build()`` calls ``addHost``/``addSwitch``/``addLink`` and
nothing starts until a network is made from it (``Mininet(topo=..., link=TCLink)`` or
``sim.Network.from_topo(topo)``). This class keeps the same public methods, argument names and
port-numbering rule (switch ports from 1, host ports from 0), so a topology module written
against it runs unchanged under ``mn --custom``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Topo"]


class Topo:
    """Graph of named nodes and links, each carrying an options dict (Mininet's API)."""

    def __init__(self, *args: Any, **params: Any):
        self._nodes: dict[str, dict[str, Any]] = {}
        self._links: list[tuple[str, str, dict[str, Any]]] = []
        self._next_port: dict[str, int] = {}
        self.hopts = params.pop("hopts", {})
        self.sopts = params.pop("sopts", {})
        self.lopts = params.pop("lopts", {})
        self.build(*args, **params)

    def build(self, *args: Any, **params: Any) -> None:
        """Override: add nodes and links."""

    # --- graph construction (Mininet names, kept for `mn --custom` compatibility) ---
    def addNode(self, name: str, **opts: Any) -> str:  # noqa: N802 (Mininet API)
        if not isinstance(name, str) or not name:
            raise ValueError(f"node name must be a non-empty string, got {name!r}")
        if name in self._nodes:
            raise ValueError(f"node {name!r} added twice")
        self._nodes[name] = dict(opts)
        self._next_port[name] = 1 if opts.get("isSwitch") else 0
        return name

    def addHost(self, name: str, **opts: Any) -> str:  # noqa: N802
        return self.addNode(name, **{**self.hopts, **opts})

    def addSwitch(self, name: str, **opts: Any) -> str:  # noqa: N802
        return self.addNode(name, isSwitch=True, **{**self.sopts, **opts})

    def addLink(self, node1: str, node2: str, port1: int | None = None,  # noqa: N802
                port2: int | None = None, key: Any = None, **opts: Any) -> Any:
        for n in (node1, node2):
            if n not in self._nodes:
                raise ValueError(f"addLink: unknown node {n!r} (add it with addHost/addSwitch first)")
        port1 = self._take_port(node1, port1)
        port2 = self._take_port(node2, port2)
        info = {**self.lopts, **opts, "node1": node1, "node2": node2,
                "port1": port1, "port2": port2}
        self._links.append((node1, node2, info))
        return key if key is not None else len(self._links) - 1

    def _take_port(self, node: str, port: int | None) -> int:
        # Mininet's rule: the next free number, switches from 1, hosts from 0.
        if port is None:
            port = self._next_port[node]
        used = {i["port1"] for a, _, i in self._links if a == node}
        used |= {i["port2"] for _, b, i in self._links if b == node}
        if port in used:
            raise ValueError(f"port {port} of {node!r} is already linked")
        self._next_port[node] = max(self._next_port[node], port + 1)
        return port

    # --- queries ---
    def isSwitch(self, name: str) -> bool:  # noqa: N802
        return bool(self._nodes[name].get("isSwitch", False))

    def nodes(self, sort: bool = True) -> list[str]:
        names = list(self._nodes)
        return sorted(names) if sort else names

    def hosts(self, sort: bool = True) -> list[str]:
        return [n for n in self.nodes(sort) if not self.isSwitch(n)]

    def switches(self, sort: bool = True) -> list[str]:
        return [n for n in self.nodes(sort) if self.isSwitch(n)]

    def links(self, sort: bool = False, withKeys: bool = False,  # noqa: N803
              withInfo: bool = False) -> list:
        out = []
        for i, (a, b, info) in enumerate(self._links):
            row: tuple = (a, b)
            if withKeys:
                row += (i,)
            if withInfo:
                row += (info,)
            out.append(row)
        return sorted(out, key=lambda r: (r[0], r[1])) if sort else out

    def nodeInfo(self, name: str) -> dict[str, Any]:  # noqa: N802
        return self._nodes[name]

    def linkInfo(self, src: str, dst: str, key: Any = None) -> dict[str, Any]:  # noqa: N802
        for i, (a, b, info) in enumerate(self._links):
            if {a, b} == {src, dst} and (key is None or key == i):
                return info
        raise KeyError(f"no link between {src!r} and {dst!r}")

    def port(self, src: str, dst: str) -> tuple[int, int]:
        info = self.linkInfo(src, dst)
        if info["node1"] == src:
            return info["port1"], info["port2"]
        return info["port2"], info["port1"]
