"""hosts.tcp.sendbuf.SendBuffer: reads of any range across chunks, release of acked chunks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from hosts.tcp.sendbuf import SendBuffer


@settings(max_examples=60, deadline=None)
@given(chunks=st.lists(st.binary(min_size=0, max_size=40), min_size=1, max_size=12),
       data=st.data())
def test_read_returns_the_stream_bytes_for_any_range(chunks, data):
    buf = SendBuffer(1)
    for c in chunks:
        buf.append(c)
    stream = b"".join(chunks)
    assert buf.end == 1 + len(stream)
    start = data.draw(st.integers(1, buf.end))
    end = data.draw(st.integers(start, buf.end))
    assert buf.read(start, end) == stream[start - 1:end - 1]


def test_release_keeps_a_partly_acked_chunk_and_drops_whole_ones():
    buf = SendBuffer(1)
    for c in (b"abcd", b"efgh", b"ijkl"):
        buf.append(c)
    buf.release(7)                  # "abcd" (offsets 1..4) acked, "efgh" only in part
    assert buf.base == 5
    assert buf.read(7, 11) == b"ghij"
    with pytest.raises(ValueError, match=r"holds \[5, 13\), cannot read \[3, 6\)"):
        buf.read(3, 6)


def test_read_beyond_the_appended_bytes_is_an_error():
    buf = SendBuffer(1)
    buf.append(b"xy")
    with pytest.raises(ValueError, match="cannot read"):
        buf.read(2, 5)


def test_append_copies_a_mutable_chunk():
    buf = SendBuffer(0)
    chunk = bytearray(b"abc")
    buf.append(chunk)
    chunk[0] = ord("z")             # the application reuses its buffer
    assert buf.read(0, 3) == b"abc"


def test_release_of_many_chunks_compacts_and_reads_still_work():
    buf = SendBuffer(1)
    for i in range(300):
        buf.append(bytes([i % 256]) * 10)
    buf.release(1 + 10 * 250)
    assert len(buf) == 500
    assert buf.read(1 + 10 * 299, 1 + 10 * 300) == bytes([299 % 256]) * 10
    buf.release(buf.end)
    assert len(buf) == 0 and buf.base == buf.end
