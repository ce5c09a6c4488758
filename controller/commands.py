"""A GatewayConfig as simple_switch_CLI commands (behavioral-model docs/runtime_CLI.md syntax).

The command list is declarative: it first clears the tables and resets every configuration
register, then writes what the config says, so applying it to a switch that ran another config
leaves exactly this one. The EPDN table and the counters are state, not configuration: untouched.
"""

from __future__ import annotations

from controller import names as n
from controller.config import GatewayConfig, Impairments, PortConfig

__all__ = ["config_commands", "probability_word", "tm_depth_for"]

MIN_TM_DEPTH = 64      # simple_switch's default queue depth


def probability_word(p: float) -> int:
    """A probability as the program's 32-bit threshold: drop when random32 < word."""
    return min(round(p * (1 << 32)), (1 << 32) - 1)


def tm_depth_for(port: PortConfig) -> int | None:
    """Traffic-manager depth for a limited port: deeper than the limit (p4src/README.md)."""
    if port.tm_depth is not None:
        return port.tm_depth
    if port.buffer_limit:
        return max(MIN_TM_DEPTH, 2 * port.buffer_limit)
    return None


def config_commands(cfg: GatewayConfig) -> list[str]:
    cmds = [f"table_clear {n.IPV4_LPM}", f"table_clear {n.L2_FORWARD}"]
    cmds += [f"register_reset {reg}" for reg in n.CONFIG_REGISTERS]
    for r in cfg.routes:
        cmds.append(f"table_add {n.IPV4_LPM} {n.IPV4_FORWARD} {r.prefix} => "
                    f"{r.next_hop_mac} {r.port}")
    for link in cfg.l2:
        cmds.append(f"table_add {n.L2_FORWARD} {n.L2_OUTPUT} {link.in_port} => {link.out_port}")
    for port in sorted(cfg.ports):
        cmds += _port_commands(cfg.ports[port])
    return cmds


def _port_commands(pc: PortConfig) -> list[str]:
    p = pc.port
    cmds = []
    if pc.edge:
        cmds.append(f"register_write {n.REG_EDGE_PORT} {p} 1")
    if pc.mtu is not None:
        cmds.append(f"register_write {n.REG_PORT_MTU} {p} {pc.mtu}")
    if pc.buffer_limit:
        cmds.append(f"register_write {n.REG_BUFFER_LIMIT} {p} {pc.buffer_limit}")
    depth = tm_depth_for(pc)
    if depth is not None:
        cmds.append(f"set_queue_depth {depth} {p}")
    if pc.queue_rate_pps is not None:
        cmds.append(f"set_queue_rate {pc.queue_rate_pps} {p}")
    return cmds + _impair_commands(p, pc.impair)


def _impair_commands(p: int, imp: Impairments) -> list[str]:
    cmds = []
    for reg, prob in ((n.REG_DROP_PROB, imp.drop_prob), (n.REG_RECIRC_PROB, imp.recirc_prob),
                      (n.REG_ALT_PROB, imp.alt_prob)):
        if prob:
            cmds.append(f"register_write {reg} {p} {probability_word(prob)}")
    if imp.recirc_loops:
        cmds.append(f"register_write {n.REG_RECIRC_LOOPS} {p} {imp.recirc_loops}")
    if imp.alt_port is not None:
        cmds.append(f"register_write {n.REG_ALT_PORT} {p} {imp.alt_port}")
    if imp.pattern:
        base = p * n.PATTERN_SLOTS
        cmds += [f"register_write {n.REG_IMPAIR_PATTERN} {base + i} {code}"
                 for i, code in enumerate(imp.pattern) if code]
        cmds.append(f"register_write {n.REG_PATTERN_LEN} {p} {len(imp.pattern)}")
    return cmds
