"""The learn engine as BMv2's learning.cpp: a sample not yet acknowledged is not learned again,
samples go out 16 to a buffer (or after the 1 s timeout), and acks free them."""

import pytest

from toolchain.switch import LoadError, SimpleSwitch
from toolchain.switch.simple_switch.learning import MAX_SAMPLES

from .jsonkit import F, X, frame, pack, prim, program

H = [["a", 8, False], ["b", 8, False]]


def learn_prog():
    """Ingress learns (h.a) into list 1 and (h.a, h.b) into list 2, by h.b's low bit (the
    action's primitive 0 sets the egress port)."""
    p = program(H, [prim("_jump_if_zero", {"type": "expression", "value": {
                        "op": "&", "left": F("h", "b"), "right": X(1)}}, X(4)),
                    prim("generate_digest", X(0), X(2)),
                    prim("_jump", X(5)),
                    prim("generate_digest", X(0), X(1))])
    p["learn_lists"] = [{"id": 1, "name": "by_a", "elements": [F("h", "a")]},
                        {"id": 2, "name": "by_ab", "elements": [F("h", "a"), F("h", "b")]}]
    return p


def learn(sw, now=0.0, **values):
    sw.process(0, frame(pack(H, values)), now=now)


def test_a_sample_is_not_learned_again_before_it_is_acknowledged():
    sw = SimpleSwitch(learn_prog())
    for a in (5, 5, 6, 5):
        learn(sw, a=a)
    assert sw.digests == [("by_a", (5,)), ("by_a", (6,))]
    assert sw.learning.messages == []            # a buffer goes out when 16 samples are in it


def test_each_learn_list_has_its_own_filter():
    sw = SimpleSwitch(learn_prog())
    learn(sw, a=5, b=0)
    learn(sw, a=5, b=1)
    learn(sw, a=5, b=1)
    assert sw.digests == [("by_a", (5,)), ("by_ab", (5, 1))]


def test_samples_go_out_sixteen_to_a_buffer_then_after_the_timeout():
    sw = SimpleSwitch(learn_prog())
    for a in range(MAX_SAMPLES + 1):
        learn(sw, now=0.5, a=a)
    [msg] = sw.learning.messages
    assert (msg.list_name, msg.buffer_id, msg.samples) == ("by_a", 0, [(a,) for a in range(16)])
    assert sw.learning.poll(1.49) == []          # the 17th sample's buffer opened at 0.5 s
    [late] = sw.learning.poll(1.5)
    assert (late.buffer_id, late.samples) == (1, [(16,)])


def test_an_acknowledged_sample_is_learned_again():
    sw = SimpleSwitch(learn_prog())
    for a in range(MAX_SAMPLES):
        learn(sw, a=a)
    sw.learning.ack(1, 0, [3])                   # list 1, buffer 0, sample id 3: a = 3
    for a in (2, 3):
        learn(sw, a=a)
    assert sw.digests[MAX_SAMPLES:] == [("by_a", (3,))]


def test_acknowledging_a_buffer_frees_all_its_samples():
    sw = SimpleSwitch(learn_prog())
    learn(sw, now=0.0, a=7)
    learn(sw, now=0.0, a=8)
    [msg] = sw.learning.poll(1.0)
    sw.learning.ack_buffer(1, msg.buffer_id)
    learn(sw, now=1.1, a=8)
    learn(sw, now=1.1, a=7)
    assert [s for _, s in sw.digests] == [(7,), (8,), (8,), (7,)]


def test_acks_of_unknown_buffers_and_sample_ids_change_nothing():
    sw = SimpleSwitch(learn_prog())
    learn(sw, a=1)
    sw.learning.ack(1, 5, [0])                   # no such buffer: taken as acknowledged
    sw.learning.ack(1, 0, [7, -1])               # no such samples
    learn(sw, a=1)
    assert len(sw.digests) == 1
    with pytest.raises(KeyError, match="INVALID_LIST_ID"):
        sw.learning.ack(9, 0, [0])


def test_a_learn_id_without_a_learn_list_learns_nothing():
    p = learn_prog()
    p["learn_lists"] = [ll for ll in p["learn_lists"] if ll["id"] == 2]
    sw = SimpleSwitch(p)
    learn(sw, a=1, b=0)
    assert sw.digests == []


def test_reset_state_empties_the_filter_and_numbers_buffers_from_zero():
    sw = SimpleSwitch(learn_prog())
    for a in range(MAX_SAMPLES):
        learn(sw, a=a)
    sw.learning.reset_state()
    for a in range(MAX_SAMPLES):
        learn(sw, a=a)
    assert len(sw.digests) == 2 * MAX_SAMPLES
    assert [m.buffer_id for m in sw.learning.messages] == [0, 0]


def test_the_cli_reset_state_resets_the_learn_engine():
    sw = SimpleSwitch(learn_prog())
    learn(sw, a=4)
    sw.cli("reset_state")
    learn(sw, a=4)
    assert sw.digests == [("by_a", (4,)), ("by_a", (4,))]


def test_a_learn_list_of_something_else_than_fields_is_refused():
    p = learn_prog()
    p["learn_lists"][0]["elements"].append({"type": "hexstr", "value": "0x1", "bitwidth": 8})
    with pytest.raises(LoadError, match="learn list 'by_a': element of type 'hexstr'"):
        SimpleSwitch(p)


def test_reset_state_keeps_each_lists_timeout_and_buffer_size():
    # LearnList::reset_state empties buffers and filter; max_samples and timeout stay
    sw = SimpleSwitch(learn_prog())
    sw.learning.set_max_samples(1, 2)
    sw.learning.set_timeout(1, 0)
    learn(sw, a=1)
    sw.cli("reset_state")
    learn(sw, now=5.0, a=2)
    assert sw.learning.poll(100.0) == []               # no timeout: not sent however late
    learn(sw, now=100.0, a=3)
    [msg] = sw.learning.messages
    assert (msg.buffer_id, msg.samples) == (0, [(2,), (3,)])
