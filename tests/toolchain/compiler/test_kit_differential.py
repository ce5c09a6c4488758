"""Differential test against real p4c: for each kit program, the JSON real p4c 1.2.4 produced
and the JSON our compiler produces run on the embedded target with the kit STF's table
entries and CLI commands, and the same random, corrupted and truncated packets (derived from
the STF's packets) must come out of the same ports with the same bytes."""
from __future__ import annotations

import json
import random

import pytest

from .conftest import KIT_PROGRAMS, compile_cached

PACKETS_PER_PROGRAM = 30


def _variants(frames: list, rng: random.Random) -> list:
    """Packets near the STF's: byte flips, truncations, extensions."""
    out = []
    for _ in range(PACKETS_PER_PROGRAM):
        data = bytearray(rng.choice(frames))
        kind = rng.randrange(4)
        if kind == 0 and data:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 1:
            data = data[:rng.randint(0, len(data))]
        elif kind == 2:
            data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        out.append(bytes(data))
    return out


def _run(program_doc: dict, setup: list, packets: list, ports: list) -> dict:
    from toolchain.stf.embedded import EmbeddedRun
    from toolchain.stf.stf_parser import PacketIn
    from toolchain.switch import load_program
    run = EmbeddedRun(load_program(program_doc), seed=7)
    cmds = list(setup) + [PacketIn(0, port, data) for port, data in zip(ports, packets)]
    run.run(cmds)
    return {port: [f.hex() for f in frames] for port, frames in run.received.items()}


@pytest.mark.parametrize("name", KIT_PROGRAMS)
def test_our_json_behaves_like_p4c_json(name, kit_dir):
    from toolchain.stf.stf_parser import Expect, PacketIn, parse_stf
    cmds = parse_stf((kit_dir / f"{name}.stf").read_text())
    setup = [c for c in cmds if not isinstance(c, (PacketIn, Expect))]
    originals = [c for c in cmds if isinstance(c, PacketIn)]
    rng = random.Random(name)
    packets = _variants([c.data for c in originals], rng)
    ports = [rng.choice(originals).port for _ in packets]
    theirs = _run(json.loads((kit_dir / f"{name}.json").read_text()), setup, packets, ports)
    ours = _run(compile_cached(kit_dir / f"{name}.p4"), setup, packets, ports)
    assert ours == theirs
