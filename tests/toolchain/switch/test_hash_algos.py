"""Hash algorithms against published check values ("123456789") and RFC 1071."""

import random

import pytest

from netbase.checksum import internet_checksum
from toolchain.switch.bm_sim.hash_algos import (Crc, CrcParams, csum16, csum16_int, csum16_split, identity,
                                                make_algorithm, xor16)

CHECK = b"123456789"


def test_crc16_is_crc16_arc_check_value():
    assert make_algorithm("crc16", None)(CHECK) == 0xBB3D


def test_crc32_is_ieee_check_value():
    assert make_algorithm("crc32", None)(CHECK) == 0xCBF43926


def test_custom_crcs_default_to_the_standard_ones():
    assert make_algorithm("crc16_custom", None)(CHECK) == 0xBB3D
    assert make_algorithm("crc32_custom", None)(CHECK) == 0xCBF43926


@pytest.mark.parametrize("params, check", [
    (CrcParams(16, 0x1021, 0xFFFF, 0x0000, False, False), 0x29B1),   # CRC-16/CCITT-FALSE
    (CrcParams(16, 0x1021, 0x0000, 0x0000, True, True), 0x2189),     # CRC-16/KERMIT
    (CrcParams(32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, True, True), 0xE3069283),  # CRC-32C
    (CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, False, False), 0xFC891918),  # CRC-32/BZIP2
])
def test_crc_parameters_match_published_check_values(params, check):
    assert Crc(params)(CHECK) == check


def test_csum16_is_the_internet_checksum_rfc1071_example():
    # RFC 1071 section 3: words 0001 f203 f4f5 f6f7 sum to ddf2 (checksum 220d)
    assert csum16(bytes.fromhex("0001f203f4f5f6f7")) == 0x220D


def test_csum16_matches_reference_on_random_buffers():
    rng = random.Random(7)
    for n in list(range(0, 40)) + [1499, 1500]:
        data = bytes(rng.getrandbits(8) for _ in range(n))
        assert csum16(data) == internet_checksum(data)


def test_csum16_of_all_ones_word_and_zero_buffer():
    assert csum16(b"\xff\xff") == 0x0000
    assert csum16(b"\x00\x00") == 0xFFFF


def test_csum16_split_equals_checksum_of_concatenation():
    rng = random.Random(3)
    for h in (0, 1, 2, 3, 12, 33):
        head = bytes(rng.getrandbits(8) for _ in range(h))
        body = bytes(rng.getrandbits(8) for _ in range(101))
        assert csum16_split(head, body) == csum16(head + body)


def test_xor16_xors_words_and_pads_odd_byte():
    assert xor16(bytes.fromhex("12345678")) == 0x1234 ^ 0x5678
    assert xor16(bytes.fromhex("123456")) == 0x1234 ^ 0x5600


def test_identity_is_the_first_eight_bytes():
    assert identity(bytes.fromhex("0102")) == 0x0102
    assert identity(bytes(range(1, 12))) == 0x0102030405060708


def test_random_algorithm_is_deterministic_for_a_seed():
    a = make_algorithm("random", random.Random(5))
    b = make_algorithm("random", random.Random(5))
    assert [a(b"") for _ in range(3)] == [b(b"") for _ in range(3)]


def test_csum16_int_equals_checksum_of_serialised_value_and_payload():
    rng = random.Random(11)
    for nbytes in (0, 1, 2, 3, 12, 20, 33):
        value = rng.getrandbits(8 * nbytes) if nbytes else 0
        for payload in (b"", bytes(rng.getrandbits(8) for _ in range(7)), b"\x00\x00"):
            want = csum16(value.to_bytes(nbytes, "big") + payload)
            assert csum16_int(value, nbytes, payload) == want


def test_bmv2_extra_algorithms_crc_ccitt_and_xor32():
    assert make_algorithm("crcCCITT", None)(CHECK) == 0x29B1
    assert make_algorithm("xor32", None)(bytes.fromhex("0102030405")) == 0x01020304 ^ 0x05000000
    assert make_algorithm("crc8_custom", None)(CHECK) == 0xF4        # CRC-8/SMBUS check value
