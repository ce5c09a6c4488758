"""Mid-end building blocks: range expansion for parser selects, p4c-style names, scalars
padding, and the control-flow graph builder."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from toolchain.compiler.midend import cfg, ir
from toolchain.compiler.midend.names import Counter, NameGenerator
from toolchain.compiler.midend.ranges import range_to_masks
from toolchain.compiler.midend.scalars import ScalarAllocator


def _matches(value: int, pairs) -> bool:
    return any(value & m == v for v, m in pairs)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.data())
def test_range_to_masks_covers_exactly_the_range(width, data):
    top = (1 << width) - 1
    lo = data.draw(st.integers(0, top))
    hi = data.draw(st.integers(lo, top))
    pairs = range_to_masks(lo, hi, width)
    for v in range(top + 1):
        assert _matches(v, pairs) == (lo <= v <= hi)


def test_range_to_masks_matches_p4c_for_the_kit_range():
    assert range_to_masks(1000, 1999, 16)[:2] == [(0x3E8, 0xFFF8), (0x3F0, 0xFFF0)]
    assert range_to_masks(0, 7, 4) == [(0, 0x8)]


def test_name_generator_numbers_repeats_like_p4c():
    g = NameGenerator()
    assert [g.fresh("tmp") for _ in range(3)] == ["tmp", "tmp_0", "tmp_1"]
    g.reserve("key")
    assert g.fresh("key") == "key_0"


def test_scalars_are_padded_to_whole_bytes():
    s = ScalarAllocator()
    s.add("meta_t.flag", ir.BOOL)
    s.temp("tmp", ir.Bits(8))
    ht = s.header_type()
    assert sum(w for _, w, _ in ht.fields) % 8 == 0
    assert ht.fields[-1][0].startswith("_padding")


def _builder(tables):
    return cfg.CfgBuilder(tables, [], NameGenerator(), Counter())


def _table(name):
    return ir.Table(name, [], ["a", "b"], 16, None, False)


def test_cfg_code_blocks_share_one_synthetic_table():
    b = _builder({})
    prim = ir.Primitive("assign", [ir.FieldRef("h", "f", ir.Bits(8)), ir.Const(1, ir.Bits(8))])
    init = b.build([cfg.Code([prim], label="p1"), cfg.Code([prim], label="p2")], None)
    assert init == "tbl_p1" and len(b.out_tables) == 1 and len(b.actions[0].body) == 2


def test_cfg_exit_ends_the_synthetic_action():
    b = _builder({})
    ex = ir.Primitive("exit", [])
    other = ir.Primitive("assign", [ir.FieldRef("h", "f", ir.Bits(8)), ir.Const(1, ir.Bits(8))])
    b.build([cfg.Code([ex], label="p1"), cfg.Code([other], label="p2")], None)
    assert len(b.out_tables) == 2


def test_cfg_hit_miss_and_switch_next_tables():
    t1, t2 = _table("t1"), _table("t2")
    b = _builder({"t1": t1, "t2": t2})
    init = b.build([cfg.Apply("t1", hit=[cfg.Apply("t2", cases=[(["a"], [])])], miss=[])], None)
    assert init == "t1"
    assert t1.next_tables == {"__HIT__": "t2", "__MISS__": None}
    assert t2.next_tables == {"a": None, "b": None}


def test_cfg_if_with_constant_condition_keeps_one_branch():
    t1, t2 = _table("t1"), _table("t2")
    b = _builder({"t1": t1, "t2": t2})
    init = b.build([cfg.If(ir.Const(0, ir.BOOL), [cfg.Apply("t1")], [cfg.Apply("t2")])], None)
    assert init == "t2" and not b.conditionals


def test_cfg_switch_labels_sharing_a_body_build_it_once():
    t1, t2 = ir.Table("t1", [], ["a", "b", "c"], 16, None, False), _table("t2")
    b = _builder({"t1": t1, "t2": t2})
    shared = [cfg.Apply("t2")]
    b.build([cfg.Apply("t1", cases=[(["a"], shared), (None, shared)])], None)
    assert t1.next_tables == {"a": "t2", "b": "t2", "c": "t2"}
    assert [t.name for t in b.out_tables].count("t2") == 1
