"""``rdtcp-stf prog.(p4|json) test.stf [--target embedded|bmv2|all]``: run a p4c STF test.

On the embedded target always; on real ``simple_switch`` (with ``p4c`` for .p4 programs)
when those are on PATH, otherwise saying that they are missing and skipping them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..compiler import compile_file
from ..switch import LoadError, load_program
from .bmv2 import missing_tools, run_bmv2
from .embedded import EmbeddedRun
from .stf_parser import StfSyntaxError, parse_stf

__all__ = ["StfResult", "StfError", "run_stf", "main"]

TARGETS = ("embedded", "bmv2", "all")


class StfError(Exception):
    """The test could not be run (missing compiler, unreadable files...)."""


@dataclass
class StfResult:
    ok: bool
    failures: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)     # targets not run, with the reason
    warnings: list[str] = field(default_factory=list)    # not failures for p4c's runner either
    targets: list[str] = field(default_factory=list)     # targets that ran
    received: dict[int, list[bytes]] = field(default_factory=dict)   # embedded target's output, by port

    def __bool__(self) -> bool:
        return self.ok


def _program_json(program) -> dict | object:
    """A loaded program for a .json path/dict, or the JSON our front end makes from a .p4."""
    if isinstance(program, dict):
        return program
    path = Path(program)
    if path.suffix == ".p4":
        try:
            return compile_file(str(path))
        except Exception as e:   # CompileError and friends: report, do not crash the runner
            raise StfError(f"cannot compile {path}: {e}") from None
    return str(path)


def _run_embedded(program, cmds) -> EmbeddedRun:
    try:
        prog = load_program(_program_json(program))
    except LoadError as e:
        raise StfError(f"cannot load program: {e}") from None
    run = EmbeddedRun(prog)
    run.run(cmds)
    return run


def run_stf(program, stf_path, target: str = "embedded") -> StfResult:
    """Run ``stf_path`` against ``program`` (.json, .p4 or a JSON dict) on ``target``."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (choose from {', '.join(TARGETS)})")
    try:
        cmds = parse_stf(Path(stf_path).read_text())
    except OSError as e:
        raise StfError(f"cannot read {stf_path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        line = e.object.count(b"\n", 0, e.start) + 1
        col = e.start - (e.object.rfind(b"\n", 0, e.start) + 1) + 1
        raise StfError(f"{stf_path}:{line}:{col}: byte 0x{e.object[e.start]:02x} is not UTF-8: an "
                       f".stf test is text (is this a binary file?)") from None
    except StfSyntaxError as e:
        # a test that cannot be read is an error of the input, not a failure of the program
        raise StfError(f"{stf_path}: {e}") from None
    result = StfResult(True)
    if target in ("embedded", "all"):
        run = _run_embedded(program, cmds)
        result.targets.append("embedded")
        result.received = run.received
        result.failures += [f"[embedded] {f}" if target == "all" else f for f in run.failures]
        result.warnings += run.warnings
    if target in ("bmv2", "all"):
        missing = missing_tools(program)
        if missing:
            result.skipped.append(f"bmv2: {', '.join(missing)} not on PATH")
        else:
            fails = run_bmv2(program, stf_path)
            result.targets.append("bmv2")
            result.failures += [f"[bmv2] {f}" for f in fails]
    result.ok = not result.failures
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="rdtcp-stf", description="Run a p4c STF test on the embedded target "
                                 "and/or real simple_switch.")
    ap.add_argument("program", help="program: BMv2 JSON, or P4 source compiled with the project's front end")
    ap.add_argument("stf", help="the .stf test file")
    ap.add_argument("--target", choices=TARGETS, default="embedded",
                    help="where the test runs: embedded (the project's switch, in this process), "
                         "bmv2 (real simple_switch and simple_switch_CLI from PATH, and "
                         "p4c-bm2-ss for a .p4 program; reported SKIPPED when one is missing), "
                         "or all (both) (default: embedded)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every packet the embedded target sent")
    args = ap.parse_args(argv)
    try:
        res = run_stf(args.program, args.stf, target=args.target)
    except StfError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.verbose:
        for port in sorted(res.received):
            for frame in res.received[port]:
                print(f"out {port} {frame.hex().upper()}")
    for s in res.skipped:
        print(f"SKIPPED {s}")
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for f in res.failures:
        print(f"FAIL {f}")
    ran = ", ".join(res.targets) or "no target"
    print(f"{'PASS' if res.ok else 'FAIL'}: {args.stf} on {ran}")
    return 0 if res.ok else 1
