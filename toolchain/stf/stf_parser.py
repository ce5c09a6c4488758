"""Parser for p4c's STF test format (as ``backends/bmv2/bmv2stf.py`` reads it).

A file is a sequence of commands, one per line; ``#`` starts a comment:

    add <table> [<priority>] <key>:<value> ... <action>(<param>:<value>, ...)
    setdefault <table> <action>(<param>:<value>, ...)
    packet <port> <hex bytes>
    expect <port> <hex bytes, '*' nibbles are don't-care>[$]
    wait
    check_counter <counter>(<index>) [packets|bytes] <op> <value>
    register_read <register> <index> <expected value>      (a check)

Any other line is a runtime CLI command passed to the switch as it is (``mirroring_add``,
``register_write``, ``mc_mgrp_create``...). Key values are numbers; in hex or binary, ``*``
digits are wildcards (``0x0a0001**`` is the /24 prefix 10.0.1.0). Stack elements are
written ``hdr.labels$0.label`` and header validity ``hdr.h.$valid$``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["StfSyntaxError", "StfCommand", "Add", "SetDefault", "PacketIn", "Expect", "Wait",
           "CheckCounter", "RegisterCheck", "CliCommand", "IgnoredCommand", "CLI_PASSTHROUGH", "parse_stf",
           "stf_key_index", "stf_name", "bmv2_priority", "add_priority", "StfAddError",
           "parse_key_value"]


class StfSyntaxError(Exception):
    def __init__(self, lineno: int, message: str):
        self.lineno = lineno
        super().__init__(f"line {lineno}: {message}")


@dataclass
class StfCommand:
    lineno: int


@dataclass
class Add(StfCommand):
    table: str
    priority: int | None
    keys: list[tuple[str, str]]           # (STF key name, value text)
    action: str
    args: list[tuple[str | None, str]]    # (param name or None, value text)


@dataclass
class SetDefault(StfCommand):
    table: str
    action: str
    args: list[tuple[str | None, str]]


@dataclass
class PacketIn(StfCommand):
    port: int
    data: bytes


@dataclass
class Expect(StfCommand):
    port: int
    pattern: str            # upper-case hex digits and '*'
    exact: bool             # the STF line ended with '$'


@dataclass
class Wait(StfCommand):
    pass


@dataclass
class CheckCounter(StfCommand):
    counter: str
    index: int
    kind: str               # "packets" or "bytes"
    op: str
    value: int


@dataclass
class RegisterCheck(StfCommand):
    register: str
    index: int
    value: int


@dataclass
class CliCommand(StfCommand):
    line: str


@dataclass
class IgnoredCommand(StfCommand):
    """A line p4c's runner neither understands nor passes to the switch: it is skipped there."""
    line: str


# the simple_switch_CLI commands p4c's runner passes through as they are (bmv2stf.py,
# execute_stf_command); it ignores any other word it does not know
CLI_PASSTHROUGH = frozenset({
    "mirroring_add", "mirroring_add_mc", "mirroring_delete", "mirroring_get", "mc_mgrp_create",
    "mc_node_create", "mc_node_associate", "counter_read", "counter_write", "register_read",
    "register_write", "register_reset", "meter_get_rates", "meter_set_rates", "meter_array_set_rates"})


_ACTION_RE = re.compile(r"^(?P<name>[^\s(]+)\((?P<args>.*)\)$")
_COUNTER_RE = re.compile(r"^(?P<name>[^\s(]+)\((?P<index>[^)]*)\)$")


def _parse_int(text: str, lineno: int) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise StfSyntaxError(lineno, f"expected a number, got {text!r}") from None


def _hex_bytes(text: str, lineno: int) -> bytes:
    digits = "".join(text.split())
    if len(digits) % 2:
        raise StfSyntaxError(lineno, "packet data has an odd number of hex digits")
    try:
        return bytes.fromhex(digits)
    except ValueError:
        raise StfSyntaxError(lineno, f"packet data is not hex: {text!r}") from None


def _action_call(text: str, lineno: int) -> tuple[str, list[tuple[str | None, str]]]:
    m = _ACTION_RE.match(text.strip())
    if not m:
        raise StfSyntaxError(lineno, f"expected <action>(<args>), got {text!r}")
    args = []
    for part in filter(None, (p.strip() for p in m.group("args").split(","))):
        name, sep, value = part.partition(":")
        args.append((name.strip(), value.strip()) if sep else (None, name.strip()))
    return m.group("name"), args


