"""``python -m controller CONFIG [--program JSON] [--thrift-port N] [--cli simple_switch_CLI]
[--print] [--report]``

Validates CONFIG (.toml/.json) against the program (--program: its BMv2 JSON; default: the
gateway's documented interface), then either prints its simple_switch_CLI commands (--print: a
commands.txt for simple_switch_CLI or STF) or applies them to the switch on --thrift-port.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.config import ConfigError, load_config
from controller.controller import Controller
from controller.drivers import Bmv2Driver, DriverError
from controller.program import ProgramError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller", description=__doc__.split("\n\n")[1])
    ap.add_argument("config", help="gateway config, .toml or .json (schema: controller/README.md)")
    ap.add_argument("--program", metavar="JSON",
                    help="the BMv2 JSON the switch runs, to check the config against")
    ap.add_argument("--thrift-port", type=int, default=9090)
    ap.add_argument("--cli", default="simple_switch_CLI",
                    help="runtime CLI to pipe commands into (simple_switch_CLI drives rdtcp-switch too)")
    ap.add_argument("--print", action="store_true", help="print the commands, touch no switch")
    ap.add_argument("--report", action="store_true", help="after applying, print the report (JSON)")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config)
        if args.print:
            ctl = Controller(driver=None, program=args.program)  # type: ignore[arg-type]
            print("\n".join(ctl.commands(cfg)))
            return 0
        ctl = Controller(Bmv2Driver(args.thrift_port, cli=args.cli), program=args.program)
        ctl.apply(cfg)
        if args.report:
            print(json.dumps(ctl.report(), indent=2))
    except (ConfigError, DriverError, ProgramError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
