from netbase.seq import seq_add, seq_geq, seq_gt, seq_leq, seq_lt, seq_max, seq_sub


def test_seq_compare_across_the_wrap():
    assert seq_lt(0xFFFFFFF0, 0x10) and seq_gt(0x10, 0xFFFFFFF0)
    assert seq_add(0xFFFFFFFF, 2) == 1
    assert seq_sub(1, 0xFFFFFFFF) == 2 and seq_sub(0xFFFFFFFF, 1) == -2
    assert seq_leq(5, 5) and seq_geq(5, 5) and not seq_lt(5, 5)
    assert seq_max(0xFFFFFFF0, 0x10) == 0x10


def test_seq_half_space_is_the_horizon():
    assert seq_lt(0, (1 << 31) - 1) and seq_gt(0, (1 << 31) + 1)   # exactly 2^31 is ambiguous
