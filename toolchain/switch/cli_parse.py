"""Values and match keys in simple_switch_CLI's syntax (behavioral-model ``tools/runtime_CLI.py``:
parse_param, parse_match_key, the handle and integer parsers), and the errors it reports."""

from __future__ import annotations

import ipaddress

from .errors import CliError

__all__ = ["parse_param", "MATCH_TYPE_STR"]

MATCH_TYPE_STR = {"exact": "exact", "lpm": "lpm", "ternary": "ternary", "valid": "valid",
                  "range": "range", "optional": "optional"}


class _MatchKeyError(CliError):
    pass


class _RuntimeDataError(CliError):
    pass


class _BadParam(Exception):
    pass


class _Crash(CliError):
    """Input on which the real runtime_CLI.py dies with a Python exception (it prints a
    traceback and the session ends); we print the exception's last line and go on."""


def _addr_bytes(text: str, bitwidth: int) -> bytes | None:
    """runtime_CLI.parse_param's address forms: IPv4 for 32 bits (text with '.'), MAC for 48
    bits and IPv6 for 128 bits (text with ':'); None when the text is not in that form."""
    if bitwidth == 32 and "." in text:
        parts = text.split(".")
        try:
            if len(parts) != 4:
                raise ValueError
            vals = [int(b) for b in parts]
        except ValueError:
            raise _BadParam("Invalid IPv4 address") from None
    elif bitwidth == 48 and ":" in text:
        parts = text.split(":")
        try:
            if len(parts) != 6:
                raise ValueError
            vals = [int(b, 16) for b in parts]
        except ValueError:
            raise _BadParam("Invalid MAC address") from None
    elif bitwidth == 128 and ":" in text:
        try:
            return ipaddress.IPv6Address(text).packed
        except ValueError:
            raise _BadParam("Invalid IPv6 address") from None
    else:
        return None
    if any(not 0 <= v <= 255 for v in vals):       # struct.pack('B', ...) in the real CLI
        raise _Crash("struct.error: ubyte format requires 0 <= number <= 255")
    return bytes(vals)


def parse_param(text: str, bitwidth: int) -> int:
    """A CLI value as runtime_CLI.py parses it: an IPv4 address for 32-bit, MAC for 48-bit,
    IPv6 for 128-bit, else an integer (Python ``int(text, 0)``) in (bitwidth + 7) // 8 bytes;
    a negative integer becomes 0 (its int_to_bytes emits zero bytes for it)."""
    raw = _addr_bytes(text, bitwidth)
    if raw is not None:
        return int.from_bytes(raw, "big")
    try:
        v = int(text, 0)
    except ValueError:
        raise _BadParam("Invalid input, could not cast to integer, try in hex with 0x prefix") from None
    if v <= 0:
        return 0
    if (v.bit_length() + 7) // 8 > (bitwidth + 7) // 8:
        raise _BadParam("Parameter is too large")
    return v


def _byte_str(value: int, bitwidth: int) -> str:
    n = max((bitwidth + 7) // 8, 1)
    return ":".join(f"{b:02x}" for b in value.to_bytes(n, "big"))


def _int(text: str, what: str) -> int:
    """runtime_CLI.py's handle parsing: Python ``int(text)`` (decimal), "Bad format for <what>"."""
    try:
        return int(text)
    except ValueError:
        raise CliError(f"Error: Bad format for {what}") from None


def _parse_int(text: str, what: str) -> int:
    """runtime_CLI.RuntimeAPI.parse_int (sswitch_CLI's queue and mirroring commands)."""
    try:
        return int(text)
    except ValueError:
        raise CliError(f"Error: Bad format for {what}, expected integer") from None
