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

_BIN = str(Path(sys.executable).parent)
if _BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = _BIN + os.pathsep + os.environ.get("PATH", "")
