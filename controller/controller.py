"""``Controller``: applies a GatewayConfig to one switch and reads its counters and registers back."""

from __future__ import annotations

from typing import Any

from controller import names as n
from controller.commands import config_commands
from controller.config import GatewayConfig, load_config
from controller.drivers import Driver

__all__ = ["Controller"]


class Controller:
    """Target-agnostic control plane of one gateway, over a ``Driver``."""

    def __init__(self, driver: Driver):
        self.driver = driver
        self.config: GatewayConfig | None = None

    def commands(self, cfg: GatewayConfig | dict | str) -> list[str]:
        """The simple_switch_CLI commands that make the switch run ``cfg``."""
        return config_commands(_as_config(cfg))

    def apply(self, cfg: GatewayConfig | dict | str) -> list[str]:
        """Run ``commands(cfg)`` on the switch; returns the commands (DriverError if refused)."""
        cfg = _as_config(cfg)
        cmds = config_commands(cfg)
        self.driver.run(cmds)
        self.config = cfg
        return cmds

    def reset_state(self) -> list[str]:
        """Empty the EPDN table, zero the virtual queues, restart patterns, zero every counter.

        For test harnesses and back-to-back experiment runs on one switch process; the traffic
        manager must be empty (no packet in flight), or port_qlen would under-count.
        """
        cmds = [f"register_reset {r}" for r in (n.REG_EPDN_FP, n.REG_EPDN_LO, n.REG_EPDN_HI,
                                                 n.REG_PORT_QLEN, n.REG_PATTERN_POS)]
        cmds += [f"counter_reset {c}" for c in (n.CTR_DROPS, n.CTR_PORT_DROPS, n.CTR_EPDN_EVENTS,
                                                 n.CTR_REORDERS)]
        self.driver.run(cmds)
        return cmds

    def report(self, *, ports: list[int] | None = None, epdn_table: bool = False) -> dict:
        """Counters and registers by name.

        ``ports``: the ports to report per-port state for (default: the applied config's ports).
        ``epdn_table``: also list the live EPDN entries (reads the whole fingerprint array, then
        the ranges of the live cells).
        """
        if ports is None:
            ports = sorted(self.config.ports) if self.config else []
        report: dict[str, Any] = {
            "drops": self._counters(n.CTR_DROPS, n.DROP_CAUSES),
            "epdn_events": self._counters(n.CTR_EPDN_EVENTS, n.EPDN_EVENTS),
            "reorders": self._counters(n.CTR_REORDERS, n.REORDER_KINDS),
            "ports": self._ports(ports),
        }
        if epdn_table:
            report["epdn_table"] = self.epdn_entries()
        return report

    def epdn_entries(self, size: int | None = None) -> list[dict]:
        """Live EPDN entries: ``{"index", "fingerprint", "lo", "hi"}`` for every fp != 0.

        Both drivers read the fingerprint array in one request; ``size`` is needed only by a
        driver without ``read_register_array``.
        """
        read_all = getattr(self.driver, "read_register_array", None)
        if read_all is not None:
            fps = read_all(n.REG_EPDN_FP)
        else:
            if size is None:
                raise ValueError("pass size= (the program's EPDN_ENTRIES) to read the EPDN table "
                                 "through this driver")
            fps = self.driver.read_registers([(n.REG_EPDN_FP, i) for i in range(size)])
        live = [i for i, fp in enumerate(fps) if fp]
        los = self.driver.read_registers([(n.REG_EPDN_LO, i) for i in live])
        his = self.driver.read_registers([(n.REG_EPDN_HI, i) for i in live])
        return [{"index": i, "fingerprint": fps[i], "lo": lo, "hi": hi}
                for i, lo, hi in zip(live, los, his)]

    # ------------------------------------------------------------------ helpers
    def _counters(self, name: str, labels: dict[int, str]) -> dict[str, dict[str, int]]:
        values = self.driver.read_counters([(name, i) for i in labels])
        return {label: {"packets": p, "bytes": b} for label, (p, b) in zip(labels.values(), values)}

    def _ports(self, ports: list[int]) -> dict[int, dict[str, Any]]:
        qlens = self.driver.read_registers([(n.REG_PORT_QLEN, p) for p in ports])
        drops = self.driver.read_counters([(n.CTR_PORT_DROPS, p) for p in ports])
        return {p: {"qlen": q, "drops": {"packets": d[0], "bytes": d[1]}}
                for p, q, d in zip(ports, qlens, drops)}


def _as_config(cfg: GatewayConfig | dict | str) -> GatewayConfig:
    return cfg if isinstance(cfg, GatewayConfig) else load_config(cfg)
