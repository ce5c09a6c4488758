"""`python -m controller` on a file that is not a config: one line naming the problem and
exit status 1, never a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def controller_cli(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller", str(config), "--print"],
                          capture_output=True, text=True, cwd=REPO, timeout=120)


def one_error_line(proc) -> str:
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    (line,) = proc.stderr.splitlines()
    return line


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_binary_config_is_one_error_line(tmp_path, suffix):
    config = tmp_path / f"binary{suffix}"
    config.write_bytes(b"ab\ncd\x00\xc3\x28ef")         # NUL, then a byte that is not UTF-8
    assert one_error_line(controller_cli(config)) == (
        f"error: {config}:2:4: byte 0xc3 is not UTF-8: a config is text (is this a binary "
        f"file?)")


def test_json_config_nested_a_hundred_thousand_deep(tmp_path):
    config = tmp_path / "deep.json"
    config.write_text('{"routes":\n ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert one_error_line(controller_cli(config)) == (
        f"error: {config}:2:101: invalid JSON: nested more than 100 levels deep")


def test_toml_config_nested_a_hundred_thousand_deep(tmp_path):
    config = tmp_path / "deep.toml"
    config.write_text("routes = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert one_error_line(controller_cli(config)) == (
        f"error: {config}: invalid TOML: nested too deeply")


def test_legacy_mistyped_is_one_error_line(tmp_path):
    config = tmp_path / "r2.toml"
    config.write_text('legacy = "yes"\n')
    assert one_error_line(controller_cli(config)) == (
        "error: legacy: expected true or false, got 'yes'")


def test_legacy_with_edge_port_is_one_error_line(tmp_path):
    config = tmp_path / "r2.json"
    config.write_text('{"legacy": true, "ports": {"1": {"edge": true}}}')
    assert one_error_line(controller_cli(config)) == (
        "error: ports.1.edge: a legacy router (legacy = true) strips no EPDN option: "
        "leave edge out")
