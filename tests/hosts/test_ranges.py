"""hosts.tcp.ranges.RangeSet against a plain set of positions."""

from hypothesis import given, settings
from hypothesis import strategies as st

from hosts.tcp.ranges import RangeSet

OPS = st.lists(st.tuples(st.booleans(), st.integers(0, 60), st.integers(0, 20)), max_size=40)


@settings(max_examples=150, deadline=None)
@given(ops=OPS)
def test_rangeset_matches_a_set_of_positions_and_its_byte_total(ops):
    rs, model = RangeSet(), set()
    for add, start, length in ops:
        if add:
            rs.add(start, start + length)
            model |= set(range(start, start + length))
        else:
            rs.remove(start, start + length)
            model -= set(range(start, start + length))
        assert rs.total() == len(model)
        assert {p for s, e in rs for p in range(s, e)} == model
        assert all(e1 < s2 for (_, e1), (s2, _) in zip(rs, list(rs)[1:]))   # disjoint, not touching


def test_overlap_returns_the_parts_inside_the_set_in_order():
    rs = RangeSet()
    rs.add(10, 20)
    rs.add(30, 40)
    assert rs.overlap(15, 35) == [(15, 20), (30, 35)]
    assert rs.overlap(20, 30) == []
    assert rs.overlap(0, 100) == [(10, 20), (30, 40)]
