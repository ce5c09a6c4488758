"""Library-mode tests that need virtual time, many packets or the program itself (not PTF-able)."""

from __future__ import annotations

import copy
from dataclasses import replace
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rdtcp_scenarios as sc
from rdtcp_frames import TEST_CONFIG, checksums_ok, deep_merge, epdn_option

from controller import ConfigError, Controller, EmbeddedDriver, load_config
from controller import names as n
from netbase.checksum import internet_checksum

KIT = Path(__file__).resolve().parents[1] / "data" / "p4-kit"


def new_gateway(program, delta: dict, seed: int = 1):
    from toolchain.switch import SimpleSwitch
    sw = SimpleSwitch(program, seed=seed)
    ctl = Controller(EmbeddedDriver(sw))
    ctl.apply(deep_merge(TEST_CONFIG, delta))
    return sw, ctl


def run_until_idle(sw) -> list[tuple[int, bytes]]:
    out = []
    while (t := sw.next_event_time()) is not None:
        out += [(p, f) for p, f, _ in sw.advance(now=t)]
    return out


def seq_of(frame: bytes) -> int:
    return struct.unpack_from("!I", frame, 38)[0]


# ------------------------------------------------------------------------------ program names
def test_names_every_controller_name_exists_in_program(gateway_json):
    registers = {r["name"] for r in gateway_json["register_arrays"]}
    counters = {c["name"] for c in gateway_json["counter_arrays"]}
    tables = {t["name"] for p in gateway_json["pipelines"] for t in p["tables"]}
    actions = {a["name"] for a in gateway_json["actions"]}
    assert set(n.CONFIG_REGISTERS) | {n.REG_PORT_QLEN, n.REG_EPDN_FP, n.REG_EPDN_LO,
                                      n.REG_EPDN_HI} <= registers
    assert {n.CTR_DROPS, n.CTR_PORT_DROPS, n.CTR_EPDN_EVENTS, n.CTR_REORDERS} <= counters
    assert {n.IPV4_LPM, n.L2_FORWARD, n.EDGE_SOURCE} <= tables
    assert {n.IPV4_FORWARD, n.L2_OUTPUT, n.SOURCE_OK, n.SOURCE_SPOOFED} <= actions


def header_constants(prefix: str) -> dict[int, str]:
    """``const bit<W> PREFIX_NAME = N;`` of p4src/include/headers.p4 and buffer.p4 (DROP_RED)
    as {N: "name"}."""
    include = Path(__file__).resolve().parents[2] / "p4src" / "include"
    text = "".join((include / f).read_text() for f in ("headers.p4", "buffer.p4"))
    found = re.findall(r"const\s+bit<\d+>\s+" + prefix + r"_(\w+)\s*=\s*(\d+)\s*;", text)
    return {int(value): name.lower() for name, value in found}


def test_names_report_labels_match_program_constants(gateway_json):
    """Every DROP_*/EV_*/REORDER_* index the program counts has the report label of its name,
    and every counter has exactly the cells the report reads."""
    assert {**n.DROP_CAUSES, n.RED_DROP_CAUSE: "red"} == {
        i: name for i, name in header_constants("DROP").items() if i}
    assert n.EPDN_EVENTS == header_constants("EV")
    assert n.REORDER_KINDS == {0: "recirculate", 1: "alternate_port"}
    assert header_constants("REORDER") == {0: "recirc", 1: "alt"}
    sizes = {c["name"]: c["size"] for c in gateway_json["counter_arrays"]}
    assert sizes[n.CTR_DROPS] == 2 + len(n.DROP_CAUSES)          # 0 = not dropped; RED apart
    assert sizes[n.CTR_EPDN_EVENTS] == len(n.EPDN_EVENTS)
    assert sizes[n.CTR_REORDERS] == len(n.REORDER_KINDS)


def test_epdn_entry_is_twelve_bytes(gateway_json):
    widths = {r["name"]: r["bitwidth"] for r in gateway_json["register_arrays"]}
    assert widths[n.REG_EPDN_FP] + widths[n.REG_EPDN_LO] + widths[n.REG_EPDN_HI] == 96


def test_epdn_entries_define_sets_table_size():
    from gateway_build import compile_gateway, register_size
    assert register_size(compile_gateway(EPDN_ENTRIES=1024), n.REG_EPDN_FP) == 1024


