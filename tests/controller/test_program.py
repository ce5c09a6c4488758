"""The program a config is checked against: read from BMv2 JSON, or the gateway's documented
interface, which must be the compiled gateway's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from controller import names as n
from controller.program import ProgramError, ProgramInfo

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "gateway"))
from gateway_build import compile_gateway  # noqa: E402


@pytest.mark.parametrize("max_ports", [64, 8])
def test_documented_interface_is_the_compiled_gateway(max_ports):
    compiled = ProgramInfo.from_json(compile_gateway(MAX_PORTS=max_ports))
    documented = ProgramInfo.gateway(max_ports)
    assert {k: compiled.registers[k] for k in documented.registers} == documented.registers
    for name, table in documented.tables.items():
        assert compiled.tables[name] == table, name


def test_program_json_tables_keys_and_action_parameters():
    info = ProgramInfo.load(ROOT / "tests" / "data" / "p4-kit" / "lpm_forward.json")
    table = info.tables["KitIngress.ipv4_lpm"]
    assert table.keys == (("lpm", 32),) and table.size == 1024
    assert table.actions["KitIngress.forward"] == (9, 48)


@pytest.mark.parametrize("text, reason", [
    ("{", "not a BMv2 JSON file"),
    ("[]", "the top level is not an object"),
    ('{"register_arrays": [{"name": "r"}]}', "not a BMv2 JSON program: KeyError"),
    ('{"pipelines": [{"tables": [{"name": "t", "max_size": 1, "action_ids": [7]}]}]}',
     "not a BMv2 JSON program: KeyError"),
])
def test_malformed_program_is_named_error(tmp_path, text, reason):
    path = tmp_path / "p.json"
    path.write_text(text)
    with pytest.raises(ProgramError, match=reason):
        ProgramInfo.load(path)


def test_missing_program_file_is_named_error(tmp_path):
    with pytest.raises(ProgramError, match="nope.json: cannot read the program"):
        ProgramInfo.load(tmp_path / "nope.json")


def test_program_register_width_and_cells():
    info = ProgramInfo.from_json(json.loads(json.dumps(compile_gateway())))
    assert info.registers[n.REG_EDGE_PORT].width == 1
    assert info.registers[n.REG_IMPAIR_PATTERN].size == 64 * n.PATTERN_SLOTS
