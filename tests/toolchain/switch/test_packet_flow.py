"""simple_switch packet flow: clone (I2E, E2E), resubmit, recirculate, multicast, drop,
exit and truncate, with the instance_type values and preserved field lists BMv2 uses."""

from toolchain.switch import SimpleSwitch
from toolchain.switch.simple_switch.switch import MAX_PASSES

from .jsonkit import E, F, X, assign, frame, pack, prim, program, unpack

H = [["it", 8, False], ["ip", 16, False], ["ep", 16, False], ["cnt", 8, False], ["keep", 8, False]]
META = [["count", 8, False], ["other", 8, False]]
SM = lambda f: F("standard_metadata", f)   # noqa: E731


def record():
    """egress: write instance_type, ingress_port, egress_port and meta.count into h."""
    return [assign("h", "it", SM("instance_type")), assign("h", "ip", SM("ingress_port")),
            assign("h", "ep", SM("egress_port")), assign("h", "cnt", F("scalars", "count"))]


def flow_prog(ingress=(), egress=(), field_lists=None, egress_port=1):
    p = program(H, list(ingress), list(egress) + record(), metadata=META, egress_port=egress_port)
    p["field_lists"] = field_lists or [{"id": 1, "name": "fl", "elements": [F("scalars", "count")]},
                                       {"id": 2, "name": "empty", "elements": []}]
    return p


def rec(data):
    return unpack(H, data[14:])


def send(sw, port=0, **values):
    return [(p, rec(d)) for p, d in sw.process(port, frame(pack(H, values)))]


def test_ingress_clone_goes_to_mirror_session_with_instance_type_1():
    sw = SimpleSwitch(flow_prog([assign("scalars", "count", X(9)), prim("clone_ingress_pkt_to_egress", X(5), X(1))]))
    sw.cli("mirroring_add 5 3")
    out = dict(send(sw, port=2))
    assert out[3]["it"] == 1 and out[3]["cnt"] == 9 and out[3]["ip"] == 0   # metadata reset but field list
    assert out[1]["it"] == 0 and out[1]["ip"] == 2


def test_ingress_clone_copies_the_original_packet_not_ingress_changes():
    sw = SimpleSwitch(flow_prog([assign("h", "keep", X(0x77)), prim("clone_ingress_pkt_to_egress", X(5), X(2))]))
    sw.cli("mirroring_add 5 3")
    out = dict(send(sw, keep=1))
    assert out[3]["keep"] == 1 and out[1]["keep"] == 0x77


def test_clone_to_unconfigured_session_is_ignored():
    sw = SimpleSwitch(flow_prog([prim("clone_ingress_pkt_to_egress", X(9), X(2))]))
    assert [p for p, _ in send(sw)] == [1]


def test_egress_clone_has_instance_type_2_and_current_headers():
    clone_once = [prim("_jump_if_zero", E("==", SM("instance_type"), X(0)), X(2)),
                  prim("clone_egress_pkt_to_egress", X(7), X(1)),
                  assign("h", "keep", X(0x55))]
    sw = SimpleSwitch(flow_prog(egress=clone_once))
    sw.cli("mirroring_add 7 4")
    out = dict(send(sw))
    assert out[4]["it"] == 2 and out[4]["ep"] == 4
    assert out[1]["it"] == 0 and out[1]["keep"] == 0x55


def test_resubmit_preserves_field_list_and_sets_instance_type_6():
    # the ingress action starts with jsonkit's egress_spec assignment: offsets are +1
    once = [prim("_jump_if_zero", E("==", SM("instance_type"), X(0)), X(4)),
            assign("scalars", "count", X(3)), prim("resubmit", X(1))]
    sw = SimpleSwitch(flow_prog(once))
    [(port, r)] = send(sw, port=2)
    assert port == 1 and r["it"] == 0 and r["cnt"] == 3


def test_recirculate_reenters_ingress_with_field_list():
    # egress: if count < 2 { count++; recirculate }; ingress sees instance_type 4 after a loop
    loop = [prim("_jump_if_zero", E("<", F("scalars", "count"), X(2)), X(3)),
            assign("scalars", "count", E("+", F("scalars", "count"), X(1))),
            prim("recirculate", X(1))]
    ingress = [assign("h", "keep", E("|", F("h", "keep"), E("?", X(0x10), X(0), E("==", SM("instance_type"), X(4)))))]
    sw = SimpleSwitch(flow_prog(ingress, loop))
    [(port, r)] = send(sw, port=3)
    assert port == 1 and r["cnt"] == 2 and r["keep"] == 0x10
    assert r["ip"] == 0            # metadata (ingress_port too) is reset on recirculation


