"""STF runner: p4c's .stf test format on the embedded target and on real simple_switch.

    from toolchain.stf import run_stf
    result = run_stf("prog.json", "test.stf", target="embedded")   # .ok, .failures

The command is ``rdtcp-stf`` or ``python -m toolchain.stf`` (``__main__.py``).
"""

from .runner import StfError, StfResult, run_stf

__all__ = ["run_stf", "StfResult", "StfError"]
