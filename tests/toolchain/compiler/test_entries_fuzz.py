"""Const-entry fuzzing: random `const entries` for exact, lpm (value &&& prefix mask),
ternary (value &&& mask, in priority order) and range keys, compiled and run on the embedded
target, compared with the P4_16 model (spec 14.2.1.4: entries listed first win for ternary and
range; lpm picks the longest prefix; no match runs the default action)."""
from __future__ import annotations

import random

import pytest

from toolchain.compiler import compile_file

PROGRAMS = 24
PACKETS = 16
ETH = bytes.fromhex("00000000000200000000000188B5")
WIDTH = 8


def gen_entries(kind: str, rng: random.Random) -> list:
    """(P4 keyset text, predicate, prefix length or None) for distinct random entries."""
    out, seen = [], set()
    for _ in range(rng.randint(1, 6)):
        if kind == "exact":
            v = rng.randrange(256)
            key, text, pred, plen = v, f"{v}", (lambda x, v=v: x == v), None
        elif kind == "lpm":
            plen = rng.randint(0, WIDTH)
            mask = (0xFF << (WIDTH - plen)) & 0xFF
            v = rng.randrange(256) & mask
            key, text, pred = (v, plen), f"{v} &&& {mask}", (lambda x, v=v, m=mask: x & m == v)
        elif kind == "ternary":
            v, m = rng.randrange(256), rng.randrange(256)
            key, text, pred, plen = (v & m, m), f"{v} &&& {m}", (
                lambda x, v=v, m=m: x & m == v & m), None
        else:
            lo = rng.randrange(256)
            hi = rng.randrange(lo, 256)
            key, text, pred, plen = (lo, hi), f"{lo} .. {hi}", (
                lambda x, lo=lo, hi=hi: lo <= x <= hi), None
        if key in seen:
            continue
        seen.add(key)
        out.append((text, pred, plen))
    return out


def program(kind: str, entries: list) -> str:
    lines = "\n".join(f"            {t}: set_r({i + 1});" for i, (t, _, _) in enumerate(entries))
    return f"""#include <core.p4>
#include <v1model.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> ether_type; }}
header v_t {{ bit<8> a; bit<8> r; }}
struct headers_t {{ ethernet_t ethernet; v_t v; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    state start {{ pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    action set_r(bit<8> v) {{ hdr.v.r = v; }}
    table t {{
        key = {{ hdr.v.a: {kind}; }}
        actions = {{ set_r; }}
        const entries = {{
{lines}
        }}
        default_action = set_r(0xEE);
    }}
    apply {{ std.egress_spec = 1; t.apply(); }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.ethernet); pkt.emit(hdr.v); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def expected(kind: str, entries: list, a: int) -> int:
    hits = [(i, plen) for i, (_, pred, plen) in enumerate(entries) if pred(a)]
    if not hits:
        return 0xEE
    if kind == "lpm":
        return max(hits, key=lambda h: h[1])[0] + 1
    return hits[0][0] + 1


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_random_const_entries_match_p4_semantics(seed, tmp_path):
    from toolchain.switch import SimpleSwitch, load_program
    rng = random.Random(seed)
    kind = rng.choice(["exact", "lpm", "ternary", "range"])
    entries = gen_entries(kind, rng)
    src = tmp_path / "entries.p4"
    src.write_text(program(kind, entries))
    sw = SimpleSwitch(load_program(compile_file(src)), seed=1)
    probes = [rng.randrange(256) for _ in range(PACKETS)]
    for a in probes:
        (port, out), = sw.process(0, ETH + bytes([a, 0]))
        assert out[-1] == expected(kind, entries, a), f"{src.read_text()}\na={a}"
