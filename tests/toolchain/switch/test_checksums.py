"""verify_checksum / update_checksum(_with_payload) and direct meters on table entries."""

import struct

import pytest

from netbase.checksum import internet_checksum
from toolchain.switch import SimpleSwitch

from .jsonkit import E, F, assign, frame, pack, program, unpack
from .tables_kit import table_prog

H = [["a", 16, False], ["b", 16, False], ["ck", 16, False], ["flag", 8, False], ["pad", 8, False]]


def ck_prog(*, verify=False, update=True, payload=False, opt=False):
    extra = [("opt", [["o", 16, False]])] if opt else []
    p = program(H, [assign("h", "flag", F("standard_metadata", "checksum_error"))], extra_headers=extra)
    inputs = [F("h", "a"), F("h", "b")] + ([F("opt", "o")] if opt else []) + ([{"type": "payload", "value": None}] if payload else [])
    p["calculations"] = [{"name": "calc", "id": 0, "algo": "csum16", "input": inputs}]
    p["checksums"] = [{"name": "ck", "id": 0, "type": "generic", "calculation": "calc", "target": ["h", "ck"],
                       "verify": verify, "update": update,
                       "if_cond": E("d2b", None, F("h", "$valid$"))}]
    return p


def test_update_checksum_over_fields():
    sw = SimpleSwitch(ck_prog())
    out = unpack(H, sw.process(0, frame(pack(H, {"a": 0x1234, "b": 0x5678})))[0][1][14:])
    assert out["ck"] == internet_checksum(struct.pack("!HH", 0x1234, 0x5678))


def test_update_checksum_with_payload_covers_the_unparsed_bytes():
    sw = SimpleSwitch(ck_prog(payload=True))
    data = sw.process(0, frame(pack(H, {"a": 1, "b": 2}) + b"payload!"))[0][1]
    assert unpack(H, data[14:])["ck"] == internet_checksum(struct.pack("!HH", 1, 2) + b"payload!")


def test_verify_checksum_mismatch_sets_checksum_error():
    sw = SimpleSwitch(ck_prog(verify=True, update=False))
    good = internet_checksum(struct.pack("!HH", 7, 9))
    assert unpack(H, sw.process(0, frame(pack(H, {"a": 7, "b": 9, "ck": good})))[0][1][14:])["flag"] == 0
    assert unpack(H, sw.process(0, frame(pack(H, {"a": 7, "b": 9, "ck": good ^ 1})))[0][1][14:])["flag"] == 1


def test_verify_checksum_with_payload_checks_and_keeps_a_good_checksum():
    # a calculation that is not written in place (payload) is called from a guarded verify:
    # both must be valid Python (p4c's checksum1-bmv2 / checksum-l4-bmv2 failed to load)
    sw = SimpleSwitch(ck_prog(verify=True, update=False, payload=True))
    good = internet_checksum(struct.pack("!HH", 1, 2) + b"payload!")
    for ck, flag in ((good, 0), (good ^ 1, 1)):
        data = sw.process(0, frame(pack(H, {"a": 1, "b": 2, "ck": ck}) + b"payload!"))[0][1]
        assert unpack(H, data[14:])["flag"] == flag


def test_fields_of_invalid_headers_are_left_out_of_the_checksum():
    sw = SimpleSwitch(ck_prog(opt=True))      # h.opt is never parsed, so it is invalid
    out = unpack(H, sw.process(0, frame(pack(H, {"a": 3, "b": 4})))[0][1][14:])
    assert out["ck"] == internet_checksum(struct.pack("!HH", 3, 4))


def test_direct_meter_colors_per_entry_into_result_field():
    prog = table_prog([("exact", "a")])
    prog["meter_arrays"] = [{"name": "MyIngress.dm", "id": 0, "is_direct": True, "binding": "MyIngress.t",
                             "size": 64, "rate_count": 2, "type": "packets", "result_target": ["h", "s"]}]
    t = prog["pipelines"][0]["tables"][-1]
    t["direct_meters"] = "MyIngress.dm"
    sw = SimpleSwitch(prog)
    sw.cli("table_add t nop 1 =>")
    sw.cli("meter_set_rates dm 0 0.000001:1 0.000001:1")
    from .tables_kit import send
    assert [send(sw, a=1)["s"] for _ in range(2)] == [0, 2]
    assert send(sw, a=2)["s"] == 0             # a miss does not run the meter


@pytest.mark.parametrize("fields, values", [
    ([["x", 48, False], ["y", 8, False]], {"x": 0xFFFF_FFFF_FFFF, "y": 0x80}),        # odd: 7 bytes
    ([["x", 4, False], ["y", 12, False], ["z", 8, False]], {"x": 0xF, "y": 0xABC, "z": 1}),
    ([["x", 32, False]], {"x": 0}),                                                 # all zero
])
def test_csum16_over_fields_of_any_layout_matches_rfc1071(fields, values):
    hdr = fields + [["ck", 16, False]]
    p = program(hdr)
    p["calculations"] = [{"name": "c", "id": 0, "algo": "csum16", "input": [F("h", f[0]) for f in fields]}]
    p["checksums"] = [{"name": "ck", "id": 0, "type": "generic", "calculation": "c", "target": ["h", "ck"],
                       "verify": False, "update": True, "if_cond": None}]
    sw = SimpleSwitch(p)
    out = unpack(hdr, sw.process(0, frame(pack(hdr, values)))[0][1][14:])
    nbits = sum(f[1] for f in fields)
    raw = pack(fields, values) if nbits % 8 == 0 else None
    assert out["ck"] == internet_checksum(raw)