def same_crc32_flow(src_ip: str, sport: int, dport: int) -> tuple[str, int, int]:
    """Another A -> B flow (src, sport, dport) whose crc32(src, dst, proto, sport, dport) is equal.

    Input selection: CRC-32 is affine over GF(2), so x and x ^ d have equal CRCs for every d in
    the kernel of its linear part; Gaussian elimination over the 64 bits of (src, sport, dport)
    finds such a d (dst stays, so the route does too).
    """
    from ipaddress import IPv4Address

    def crc(src: int, sp: int, dp: int) -> int:
        return zlib.crc32(struct.pack("!IIBHH", src, int(IPv4Address(sc.HOST_B_IP)), 6, sp, dp))
    def unpack(bits: int) -> tuple[int, int, int]:
        return bits >> 32, (bits >> 16) & 0xFFFF, bits & 0xFFFF
    zero = crc(0, 0, 0)
    pivots: dict[int, tuple[int, int]] = {}                # leading bit -> (image, combination)
    for i in range(64):
        image, combo = crc(*unpack(1 << i)) ^ zero, 1 << i
        while image:
            top = image.bit_length() - 1
            if top not in pivots:
                pivots[top] = (image, combo)
                break
            image, combo = image ^ pivots[top][0], combo ^ pivots[top][1]
        else:
            d_src, d_sport, d_dport = unpack(combo)
            return (str(IPv4Address(int(IPv4Address(src_ip)) ^ d_src)), sport ^ d_sport,
                    dport ^ d_dport)
    raise AssertionError("no kernel vector")


def test_epdn_flows_with_equal_crc32_told_apart(gateway_program):
    """Two flows with one crc32 share the slot; the fingerprint (a second crc32 over the reordered
    5-tuple) still tells them apart: F's drop range is never stamped into G's segment."""
    g_src, g_sport, g_dport = same_crc32_flow(sc.HOST_A_IP, 5000, 80)
    g = dict(src_ip=g_src, sport=g_sport, dport=g_dport)
    sw, ctl = new_gateway(gateway_program, sc.pattern(sc.PORT_R2, "D..D" + "." * 28))
    assert sw.process(sc.PORT_A, bytes(sc.a_to_b(1000))) == []                       # F dropped
    assert sw.process(sc.PORT_A, bytes(sc.a_to_b(5000, **g))) == [
        (sc.PORT_R2, bytes(sc.a_to_b_out(5000, **g)))]                              # G: no stamp
    assert sw.process(sc.PORT_A, bytes(sc.a_to_b(1100))) == [
        (sc.PORT_R2, bytes(sc.a_to_b_out(1100, options=[epdn_option(1000, 1100)])))]
    assert sw.process(sc.PORT_A, bytes(sc.a_to_b(5100, **g))) == []                  # G dropped
    assert ctl.report()["epdn_events"]["collision"]["packets"] == 0                  # F's was stamped


# ------------------------------------------------------------------------------ trust boundary
def established_rdtcp_pair():
    """Host A's and host B's engines after an RD-TCP handshake (EPDN negotiated both ways)."""
    from hosts.tcp import TcpConfig, TcpConnection
    a = TcpConnection(TcpConfig(variant="rdtcp", rdtcp=True), local_port=5000, remote_port=80,
                      iss=100)
    b = TcpConnection(TcpConfig(variant="rdtcp", rdtcp=True), local_port=80, remote_port=5000,
                      iss=5000)
    b.listen()
    (syn,) = a.connect(now=0.0)
    (synack,) = b.on_segment(syn, now=0.01)
    for seg in a.on_segment(synack, now=0.02):
        b.on_segment(seg, now=0.03)
    assert a.state == b.state == "ESTABLISHED" and b.rdtcp_ok
    return a, b


