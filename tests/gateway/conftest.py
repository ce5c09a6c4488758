"""Library-mode harness: the gateway program on the embedded target, driven by the controller.

The program is p4src/rdtcp.p4 compiled by the project's front end (once per session), or the
BMv2 JSON named by RDTCP_PROGRAM (e.g. real p4c-bm2-ss output) to run the same tests on it.
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict, deque
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ptf-tests"))

from rdtcp_frames import TEST_CONFIG, checksums_ok, deep_merge  # noqa: E402

from controller import Controller, EmbeddedDriver  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateway_build import compile_gateway, register_size  # noqa: E402


@pytest.fixture(scope="session")
def gateway_json() -> dict:
    override = os.environ.get("RDTCP_PROGRAM")
    if override:
        return json.loads(Path(override).read_text())
    return compile_gateway()


@pytest.fixture(scope="session")
def gateway_program(gateway_json):
    from toolchain.switch import load_program
    return load_program(gateway_json)


class LibraryHarness:
    """The scenario harness (ptf-tests/rdtcp_scenarios.py) over SimpleSwitch.process."""

    def __init__(self, program, program_json: dict, seed: int = 1):
        self.program = program
        self.seed = seed
        self.epdn_entries = register_size(program_json, "MyIngress.epdn_fp")
        self.sw = None
        self.ctl = None
        self.out: dict[int, deque] = defaultdict(deque)

    def configure(self, delta: dict, *, base: dict = TEST_CONFIG) -> None:
        """A switch configured with ``base`` merged with ``delta``; a second call reconfigures
        the same switch (its state stays, as on a switch process)."""
        from toolchain.switch import SimpleSwitch
        if self.sw is None:
            self.sw = SimpleSwitch(self.program, seed=self.seed)
            self.ctl = Controller(EmbeddedDriver(self.sw))
        self.ctl.apply(deep_merge(base, delta))
        self.out = defaultdict(deque)

    def send(self, port: int, pkt, now: float = 0.0) -> None:
        for out_port, frame in self.sw.process(port, bytes(pkt), now=now):
            assert checksums_ok(frame), f"bad checksum on port {out_port}: {frame.hex()}"
            self.out[out_port].append(frame)

    def expect(self, port: int, pkt) -> None:
        want = bytes(pkt)
        assert self.out[port], (f"expected a frame on port {port}, got none "
                                f"(frames on ports {sorted(p for p, q in self.out.items() if q)})")
        got = self.out[port].popleft()
        assert got == want, f"port {port}:\n got  {got.hex()}\n want {want.hex()}"

    def received(self, port: int) -> list[bytes]:
        """Every frame out of ``port`` not expected yet, in order (and they are consumed)."""
        frames = list(self.out[port])
        self.out[port].clear()
        return frames

    def register_write(self, name: str, index: int, value: int) -> None:
        self.ctl.driver.run([f"register_write {name} {index} {value}"])

    def expect_none(self) -> None:
        left = {p: [f.hex() for f in q] for p, q in self.out.items() if q}
        assert not left, f"unexpected frames: {left}"

    def counters(self) -> dict:
        return self.ctl.report(ports=[1, 2, 3, 4])

    def epdn_table(self) -> list[tuple[int, int]]:
        return [(e["lo"], e["hi"]) for e in self.ctl.epdn_entries()]


@pytest.fixture
def lib(gateway_program, gateway_json) -> LibraryHarness:
    return LibraryHarness(gateway_program, gateway_json)