@pytest.mark.parametrize("opt_width", [16, 32, 8])
@pytest.mark.parametrize("opt_valid", [True, False])
def test_optional_header_between_fields_counts_only_when_valid(opt_width, opt_valid):
    # csum16 over h.a (16), opt.o (optional), meta.m (8): an odd-length buffer, so every field's
    # position modulo 16 matters; an optional run of 16/32 bits takes the folded path
    # (checksums.py), an 8-bit one the general path; both must match RFC 1071 over the bytes
    # BufBuilder builds
    from .jsonkit import X, prim
    opt = {"type": "header", "value": "opt"}
    value = 0xA5C3 & ((1 << opt_width) - 1)
    # an invalid header keeps its field values (setInvalid does not clear them): they must
    # still be left out, not just happen to be zero
    ingress = [prim("add_header", opt), assign("opt", "o", X(value)), assign("scalars", "m", X(0x9F))]
    if not opt_valid:
        ingress.append(prim("remove_header", opt))
    p = program(H, ingress, extra_headers=[("opt", [["o", opt_width, False]])], metadata=[["m", 8, False]])
    p["calculations"] = [{"name": "c", "id": 0, "algo": "csum16",
                          "input": [F("h", "a"), F("opt", "o"), F("scalars", "m")]}]
    p["checksums"] = [{"name": "ck", "id": 0, "type": "generic", "calculation": "c", "target": ["h", "ck"],
                       "verify": False, "update": True, "if_cond": None}]
    sw = SimpleSwitch(p)
    out = unpack(H, sw.process(0, frame(pack(H, {"a": 0x1234})))[0][1][14:])
    opt_bytes = value.to_bytes(opt_width // 8, "big") if opt_valid else b""
    assert out["ck"] == internet_checksum(struct.pack("!H", 0x1234) + opt_bytes + b"\x9f")


@pytest.mark.parametrize("a, b", [(0, 0), (0xFFFF, 0), (0x8000, 0x7FFF), (0xFFFF, 0xFFFF), (0x1234, 0xEDCB)])
def test_folded_checksum_of_optional_headers_edge_sums_match_rfc1071(a, b):
    # inputs all of optional headers (h, and opt which is never parsed, so invalid): the
    # statement form adds each header's run only when valid; sums that are zero or a non-zero
    # multiple of 0xFFFF are where ones'-complement arithmetic differs from plain modulo
    sw = SimpleSwitch(ck_prog(opt=True))
    out = unpack(H, sw.process(0, frame(pack(H, {"a": a, "b": b})))[0][1][14:])
    assert out["ck"] == internet_checksum(struct.pack("!HH", a, b))


def test_two_checksums_written_in_place_are_each_verified_and_updated_in_order():
    # the folded csum16 body is inlined into verify/update_checksums once per checksum: two of
    # them (ck over a,b; pad over a only, as an 8-bit target) must not disturb each other
    p = ck_prog(verify=True, update=True)
    p["calculations"].append({"name": "calc_a", "id": 1, "algo": "csum16", "input": [F("h", "a")]})
    p["checksums"].append({"name": "ck2", "id": 1, "type": "generic", "calculation": "calc_a",
                           "target": ["h", "pad"], "verify": True, "update": True,
                           "if_cond": E("d2b", None, F("h", "$valid$"))})
    sw = SimpleSwitch(p)
    good = internet_checksum(struct.pack("!HH", 7, 9))
    good_pad = internet_checksum(struct.pack("!H", 7)) & 0xFF
    out = unpack(H, sw.process(0, frame(pack(H, {"a": 7, "b": 9, "ck": good, "pad": good_pad})))[0][1][14:])
    assert (out["flag"], out["ck"], out["pad"]) == (0, good, good_pad)
    out = unpack(H, sw.process(0, frame(pack(H, {"a": 7, "b": 9, "ck": good, "pad": good_pad ^ 1})))[0][1][14:])
    assert (out["flag"], out["ck"], out["pad"]) == (1, good, good_pad)


@pytest.mark.parametrize("payload", [False, True])
def test_crc32_over_byte_wide_fields_hashes_their_big_endian_bytes(payload):
    """Inputs 8, 16, 32 or 64 bits wide are serialised by one struct pack: the same bytes
    BMv2's BufBuilder concatenates (the flow hash of the gateway is such a calculation)."""
    import zlib
    p = ck_prog(payload=payload)
    p["calculations"][0]["algo"] = "crc32"
    p["calculations"][0]["input"].insert(2, F("h", "pad"))
    sw = SimpleSwitch(p)
    data = sw.process(0, frame(pack(H, {"a": 0xBEEF, "b": 0x0102, "pad": 0x7F}) + b"tail"))[0][1]
    expected = zlib.crc32(struct.pack("!HHB", 0xBEEF, 0x0102, 0x7F) + (b"tail" if payload else b""))
    assert unpack(H, data[14:])["ck"] == expected & 0xFFFF
    assert "_K_" in sw.program.source.split("def _calc0")[1].split("def ")[0]   # the pack path