def _split_action(rest: str, lineno: int) -> tuple[list[str], str]:
    """Key tokens and the action call (which may contain spaces inside its parentheses)."""
    paren = rest.find("(")
    if paren < 0:
        raise StfSyntaxError(lineno, "missing action call")
    start = rest.rfind(" ", 0, paren) + 1
    call = rest[start:rest.rfind(")") + 1]     # an optional "= <handle>" after the call is ignored
    return rest[:start].split(), call


def _parse_add(rest: str, lineno: int) -> Add:
    words = rest.split(None, 1)
    if len(words) < 2:
        raise StfSyntaxError(lineno, "add needs a table, keys and an action")
    table, rest = words
    priority = None
    first, _, after = rest.partition(" ")
    if first.isdigit():
        priority, rest = int(first), after
    key_tokens, call = _split_action(rest, lineno)
    keys = []
    for tok in key_tokens:
        name, sep, value = tok.rpartition(":")
        if not sep or not name:
            raise StfSyntaxError(lineno, f"key {tok!r} is not <name>:<value>")
        keys.append((name, value))
    action, args = _action_call(call, lineno)
    return Add(lineno, table, priority, keys, action, args)


def _parse_expect(rest: str, lineno: int) -> Expect:
    words = rest.split(None, 1)
    port = _parse_int(words[0], lineno)
    pattern = "".join(words[1].split()) if len(words) > 1 else ""
    exact = pattern.endswith("$")
    pattern = pattern.rstrip("$").upper()
    if not re.fullmatch(r"[0-9A-F*]*", pattern):
        raise StfSyntaxError(lineno, f"expected packet is not hex with '*' wildcards: {pattern!r}")
    return Expect(lineno, port, pattern, exact)


def _parse_check_counter(rest: str, lineno: int) -> CheckCounter:
    words = rest.split()
    m = _COUNTER_RE.match(words[0]) if words else None
    if not m or len(words) < 3:
        raise StfSyntaxError(lineno, "check_counter <counter>(<index>) [packets|bytes] <op> <value>")
    kind = "packets"
    if words[1] in ("packets", "bytes"):
        kind, words = words[1], words[:1] + words[2:]
    if len(words) != 3 or words[1] not in ("==", "!=", "<", "<=", ">", ">="):
        raise StfSyntaxError(lineno, "check_counter <counter>(<index>) [packets|bytes] <op> <value>")
    return CheckCounter(lineno, m.group("name"), _parse_int(m.group("index"), lineno), kind, words[1],
                        _parse_int(words[2], lineno))


def stf_key_index(key_names: list[str], name: str) -> int | None:
    """Which of a table's keys (JSON key names) an STF key name sets, by the rules of p4c's
    runner (bmv2stf.py, TableKeyInstance.set): ``$N`` is a stack index; exact name, then with a
    trailing ``$``, then ``.$valid$`` for a header, ``x.valid`` for ``x.$valid$``; then any
    key ending in ``.name`` (the last such key, as its loop keeps going), and ``valid``."""
    key = re.sub(r"\$(\d+)", r"[\1]", name)
    for cand in (key, key + "$", key + ".$valid$"):
        if cand in key_names:
            return key_names.index(cand)
    if key.endswith(".valid") and key[:-5] + "$valid$" in key_names:
        return key_names.index(key[:-5] + "$valid$")
    found = None
    for i, k in enumerate(key_names):
        if k.endswith("." + key) or k.endswith("." + key + "$") or (key == "valid" and k.endswith(".$valid$")):
            found = i
    if found is None and key == "valid" and "$valid$" in key_names:
        found = key_names.index("$valid$")
    return found


def stf_name(kind: str, names, name: str) -> str:
    """A table or action name as p4c's runner finds it: exact, else the one name ending with it."""
    names = list(names)
    if name in names:
        return name
    hits = [n for n in names if n.endswith(name)]
    if len(hits) == 1:
        return hits[0]
    raise KeyError(f"{'ambiguous' if hits else 'no'} {kind} {name!r}" + (f" ({', '.join(hits)})" if hits else ""))


