"""A GatewayConfig as simple_switch_CLI commands (behavioral-model docs/runtime_CLI.md syntax),
checked against the program before any of them runs.

The list is declarative: applied to a switch that ran another config, it leaves exactly this
one. The EPDN table, the virtual queue lengths and the counters are state, not configuration:
untouched. Its order keeps the switch safe when a command fails on the way:

1. the trust boundary and the buffer limits first: ``edge_port`` and ``buffer_limit`` cells the
   config sets are written before anything else and are never reset;
2. then the tables and the other configuration registers, cleared and written (the edge ports'
   source prefixes, ``edge_source``, right after the routes and the bridges are cleared, so
   nothing is forwarded while that part of the trust boundary is rewritten; for an RD-TCP
   gateway, not ``legacy``, ``legacy_router`` cleared after the resets, before the writes);
3. last, the ``edge_port`` and ``buffer_limit`` cells the config leaves at 0, one by one, and
   for a legacy router, ``legacy_router`` set.

So whichever command fails, an edge port of the old config or of the new one is still an edge
port (EPDN options from its hosts are still stripped) and a port's buffer limit is the old or the
new one, never none. ``legacy_router`` is never reset on the way: it changes once, in the
direction that strips sooner (to a gateway, first) or later (to a legacy router, last).
``Controller.apply`` stops when a command of the first block fails (no route then reaches a
port whose trust boundary is not in place); past it, it runs every command even past a failed
one (as a piped simple_switch_CLI session does), so the embedded switch and a switch process
end in the same state, and names the command that failed.

Every command is checked against the program first (``check_commands``): the tables, actions and
registers it names exist, its register cell exists and its value fits the register (a wider one
would be masked by ``register_write``), its table key is not added twice and fits the table, its
queue depth or rate is a positive integer. A ``ConfigError`` names the config field.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from controller import names as n
from controller.config import ConfigError, GatewayConfig, Impairments, PortConfig, RedConfig
from controller.program import ProgramInfo

__all__ = ["Command", "config_commands", "plan_commands", "check_commands", "probability_word",
           "tm_depth_for", "red_words", "source_commands"]

MIN_TM_DEPTH = 64              # simple_switch's default queue depth
MAX_TM_DEPTH = (1 << 31) - 1   # simple_switch's set_queue_depth takes a 32-bit signed count
MAX_RATE_PPS = (1 << 32) - 1   # the schema's bound (controller/config.py)
SAFETY_REGISTERS = (n.REG_EDGE_PORT, n.REG_BUFFER_LIMIT)
# written once, never reset on the way: a reset would turn a legacy router into a gateway that
# records and stamps in the middle of an apply
ONCE_REGISTERS = SAFETY_REGISTERS + (n.REG_LEGACY_ROUTER,)


@dataclass(frozen=True)
class Command:
    """One simple_switch_CLI command and the config field it comes from."""

    op: str
    args: tuple
    field: str

    def __str__(self) -> str:
        if self.op == "table_add":
            table, action, key, params = self.args
            key = " ".join(map(str, key)) if isinstance(key, tuple) else key
            return f"table_add {table} {action} {key} => {' '.join(map(str, params))}"
        return " ".join([self.op, *map(str, self.args)])


def probability_word(p: float) -> int:
    """A probability as the program's 32-bit threshold: drop when random32 < word."""
    return min(round(p * (1 << 32)), (1 << 32) - 1)


def red_words(red: RedConfig) -> dict[str, int]:
    """RED's parameters in the program's fixed point (p4src/include/buffer.p4): thresholds in
    1/2^16 packets, w_q in 1/2^24, and the slope max_p / (max_th - min_th) such that
    p_b * 2^32 = (avg - min_th) * slope / 2^16 (at most 2^32 - 1)."""
    lo, hi = round(red.min_th * n.RED_AVG_ONE), round(red.max_th * n.RED_AVG_ONE)
    slope = min(round(red.max_p * (1 << 48) / (hi - lo)), (1 << 32) - 1)
    return {n.REG_RED_MIN_TH: lo, n.REG_RED_W_Q: round(red.w_q * n.RED_W_Q_ONE),
            n.REG_RED_SLOPE: slope, n.REG_RED_MAX_TH: hi}


