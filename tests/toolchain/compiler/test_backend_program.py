"""The back end on a hand-built lowered program (no front end involved): the kit's LPM
forwarder written directly in the mid-end IR must pass the kit's STF on the embedded target,
and an action with if/else lowered to jumps must pick the right branch."""
from __future__ import annotations

import json

import pytest

from toolchain.compiler.backend import emit_program
from toolchain.compiler.midend import ir

B8, B9, B16, B32, B48 = ir.Bits(8), ir.Bits(9), ir.Bits(16), ir.Bits(32), ir.Bits(48)
STD = [("ingress_port", 9), ("egress_spec", 9), ("egress_port", 9), ("instance_type", 32),
       ("packet_length", 32), ("enq_timestamp", 32), ("enq_qdepth", 19), ("deq_timedelta", 32),
       ("deq_qdepth", 19), ("ingress_global_timestamp", 48), ("egress_global_timestamp", 48),
       ("mcast_grp", 16), ("egress_rid", 16), ("checksum_error", 1), ("parser_error", 32),
       ("priority", 3), ("_padding", 3)]
IPV4 = [("version", 4), ("ihl", 4), ("diffserv", 8), ("total_len", 16), ("identification", 16),
        ("flags", 3), ("frag_offset", 13), ("ttl", 8), ("protocol", 8), ("hdr_checksum", 16),
        ("src", 32), ("dst", 32)]


def f(h, name, t):
    return ir.FieldRef(h, name, t)


def base_program() -> ir.Program:
    p = ir.Program("hand.p4")
    p.header_types = [ir.HeaderType("scalars_0", []),
                      ir.HeaderType("standard_metadata", [(n, w, False) for n, w in STD]),
                      ir.HeaderType("ethernet_t", [("dst", 48, False), ("src", 48, False),
                                                   ("ether_type", 16, False)]),
                      ir.HeaderType("ipv4_t", [(n, w, False) for n, w in IPV4])]
    p.headers = [ir.HeaderInstance("scalars", "scalars_0", True),
                 ir.HeaderInstance("standard_metadata", "standard_metadata", True),
                 ir.HeaderInstance("ethernet", "ethernet_t", False),
                 ir.HeaderInstance("ipv4", "ipv4_t", False)]
    p.errors = [("NoError", 0), ("PacketTooShort", 1)]
    start = ir.ParseState("start", [ir.ParserOp("extract", [ir.HeaderArg("ethernet")])],
                          [f("ethernet", "ether_type", B16)], [16],
                          [ir.Transition([0x0800], None, "parse_ipv4"),
                           ir.Transition(None, None, None)])
    ipv4 = ir.ParseState("parse_ipv4", [ir.ParserOp("extract", [ir.HeaderArg("ipv4")])], [], [],
                         [ir.Transition(None, None, None)])
    p.parsers = [ir.Parser("parser", "start", [start, ipv4])]
    p.deparsers = [ir.Deparser("deparser", ["ethernet", "ipv4"])]
    return p


def lpm_program() -> ir.Program:
    p = base_program()
    drop = ir.Action("KitIngress.drop", [], [ir.Primitive("mark_to_drop",
                                                          [ir.HeaderArg("standard_metadata")])])
    ttl = f("ipv4", "ttl", B8)
    forward = ir.Action("KitIngress.forward", [("port", 9), ("next_hop", 48)], [
        ir.Primitive("assign", [f("standard_metadata", "egress_spec", B9), ir.ParamRef(0, B9)]),
        ir.Primitive("assign", [f("ethernet", "src", B48), f("ethernet", "dst", B48)]),
        ir.Primitive("assign", [f("ethernet", "dst", B48), ir.ParamRef(1, B48)]),
        ir.Primitive("assign", [ttl, ir.Binary("-", ttl, ir.Const(1, B8), B8)]),
    ])
    to_zero = ir.Action("act", [], [ir.Primitive("assign", [f("standard_metadata", "egress_spec", B9),
                                                            ir.Const(0, B9)])])
    p.actions = [drop, forward, to_zero]
    lpm = ir.Table("KitIngress.ipv4_lpm", [ir.TableKey("lpm", "hdr.ipv4.dst", f("ipv4", "dst", B32))],
                   ["KitIngress.forward", "KitIngress.drop"], 1024,
                   ir.ActionCall("KitIngress.drop", [], []), False,
                   next_tables={"KitIngress.forward": None, "KitIngress.drop": None})
    zero = ir.Table("tbl_act", [], ["act"], 1024, ir.ActionCall("act", [], []), True,
                    next_tables={"act": None})
    cond = ir.Conditional("node_0", ir.ValidRef("ipv4"), "KitIngress.ipv4_lpm", "tbl_act")
    p.pipelines = [ir.Pipeline("ingress", "node_0", [lpm, zero], [cond]),
                   ir.Pipeline("egress", None, [], [])]
    fields = [f("ipv4", n, ir.Bits(w)) for n, w in IPV4 if n != "hdr_checksum"]
    p.calculations = [ir.Calculation("calc", "csum16", fields)]
    p.checksums = [ir.Checksum("cksum", f("ipv4", "hdr_checksum", B16), "calc", False, True,
                               ir.ValidRef("ipv4"))]
    return p