def bmv2_priority(stf_priority: int) -> int:
    """The simple_switch priority of an STF ``add`` priority: p4c's runner (backends/bmv2/
    bmv2stf.py, parse_table_add) passes 10000 - priority, because in an STF a larger priority
    wins while in BMv2 the smaller value does."""
    return 10000 - stf_priority


class StfAddError(Exception):
    """An ``add`` that p4c's runner cannot send to simple_switch; the message says why."""


# the key kinds p4c's runner fills in (bmv2stf.py, TableKeyInstance); "optional" keys are
# written "ternary" in p4c's JSON, which is what the runner sees for them
RUNNER_KEY_TYPES = {"exact", "lpm", "ternary", "valid", "optional"}


def add_priority(table: str, table_match_type: str, keys: list[tuple[str, str]],
                 stf_priority: int | None) -> int | None:
    """The priority an STF ``add`` reaches simple_switch with, as p4c's runner sends it
    (bmv2stf.py, parse_table_add), or None when it sends none (simple_switch_CLI then uses
    0): only a table whose JSON match type is "ternary" gets one, 10000 - the STF's. Raises
    StfAddError for the adds the runner cannot make: to a ternary table without a priority
    (it appends None to the command and fails), or to a table with a range key (it knows no
    range keys). ``keys`` are the table's (name, match type)."""
    for name, match_type in keys:
        if match_type not in RUNNER_KEY_TYPES:
            raise StfAddError(f"p4c's STF runner cannot add to table {table}: its key {name} is a "
                              f"{match_type} key (bmv2stf.py knows exact, lpm, ternary and valid keys)")
    if table_match_type != "ternary":
        return None
    if stf_priority is None:
        raise StfAddError(f"an add to the ternary table {table} needs a priority (p4c's STF runner "
                          "sends '10000 - priority' to simple_switch, and fails without one)")
    return bmv2_priority(stf_priority)


def parse_stf(text: str) -> list[StfCommand]:
    cmds: list[StfCommand] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        if word == "add":
            cmds.append(_parse_add(rest, lineno))
        elif word == "setdefault":
            table, _, call = rest.partition(" ")
            action, args = _action_call(call, lineno)
            cmds.append(SetDefault(lineno, table, action, args))
        elif word == "packet":
            port, _, data = rest.partition(" ")
            cmds.append(PacketIn(lineno, _parse_int(port, lineno), _hex_bytes(data, lineno)))
        elif word == "expect":
            cmds.append(_parse_expect(rest, lineno))
        elif word == "wait":
            cmds.append(Wait(lineno))
        elif word == "check_counter":
            cmds.append(_parse_check_counter(rest, lineno))
        elif word == "register_read" and len(rest.split()) == 3:
            name, idx, value = rest.split()
            cmds.append(RegisterCheck(lineno, name, _parse_int(idx, lineno), _parse_int(value, lineno)))
        elif word in CLI_PASSTHROUGH:
            cmds.append(CliCommand(lineno, line))
        else:
            cmds.append(IgnoredCommand(lineno, line))
    return cmds


def parse_key_value(text: str, width: int) -> tuple[int, int]:
    """(value, mask) of an STF key value; mask bits are 0 where the text had '*' digits."""
    full = (1 << width) - 1
    t = text.strip()
    if "/" in t:                                    # value/prefix-length (LPM)
        v, plen = t.split("/", 1)
        value, _ = parse_key_value(v, width)
        n = int(plen, 0)
        mask = full ^ ((1 << max(width - n, 0)) - 1)
        return value & mask, mask
    if t.count(".") == 3 and all(p.isdigit() for p in t.split(".")):   # dotted IPv4
        return int.from_bytes(bytes(int(p) for p in t.split(".")), "big") & full, full
    if "&&&" in t:
        v, m = t.split("&&&")
        return int(v, 0) & full, int(m, 0) & full
    if t.lower().startswith(("0x", "0b")) and "*" in t:
        bits = 4 if t[1] in "xX" else 1
        value = mask = 0
        for ch in t[2:]:
            value <<= bits
            mask <<= bits
            if ch != "*":
                value |= int(ch, 16 if bits == 4 else 2)
                mask |= (1 << bits) - 1
        return value & full, mask & full
    return int(t, 0) & full, full
