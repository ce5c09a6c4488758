"""A seeded mutation fuzz of the loader: malformed but well-formed JSON is refused cleanly.

Each case takes one of the conformance kit's JSON files (real p4c output) or the gateway's
JSON (our front end's), changes one thing in it (deletes a key or an element, puts a value of
another type or an extreme number in its place, renames a reference, duplicates or swaps
elements, or damages the file's bytes), then loads it, builds a switch and sends a frame
through. The only exception allowed is ``LoadError`` with a one-line message; a program
that loads must forward (or drop) the frame without raising; no case may take over 2 s.
"""

from __future__ import annotations

import copy
import json
import random
import time
from pathlib import Path

import pytest

from sim.program import gateway_json
from toolchain.switch import LoadError, SimpleSwitch, load_program

KIT = Path(__file__).resolve().parents[2] / "data" / "p4-kit"
SEED = 20
CASES_PER_KIT_FILE = 400
CASES_GATEWAY = 240
CASES_GATEWAY_QUICK = 80        # make test's share of them
MAX_CASE_SECONDS = 2.0


# Ethernet / IPv4 / TCP to 10.0.1.1, enough for every kit program's parser to go deep
FRAME = bytes.fromhex(
    "00000000000100000000000208004500002c000100004006f9ad0a0000010a000101"
    "04d2005000000001000000006002200077230000020405b4") + bytes(20)

INJECTION = "0(F, A, P):\n    pass\nraise SystemExit('code ran')\ndef _Z"
REPLACEMENTS = [None, True, False, "", "x", INJECTION, 0, -1, 1, 1.5, [], {}, [0], {"type": "x"},
                2 ** 31, 2 ** 32, 2 ** 63, 2 ** 70, -2 ** 70, 10 ** 5000,
                "0x" + "f" * 5000, {"type": "hexstr", "value": "0x1"}]


def _containers(doc, path=()):
    """(path, container) for every dict and list in ``doc``, source_info left out."""
    if isinstance(doc, dict):
        yield path, doc
        for k, v in doc.items():
            if k != "source_info" and isinstance(v, (dict, list)):
                yield from _containers(v, path + (k,))
    elif isinstance(doc, list):
        yield path, doc
        for i, v in enumerate(doc):
            if isinstance(v, (dict, list)):
                yield from _containers(v, path + (i,))


def _strings(doc) -> list:
    out = []
    for _, c in _containers(doc):
        out += [v for v in (c.values() if isinstance(c, dict) else c) if isinstance(v, str)]
    return out


def _short(v) -> str:
    if type(v) is int and v.bit_length() > 64:
        return f"<an integer of {v.bit_length()} bits>"
    return repr(v)[:40]


class _Shape:
    """What ``mutate`` picks from, found once per document: the paths of its non-empty
    containers and its strings (the document is never changed, only its copies)."""
    _of: dict[int, "_Shape"] = {}

    def __init__(self, doc: dict):
        self.doc = doc          # held, so that the id stays this document's
        self.paths = [p for p, c in _containers(doc) if c]
        self.strings = _strings(doc)

    @classmethod
    def of(cls, doc: dict) -> "_Shape":
        shape = cls._of.get(id(doc))
        if shape is None or shape.doc is not doc:
            shape = cls._of[id(doc)] = cls(doc)
        return shape


def _copy(doc: dict) -> dict:
    """A deep copy of a document json.loads returned: through its JSON text, as copy.deepcopy
    would copy it but some ten times faster (a gateway's JSON is ~1 MB)."""
    return json.loads(json.dumps(doc))


