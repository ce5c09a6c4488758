"""The installed ns-2: the ``ns`` binary (Debian package ns2) and its validation suites with
their expected outputs (package ns2-examples), and running one suite test in ns-2 itself.

Nothing of ns-2 is copied into the repository: the expected outputs are read from the package
where it is installed, and a test that needs them skips (``missing``) where it is not.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["NS", "SUITES_DIR", "Ns2Error", "ns_binary", "suites_dir", "missing",
           "suite_tests", "expected_output", "LiveSuite"]

NS = os.environ.get("NS2_BINARY", "ns")
SUITES_DIR = Path(os.environ.get("NS2_SUITES", "/usr/share/doc/ns2/examples/tcl/test"))
# an ns-2 run of one validation test takes well under a second here; a stuck one is stopped
RUN_TIMEOUT_S = 120


class Ns2Error(Exception):
    """ns-2 is missing or a run of it failed: the message says which and why."""


def ns_binary() -> str | None:
    """The path of ``ns``, or None where it is not installed."""
    return shutil.which(NS)


def suites_dir() -> Path | None:
    """The validation suites' folder (ns2-examples), or None where it is not installed."""
    return SUITES_DIR if (SUITES_DIR / "test-output-sack").is_dir() else None


def missing(*, live: bool = False) -> str | None:
    """Why the corpus cannot run here (None: it can): ns2-examples for the expected outputs,
    and with ``live`` the ns binary too."""
    if suites_dir() is None:
        return (f"ns-2's validation suites are not installed ({SUITES_DIR} has no "
                f"test-output-sack; apt-get install ns2-examples, or set NS2_SUITES)")
    if live and ns_binary() is None:
        return f"ns-2 is not installed ({NS} is not on PATH; apt-get install ns2)"
    return None


def _read(path: Path) -> str:
    """A suite file, gzipped by Debian or not."""
    if path.exists():
        return path.read_text()
    gz = path.with_name(path.name + ".gz")
    with gzip.open(gz, "rt") as fh:
        return fh.read()


def suite_tests(suite: str) -> list[str]:
    """The tests of ``test-suite-SUITE.tcl`` in the order the file defines them (its ``Class
    Test/NAME`` lines, as ns-2's test-all-template1 lists them)."""
    text = _read(_suites() / f"test-suite-{suite}.tcl")
    return re.findall(r"^Class Test/(\S+)", text, flags=re.M)


def expected_output(suite: str, test: str) -> str:
    """ns-2's saved output of one test (``test-output-SUITE/TEST.gz``): xgraph text."""
    path = _suites() / f"test-output-{suite}" / f"{test}.gz"
    try:
        with gzip.open(path, "rt") as fh:
            return fh.read()
    except OSError as exc:
        raise Ns2Error(f"{path}: cannot read ns-2's expected output: {exc}") from None


def _suites() -> Path:
    where = suites_dir()
    if where is None:
        raise Ns2Error(missing())
    return where


class LiveSuite:
    """A working copy of the suites in which ``ns`` runs tests: the suites' folder as two
    levels below a root (their ``finish`` steps name ``../../bin``), its top-level ``*.gz``
    uncompressed. The finish steps then fail on the Perl tools Debian leaves out, after
    ``all.tr`` is complete; ``run`` returns that trace."""

    def __init__(self) -> None:
        if ns_binary() is None:
            raise Ns2Error(missing(live=True))
        self._tmp = tempfile.TemporaryDirectory(prefix="ns2-suites-")
        self.dir = Path(self._tmp.name) / "tcl" / "test"
        self.dir.mkdir(parents=True)
        for entry in _suites().iterdir():
            if entry.is_file():
                if entry.suffix == ".gz":
                    with gzip.open(entry, "rb") as src:
                        (self.dir / entry.stem).write_bytes(src.read())
                else:
                    shutil.copy(entry, self.dir / entry.name)

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> "LiveSuite":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, suite: str, test: str) -> list[str]:
        """Run one test in ns-2 (QUIET) and return the lines of its ``all.tr``."""
        trace = self.dir / "all.tr"
        trace.unlink(missing_ok=True)
        script = f"test-suite-{suite}.tcl"
        try:
            proc = subprocess.run([ns_binary(), script, test, "QUIET"], cwd=self.dir,
                                  capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns {script} {test}: no result after {RUN_TIMEOUT_S} s") from None
        # the one failure expected: the finish step's Perl tools, after all.tr is written
        # (ns prints a script's Tcl error on stdout)
        said = proc.stdout + proc.stderr
        if not trace.exists() or (proc.returncode != 0 and "../../bin/" not in said):
            first = next((ln for ln in said.splitlines()
                          if ln.startswith("ns:") or "rror" in ln), "no error message")
            raise Ns2Error(f"ns {script} {test} failed (status {proc.returncode}): {first}")
        return trace.read_text().splitlines(keepends=True)