def tm_depth_for(port: PortConfig) -> int | None:
    """Traffic-manager depth for a limited port: deeper than the limit (p4src/README.md)."""
    if port.tm_depth is not None:
        return port.tm_depth
    if port.buffer_limit:
        return max(MIN_TM_DEPTH, 2 * port.buffer_limit)
    return None


def config_commands(cfg: GatewayConfig, program: ProgramInfo | None = None) -> list[str]:
    """The commands of ``cfg`` as text, checked against ``program`` (default: the gateway's
    documented interface with ``cfg.max_ports`` ports)."""
    cmds = plan_commands(cfg)
    check_commands(cmds, program if program is not None else ProgramInfo.gateway(cfg.max_ports),
                   max_ports=cfg.max_ports)
    return [str(c) for c in cmds]


# ------------------------------------------------------------------ the plan
def plan_commands(cfg: GatewayConfig) -> list[Command]:
    ports = [cfg.ports[p] for p in sorted(cfg.ports)]
    cmds = [Command("register_write", (n.REG_EDGE_PORT, pc.port, 1), f"ports.{pc.port}.edge")
            for pc in ports if pc.edge]
    cmds += [Command("register_write", (n.REG_BUFFER_LIMIT, pc.port, pc.buffer_limit),
                     f"ports.{pc.port}.buffer_limit") for pc in ports if pc.buffer_limit]
    cmds += [Command("table_clear", (n.IPV4_LPM,), "routes"),
             Command("table_clear", (n.L2_FORWARD,), "l2")]
    cmds += source_commands(cfg)        # while nothing is routed or bridged
    cmds += [Command("register_reset", (reg,), "ports")
             for reg in n.CONFIG_REGISTERS if reg not in ONCE_REGISTERS]
    if not cfg.legacy:          # an RD-TCP gateway: its edge ports strip from here on
        cmds.append(Command("register_write", (n.REG_LEGACY_ROUTER, 0, 0), "legacy"))
    cmds += [Command("table_add", (n.IPV4_LPM, n.IPV4_FORWARD, r.prefix, (r.next_hop_mac, r.port)),
                     f"routes[{i}]") for i, r in enumerate(cfg.routes)]
    cmds += [Command("table_add", (n.L2_FORWARD, n.L2_OUTPUT, link.in_port, (link.out_port,)),
                     f"l2[{i}]") for i, link in enumerate(cfg.l2)]
    for pc in ports:
        cmds += _port_commands(pc)
    cmds += [Command("register_write", (n.REG_EDGE_PORT, p, 0), f"ports.{p}.edge")
             for p in range(cfg.max_ports) if not (p in cfg.ports and cfg.ports[p].edge)]
    cmds += [Command("register_write", (n.REG_BUFFER_LIMIT, p, 0), f"ports.{p}.buffer_limit")
             for p in range(cfg.max_ports) if not (p in cfg.ports and cfg.ports[p].buffer_limit)]
    if cfg.legacy:              # a legacy router: the old config's trust boundary held till now
        cmds.append(Command("register_write", (n.REG_LEGACY_ROUTER, 0, 1), "legacy"))
    return cmds


