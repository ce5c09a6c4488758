"""live.delay_stage: a link's delay (and a host's serialisation) as a process between two
interfaces, driven here by a fake clock over socket pairs; its command line's errors."""

from __future__ import annotations

import pytest

from live import delay_stage as ds
from netbase.packet_socket import SocketPairPort


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def stage():
    clock = Clock()
    a, b = SocketPairPort(0), SocketPairPort(1)
    st = ds.DelayStage((a, b), delay=0.05, rates=(8e6, None), clock=clock)
    yield st, a, b, clock
    st.close()


def test_each_direction_arrives_its_delay_after_it_was_read(stage):
    st, a, b, clock = stage
    b.peer.send(b"from-b")                       # b -> a: no rate, 50 ms
    st.turn(max_wait=0)
    assert a.received() == [] and st.next_due() == pytest.approx(0.05)
    clock.t += 0.049
    st.turn(max_wait=0)
    assert a.received() == []
    clock.t += 0.001
    st.turn(max_wait=0)
    assert a.received() == [b"from-b"] and st.forwarded == [0, 1]


def test_a_rated_direction_serialises_frames_back_to_back_first_in_first_out(stage):
    st, a, b, clock = stage
    for frame in (b"x" * 1000, b"y" * 1000):     # 1 ms each at 8 Mb/s, then 50 ms
        a.peer.send(frame)
    st.turn(max_wait=0)
    clock.t += 0.0509
    st.turn(max_wait=0)
    assert b.received() == []
    clock.t += 0.0002                            # 51.1 ms: the first is through
    st.turn(max_wait=0)
    assert b.received() == [b"x" * 1000]
    clock.t += 0.001
    st.turn(max_wait=0)
    assert b.received() == [b"y" * 1000] and st.forwarded == [2, 0]


@pytest.mark.parametrize("argv, words", [
    (["--a", "x", "--b", "y", "--delay", "-1"], "--delay -1.0: out of range"),
    (["--a", "x", "--b", "x", "--delay", "1"], "the same interface"),
    (["--a", "x", "--b", "y", "--delay", "1", "--rate-ab", "0"], "--rate-ab 0.0: out of range"),
    (["--a", "x", "--b", "y"], "required: --delay"),
])
def test_bad_options_are_one_error_line_and_status_2(argv, words, capsys):
    with pytest.raises(SystemExit) as e:
        ds.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and words in err and "Traceback" not in err


def test_a_missing_interface_is_an_error_naming_it(netns_ok, capsys):
    assert ds.main(["--a", "rlnosuchifa", "--b", "lo", "--delay", "1"]) == 2
    assert "rlnosuchifa" in capsys.readouterr().err
