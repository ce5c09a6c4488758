"""Generated setters for v1model's standard metadata, specialised to one program's PHV layout.

simple_switch writes several ``standard_metadata`` fields at fixed points of a packet's life
(arrival, enqueue, dequeue). Generating these writes with constant slots, once per program,
keeps the per-packet cost to one call each instead of many attribute lookups.
"""

from __future__ import annotations

from ..bm_sim.json_loader import Program

__all__ = ["metadata_setters"]

DROP_PORT = 511


def _slot(prog: Program, name: str) -> int | None:
    lay = prog.layout
    return lay.slot("standard_metadata", name) if lay.has_field("standard_metadata", name) else None


def _source(prog: Program) -> str:
    s = lambda n: _slot(prog, n)   # noqa: E731
    lines = ["def on_arrival(F, port, length, now_us):",
             f"    F[{s('ingress_port')}] = port & 0x1FF",
             f"    F[{s('packet_length')}] = length & 0xFFFFFFFF"]
    if s("ingress_global_timestamp") is not None:
        lines.append(f"    F[{s('ingress_global_timestamp')}] = now_us & 0xFFFFFFFFFFFF")
    lines.append("def on_enqueue(F, enq_us, depth):")
    lines.append("    pass")
    if s("enq_timestamp") is not None:
        lines.append(f"    F[{s('enq_timestamp')}] = enq_us & 0xFFFFFFFF")
    if s("enq_qdepth") is not None:
        lines.append(f"    F[{s('enq_qdepth')}] = depth & 0x7FFFF")
    lines.append("def on_dequeue(F, P, port, now_us, depth):")
    if s("egress_global_timestamp") is not None:
        lines.append(f"    F[{s('egress_global_timestamp')}] = now_us & 0xFFFFFFFFFFFF")
    if s("deq_timedelta") is not None:
        lines.append(f"    F[{s('deq_timedelta')}] = (now_us - P.enq_us) & 0xFFFFFFFF")
    if s("deq_qdepth") is not None:
        lines.append(f"    F[{s('deq_qdepth')}] = depth & 0x7FFFF")
    lines += [f"    F[{s('egress_port')}] = port & 0x1FF",
              # simple_switch presets egress_spec to a non-drop value before egress
              f"    F[{s('egress_spec')}] = {(DROP_PORT + 1) & 0x1FF}",
              f"    F[{s('packet_length')}] = P.length & 0xFFFFFFFF"]
    return "\n".join(lines) + "\n"


def metadata_setters(prog: Program) -> tuple:
    """(on_arrival, on_enqueue, on_dequeue) for ``prog``; compiled once and cached on it."""
    cached = getattr(prog, "_v1model_setters", None)
    if cached is None:
        ns: dict = {}
        exec(compile(_source(prog), f"<v1model-metadata:{prog.name}>", "exec"), ns)
        cached = (ns["on_arrival"], ns["on_enqueue"], ns["on_dequeue"])
        prog._v1model_setters = cached
    return cached
