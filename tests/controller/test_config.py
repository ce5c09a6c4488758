"""Config loading and validation: every bad field is named with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller import ConfigError, load_config

EXAMPLES = Path(__file__).resolve().parents[2] / "controller" / "examples"


def _err(data) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(data)
    return str(e.value)


def test_examples_load_r1_bottleneck_limit():
    cfg = load_config(EXAMPLES / "r1.toml")
    assert cfg.name == "r1"
    assert cfg.ports[2].buffer_limit == 65
    assert cfg.ports[1].edge is True
    assert [r.port for r in cfg.routes] == [2, 1]


def test_examples_load_every_file():
    for path in EXAMPLES.iterdir():
        assert load_config(path).routes, path


def test_unknown_key_names_field_top_level():
    assert _err({"rutes": []}).startswith("rutes: unknown key")


def test_unknown_key_names_nested_field():
    msg = _err({"ports": {"2": {"impair": {"drop_pro": 0.1}}}})
    assert msg.startswith("ports.2.impair.drop_pro: unknown key")
    assert "drop_prob" in msg          # the allowed keys are listed


def test_port_out_of_range_in_route():
    msg = _err({"routes": [{"prefix": "10.0.0.0/8", "port": 70, "next_hop_mac": "00:00:00:00:00:01"}]})
    assert msg == "routes[0].port: port 70 out of range 0..63 (the program's MAX_PORTS is 64)"


def test_port_out_of_range_as_port_key():
    assert _err({"ports": {"64": {}}}).startswith("ports.64: port 64 out of range")


def test_port_range_follows_max_ports():
    cfg = load_config({"max_ports": 128, "ports": {"100": {"edge": True}}})
    assert cfg.ports[100].edge


def test_max_ports_not_power_of_two():
    assert _err({"max_ports": 48}).startswith("max_ports: 48 is not a power of two")


def test_port_key_not_a_number():
    assert _err({"ports": {"eth0": {}}}) == "ports.eth0: port keys must be port numbers"


def test_bool_is_not_an_integer():
    assert _err({"ports": {"2": {"buffer_limit": True}}}).startswith(
        "ports.2.buffer_limit: expected an integer")


def test_edge_must_be_bool():
    assert _err({"ports": {"1": {"edge": 1}}}).startswith("ports.1.edge: expected true or false")


def test_probability_out_of_range():
    assert _err({"ports": {"2": {"impair": {"drop_prob": 1.5}}}}) == \
        "ports.2.impair.drop_prob: probability 1.5 out of range 0..1"


def test_prefix_with_host_bits_refused():
    msg = _err({"routes": [{"prefix": "10.0.2.1/24", "port": 1, "next_hop_mac": "00:00:00:00:00:01"}]})
    assert msg.startswith("routes[0].prefix: invalid IPv4 prefix '10.0.2.1/24'")


def test_bare_address_is_host_route():
    cfg = load_config({"routes": [{"prefix": "10.0.2.1", "port": 1, "next_hop_mac": "00:00:00:00:00:01"}]})
    assert cfg.routes[0].prefix == "10.0.2.1/32"


def test_route_missing_field():
    assert _err({"routes": [{"prefix": "10.0.0.0/8", "port": 1}]}) == "routes[0].next_hop_mac: missing"


def test_bad_mac():
    assert _err({"routes": [{"prefix": "10.0.0.0/8", "port": 1, "next_hop_mac": "0:0:0"}]}).startswith(
        "routes[0].next_hop_mac: expected a MAC address")


def test_duplicate_prefix_refused():
    r = {"prefix": "10.0.0.0/8", "port": 1, "next_hop_mac": "00:00:00:00:00:01"}
    assert _err({"routes": [r, dict(r, port=2)]}) == \
        "routes[1].prefix: 10.0.0.0/8 already routed by routes[0]"


def test_tm_depth_must_exceed_limit():
    assert _err({"ports": {"2": {"buffer_limit": 65, "tm_depth": 65}}}).startswith(
        "ports.2.tm_depth: 65 must exceed buffer_limit 65")


def test_recirculation_needs_loops():
    assert _err({"ports": {"2": {"impair": {"recirc_prob": 0.1}}}}).startswith(
        "ports.2.impair.recirc_loops: must be >= 1")


def test_alternate_port_needed_by_pattern():
    assert _err({"ports": {"2": {"impair": {"pattern": "..A"}}}}) == \
        "ports.2.impair.alt_port: missing: alternate-port reordering needs a port"


def test_pattern_names_and_codes_are_equivalent():
    a = load_config({"ports": {"2": {"impair": {"pattern": ["pass", "drop", "recirc"],
                                                "recirc_loops": 1}}}})
    b = load_config({"ports": {"2": {"impair": {"pattern": ".DR", "recirc_loops": 1}}}})
    assert a.ports[2].impair.pattern == b.ports[2].impair.pattern == (0, 1, 2)


def test_pattern_unknown_slot_named():
    assert _err({"ports": {"2": {"impair": {"pattern": ".X"}}}}).startswith(
        "ports.2.impair.pattern[1]: unknown slot 'X'")


def test_pattern_too_long():
    assert _err({"ports": {"2": {"impair": {"pattern": "." * 257}}}}) == \
        "ports.2.impair.pattern: 257 slots, at most 256"


def test_mtu_below_ipv4_minimum():
    assert _err({"ports": {"2": {"mtu": 67}}}) == "ports.2.mtu: 67 out of range 68..65535"


def test_json_file_syntax_error_located(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"name": "x",\n "ports": }')
    assert _err(p).startswith(f"{p}:2:")


def test_toml_file_unknown_key(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text('[ports.2]\nbufer_limit = 3\n')
    assert _err(p).startswith("ports.2.bufer_limit: unknown key")


def test_unknown_suffix_refused(tmp_path):
    p = tmp_path / "g.yaml"
    p.write_text("name: x\n")
    assert "unknown config format '.yaml'" in _err(p)


def test_missing_file_is_config_error(tmp_path):
    assert "cannot read config" in _err(tmp_path / "nope.toml")


def test_json_and_toml_load_the_same_config(tmp_path):
    data = {"routes": [{"prefix": "10.0.2.0/24", "port": 2, "next_hop_mac": "00:00:00:00:02:02"}],
            "ports": {"2": {"buffer_limit": 65, "impair": {"drop_prob": 0.25}}}}
    p = tmp_path / "g.json"
    p.write_text(json.dumps(data))
    t = tmp_path / "g.toml"
    t.write_text('[[routes]]\nprefix = "10.0.2.0/24"\nport = 2\nnext_hop_mac = "00:00:00:00:02:02"\n'
                 '[ports.2]\nbuffer_limit = 65\n[ports.2.impair]\ndrop_prob = 0.25\n')
    assert load_config(p) == load_config(t) == load_config(data)


def test_drop_port_refused_as_switch_port():
    with pytest.raises(ConfigError, match=r"^routes\[0\]\.port: port 511 is v1model's drop port"):
        load_config({"max_ports": 512, "routes": [
            {"prefix": "10.0.0.0/8", "port": 511, "next_hop_mac": "00:00:00:00:00:01"}]})


def test_alt_port_equal_to_port_refused():
    with pytest.raises(ConfigError, match=r"^ports\.2\.impair\.alt_port: 2 is the port itself"):
        load_config({"ports": {"2": {"impair": {"alt_prob": 0.1, "alt_port": 2}}}})


def test_pattern_with_probabilities_refused():
    with pytest.raises(ConfigError, match=r"^ports\.2\.impair\.pattern: a pattern replaces"):
        load_config({"ports": {"2": {"impair": {"pattern": "D.", "drop_prob": 0.1}}}})


def test_duplicate_l2_in_port_refused():
    """l2_forward matches the ingress port exactly: two links from one port cannot both be
    entries (the switch would refuse the second after the first writes)."""
    msg = _err({"l2": [{"in_port": 1, "out_port": 2}, {"in_port": 1, "out_port": 3}]})
    assert msg == "l2[1].in_port: port 1 already bridged by l2[0]"


# ------------------------------------------------------------------ RED (ports.<N>.red)
RED = {"min_th": 4, "max_th": 8, "w_q": 0.002, "max_p": 0.02}     # [NETRENO] §7.1


def _red(**change) -> dict:
    return {"ports": {"2": {"buffer_limit": 16, "red": dict(RED, **change)}}}


def test_red_loads_seed_002_parameters():
    red = load_config(_red()).ports[2].red
    assert (red.min_th, red.max_th, red.w_q, red.max_p) == (4, 8, 0.002, 0.02)


@pytest.mark.parametrize("change, message", [
    ({"min_th": 8}, "ports.2.red.max_th: 8 must exceed min_th 8 by at least one packet"),
    ({"min_th": 9}, "ports.2.red.max_th: 8 must exceed min_th 9 by at least one packet"),
    ({"max_th": 17}, "ports.2.red.max_th: 17 is above the port's buffer_limit 16"),
    ({"w_q": 0}, "ports.2.red.w_q: expected a weight in (0, 1], got 0"),
    ({"w_q": 1.5}, "ports.2.red.w_q: expected a weight in (0, 1], got 1.5"),
    ({"w_q": 1e-9}, "ports.2.red.w_q: 1e-09 is below the program's resolution 2^-24"),
    ({"max_p": -0.1}, "ports.2.red.max_p: -0.1 out of range 0..1"),
    ({"max_p": 2}, "ports.2.red.max_p: 2 out of range 0..1"),
    ({"min_th": "4"}, "ports.2.red.min_th: expected a number, got '4'"),
    ({"min_th": -1}, "ports.2.red.min_th: -1 out of range 0..65535"),
    ({"max_q": 1}, "ports.2.red.max_q: unknown key"),
])
def test_red_bad_value_refused_naming_field(change, message):
    assert _err(_red(**change)).startswith(message)


def test_red_missing_parameter_named():
    red = dict(RED)
    del red["w_q"]
    assert _err({"ports": {"2": {"red": red}}}) == "ports.2.red.w_q: missing"


def test_red_without_buffer_limit_any_threshold_up_to_fixed_point_range():
    assert load_config({"ports": {"2": {"red": dict(RED, max_th=500)}}}).ports[2].red.max_th == 500


# ------------------------------------------------------------------ legacy router ([RDTCP] §7)
def test_legacy_off_by_default():
    assert load_config({}).legacy is False
    assert load_config(EXAMPLES / "r2.toml").legacy is False


def test_legacy_example_loads_without_edge_or_mtu():
    cfg = load_config(EXAMPLES / "r2_legacy.toml")
    assert cfg.legacy is True
    assert [r.port for r in cfg.routes] == [1, 2]
    assert cfg.ports == {}


@pytest.mark.parametrize("value", ["yes", 1, 0, None, "true"])
def test_legacy_must_be_bool(value):
    assert _err({"legacy": value}) == f"legacy: expected true or false, got {value!r}"


def test_legacy_misspelt_key_names_the_allowed_ones():
    msg = _err({"legasy": True})
    assert msg.startswith("legasy: unknown key (allowed: ")
    assert "legacy" in msg


def test_legacy_with_edge_port_refused():
    assert _err({"legacy": True, "ports": {"1": {"edge": True}}}) == (
        "ports.1.edge: a legacy router (legacy = true) strips no EPDN option: leave edge out")


def test_legacy_with_mtu_refused():
    assert _err({"legacy": True, "ports": {"2": {"mtu": 1500, "buffer_limit": 65}}}) == (
        "ports.2.mtu: the MTU rule governs EPDN stamps, which a legacy router (legacy = true) "
        "never inserts: leave mtu out")


def test_legacy_keeps_queue_and_impairments():
    cfg = load_config({"legacy": True, "ports": {"2": {
        "buffer_limit": 65, "red": {"min_th": 5, "max_th": 15, "w_q": 0.002, "max_p": 0.1},
        "impair": {"drop_prob": 0.01}}}})
    assert cfg.ports[2].buffer_limit == 65 and cfg.ports[2].red is not None
    assert cfg.ports[2].impair.drop_prob == 0.01


def test_legacy_false_allows_edge_and_mtu():
    cfg = load_config({"legacy": False, "ports": {"1": {"edge": True, "mtu": 1500}}})
    assert cfg.legacy is False and cfg.ports[1].edge
