"""Names and index constants of the gateway program (p4src/rdtcp.p4, p4src/README.md).

These are the program's API as the control plane sees it: table, action, register and counter
names, and the meaning of each counter index. They mirror p4src/include/headers.p4; a test
compiles the program and checks every name here exists in its JSON.
"""

from __future__ import annotations

__all__ = [
    "IPV4_LPM", "IPV4_FORWARD", "L2_FORWARD", "L2_OUTPUT",
    "EDGE_SOURCE", "SOURCE_OK", "SOURCE_SPOOFED", "EDGE_SOURCE_SIZE",
    "REG_BUFFER_LIMIT", "REG_PORT_QLEN", "REG_PORT_MTU", "REG_EDGE_PORT",
    "REG_DROP_PROB", "REG_RECIRC_PROB", "REG_ALT_PROB", "REG_RECIRC_LOOPS", "REG_ALT_PORT",
    "REG_PATTERN_LEN", "REG_PATTERN_POS", "REG_IMPAIR_PATTERN",
    "REG_EPDN_FP", "REG_EPDN_LO", "REG_EPDN_HI", "REG_LEGACY_ROUTER", "CONFIG_REGISTERS",
    "CTR_DROPS", "CTR_PORT_DROPS", "CTR_EPDN_EVENTS", "CTR_REORDERS",
    "DROP_CAUSES", "EPDN_EVENTS", "REORDER_KINDS", "PATTERN_SLOTS", "IMPAIR_CODES",
    "DEFAULT_MAX_PORTS", "DEFAULT_EPDN_ENTRIES", "DEFAULT_MTU", "DROP_PORT",
    "DROP_ACTION", "NO_ACTION", "IPV4_LPM_SIZE", "REGISTER_LAYOUT",
    "REG_RED_MIN_TH", "REG_RED_MAX_TH", "REG_RED_W_Q", "REG_RED_SLOPE", "REG_RED_AVG",
    "REG_RED_COUNT", "RED_DROP_CAUSE", "RED_AVG_ONE", "RED_W_Q_ONE", "RED_MAX_QUEUE",
]

IPV4_LPM = "MyIngress.ipv4_lpm"
IPV4_FORWARD = "MyIngress.ipv4_forward"
L2_FORWARD = "MyIngress.l2_forward"
L2_OUTPUT = "MyIngress.l2_output"
DROP_ACTION = "MyIngress.drop"          # the default action of both tables (routing.p4)
NO_ACTION = "NoAction"
IPV4_LPM_SIZE = 1024                    # routing.p4; l2_forward holds MAX_PORTS entries
# The source check of the edge ports (trust.p4): key (ingress port, IPv4 source lpm); per edge
# port its allowed prefixes -> SOURCE_OK; a miss is SOURCE_SPOOFED, the default (drop cause 8)
EDGE_SOURCE = "MyIngress.edge_source"
SOURCE_OK = "MyIngress.source_ok"
SOURCE_SPOOFED = "MyIngress.source_spoofed"
EDGE_SOURCE_SIZE = 1024

# buffer.p4 declares these two at the top level (shared by ingress and egress): no prefix.
REG_BUFFER_LIMIT = "buffer_limit"
REG_PORT_QLEN = "port_qlen"
REG_PORT_MTU = "MyIngress.port_mtu"
REG_EDGE_PORT = "MyIngress.edge_port"
REG_DROP_PROB = "MyIngress.drop_prob"
REG_RECIRC_PROB = "MyIngress.recirc_prob"
REG_ALT_PROB = "MyIngress.alt_prob"
REG_RECIRC_LOOPS = "MyIngress.recirc_loops"
REG_ALT_PORT = "MyIngress.alt_port"
REG_PATTERN_LEN = "MyIngress.pattern_len"
REG_PATTERN_POS = "MyIngress.pattern_pos"
REG_IMPAIR_PATTERN = "MyIngress.impair_pattern"
# Random Early Detection (p4src/include/buffer.p4), per port, in the program's fixed point.
REG_RED_MIN_TH = "MyIngress.red_min_th"     # packets * RED_AVG_ONE
REG_RED_MAX_TH = "MyIngress.red_max_th"     # packets * RED_AVG_ONE; 0 = RED off
REG_RED_W_Q = "MyIngress.red_w_q"           # w_q * RED_W_Q_ONE
REG_RED_SLOPE = "MyIngress.red_slope"       # max_p * 2^32 per packet above min_th
REG_RED_AVG = "MyIngress.red_avg"           # state: the average queue, packets * RED_AVG_ONE
REG_RED_COUNT = "MyIngress.red_count"       # state: packets since the last RED drop, + 1
RED_AVG_ONE = 1 << 16
RED_W_Q_ONE = 1 << 24
RED_MAX_QUEUE = 65535                       # packets the fixed-point average holds
REG_EPDN_FP = "MyIngress.epdn_fp"
REG_EPDN_LO = "MyIngress.epdn_lo"
REG_EPDN_HI = "MyIngress.epdn_hi"
# one cell: 1 = a legacy router (no EPDN recording, stamping or stripping; p4src/include/epdn.p4)
REG_LEGACY_ROUTER = "MyIngress.legacy_router"