FORGERIES = {
    "two": lambda lo, hi: (("EPDN", (lo, hi)), ("EPDN", (lo, hi))),
    "three": lambda lo, hi: (("NOP", None),) + (("EPDN", (lo, hi)),) * 3,
    "nop_then_epdn": lambda lo, hi: (("NOP", None), ("EPDN", (lo, hi))),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
@pytest.mark.parametrize("port", [sc.PORT_A, sc.PORT_R2], ids=["edge", "core"])
def test_forged_stamp_never_reaches_receiver_as_gateway_stamp(gateway_program, forgery, port):
    """Host A writes EPDN options claiming a drop into its own data segment. Through the edge
    port every one is stripped, so host B's RD-TCP receiver sees no stamp at all; the same
    segment through a core port (where the gateway trusts upstream gateways) reaches B with
    the options in place, and B honours the first one: the receiver would believe the forgery,
    so only the gateway keeps it out."""
    from netbase.wire import decode_frame, encode_frame
    a, b = established_rdtcp_pair()
    a.send(b"x" * 100)
    (seg,) = a.poll(now=0.1)
    forged = replace(seg, options=FORGERIES[forgery](seg.seq, seg.seq + 100))
    sw, ctl = new_gateway(gateway_program, {"ports": {str(sc.PORT_R2): {"edge": False}}})
    frame = encode_frame(forged, src_ip=sc.HOST_A_IP, dst_ip=sc.HOST_B_IP,
                         src_mac=sc.HOST_A_MAC, dst_mac=sc.SWITCH_MAC)
    [(out_port, out)] = sw.process(port, frame)
    assert out_port == sc.PORT_R2
    _, _, delivered = decode_frame(out)
    b.on_segment(delivered, now=0.2)
    assert b.receive() == b"x" * 100
    if port == sc.PORT_A:
        assert not any(name == "EPDN" for name, _ in delivered.options)
        assert b.stats["epdn_stamps"] == 0 and b.stats["epdn_ignored"] == 0
        assert ctl.report()["epdn_events"]["strip"]["packets"] == 1
    else:
        epdns = [v for name, v in delivered.options if name == "EPDN"]
        assert epdns == [v for name, v in forged.options if name == "EPDN"]
        assert b.stats["epdn_stamps"] == (1 if forged.options[0][0] == "EPDN" else 0)


# ------------------------------------------------------------------------------ buffer limit
def test_buffer_limit_drops_beyond_limit_are_recorded(gateway_program):
    """Five arrivals before any departure at limit 2: three drops, one stamp of their range."""
    sw, ctl = new_gateway(gateway_program, {"ports": {"2": {"buffer_limit": 2}}})
    for i in range(5):
        sw.receive(sc.PORT_A, bytes(sc.a_to_b(1000 + 100 * i)), now=0.0)
    assert sw.runtime.register_read(n.REG_PORT_QLEN, 2) == 2
    out = run_until_idle(sw)
    assert [f for _, f in out] == [bytes(sc.a_to_b_out(1000)), bytes(sc.a_to_b_out(1100))]
    assert sw.runtime.register_read(n.REG_PORT_QLEN, 2) == 0      # every egress left the count
    sw.receive(sc.PORT_A, bytes(sc.a_to_b(1500)), now=1.0)
    assert [f for _, f in run_until_idle(sw)] == [
        bytes(sc.a_to_b_out(1500, options=[epdn_option(1200, 1500)]))]
    report = ctl.report(ports=[2])
    assert report["drops"]["buffer"]["packets"] == 3
    assert report["ports"][2]["drops"]["packets"] == 3


def test_buffer_limit_applies_to_non_tcp(gateway_program):
    sw, ctl = new_gateway(gateway_program, {"ports": {"2": {"buffer_limit": 1}}})
    for _ in range(3):
        sw.receive(sc.PORT_A, bytes(sc.udp_frame()), now=0.0)
    assert len(run_until_idle(sw)) == 1
    assert ctl.report()["drops"]["buffer"]["packets"] == 2
    assert ctl.report()["epdn_events"]["record"]["packets"] == 0


# ------------------------------------------------------------------------------ RED
RED_EWMA = {"min_th": 10, "max_th": 20, "w_q": 0.5, "max_p": 0.1}


def test_red_average_follows_queue_as_ewma(gateway_program):
    """FJ §4: avg <- avg + w_q (q - avg) at every arrival, q the queue it finds: with w_q = 1/2
    and arrivals finding 0, 1, 2, 3 packets queued, 0, 1/2, 5/4, 17/8 packets; then, the queue
    drained, an arrival finding it empty halves the average (no idle decay, buffer.p4)."""
    sw, ctl = new_gateway(gateway_program, {"ports": {"2": {"red": RED_EWMA}}})
    avgs = []
    for i in range(4):
        sw.receive(sc.PORT_A, bytes(sc.a_to_b(1000 + 100 * i)), now=0.0)
        avgs.append(sw.runtime.register_read(n.REG_RED_AVG, 2))
    assert avgs == [0, 32768, 81920, 139264]                         # packets * 2^16
    assert len(run_until_idle(sw)) == 4
    sw.receive(sc.PORT_A, bytes(sc.a_to_b(1400)), now=1.0)
    assert sw.runtime.register_read(n.REG_RED_AVG, 2) == 69632     # 17/16 packets
    assert ctl.report(ports=[2])["red"]["ports"][2] == {"avg": 17 / 16, "count": -1}


def test_red_drops_above_max_th_recorded_and_counted_apart(gateway_program):
    """An average at max_th drops every arrival as RED (its own cause, recorded for EPDN), acks
    included; pure ACKs are not recorded (no data). (w_q = 2^-24 keeps the average in place.)"""
    sw, ctl = new_gateway(gateway_program, {"ports": {"2": {"red": dict(RED_EWMA, w_q=2 ** -24)}}})
    sw.runtime.register_write(n.REG_RED_AVG, 2, 20 << 16)
    assert sw.process(sc.PORT_A, bytes(sc.a_to_b(1000))) == []
    assert sw.process(sc.PORT_A, bytes(sc.a_to_b(1100, payload=b""))) == []
    report = ctl.report(ports=[2])
    assert report["red"]["drops"]["packets"] == 2
    assert report["ports"][2]["drops"]["packets"] == 2
    assert report["epdn_events"]["record"]["packets"] == 1
    assert all(v["packets"] == 0 for v in report["drops"].values())


def test_red_off_by_default_reads_one_register(gateway_program):
    """Without a red table in the config, red_max_th is 0 and the average is never touched."""
    sw, _ = new_gateway(gateway_program, {"ports": {"2": {"buffer_limit": 3}}})
    for i in range(5):
        sw.receive(sc.PORT_A, bytes(sc.a_to_b(1000 + 100 * i)), now=0.0)
    assert sw.runtime.register_read(n.REG_RED_MAX_TH, 2) == 0
    assert sw.runtime.register_read(n.REG_RED_AVG, 2) == 0


# ------------------------------------------------------------------------------ reordering
def test_recirculated_segment_falls_behind_later_ones(gateway_program):
    """Delay-based reordering ([RDTCP] §7): the looping segment leaves after the two sent after it."""
    sw, ctl = new_gateway(gateway_program, sc.pattern(sc.PORT_R2, "R..", recirc_loops=1))
    sw.tm.set_port_rate_bps(sc.PORT_R2, 1e6)
    for seq in (1000, 1100, 1200):
        sw.receive(sc.PORT_A, bytes(sc.a_to_b(seq)), now=0.0)
    out = run_until_idle(sw)
    assert [seq_of(f) for _, f in out] == [1100, 1200, 1000]
    assert out[2][1] == bytes(sc.a_to_b_out(1000))              # intact, TTL decremented once
    assert sw.runtime.register_read(n.REG_PORT_QLEN, 2) == 0
    assert ctl.report()["reorders"]["recirculate"]["packets"] == 1


@pytest.mark.parametrize("loops", [1, 2, 3])
def test_recirculated_segment_loops_recirc_loops_times(gateway_program, loops):
    """recirc_loops[p] = N: the segment passes port p's queue N + 1 times, so alone on a 1 Mb/s
    link its 154-byte frame (1232 us per pass) leaves at (N + 1) * 1232 us."""
    sw, _ = new_gateway(gateway_program, sc.pattern(sc.PORT_R2, "R", recirc_loops=loops))
    sw.tm.set_port_rate_bps(sc.PORT_R2, 1e6)
    sw.receive(sc.PORT_A, bytes(sc.a_to_b(1000)), now=0.0)
    departures = []
    while (t := sw.next_event_time()) is not None:
        departures += [(p, f, round(d * 1e6)) for p, f, d in sw.advance(now=t)]
    assert departures == [(sc.PORT_R2, bytes(sc.a_to_b_out(1000)), (loops + 1) * 1232)]


def test_random_drops_half_probability_counted(gateway_program):
    sw, ctl = new_gateway(gateway_program,
                          {"ports": {"2": {"impair": {"drop_prob": 0.5}}}}, seed=7)
    forwarded = sum(len(sw.process(sc.PORT_A, bytes(sc.a_to_b(1000 + 100 * i))))
                    for i in range(200))
    dropped = ctl.report()["drops"]["random"]["packets"]
    assert 0 < dropped < 200 and forwarded + dropped == 200
    assert ctl.report()["epdn_events"]["record"]["packets"] == dropped


def test_random_drops_same_seed_same_outcome(gateway_program):
    def run():
        sw, ctl = new_gateway(gateway_program, {"ports": {"2": {"impair": {"drop_prob": 0.3}}}},
                              seed=11)
        return [len(sw.process(sc.PORT_A, bytes(sc.a_to_b(100 * i)))) for i in range(50)]
    assert run() == run()


# ------------------------------------------------------------------------------ robustness
def _tcp_bytes(doff: int, options: bytes, payload: bytes, src: bytes, dst: bytes) -> bytes:
    hdr = struct.pack("!HHIIBBHHH", 5000, 80, 4242, 1, (doff & 0xF) << 4, 0x10, 65535, 0, 0)
    seg = hdr + options + payload
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(seg))
    csum = internet_checksum(pseudo + seg)
    return seg[:16] + struct.pack("!H", csum) + seg[18:]


