"""Shared fixtures: real p4c's JSON of a plain LPM forwarder from the P4 conformance kit."""

import os
from pathlib import Path

import pytest

from toolchain.switch import load_program

KIT = Path(os.environ.get("RDTCP_P4KIT",
                          Path(__file__).resolve().parents[2] / ".." / "shared" / "p4-kit"))


@pytest.fixture(scope="session")
def lpm_program():
    path = KIT / "lpm_forward.json"
    if not path.exists():
        pytest.skip(f"P4 kit not found at {KIT} (set RDTCP_P4KIT)")
    return load_program(str(path))

