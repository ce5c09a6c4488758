"""Fixtures of the live-run tests: the gateway program, and the root/netns precondition.

Unit tests need neither root nor a network; the integration tests build the paper's topology
for real (hosts in network namespaces, rdtcp-switch processes) and are skipped, with the
reason shown (pytest -ra), when this process is not root or ``ip netns`` does not work.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def gateway():
    """(path, loaded program) of the RD-TCP gateway, compiled once if stale."""
    from experiments.runner.program import gateway_program
    return gateway_program()


def _netns_unusable() -> str | None:
    if os.geteuid() != 0:
        return "live runs need root (network namespaces, veth pairs, AF_PACKET sockets)"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed"
    name = f"rlprobe{os.getpid()}"
    add = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, timeout=30)
    if add.returncode != 0:
        return f"`ip netns add` fails here: {add.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
    return None


@pytest.fixture(scope="session")
def netns_ok():
    why = _netns_unusable()
    if why:
        pytest.skip(why)
    return True
