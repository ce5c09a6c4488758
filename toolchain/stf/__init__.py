"""STF runner: p4c's .stf test format on the embedded target and on real simple_switch."""

from .runner import StfError, StfResult, run_stf

__all__ = ["run_stf", "StfResult", "StfError"]