@pytest.fixture(scope="module")
def fuzz_gateway(gateway_program):
    """Every 4th data segment dropped in both directions, so entries are pending on both."""
    sw, _ = new_gateway(gateway_program, {"ports": {
        str(sc.PORT_R2): {"impair": {"pattern": "D..."}},
        str(sc.PORT_A): {"impair": {"pattern": "D..."}}}})
    return sw


def ipv4_lengths_consistent(frame: bytes) -> bool:
    """An IPv4 output never claims more bytes than it carries, nor less than its header."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return True
    ihl, total_len = (frame[14] & 0x0F) * 4, int.from_bytes(frame[16:18], "big")
    return 20 <= ihl <= total_len <= len(frame) - 14


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doff=st.one_of(st.none(), st.integers(0, 15)), options=st.binary(max_size=44),
       payload=st.binary(max_size=64), cut=st.one_of(st.none(), st.integers(0, 120)),
       trailer=st.binary(max_size=16),
       first=st.sampled_from([b"", bytes.fromhex("fd0c5244")]), from_core=st.booleans())
def test_malformed_tcp_never_crashes_nor_corrupts(fuzz_gateway, doff, options, payload, cut,
                                                  trailer, first, from_core):
    """Random option bytes, data offsets, truncations and trailing bytes, from a host (strip
    path) or from the core (merge path): every output has consistent IPv4 lengths and valid
    checksums."""
    from scapy.layers.inet import IP
    from scapy.layers.l2 import Ether
    a, b = "10.0.1.1", "10.0.2.1"
    src, dst = (b, a) if from_core else (a, b)
    if doff is None:                     # a data offset that covers the option bytes exactly
        options = (first + options)[:40]
        options, first = options + bytes(-len(options) % 4), b""
        doff = 5 + len(options) // 4
    seg = _tcp_bytes(doff, first + options, payload, bytes(map(int, src.split("."))),
                     bytes(map(int, dst.split("."))))
    ip = IP(src=src, dst=dst, proto=6, ttl=64) / seg
    port = sc.PORT_R2 if from_core else sc.PORT_A
    frame = bytes(Ether(src=sc.HOST_A_MAC, dst=sc.SWITCH_MAC) / IP(bytes(ip)))
    frame = frame[:cut] if cut is not None else frame + trailer
    keep_pending = sc.b_to_a(1) if from_core else sc.a_to_b(1)
    fuzz_gateway.process(port, bytes(keep_pending))
    for _, out in fuzz_gateway.process(port, frame):
        assert ipv4_lengths_consistent(out), out.hex()
        assert checksums_ok(out), out.hex()


# ------------------------------------------------------------------------------ bad input
def test_controller_on_other_program_names_missing_table_before_any_write():
    from toolchain.switch import SimpleSwitch
    sw = SimpleSwitch.from_json(str(KIT / "lpm_forward.json"))
    with pytest.raises(ConfigError, match="routes: the program has no table MyIngress.ipv4_lpm"):
        Controller(EmbeddedDriver(sw)).apply(load_config({}))


def test_port_beyond_program_registers_refused_before_any_write(gateway_program):
    """A config written for a 128-port build, applied to the 64-port program: named refusal,
    and the switch untouched (its edge ports still edge)."""
    from toolchain.switch import SimpleSwitch
    sw = SimpleSwitch(gateway_program)
    ctl = Controller(EmbeddedDriver(sw))
    ctl.apply(TEST_CONFIG)
    with pytest.raises(ConfigError, match="max_ports: 128, but the program's per-port registers "
                                          "have 64 cells"):
        ctl.apply({"max_ports": 128, "ports": {"100": {"edge": True}}})
    assert sw.runtime.register_read(n.REG_EDGE_PORT, sc.PORT_A) == 1


def test_program_target_refuses_is_named(gateway_json):
    from toolchain.switch import LoadError, load_program
    bad = copy.deepcopy(gateway_json)
    bad["actions"][0]["primitives"].append({"op": "no_such_primitive", "parameters": []})
    with pytest.raises(LoadError, match="no_such_primitive"):
        load_program(bad)


@pytest.mark.skipif(shutil.which("rdtcp-switch") is None, reason="rdtcp-switch not installed")
def test_switch_process_missing_interface_is_named(tmp_path, gateway_json):
    import json
    prog = tmp_path / "rdtcp.json"
    prog.write_text(json.dumps(gateway_json))
    proc = subprocess.run(["rdtcp-switch", "-i", "1@rdtcp-no-such-if", str(prog),
                           "--thrift-port", "0"], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "rdtcp-no-such-if" in proc.stderr + proc.stdout
