"""``Controller``: applies a GatewayConfig to one switch and reads its counters and registers back."""

from __future__ import annotations

from typing import Any, Mapping

from controller import names as n
from controller.commands import SAFETY_REGISTERS, config_commands
from controller.config import GatewayConfig, load_config
from controller.drivers import Driver, DriverError
from controller.program import ProgramInfo

__all__ = ["Controller", "ApplyError"]


class ApplyError(DriverError):
    """The switch refused commands of an apply; ``failures`` lists (index, command, error).
    ``stopped``: a write of the trust boundary was refused, so nothing after it ran."""

    def __init__(self, commands: list[str], failures: list[tuple[int, str, Exception]], *,
                 stopped: bool = False):
        self.commands = commands
        self.failures = failures
        self.stopped = stopped
        i, _, err = failures[0]
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        after = ("the apply stopped before any table or other register changed (the new edge "
                 "ports and buffer limits are written first)" if stopped else
                 "the other commands ran (edge ports and buffer limits are set first and "
                 "cleared last)")
        super().__init__(f"command {i + 1} of {len(commands)} failed{more}: {err}; {after}")


class Controller:
    """Target-agnostic control plane of one gateway, over a ``Driver``.

    ``program``: the program the switch runs, to check configs against (a BMv2 JSON path or
    dict, or a ``ProgramInfo``). By default the program of an ``EmbeddedDriver``'s switch, else
    the gateway's documented interface (p4src/README.md) with the config's ``max_ports``.
    """

    def __init__(self, driver: Driver, *, program: Any = None):
        self.driver = driver
        self.config: GatewayConfig | None = None
        self.program = ProgramInfo.load(program) if program is not None else _program_of(driver)

    def commands(self, cfg: GatewayConfig | dict | str) -> list[str]:
        """The simple_switch_CLI commands that make the switch run ``cfg``, checked against the
        program (``ConfigError`` names the field that it would refuse or misread)."""
        return config_commands(_as_config(cfg), self.program)

    def apply(self, cfg: GatewayConfig | dict | str) -> list[str]:
        """Check ``cfg`` against the program, then run ``commands(cfg)`` on the switch.

        First the trust boundary: the edge ports and buffer limits the config sets (the
        leading commands). If the switch refuses one of them, the apply stops there, before
        any route or L2 link to that port exists: a port that was to become an edge port
        never forwards EPDN options its hosts forge. Then every other command, even past a
        refused one (as a piped simple_switch_CLI session runs them, so every driver leaves
        the same state). ``ApplyError`` names the refused commands."""
        cfg = _as_config(cfg)
        cmds = config_commands(cfg, self.program)
        gate = _boundary_length(cmds)
        failures = self._run_every(cmds[:gate])
        if failures:
            raise ApplyError(cmds, failures, stopped=True)
        failures = self._run_every(cmds[gate:], first=gate)
        if failures:
            raise ApplyError(cmds, failures)
        self.config = cfg
        return cmds

    def _run_every(self, cmds: list[str], first: int = 0) -> list[tuple[int, str, Exception]]:
        """Every command, past refusals: in one call where the driver runs a whole batch that
        way (Bmv2Driver.run_all: one CLI session), else one call per command. Indices count
        from ``first``."""
        if not cmds:
            return []
        run_all = getattr(self.driver, "run_all", None)
        if run_all is not None:
            return [(first + i, cmds[i], err) for i, (_, err) in enumerate(run_all(cmds))
                    if err is not None]
        failures = []
        for i, cmd in enumerate(cmds):
            try:
                self.driver.run([cmd])
            except DriverError as e:
                failures.append((first + i, cmd, e))
        return failures

    def reset_state(self) -> list[str]:
        """Empty the EPDN table, zero the virtual queues, restart patterns, zero every counter.

        For test harnesses and back-to-back experiment runs on one switch process; the traffic
        manager must be empty (no packet in flight), or port_qlen would under-count.
        """
        cmds = [f"register_reset {r}" for r in (n.REG_EPDN_FP, n.REG_EPDN_LO, n.REG_EPDN_HI,
                                                 n.REG_PORT_QLEN, n.REG_PATTERN_POS,
                                                 n.REG_RED_AVG, n.REG_RED_COUNT)]
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
            "red": self._red(ports),
            "legacy": self.driver.read_registers([(n.REG_LEGACY_ROUTER, 0)]) == [1],
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
    def _red(self, ports: list[int]) -> dict[str, Any]:
        """RED's drops (their own cause, counted apart from ``drops``), and the average queue
        (packets) and count since the last drop of every reported port the config runs RED on."""
        [(packets, nbytes)] = self.driver.read_counters([(n.CTR_DROPS, n.RED_DROP_CAUSE)])
        red_ports = [p for p in ports
                     if self.config and p in self.config.ports and self.config.ports[p].red]
        avgs = self.driver.read_registers([(n.REG_RED_AVG, p) for p in red_ports])
        counts = self.driver.read_registers([(n.REG_RED_COUNT, p) for p in red_ports])
        return {"drops": {"packets": packets, "bytes": nbytes},
                "ports": {p: {"avg": avg / n.RED_AVG_ONE, "count": count - 1}
                          for p, avg, count in zip(red_ports, avgs, counts)}}

    def _counters(self, name: str, labels: dict[int, str]) -> dict[str, dict[str, int]]:
        values = self.driver.read_counters([(name, i) for i in labels])
        return {label: {"packets": p, "bytes": b} for label, (p, b) in zip(labels.values(), values)}

    def _ports(self, ports: list[int]) -> dict[int, dict[str, Any]]:
        qlens = self.driver.read_registers([(n.REG_PORT_QLEN, p) for p in ports])
        drops = self.driver.read_counters([(n.CTR_PORT_DROPS, p) for p in ports])
        return {p: {"qlen": q, "drops": {"packets": d[0], "bytes": d[1]}}
                for p, q, d in zip(ports, qlens, drops)}


def _boundary_length(cmds: list[str]) -> int:
    """How many leading commands write the trust boundary and the buffer limits (the block
    ``plan_commands`` puts first: the cells the config sets)."""
    heads = tuple(f"register_write {reg} " for reg in SAFETY_REGISTERS)
    k = 0
    while k < len(cmds) and cmds[k].startswith(heads):
        k += 1
    return k


def _as_config(cfg: GatewayConfig | dict | str) -> GatewayConfig:
    return cfg if isinstance(cfg, GatewayConfig) else load_config(cfg)


# ProgramInfo per loaded program JSON: many switches (the simulator's) share one program, and
# each Controller over them would otherwise read the same JSON again. The JSON is kept with its
# entry, so its id cannot be reused while the entry lives.
_PROGRAMS: dict[int, tuple[Mapping, ProgramInfo]] = {}


def _program_of(driver: Any) -> ProgramInfo | None:
    """The program of an embedded switch (``EmbeddedDriver.switch``), None for a driver that
    cannot show it (a switch process: the gateway's documented interface is used)."""
    doc = getattr(getattr(getattr(driver, "switch", None), "program", None), "json", None)
    if not isinstance(doc, Mapping):
        return None
    hit = _PROGRAMS.get(id(doc))
    if hit is None or hit[0] is not doc:
        if len(_PROGRAMS) > 64:
            _PROGRAMS.clear()
        hit = _PROGRAMS[id(doc)] = (doc, ProgramInfo.from_json(doc))
    return hit[1]