def source_commands(cfg: GatewayConfig) -> list[Command]:
    """The source check of the edge ports (p4src/include/trust.p4, BCP 38): per edge port its
    allowed prefixes; any other source misses the table and is dropped. The prefixes are the
    port's ``sources``, else those routed out of it (strict uRPF, RFC 3704 §2.2: a host may send
    from the addresses its replies are routed to), so a port with neither accepts no IPv4 and
    one with a default route out of it any source."""
    cmds = [Command("table_clear", (n.EDGE_SOURCE,), "ports")]
    for p in sorted(cfg.ports):
        pc = cfg.ports[p]
        if not pc.edge:
            continue
        if pc.sources:
            allowed = [(prefix, f"ports.{p}.sources[{i}]") for i, prefix in enumerate(pc.sources)]
        else:
            allowed = [(r.prefix, f"routes[{i}]") for i, r in enumerate(cfg.routes)
                       if r.port == p]
        cmds += [Command("table_add", (n.EDGE_SOURCE, n.SOURCE_OK, (p, prefix), ()), at)
                 for prefix, at in allowed]
    return cmds


def _port_commands(pc: PortConfig) -> list[Command]:
    p, at = pc.port, f"ports.{pc.port}"
    cmds = []
    if pc.mtu is not None:
        cmds.append(Command("register_write", (n.REG_PORT_MTU, p, pc.mtu), f"{at}.mtu"))
    depth = tm_depth_for(pc)
    if depth is not None:
        cmds.append(Command("set_queue_depth", (depth, p), f"{at}.tm_depth"))
    if pc.queue_rate_pps is not None:
        cmds.append(Command("set_queue_rate", (pc.queue_rate_pps, p), f"{at}.queue_rate_pps"))
    if pc.red is not None:
        # red_max_th last: a port's RED turns on only once its other parameters are in place
        cmds += [Command("register_write", (reg, p, word), f"{at}.red")
                 for reg, word in red_words(pc.red).items()]
    return cmds + _impair_commands(p, pc.impair, f"{at}.impair")


def _impair_commands(p: int, imp: Impairments, at: str) -> list[Command]:
    cmds = []
    for reg, key, prob in ((n.REG_DROP_PROB, "drop_prob", imp.drop_prob),
                           (n.REG_RECIRC_PROB, "recirc_prob", imp.recirc_prob),
                           (n.REG_ALT_PROB, "alt_prob", imp.alt_prob)):
        if prob:
            cmds.append(Command("register_write", (reg, p, probability_word(prob)), f"{at}.{key}"))
    if imp.recirc_loops:
        cmds.append(Command("register_write", (n.REG_RECIRC_LOOPS, p, imp.recirc_loops),
                            f"{at}.recirc_loops"))
    if imp.alt_port is not None:
        cmds.append(Command("register_write", (n.REG_ALT_PORT, p, imp.alt_port), f"{at}.alt_port"))
    if imp.pattern:
        base = p * n.PATTERN_SLOTS
        cmds += [Command("register_write", (n.REG_IMPAIR_PATTERN, base + i, code),
                         f"{at}.pattern[{i}]") for i, code in enumerate(imp.pattern) if code]
        cmds.append(Command("register_write", (n.REG_PATTERN_LEN, p, len(imp.pattern)),
                            f"{at}.pattern"))
    return cmds


# ------------------------------------------------------------------ the checks
def check_commands(cmds: list[Command], program: ProgramInfo, *, max_ports: int) -> None:
    """Raise ``ConfigError`` (the field, the reason) for the first command the program would
    refuse, or would take as something other than what the config says."""
    _check_max_ports(program, max_ports)
    added: dict[tuple[str, Any], str] = {}
    for c in cmds:
        if c.op in ("table_clear", "table_add"):
            table = _table(program, c.args[0], c.field)
            if c.op == "table_add":
                _check_entry(c, table, added)
        elif c.op in ("register_reset", "register_write"):
            reg = _register(program, c.args[0], c.field)
            if c.op == "register_write":
                _check_cell(c, reg)
        else:
            _check_queue(c)


def _check_max_ports(program: ProgramInfo, max_ports: int) -> None:
    edge = program.registers.get(n.REG_EDGE_PORT)
    if edge is not None and edge.size != max_ports:
        raise ConfigError("max_ports", f"{max_ports}, but the program's per-port registers have "
                                       f"{edge.size} cells (its MAX_PORTS)")


