"""End-to-end select fuzzing: random parser selects over two keys of odd widths with exact
values, masks (&&&), ranges (..), don't-cares and an optional default, compiled and run on
the embedded target; the state taken (or NoMatch when no case matches) must be the first
matching case's, as P4_16 spec 12.6 defines select."""
from __future__ import annotations

import random

import pytest

from toolchain.compiler import compile_file

PROGRAMS = 20
PACKETS = 12
ETH = bytes.fromhex("00000000000200000000000188B5")


def keyset(width: int, rng: random.Random):
    """(P4 text, predicate) of one key's case."""
    top = (1 << width) - 1
    kind = rng.choice(["value", "mask", "range", "any"])
    if kind == "value":
        v = rng.randrange(top + 1)
        return str(v), lambda x: x == v
    if kind == "mask":
        v, m = rng.randrange(top + 1), rng.randrange(top + 1)
        return f"{v} &&& {m}", lambda x: x & m == v & m
    if kind == "range":
        lo = rng.randrange(top + 1)
        hi = rng.randrange(lo, top + 1)
        return f"{lo} .. {hi}", lambda x: lo <= x <= hi
    return "_", lambda x: True


def program(wa: int, wb: int, cases: list, default: bool) -> str:
    pad = (8 - (wa + wb) % 8) % 8
    lines = [f"            ({ta}, {tb}): s{i};" for i, (ta, _, tb, _) in enumerate(cases)]
    if default:
        lines.append(f"            default: s{len(cases)};")
    states = "\n".join(f"    state s{i} {{ meta.path = {i + 1}; transition accept; }}"
                       for i in range(len(cases) + 1))
    return f"""#include <core.p4>
#include <v1model.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> ether_type; }}
header k_t {{ bit<{wa}> a; bit<{wb}> b;{f" bit<{pad}> pad;" if pad else ""} }}
header r_t {{ bit<8> path; bit<8> nomatch; }}
struct headers_t {{ ethernet_t ethernet; k_t k; r_t r; }}
struct meta_t {{ bit<8> path; }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    state start {{
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.k);
        transition select(hdr.k.a, hdr.k.b) {{
{chr(10).join(lines)}
        }}
    }}
{states}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    apply {{
        std.egress_spec = 1;
        hdr.r.setValid();
        hdr.r.path = meta.path;
        hdr.r.nomatch = (std.parser_error == error.NoMatch) ? 8w1 : 8w0;
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{
    apply {{ pkt.emit(hdr.ethernet); pkt.emit(hdr.k); pkt.emit(hdr.r); }}
}}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def pack(wa: int, wb: int, a: int, b: int) -> bytes:
    pad = (8 - (wa + wb) % 8) % 8
    return (((a << wb) | b) << pad).to_bytes((wa + wb + pad) // 8, "big")


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_random_select_takes_the_first_matching_case(seed, tmp_path):
    from toolchain.switch import SimpleSwitch, load_program
    rng = random.Random(seed)
    wa, wb = rng.choice([4, 8, 12, 16]), rng.choice([3, 8])
    cases = [keyset(wa, rng) + keyset(wb, rng) for _ in range(rng.randint(1, 5))]
    default = rng.random() < 0.5
    src = tmp_path / "sel.p4"
    src.write_text(program(wa, wb, cases, default))
    sw = SimpleSwitch(load_program(compile_file(src)), seed=1)
    for _ in range(PACKETS):
        a, b = rng.randrange(1 << wa), rng.randrange(1 << wb)
        hits = [i for i, (_, pa, _, pb) in enumerate(cases) if pa(a) and pb(b)]
        path = hits[0] + 1 if hits else (len(cases) + 1 if default else 0)
        nomatch = int(not hits and not default)
        (port, out), = sw.process(0, ETH + pack(wa, wb, a, b))
        assert out == ETH + pack(wa, wb, a, b) + bytes([path, nomatch]), \
            f"{src.read_text()}\na={a} b={b}"