# Every register a config sets: Controller.apply resets or rewrites them all (controller/
# commands.py), so applying a config leaves the switch exactly as the config says, whatever was
# there before.
CONFIG_REGISTERS = (
    REG_BUFFER_LIMIT, REG_PORT_MTU, REG_EDGE_PORT, REG_DROP_PROB, REG_RECIRC_PROB, REG_ALT_PROB,
    REG_RECIRC_LOOPS, REG_ALT_PORT, REG_PATTERN_LEN, REG_PATTERN_POS, REG_IMPAIR_PATTERN,
    REG_RED_MIN_TH, REG_RED_MAX_TH, REG_RED_W_Q, REG_RED_SLOPE, REG_LEGACY_ROUTER,
)

# Every register array: (bits per cell, cells: one per port, per port and pattern slot, per
# EPDN entry, or one for the switch), as p4src declares them (p4src/README.md, "API").
REGISTER_LAYOUT = {
    REG_BUFFER_LIMIT: (32, "port"), REG_PORT_QLEN: (32, "port"), REG_PORT_MTU: (16, "port"),
    REG_EDGE_PORT: (1, "port"), REG_DROP_PROB: (32, "port"), REG_RECIRC_PROB: (32, "port"),
    REG_ALT_PROB: (32, "port"), REG_RECIRC_LOOPS: (8, "port"), REG_ALT_PORT: (9, "port"),
    REG_PATTERN_LEN: (32, "port"), REG_PATTERN_POS: (32, "port"),
    REG_IMPAIR_PATTERN: (2, "pattern"),
    REG_EPDN_FP: (32, "epdn"), REG_EPDN_LO: (32, "epdn"), REG_EPDN_HI: (32, "epdn"),
    REG_RED_MIN_TH: (32, "port"), REG_RED_MAX_TH: (32, "port"), REG_RED_W_Q: (32, "port"),
    REG_RED_SLOPE: (32, "port"), REG_RED_AVG: (32, "port"), REG_RED_COUNT: (32, "port"),
    REG_LEGACY_ROUTER: (1, "switch"),
}

CTR_DROPS = "MyIngress.drops"
CTR_PORT_DROPS = "MyIngress.port_drops"
CTR_EPDN_EVENTS = "MyIngress.epdn_events"
CTR_REORDERS = "MyIngress.reorders"

# Counter index -> report name (headers.p4: DROP_*, EV_*, REORDER_*).
DROP_CAUSES = {1: "buffer", 2: "random", 3: "pattern", 4: "no_route", 5: "ttl", 6: "malformed",
               8: "spoofed"}
# RED drops (buffer.p4: DROP_RED) are reported apart, under "red" (Controller.report).
RED_DROP_CAUSE = 7
EPDN_EVENTS = {0: "record", 1: "stamp", 2: "merge", 3: "collision", 4: "strip",
               5: "defer_mtu", 6: "defer_no_room"}
REORDER_KINDS = {0: "recirculate", 1: "alternate_port"}

PATTERN_SLOTS = 256
# Pattern slot values (headers.p4 IMPAIR_*), by config name and by one-letter code.
IMPAIR_CODES = {"pass": 0, "drop": 1, "recirc": 2, "alt": 3,
                ".": 0, "D": 1, "R": 2, "A": 3}

DEFAULT_MAX_PORTS = 64
DEFAULT_EPDN_ENTRIES = 65536
DEFAULT_MTU = 1500
DROP_PORT = 511