def test_endless_recirculation_is_stopped_and_recorded():
    sw = SimpleSwitch(flow_prog(egress=[prim("recirculate", X(2))]))
    assert send(sw) == []
    assert sw.errors and f"{MAX_PASSES}" in sw.errors[0]


def test_mark_to_drop_in_egress_drops():
    sw = SimpleSwitch(flow_prog(egress=[prim("mark_to_drop", {"type": "header", "value": "standard_metadata"})]))
    assert send(sw) == []


def test_drop_port_511_in_ingress_drops():
    sw = SimpleSwitch(flow_prog(egress_port=511))
    assert send(sw) == []


def test_multicast_replicates_to_group_ports_with_rid():
    sw = SimpleSwitch(flow_prog([assign("standard_metadata", "mcast_grp", X(1))]))
    assert sw.cli("mc_mgrp_create 1") == "Creating multicast group 1"
    assert sw.cli("mc_node_create 0 2 3").splitlines() == [
        "Creating node with rid 0 , port map 1100 and lag map ", "node was created with handle 0"]
    sw.cli("mc_node_associate 1 0")
    out = send(sw)
    assert sorted(p for p, _ in out) == [2, 3]
    assert all(r["it"] == 5 for _, r in out)


def test_exit_marks_the_packet_and_the_action_runs_to_its_end_as_in_bmv2():
    # BMv2's exit primitive only marks the packet (core/primitives.cpp); ActionFnEntry::execute
    # runs the action's remaining primitives and Pipeline::apply stops before the next node.
    # p4c never emits primitives after an exit (it ends the action or jumps to its end), so the
    # difference shows only on JSON from elsewhere, which must behave as on simple_switch.
    sw = SimpleSwitch(flow_prog([prim("exit"), assign("h", "keep", X(1))]))
    assert send(sw)[0][1]["keep"] == 1


def test_exit_stops_the_pipeline_before_its_next_node():
    # ingress: set_port (exit) -> egress still runs (exit ends only the current control)
    sw = SimpleSwitch(flow_prog([prim("exit")], egress=[assign("h", "keep", X(3))]))
    assert send(sw)[0][1]["keep"] == 3


def test_truncate_shortens_the_output_frame():
    sw = SimpleSwitch(flow_prog(egress=[prim("truncate", X(16))]))
    out = sw.process(0, frame(pack(H, {})))
    assert len(out[0][1]) == 16


def test_digest_records_learn_list_values():
    p = flow_prog([assign("scalars", "count", X(4)), prim("generate_digest", X(1), X(1))])
    p["learn_lists"] = [{"id": 1, "name": "learn", "elements": [F("scalars", "count"), SM("ingress_port")]}]
    sw = SimpleSwitch(p)
    send(sw, port=6)
    assert sw.digests == [("learn", (4, 6))]


def test_recirculated_pass_has_reset_ingress_timestamp():
    # ingress: keep = 1 if (instance_type == 4 and ingress_global_timestamp == 0), else keep as is
    ingress = [assign("h", "keep", E("?", X(1), F("h", "keep"),
                                     E("and", E("==", SM("instance_type"), X(4)),
                                       E("==", SM("ingress_global_timestamp"), X(0)))))]
    once = [prim("_jump_if_zero", E("==", F("scalars", "count"), X(0)), X(3)),
            assign("scalars", "count", X(1)), prim("recirculate", X(1))]
    sw = SimpleSwitch(flow_prog(ingress, once))
    out = sw.process(0, frame(pack(H, {})), now=5.0)
    assert rec(out[0][1])["keep"] == 1


def test_clone_to_a_multicast_session_keeps_clone_instance_type():
    sw = SimpleSwitch(flow_prog([prim("clone_ingress_pkt_to_egress", X(6), X(2))]))
    sw.cli("mc_mgrp_create 9")
    sw.cli("mc_node_create 0 4 5")
    sw.cli("mc_node_associate 9 0")
    sw.cli("mirroring_add_mc 6 9")
    out = send(sw)
    assert sorted((p, r["it"]) for p, r in out) == [(1, 0), (4, 1), (5, 1)]