def _at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def mutate(doc: dict, rng: random.Random) -> tuple[dict, str]:
    """A copy of ``doc`` with one change, and a description of it."""
    shape = _Shape.of(doc)
    d = _copy(doc)
    path = rng.choice(shape.paths)
    c = _at(d, path)
    key = rng.choice(list(c) if isinstance(c, dict) else range(len(c)))
    r = rng.random()
    if r < 0.25:
        del c[key]
        return d, f"{path + (key,)} deleted"
    if r < 0.75:
        c[key] = copy.deepcopy(rng.choice(REPLACEMENTS))
        return d, f"{path + (key,)} = {_short(c[key])}"
    if r < 0.85:
        c[key] = rng.choice(shape.strings)          # a reference to another object
        return d, f"{path + (key,)} = {c[key]!r}"
    if isinstance(c, list):
        if r < 0.93:
            c.insert(key, copy.deepcopy(c[key]))     # duplicated (ids and names twice)
            return d, f"{path + (key,)} duplicated"
        other = rng.randrange(len(c))
        c[key], c[other] = c[other], c[key]
        return d, f"{path}: elements {key} and {other} swapped"
    c[key] = copy.deepcopy(rng.choice(list(c.values())))
    return d, f"{path + (key,)} = a sibling's value"


def check_case(program, what: str) -> str:
    """Load ``program`` (dict or path), build a switch, send FRAME; the outcome's name."""
    start = time.process_time()
    try:
        sw = SimpleSwitch(load_program(program))
        for port in (0, 1):
            sw.process(port, FRAME)
        outcome = "forwarded"
    except LoadError as e:
        message = str(e)
        assert message and "\n" not in message, f"{what}: LoadError message not one line: {message!r}"
        outcome = "refused"
    except BaseException as e:      # noqa: BLE001 - anything else is the failure under test
        raise AssertionError(f"{what}: {type(e).__name__}: {e}") from None
    elapsed = time.process_time() - start
    assert elapsed <= MAX_CASE_SECONDS, f"{what}: took {elapsed:.1f} s"
    return outcome


def kit_files() -> list[Path]:
    return sorted(KIT.glob("*.json"))


@pytest.mark.parametrize("name", [p.stem for p in kit_files()])
def test_mutated_kit_json_is_loaded_or_refused_cleanly(name):
    doc = json.loads((KIT / f"{name}.json").read_text())
    rng = random.Random(f"{SEED}:{name}")
    outcomes = [check_case(*mutate(doc, rng)) for _ in range(CASES_PER_KIT_FILE)]
    # the fuzz reaches both sides of the loader: mutations it accepts and ones it refuses
    assert 0 < outcomes.count("refused") < len(outcomes)


@pytest.mark.parametrize("first, last", [
    (0, CASES_GATEWAY_QUICK),
    # the rest of the seeded cases (loading the gateway takes a quarter second): make test-slow
    pytest.param(CASES_GATEWAY_QUICK, CASES_GATEWAY, marks=pytest.mark.slow)])
def test_mutated_gateway_json_is_loaded_or_refused_cleanly(first, last):
    doc = gateway_json()
    rng = random.Random(f"{SEED}:gateway")
    for _ in range(first):          # the cases before ``first``, drawn but not loaded
        mutate(doc, rng)
    outcomes = [check_case(*mutate(doc, rng)) for _ in range(first, last)]
    assert 0 < outcomes.count("refused") < len(outcomes)


def test_damaged_bytes_are_an_error_of_the_input(tmp_path):
    rng = random.Random(f"{SEED}:bytes")
    raw = (KIT / "lpm_forward.json").read_bytes()
    cases = [b"\xff\xfe" + raw, raw[:len(raw) // 2], raw.replace(b'"name"', b'"n\xc3\x28me"', 1),
             b"[" * 100_000, b"1" * 10_000, b"{}", b""]
    for _ in range(40):
        data = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        cases.append(bytes(data))
    for i, data in enumerate(cases):
        path = tmp_path / f"case{i}.json"
        path.write_bytes(data)
        check_case(path, f"bytes case {i}")


def test_a_file_that_is_not_utf8_is_named_as_such(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"program": "caf\xe9"}')
    with pytest.raises(LoadError, match=r"latin1.json: not UTF-8 text \(byte 0xe9 at offset 16\)"):
        load_program(path)
