"""The gateway's controller configs (controller/examples) over Thrift: simple_switch_CLI and
the controller's ThriftDriver give what the embedded switch gives."""

from __future__ import annotations

import json

import pytest

from controller import Controller
from controller.drivers import EmbeddedDriver, ThriftDriver
from sim.program import REPO_ROOT, gateway_json
from toolchain.switch import SimpleSwitch

from .test_simple_switch_cli import embedded_cli, real_cli

EXAMPLES = REPO_ROOT / "controller" / "examples"


@pytest.fixture(scope="module")
def gateway():
    return gateway_json()


@pytest.mark.parametrize("config", ["r1.toml", "r2.toml", "r1_reorder.json"])
def test_config_commands_through_simple_switch_cli(start_switch, gateway, config):
    cmds = Controller(None).commands(str(EXAMPLES / config))
    cmds += ["table_dump MyIngress.ipv4_lpm", "table_dump MyIngress.l2_forward",
             "register_read MyIngress.port_mtu", "register_read buffer_limit",
             "counter_read MyIngress.drops 0"]
    sw = start_switch(gateway)
    assert real_cli(sw.port, cmds) == embedded_cli(gateway, cmds)


def test_thrift_driver_applies_and_reports_as_the_embedded_driver(start_switch, gateway, tmp_path):
    path = tmp_path / "gw.json"
    path.write_text(json.dumps(gateway))
    sw = start_switch(path)
    remote = Controller(ThriftDriver(sw.port))
    local = Controller(EmbeddedDriver(SimpleSwitch(gateway)))
    for ctl in (remote, local):
        ctl.apply(str(EXAMPLES / "r1_reorder.json"))
        ctl.driver.run(["register_write MyIngress.epdn_fp 3 77", "register_write MyIngress.epdn_lo 3 1000",
                        "register_write MyIngress.epdn_hi 3 2460", "counter_write MyIngress.drops 1 4 6000"])
    assert remote.report(epdn_table=True) == local.report(epdn_table=True)
    assert remote.epdn_entries() == [{"index": 3, "fingerprint": 77, "lo": 1000, "hi": 2460}]
    assert remote.reset_state() == local.reset_state()
    assert remote.report(epdn_table=True) == local.report(epdn_table=True)
    remote.driver.close()
