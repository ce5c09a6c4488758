"""Shared fixtures: real p4c's JSON of a plain LPM forwarder from the P4 conformance kit."""

from pathlib import Path

import pytest

from toolchain.switch import load_program

KIT = Path(__file__).resolve().parents[1] / "data" / "p4-kit"


@pytest.fixture(scope="session")
def lpm_program():
    return load_program(str(KIT / "lpm_forward.json"))