def _table(program: ProgramInfo, name: str, field: str):
    table = program.tables.get(name)
    if table is None:
        raise ConfigError(field, f"the program has no table {name}")
    return table


def _register(program: ProgramInfo, name: str, field: str):
    reg = program.registers.get(name)
    if reg is None:
        raise ConfigError(field, f"the program has no register {name}")
    return reg


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_cell(c: Command, reg) -> None:
    name, index, value = c.args
    if not _is_int(index) or not 0 <= index < reg.size:
        raise ConfigError(c.field, f"cell {index!r} of {name}, which has {reg.size} cells")
    if not _is_int(value) or not 0 <= value < 1 << reg.width:
        raise ConfigError(c.field, f"{value!r} does not fit {name} (bit<{reg.width}>): "
                                   "register_write would store something else")


def _check_entry(c: Command, table, added: dict) -> None:
    name, action, key, params = c.args
    if action not in table.actions:
        raise ConfigError(c.field, f"{action} is not an action of {name}")
    widths = table.actions[action]
    if len(params) != len(widths):
        raise ConfigError(c.field, f"{action} takes {len(widths)} parameters, not {len(params)}")
    for value, width in zip(params, widths):
        if not 0 <= _param_value(value, c.field) < 1 << width:
            raise ConfigError(c.field, f"{value!r} does not fit {action}'s bit<{width}> parameter")
    canonical = _key_value(key, table.keys, c.field)
    if (name, canonical) in added:
        raise ConfigError(c.field, f"the key {key} of {name} is already added by "
                                   f"{added[(name, canonical)]}")
    added[(name, canonical)] = c.field
    if sum(1 for t, _ in added if t == name) > table.size:
        raise ConfigError(c.field, f"{name} holds at most {table.size} entries")


def _param_value(value: Any, field: str) -> int:
    if _is_int(value):
        return value
    if isinstance(value, str) and value.count(":") == 5:
        return int(value.replace(":", ""), 16)
    raise ConfigError(field, f"{value!r} is not an action parameter (an integer or a MAC address)")


def _key_value(key: Any, keys: tuple, field: str) -> Any:
    """The key as the table matches it: (address, prefix length) for an LPM key, an int for an
    exact one, a tuple of those for a table of several keys (``key`` a tuple, one value per
    key); refused when it does not fit the key's width."""
    parts = key if isinstance(key, tuple) else (key,)
    if len(parts) != len(keys):
        raise ConfigError(field, f"the table has {len(keys)} keys, the entry {len(parts)}")
    values = tuple(_key_part(part, kind, field) for part, kind in zip(parts, keys))
    return values if isinstance(key, tuple) else values[0]


def _key_part(key: Any, kind: tuple, field: str) -> Any:
    match_type, width = kind
    if match_type == "lpm":
        try:
            net = ipaddress.ip_network(str(key), strict=True)
        except ValueError as e:
            raise ConfigError(field, f"{key!r} is not an IP prefix ({e})") from None
        if width and net.max_prefixlen != width:
            raise ConfigError(field, f"{key}: the table's key is {width} bits")
        return int(net.network_address), net.prefixlen
    if not _is_int(key) or not 0 <= key < 1 << (width or 32):
        raise ConfigError(field, f"{key!r} does not fit the table's bit<{width}> key")
    return key


def _check_queue(c: Command) -> None:
    value, port = c.args
    top = MAX_TM_DEPTH if c.op == "set_queue_depth" else MAX_RATE_PPS
    if not _is_int(value) or not 1 <= value <= top:
        raise ConfigError(c.field, f"{value!r}: {c.op} takes an integer from 1 to {top}")
    if not _is_int(port) or not 0 <= port < n.DROP_PORT:
        raise ConfigError(c.field, f"{port!r} is not a switch port")
