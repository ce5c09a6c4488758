"""The Thrift API's view of the switch process: its clock, its ports, its configuration swap.

``ProcessHost`` is the ``ControlHost`` of a running ``SwitchProcess``: the time queries read
the process's clock (the library never reads one), ``show_ports`` / ``port_add`` /
``port_remove`` act on its interfaces (simple_switch's device manager: a port added at run
time is bound and served at once), and a configuration swap hands the new switch to the
loop, whose queued packets are dropped as the old program goes.
"""

from __future__ import annotations

import logging
import selectors

from ..simple_switch.switch import SimpleSwitch
from ..thrift_server.host import ControlHost
from netbase.packet_socket import PortError, RawPort

__all__ = ["ProcessHost"]

log = logging.getLogger("rdtcp-switch")


class ProcessHost(ControlHost):
    def __init__(self, sw: SimpleSwitch, config_text: str, **kw):
        super().__init__(sw, config_text, **kw)
        self.proc = None

    def attach(self, proc) -> None:
        """Serve ``proc`` (a SwitchProcess): its clock, ports and data path."""
        self.proc = proc
        self.now_us = lambda: int(proc.now() * 1_000_000)
        self.on_swap = self._swap

    def _swap(self, new: SimpleSwitch) -> None:
        old, self.proc.sw = self.proc.sw, new
        dropped = sum(old.tm.queue_length(p) for p in self.proc.ports)
        log.info("configuration swapped (%d queued packets of the old program dropped)", dropped)

    # -- device manager -----------------------------------------------------------------------
    def port_info(self) -> list[tuple[int, str, bool]]:
        return [(n, p.ifname, True) for n, p in sorted(self.proc.ports.items())]

    def add_port(self, iface: str, port: int, pcap: str) -> None:
        ports = self.proc.ports
        if port in ports or any(p.ifname == iface for p in ports.values()):
            raise ValueError(f"port {port} or interface {iface!r} is already in use")
        try:
            raw = RawPort(port, iface)
        except PortError as e:
            raise OSError(str(e)) from None
        ports[port] = raw
        if self.proc._registered:
            self.proc.sel.register(raw.sock, selectors.EVENT_READ, ("port", port))
        log.info("Adding interface %s as port %d", iface, port)

    def remove_port(self, port: int) -> None:
        raw = self.proc.ports.pop(port)
        if self.proc._registered:
            self.proc.sel.unregister(raw.sock)
        raw.close()
        log.info("Removing port %d (%s)", port, raw.ifname)
