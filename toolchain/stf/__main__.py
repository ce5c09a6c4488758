"""``python -m toolchain.stf prog.(p4|json) test.stf [--target ...]`` (same as rdtcp-stf)."""

import sys

from .runner import main

sys.exit(main())
