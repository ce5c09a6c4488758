"""Target-agnostic control plane of the RD-TCP gateway (docs/architecture.md §5).

    from controller import load_config, ConfigError, Controller
    from controller.drivers import EmbeddedDriver, Bmv2Driver
    cfg = load_config("controller/examples/r1.toml")
    ctl = Controller(EmbeddedDriver(sw)); ctl.apply(cfg); ctl.report()

The config schema is in controller/README.md; the P4 names it drives in p4src/README.md.
"""

from controller.config import ConfigError, GatewayConfig, load_config
from controller.controller import ApplyError, Controller
from controller.drivers import Bmv2Driver, DriverError, EmbeddedDriver
from controller.program import ProgramError, ProgramInfo

__all__ = ["load_config", "ConfigError", "GatewayConfig", "Controller", "ApplyError",
           "DriverError", "EmbeddedDriver", "Bmv2Driver", "ProgramInfo", "ProgramError"]
