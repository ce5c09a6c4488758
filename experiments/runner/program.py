"""The gateway program every run loads, found and checked once per sweep (``gateway_program``)."""

from __future__ import annotations

import os
from typing import Any

from sim import program as gateway_source  # its gateway_json is looked up at each call
from toolchain.switch import load_program
from toolchain.switch.errors import LoadError

__all__ = ["ProgramError", "gateway_program"]


class ProgramError(Exception):
    """The gateway program cannot be found, read or loaded; the message says which and why."""


def gateway_program() -> tuple[str, Any]:
    """The gateway program the runs load: its path (for worker processes) and the loaded program.
    ``RDTCP_PROGRAM`` names a BMv2 JSON to use; without it p4src/rdtcp.p4 is compiled to
    build/rdtcp.json (or the cached one reused). ProgramError when the file is missing,
    unreadable or not a program the target can load, checked here once rather than in every
    worker (a pool whose initializer fails restarts it for ever)."""
    override = os.environ.get("RDTCP_PROGRAM")
    where = f"RDTCP_PROGRAM={override}" if override else "the gateway program"
    try:
        gateway_source.gateway_json()   # compile (or reuse the cache); reads an override
        path = override or str(gateway_source.REPO_ROOT / "build" / "rdtcp.json")
        return path, load_program(path)
    except OSError as exc:
        raise ProgramError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except RuntimeError as exc:         # stale JSON and no interpreter to run the front end
        raise ProgramError(str(exc)) from None
    except (ValueError, LoadError) as exc:      # not JSON (incl. not UTF-8), or not BMv2 JSON
        raise ProgramError(f"{where}: not a BMv2 JSON program the target can load: {exc}") \
            from None
