"""STF runner: p4c's .stf test format on the embedded target and on real simple_switch.

    from toolchain.stf import run_stf
    result = run_stf("prog.json", "test.stf", target="embedded")   # .ok, .failures

The names are loaded lazily so that ``python -m toolchain.stf.runner`` does not import the
runner module twice.
"""

__all__ = ["run_stf", "StfResult", "StfError"]


def __getattr__(name: str):
    if name in __all__:
        from . import runner
        return getattr(runner, name)
    raise AttributeError(f"module 'toolchain.stf' has no attribute {name!r}")