def test_hand_built_lpm_forwarder_passes_kit_stf(kit_dir, tmp_path):
    from toolchain.stf.runner import run_stf
    path = tmp_path / "lpm.json"
    path.write_text(json.dumps(emit_program(lpm_program())))
    result = run_stf(str(path), str(kit_dir / "lpm_forward.stf"), target="embedded")
    assert result.ok, "\n".join(result.failures)


def test_jumps_select_the_branch_inside_an_action():
    from toolchain.switch import SimpleSwitch, load_program
    p = base_program()
    ttl, dscp = f("ipv4", "ttl", B8), f("ipv4", "diffserv", B8)
    other, done = ir.Label("else"), ir.Label("done")
    body = [ir.Primitive("assign", [f("standard_metadata", "egress_spec", B9), ir.Const(1, B9)]),
            ir.JumpIfFalse(ir.Binary(">", ttl, ir.Const(10, B8), ir.BOOL), other),
            ir.Primitive("assign", [dscp, ir.Const(0xAA, B8)]),
            ir.Jump(done),
            other,
            ir.Primitive("assign", [dscp, ir.Const(0xBB, B8)]),
            done]
    p.actions = [ir.Action("branch", [], body)]
    t = ir.Table("tbl_branch", [], ["branch"], 1024, ir.ActionCall("branch", [], []), True,
                 next_tables={"branch": None})
    p.pipelines = [ir.Pipeline("ingress", "tbl_branch", [t], []),
                   ir.Pipeline("egress", None, [], [])]
    sw = SimpleSwitch(load_program(emit_program(p)), seed=1)
    eth = bytes(12) + b"\x08\x00"

    def ip(ttl_value):
        return bytes([0x45, 0, 0, 20, 0, 0, 0, 0, ttl_value, 6, 0, 0]) + bytes(8)
    (port, out), = sw.process(0, eth + ip(64))
    assert port == 1 and out[15] == 0xAA
    (port, out), = sw.process(0, eth + ip(5))
    assert out[15] == 0xBB


def test_dynamic_stack_index_reads_and_writes_the_chosen_element():
    """stack[i].f with i from the packet, and stack.last.f outside a parser (access_field of
    dereference_header_stack, JSON_format.md); the front end refuses both for now."""
    from toolchain.switch import SimpleSwitch, load_program
    p = base_program()
    p.header_types.append(ir.HeaderType("lab_t", [("v", 8, False), ("w", 8, False)]))
    elements = [f"labs[{i}]" for i in range(3)]
    p.headers += [ir.HeaderInstance(e, "lab_t", False) for e in elements]
    p.stacks = [ir.HeaderStack("labs", "lab_t", elements)]
    p.parsers[0].states[0].transitions = [ir.Transition(None, None, "more")]
    more = ir.ParseState("more", [ir.ParserOp("extract", [ir.StackArg("labs")])],
                         [ir.StackLastField("labs", "w", B8)], [8],
                         [ir.Transition([0], None, None), ir.Transition(None, None, "more")])
    p.parsers[0].states[1:] = [more]
    p.deparsers = [ir.Deparser("deparser", ["ethernet"] + elements)]
    index = ir.Slice(f("ethernet", "src", B48), 7, 0, B8)      # last byte of the source MAC
    picked = ir.StackElementField("labs", index, "v", 0, B8)
    last = ir.StackElementField("labs", None, "v", 0, B8)
    body = [ir.Primitive("assign", [f("standard_metadata", "egress_spec", B9), ir.Const(1, B9)]),
            ir.Primitive("assign", [ir.StackElementField("labs", index, "w", 1, B8), picked]),
            ir.Primitive("assign", [f("ethernet", "ether_type", B16), ir.Cast(last, B16)])]
    p.actions = [ir.Action("act", [], body)]
    t = ir.Table("tbl_act", [], ["act"], 1024, ir.ActionCall("act", [], []), True,
                 next_tables={"act": None})
    p.pipelines = [ir.Pipeline("ingress", "tbl_act", [t], []), ir.Pipeline("egress", None, [], [])]
    sw = SimpleSwitch(load_program(emit_program(p)), seed=1)
    eth = bytes(11) + b"\x01" + b"\x88\xb5"
    (port, out), = sw.process(0, eth + bytes([0x11, 1, 0x22, 1, 0x33, 0]))
    assert out[14:] == bytes([0x11, 1, 0x22, 0x22, 0x33, 0])   # labs[1].w = labs[1].v
    assert out[12:14] == b"\x00\x33"                           # labs.last.v
