"""The receiver's SACK and DSACK blocks (RFC 2018 §4, RFC 2883 §4), through Receiver's API."""

from hosts.tcp.receiver import MAX_SACK_BLOCKS, Receiver


def _rcv(*segments):
    r = Receiver(1, 1 << 20, mss=1000)
    for start, end in segments:
        r.on_data(start, bytes(end - start))
    return r


def test_dsack_above_the_cumulative_ack_is_followed_by_the_block_holding_it():
    # blocks [101, 201), [301, 401) and, most recently, [501, 601) held; [351, 401) again
    r = _rcv((101, 201), (301, 401), (501, 601))
    r.on_data(351, bytes(50))
    blocks = r.sack_blocks(MAX_SACK_BLOCKS)
    assert blocks[0] == (351, 401)                   # the duplicate
    assert blocks[1] == (301, 401)                   # RFC 2883 §4: then the block holding it
    assert blocks[2:] == [(501, 601), (101, 201)]    # then the others, most recent first


def test_dsack_below_the_cumulative_ack_is_followed_by_the_recent_blocks():
    r = _rcv((1, 101), (201, 301))
    r.on_data(1, bytes(100))
    assert r.sack_blocks(MAX_SACK_BLOCKS) == [(1, 101), (201, 301)]


def test_partly_duplicate_segment_reports_only_the_duplicate_bytes():
    # [101, 401) over held [101, 201) and [301, 401): [201, 301) is new
    r = _rcv((101, 201), (301, 401))
    assert r.on_data(101, bytes(300)) == "out-of-order"
    assert r.sack_blocks(MAX_SACK_BLOCKS)[0] == (101, 201)


def test_segment_overlapping_received_data_at_its_start_only_reports_that_part():
    r = _rcv((101, 201))
    r.on_data(151, bytes(100))                       # [151, 201) twice, [201, 251) new
    assert r.sack_blocks(MAX_SACK_BLOCKS) == [(151, 201), (101, 251)]


def test_segment_partly_below_rcv_nxt_reports_the_old_part():
    r = _rcv((1, 101))
    assert r.on_data(51, bytes(100)) == "in-order"   # [51, 101) old, [101, 151) new
    assert r.rcv_nxt == 151
    assert r.sack_blocks(MAX_SACK_BLOCKS) == [(51, 101)]


def test_older_blocks_fill_the_option_when_recent_anchors_are_gone():
    # one old block, then ten segments into a second block: the anchors list (8 entries)
    # no longer names the old block, which must still be reported while there is room
    r = _rcv((101, 201), *[(301 + 100 * i, 401 + 100 * i) for i in range(10)])
    assert r.sack_blocks(MAX_SACK_BLOCKS) == [(301, 1301), (101, 201)]


def test_blocks_never_exceed_the_limit():
    r = _rcv(*[(101 + 200 * i, 201 + 200 * i) for i in range(6)])
    blocks = r.sack_blocks(3)
    assert len(blocks) == 3 and blocks[0] == (1101, 1201)   # the most recent first
