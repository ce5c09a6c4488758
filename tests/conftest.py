"""What every test area shares.

The tests start the commands of the install (``rdtcp-switch``, ``simple_switch_CLI``, ...) as
processes. They are installed beside the interpreter that runs the tests (``.venv/bin``), which
is on PATH under ``make test`` or an activated venv but not when that interpreter is run by its
path (``.venv/bin/python -m pytest``): put its directory first on PATH, so the tests find the
commands of the install they test instead of skipping.
"""

import os
import sys
from pathlib import Path

import pytest

_BIN = str(Path(sys.executable).parent)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")


# --------------------------------------------------------------------------- running apart
# Tests that build network namespaces, veths and AF_PACKET test beds (as root), bind a fixed
# port or run in real time are marked ``serial``: ``make test`` runs them after the others, one
# at a time (``-m serial``), and a run under pytest-xdist that takes them with the rest (``make
# check``) gives them all to one worker, one at a time. Tests using the
# namespace fixtures are marked so here; others carry the mark themselves. The tests of a module
# that share a module-scoped fixture (a quick sweep that takes minutes) go to one worker too, so
# that the fixture runs once, not once on every worker.
SERIAL_FIXTURES = {"netns_ok", "bed"}
SHARED_SCOPES = {"module", "package", "class"}
# an xfail's reason is one line; its explanation, with the numbers, is in experiments/README.md
MAX_XFAIL_REASON = 130


@pytest.hookimpl(tryfirst=True)     # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    too_long = []
    for item in items:
        if SERIAL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.serial)
        if item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.xdist_group("serial"))
        elif _uses_a_shared_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
        for mark in item.iter_markers("xfail"):
            reason = str(mark.kwargs.get("reason", ""))
            if "\n" in reason or len(reason) > MAX_XFAIL_REASON:
                too_long.append(f"{item.nodeid} ({len(reason)} characters)")
    if too_long:
        more = f" and {len(too_long) - 3} more" if len(too_long) > 3 else ""
        raise pytest.UsageError(
            f"xfail reasons must be one line of at most {MAX_XFAIL_REASON} characters, the "
            f"explanation in experiments/README.md: {'; '.join(too_long[:3])}{more}")


def _uses_a_shared_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None or getattr(item, "module", None) is None:
        return False
    return any(defs and defs[-1].scope in SHARED_SCOPES
               for defs in (info.name2fixturedefs.get(name) for name in info.names_closure))
