"""The multiplexed processor of the three services simple_switch serves."""

from __future__ import annotations

from .modules import thrift_modules
from .pre import SimplePreLAGHandler
from .sswitch import SimpleSwitchHandler
from .standard import StandardHandler

__all__ = ["make_processor"]


def make_processor(host):
    """The TMultiplexedProcessor simple_switch serves, over ``host`` (a ControlHost)."""
    m = thrift_modules()
    processor = m.TMultiplexedProcessor()
    processor.registerProcessor("standard", m.Standard.Processor(StandardHandler(host)))
    processor.registerProcessor("simple_pre_lag", m.SimplePreLAG.Processor(SimplePreLAGHandler(host)))
    processor.registerProcessor("simple_switch", m.SimpleSwitch.Processor(SimpleSwitchHandler(host)))
    return processor
