"""Control-flow fuzzing: random nests of if/else, assignments that read values written
earlier, return and exit, placed in an action called from apply (lowered to _jump /
_jump_if_zero) or directly in the apply block (lowered to conditionals and synthetic tables),
compiled, run on the embedded target and compared with a Python model of P4_16 statement
semantics (spec 11.x: return leaves the action or control, exit ends all processing)."""
from __future__ import annotations

import random

import pytest

from toolchain.compiler import compile_file

PROGRAMS = 30
PACKETS = 6
ETH = bytes.fromhex("00000000000200000000000188B5")


class Return(Exception):
    pass


class Exit(Exception):
    pass


def gen_block(rng: random.Random, depth: int) -> list:
    return [gen_stmt(rng, depth) for _ in range(rng.randint(1, 3))]


def gen_stmt(rng: random.Random, depth: int):
    kind = rng.choices(["add", "mix", "if", "return", "exit"],
                       [4, 3, 4 if depth else 0, 1, 0.5])[0]
    if kind == "add":
        return ("add", rng.randrange(256))
    if kind == "mix":
        return ("mix",)
    if kind == "if":
        field, k = rng.choice(["x", "y", "r"]), rng.randrange(256)
        op = rng.choice([">", "==", "<"])
        other = gen_block(rng, depth - 1) if rng.random() < 0.6 else []
        return ("if", field, op, k, gen_block(rng, depth - 1), other)
    return (kind,)


def render(block: list, indent: str) -> str:
    out = []
    for s in block:
        if s[0] == "add":
            out.append(f"{indent}hdr.v.r = hdr.v.r + {s[1]};")
        elif s[0] == "mix":
            out.append(f"{indent}hdr.v.r = (hdr.v.r << 1) ^ hdr.v.x;")
        elif s[0] == "if":
            _, field, op, k, then, other = s
            out.append(f"{indent}if (hdr.v.{field} {op} {k}) {{")
            out.append(render(then, indent + "    "))
            out.append(f"{indent}}} else {{")
            out.append(render(other, indent + "    "))
            out.append(f"{indent}}}")
        else:
            out.append(f"{indent}{s[0]};")
    return "\n".join(x for x in out if x)


def run_model(block: list, v: dict) -> None:
    for s in block:
        if s[0] == "add":
            v["r"] = (v["r"] + s[1]) & 0xFF
        elif s[0] == "mix":
            v["r"] = ((v["r"] << 1) ^ v["x"]) & 0xFF
        elif s[0] == "if":
            _, field, op, k, then, other = s
            test = {">": v[field] > k, "==": v[field] == k, "<": v[field] < k}[op]
            run_model(then if test else other, v)
        elif s[0] == "return":
            raise Return()
        else:
            raise Exit()


def program(block: list, in_action: bool) -> str:
    code = render(block, "        ")
    action = f"    action act() {{\n{code}\n    }}\n" if in_action else ""
    apply_body = "act();" if in_action else "\n" + code.replace("\n", "\n    ").replace(
        "        ", "            ", 1)
    return f"""#include <core.p4>
#include <v1model.p4>
header ethernet_t {{ bit<48> dst; bit<48> src; bit<16> ether_type; }}
header v_t {{ bit<8> x; bit<8> y; bit<8> r; bit<8> z; }}
struct headers_t {{ ethernet_t ethernet; v_t v; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
    state start {{ pkt.extract(hdr.ethernet); pkt.extract(hdr.v); transition accept; }}
}}
control VC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{
{action}    apply {{
        std.egress_spec = 1;
        {apply_body}
        hdr.v.z = hdr.v.r + 1;
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {{ apply {{ }} }}
control CC(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.ethernet); pkt.emit(hdr.v); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def expected(block: list, in_action: bool, v: dict) -> dict:
    v = dict(v)
    try:
        run_model(block, v)
    except Return:
        if not in_action:
            return v                # return leaves the apply block: z not written
    except Exit:
        return v
    v["z"] = (v["r"] + 1) & 0xFF
    return v


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_random_control_flow_matches_p4_semantics(seed, tmp_path):
    from toolchain.switch import SimpleSwitch, load_program
    rng = random.Random(seed)
    block, in_action = gen_block(rng, 3), rng.random() < 0.5
    src = tmp_path / "cf.p4"
    src.write_text(program(block, in_action))
    sw = SimpleSwitch(load_program(compile_file(src)), seed=1)
    for _ in range(PACKETS):
        v = {"x": rng.randrange(256), "y": rng.randrange(256), "r": rng.randrange(256), "z": 0}
        (port, out), = sw.process(0, ETH + bytes([v["x"], v["y"], v["r"], 0]))
        want = expected(block, in_action, v)
        assert out == ETH + bytes([want["x"], want["y"], want["r"], want["z"]]), \
            f"{src.read_text()}\ninput {v}"
