"""A generated v1model program of configurable size (for the front end's speed check)."""
from __future__ import annotations

from .conftest import HEADERS, PIPELINE


def large_program(n_blocks: int) -> str:
    """About 17 lines per block: an action with arithmetic and an if, a table, an apply."""
    lines = ["#include <core.p4>", "#include <v1model.p4>", HEADERS]
    lines.append("control I(inout headers_t hdr, inout meta_t meta, "
                 "inout standard_metadata_t sm) {")
    lines.append("    register<bit<32>>(1024) regs;")
    for i in range(n_blocks):
        lines += [
            f"    action act_{i}(bit<32> v, bit<9> port) {{",
            f"        meta.a = (meta.a + v) & 32w0x{i:04x}ffff;",
            f"        if (meta.a > {i}) {{ meta.b = meta.a |+| {i}; }}",
            f"        else {{ meta.b = meta.b - (hdr.ipv4.ttl ++ 24w0 >> 8); }}",
            f"        hdr.ipv4.ttl = hdr.ipv4.ttl - 1; sm.egress_spec = port;",
            f"        regs.write({i}, meta.b);",
            "    }",
            f"    table tbl_{i} {{",
            f"        key = {{ hdr.ipv4.dstAddr: lpm; hdr.ipv4.protocol: exact; }}",
            f"        actions = {{ act_{i}; NoAction; }}",
            "        default_action = NoAction();",
            f"        size = {1024 + i};",
            "    }",
        ]
    lines.append("    apply {")
    for i in range(n_blocks):
        lines.append(f"        if (hdr.ipv4.isValid() && meta.c != {i % 256}) {{ tbl_{i}.apply(); }}")
    lines.append("    }")
    lines.append("}")
    lines.append(PIPELINE)
    lines.append("V1Switch(P(), VC(), I(), E(), CC(), D()) main;")
    return "\n".join(lines) + "\n"
