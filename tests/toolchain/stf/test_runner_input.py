"""`rdtcp-stf` on an .stf file that is not text: one line naming the problem and exit
status 2 (an error of the input, as for any unreadable test), never a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PROGRAM = REPO / "tests" / "toolchain" / "programs" / "tables.p4"


def test_binary_stf_is_one_error_line(tmp_path):
    stf = tmp_path / "binary.stf"
    stf.write_bytes(b"packet 0 00\n\x00\x01\xff\xfe")
    proc = subprocess.run([sys.executable, "-m", "toolchain.stf", str(PROGRAM), str(stf)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.splitlines() == [
        f"error: {stf}:2:3: byte 0xff is not UTF-8: an .stf test is text (is this a binary "
        f"file?)"]


def test_help_explains_the_targets(capsys):
    import pytest
    from toolchain.stf.runner import main
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--target {embedded,bmv2,all} where the test runs: embedded" in text
    assert "reported SKIPPED when one is missing" in text
