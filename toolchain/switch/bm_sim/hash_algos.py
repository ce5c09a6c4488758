"""The hash algorithms BMv2 ships (``src/bm_sim/calculations.cpp``), by their JSON names.

Each algorithm maps a byte buffer to an unsigned integer. Published check values pin them
(tests/toolchain/switch/test_hash_algos.py): CRC-16/ARC("123456789") = 0xBB3D,
CRC-32("123456789") = 0xCBF43926, and the RFC 1071 Internet checksum.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Callable

__all__ = ["CrcParams", "Crc", "ALGORITHMS", "make_algorithm", "csum16", "xor16", "identity"]


def _reflect(value: int, width: int) -> int:
    out = 0
    for _ in range(width):
        out = (out << 1) | (value & 1)
        value >>= 1
    return out


@dataclass
class CrcParams:
    """Rocksoft model parameters of a CRC (as simple_switch_CLI's set_crc16_parameters)."""

    width: int
    polynomial: int
    initial: int
    final_xor: int
    reflect_input: bool
    reflect_output: bool


# BMv2's crc16 is CRC-16/ARC, its crc32 is the IEEE 802.3 CRC-32 (zlib's).
CRC16_ARC = CrcParams(16, 0x8005, 0x0000, 0x0000, True, True)
CRC32_IEEE = CrcParams(32, 0x04C11DB7, 0xFFFFFFFF, 0xFFFFFFFF, True, True)


class Crc:
    """A table-driven CRC of any width up to 64 bits; parameters can be changed at run time."""

    def __init__(self, params: CrcParams):
        self.set_params(params)

    def set_params(self, params: CrcParams) -> None:
        self.params = params
        w = params.width
        self._mask = (1 << w) - 1
        self._init_reflected = _reflect(params.initial, w)
        if params.reflect_input:
            poly = _reflect(params.polynomial, w)
            self._table = [self._reflected_entry(b, poly) for b in range(256)]
        else:
            self._table = [self._normal_entry(b, params.polynomial) for b in range(256)]

    def _reflected_entry(self, byte: int, poly: int) -> int:
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        return crc

    def _normal_entry(self, byte: int, poly: int) -> int:
        w = self.params.width
        top = 1 << (w - 1)
        crc = byte << (w - 8) if w >= 8 else byte
        for _ in range(8):
            crc = ((crc << 1) ^ poly) if crc & top else crc << 1
        return crc & self._mask

    def __call__(self, data: bytes) -> int:
        p = self.params
        table = self._table
        w = p.width
        if p.reflect_input:
            # the register is kept reflected; reflect the initial value into that domain
            crc = self._init_reflected
            for b in data:
                crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
            if not p.reflect_output:
                crc = _reflect(crc, w)
        else:
            crc = p.initial
            shift = w - 8
            mask = self._mask
            for b in data:
                crc = (table[((crc >> shift) ^ b) & 0xFF] ^ (crc << 8)) & mask
            if p.reflect_output:
                crc = _reflect(crc, w)
        return (crc ^ p.final_xor) & self._mask


# BMv2's crc32 is the standard reflected CRC-32 (IEEE 802.3), zlib's: called directly, it costs
# the generated code no Python-level call
crc32 = zlib.crc32


def ones_sum16(data: bytes) -> int:
    """RFC 1071 ones'-complement sum of the 16-bit big-endian words of ``data`` (odd length
    padded with a zero byte), in 0..0xFFFF.

    Because 2^16 == 1 (mod 0xFFFF), the sum of the words is congruent to the whole buffer read
    as one integer, so one C-level ``%`` replaces the word loop; the end-around-carry sum is
    never 0 unless every word is 0, which picks 0xFFFF over 0 for non-zero multiples.
    """
    if len(data) & 1:
        data = bytes(data) + b"\x00"
    n = int.from_bytes(data, "big")
    s = n % 0xFFFF
    return 0xFFFF if s == 0 and n else s


def csum16(data: bytes) -> int:
    """The Internet checksum (RFC 1071): complement of the ones'-complement sum of 16-bit words."""
    return ~ones_sum16(data) & 0xFFFF


def csum16_int(value: int, nbytes: int, payload: bytes = b"") -> int:
    """csum16 of ``value.to_bytes(nbytes) + payload`` without building the bytes: the
    ones'-complement sum of the words of an integer is that integer modulo 0xFFFF."""
    if nbytes & 1:
        if payload:
            return csum16(value.to_bytes(nbytes, "big") + payload)
        value <<= 8
    s = value % 0xFFFF
    if s == 0 and value:
        s = 0xFFFF
    if payload:
        s += ones_sum16(payload)
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def csum16_split(head: bytes, payload: bytes) -> int:
    """csum16(head + payload) without building the concatenation when ``head`` is even-sized."""
    if len(head) & 1:
        return csum16(head + payload)
    s = ones_sum16(head) + ones_sum16(payload)
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def xor16(data: bytes) -> int:
    """XOR of the buffer's 16-bit big-endian words (an odd last byte is padded with zero)."""
    if len(data) & 1:
        data = bytes(data) + b"\x00"
    out = 0
    for i in range(0, len(data), 2):
        out ^= (data[i] << 8) | data[i + 1]
    return out


def identity(data: bytes) -> int:
    """BMv2's identity hash: the first (up to) 8 bytes of the buffer as a big-endian integer."""
    return int.from_bytes(bytes(data[:8]), "big")


def xor32(data: bytes) -> int:
    """XOR of the buffer's 32-bit big-endian words (a short tail is padded with zeros)."""
    data = bytes(data) + b"\x00" * (-len(data) % 4)
    out = 0
    for i in range(0, len(data), 4):
        out ^= int.from_bytes(data[i:i + 4], "big")
    return out


# CRCs whose parameters simple_switch_CLI can change (set_crc16_parameters...), with the
# defaults BMv2 starts them with; crcCCITT is BMv2's fixed CRC-16/CCITT-FALSE.
CUSTOM_CRC_DEFAULTS = {
    "crc8_custom": CrcParams(8, 0x07, 0x00, 0x00, False, False),
    "crc16_custom": CRC16_ARC,
    "crc32_custom": CRC32_IEEE,
    "crc64_custom": CrcParams(64, 0x1B, 0, 0, True, True),
    "crc16": CRC16_ARC,
    "crcCCITT": CrcParams(16, 0x1021, 0xFFFF, 0x0000, False, False),
}


def make_algorithm(name: str, rng) -> Callable[[bytes], int] | None:
    """A fresh instance of algorithm ``name`` (custom CRCs carry per-switch parameters)."""
    if name in CUSTOM_CRC_DEFAULTS:
        return Crc(CUSTOM_CRC_DEFAULTS[name])
    if name == "random":
        return lambda data: rng.getrandbits(64)
    return ALGORITHMS.get(name)


# Algorithms without per-switch state.
ALGORITHMS: dict[str, Callable[[bytes], int]] = {
    "crc32": crc32,
    "csum16": csum16,
    "cksum16": csum16,
    "xor16": xor16,
    "xor32": xor32,
    "identity": identity,
}

KNOWN_ALGORITHMS = frozenset(ALGORITHMS) | frozenset(CUSTOM_CRC_DEFAULTS) | {"random"}
