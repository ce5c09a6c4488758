"""simple_switch details checked against behavioral-model's sources (targets/simple_switch/
simple_switch.cpp, primitives.cpp, register_access.h; include/bm/bm_sim/packet.h): what the
expected values are comes from there, not from this target."""

from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, X, assign, frame, pack, prim
from .test_packet_flow import H, SM, flow_prog, rec, send


def test_clone_session_id_keeps_its_low_15_bits():
    # clone_ingress_pkt_to_egress stores session.get<uint16_t>() | 0x8000 and ingress_thread
    # masks it with MIRROR_SESSION_ID_MASK (0x7FFF): session 0x8005 clones to session 5
    sw = SimpleSwitch(flow_prog([prim("clone_ingress_pkt_to_egress", X(0x8005), X(2))]))
    sw.cli("mirroring_add 5 3")
    assert sorted(p for p, _ in send(sw)) == [1, 3]


def test_egress_clone_session_id_keeps_its_low_15_bits():
    once = [prim("_jump_if_zero", E("==", SM("instance_type"), X(0)), X(2)),
            prim("clone_egress_pkt_to_egress", X(0x18007), X(2))]   # uint16 0x8007 -> 7
    sw = SimpleSwitch(flow_prog(egress=once))
    sw.cli("mirroring_add 7 4")
    out = dict(send(sw))
    assert sorted(out) == [1, 4] and out[4]["it"] == 2


def _digest_prog(ingress=(), egress=()):
    p = flow_prog(list(ingress), list(egress))
    p["learn_lists"] = [{"id": 1, "name": "one", "elements": [F("scalars", "count")]},
                        {"id": 2, "name": "two", "elements": [F("scalars", "other")]}]
    return p


def test_digest_fields_are_read_when_ingress_ends():
    # generate_digest only sets the packet's learn id; the learn engine reads the PHV after
    # the ingress pipeline (simple_switch.cpp ingress_thread, "LEARNING")
    sw = SimpleSwitch(_digest_prog([assign("scalars", "count", X(4)), prim("generate_digest", X(0), X(1)),
                                    assign("scalars", "count", X(9))]))
    send(sw)
    assert sw.digests == [("one", (9,))]


def test_digest_last_call_wins_one_digest_per_ingress_pass():
    sw = SimpleSwitch(_digest_prog([assign("scalars", "other", X(3)), prim("generate_digest", X(0), X(1)),
                                    prim("generate_digest", X(0), X(2))]))
    send(sw)
    assert sw.digests == [("two", (3,))]


def test_digest_of_a_dropped_packet_is_still_sent():
    sw = SimpleSwitch(_digest_prog([assign("scalars", "count", X(5)), prim("generate_digest", X(0), X(1)),
                                    assign("standard_metadata", "egress_spec", X(511))]))
    assert send(sw) == []
    assert sw.digests == [("one", (5,))]


def test_digest_in_egress_is_not_learned():
    sw = SimpleSwitch(_digest_prog(egress=[prim("generate_digest", X(0), X(1))]))
    assert [p for p, _ in send(sw)] == [1]
    assert sw.digests == []


def test_truncate_keeps_the_smallest_length():
    # bm::Packet::truncate: truncated_length = min(length, truncated_length)
    sw = SimpleSwitch(flow_prog([prim("truncate", X(16)), prim("truncate", X(40))]))
    assert len(sw.process(0, frame(pack(H, {})))[0][1]) == 16


def test_truncate_to_zero_sends_an_empty_frame():
    # get_data_size() is min(buffer size, truncated_length): 0 bytes are transmitted
    sw = SimpleSwitch(flow_prog(egress=[prim("truncate", X(0))]))
    assert sw.process(0, frame(pack(H, {}))) == [(1, b"")]


def test_truncate_is_not_carried_by_an_ingress_clone():
    # the I2E copy is a new bm::Packet (clone_no_phv_ptr): its truncated_length is unset
    sw = SimpleSwitch(flow_prog([prim("truncate", X(16)), prim("clone_ingress_pkt_to_egress", X(5), X(2))]))
    sw.cli("mirroring_add 5 3")
    out = dict(sw.process(0, frame(pack(H, {}))))
    assert len(out[1]) == 16 and len(out[3]) == 14 + 7
    assert rec(out[3])["it"] == 1


def test_packet_with_nonzero_priority_is_dropped_at_enqueue():
    # simple_switch has one queue per port without --priority-queues; SimpleSwitch::enqueue
    # drops a packet whose intrinsic_metadata.priority (standard_metadata.priority, through
    # p4c's field alias) is not below the number of queues
    p = flow_prog([assign("standard_metadata", "priority", X(1))])
    p["field_aliases"] = [["intrinsic_metadata.priority", ["standard_metadata", "priority"]]]
    assert send(SimpleSwitch(p)) == []
    p = flow_prog([assign("standard_metadata", "priority", X(0))])
    p["field_aliases"] = [["intrinsic_metadata.priority", ["standard_metadata", "priority"]]]
    assert [port for port, _ in send(SimpleSwitch(p))] == [1]


def test_priority_is_only_read_through_its_alias():
    # without the alias simple_switch finds no priority field and uses queue 0
    p = flow_prog([assign("standard_metadata", "priority", X(1))])
    p["field_aliases"] = []
    assert [port for port, _ in send(SimpleSwitch(p))] == [1]


def test_multicast_copy_with_nonzero_priority_is_dropped():
    p = flow_prog([assign("standard_metadata", "mcast_grp", X(1)), assign("standard_metadata", "priority", X(2))])
    p["field_aliases"] = [["intrinsic_metadata.priority", ["standard_metadata", "priority"]]]
    sw = SimpleSwitch(p)
    sw.cli("mc_mgrp_create 1")
    sw.cli("mc_node_create 0 2 3")
    sw.cli("mc_node_associate 1 0")
    assert send(sw) == []
