"""The compiler's command line, shaped like p4c-bm2-ss:

    python -m toolchain.compiler.driver prog.p4 -o prog.json [-I dir] [-D NAME[=V]]

Phases run in a straight line (front end, mid end, back end), each stopping the compilation
when it reported errors; errors are printed `file:line:col: error: message` and the exit
status is 1 (2 for bad command-line usage).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .backend.json_text import to_json_text
from .diagnostics import CompileError
from .pipeline import compile_program


def _define(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    return name, value if value else "1"


def build_arg_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="rdtcp-p4c",
                                 description="Compile a P4_16 v1model program to BMv2 JSON.")
    ap.add_argument("source", help="the P4 program")
    ap.add_argument("-o", "--output", help="where to write the JSON (default: <source>.json)")
    ap.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                    help="add DIR to the #include search path")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=V]",
                    help="define a preprocessor macro")
    # accepted so that p4c-bm2-ss command lines (tutorial Makefiles) work unchanged
    ap.add_argument("--std", choices=["p4-16"], default="p4-16", help="language (P4_16 only)")
    ap.add_argument("--p4v", choices=["16"], default="16", help="same as --std p4-16")
    ap.add_argument("--arch", choices=["v1model"], default="v1model",
                    help="architecture (v1model only)")
    ap.add_argument("--target", choices=["bmv2"], default="bmv2", help="target (bmv2 only)")
    ap.add_argument("--Werror", action="store_true",
                    help="treat warnings as errors (as p4c's --Werror), the portability ones "
                         "too: what p4c 1.2.4 refuses although later p4c accepts it")
    ap.add_argument("--p4runtime-files", metavar="FILE[,FILE]",
                    help="write the program's P4Info to each file, the format by suffix: "
                         ".txtpb/.txt text, .json JSON, .bin binary (as p4c)")
    ap.add_argument("--p4runtime-file", metavar="FILE",
                    help="write the P4Info to FILE in --p4runtime-format (p4c's older option)")
    ap.add_argument("--p4runtime-format", choices=["text", "json", "binary"], default=None,
                    help="format of --p4runtime-file (default text) and of --p4runtime-files "
                         "names without a known suffix")
    return ap


def _p4info_plan(args) -> list[tuple[str, str]]:
    """(file, format) for every P4Info file asked for; P4InfoFileError for a bad name."""
    from .p4info.files import format_for
    plan = []
    if args.p4runtime_file:
        plan.append((args.p4runtime_file, args.p4runtime_format or "text"))
    for name in (args.p4runtime_files or "").split(","):
        if name:
            plan.append((name, format_for(name, args.p4runtime_format)))
    return plan


def main(argv=None) -> int:
    args = build_arg_parser().parse_args(argv)
    output = Path(args.output) if args.output else Path(args.source).with_suffix(".json")
    warnings: list = []
    p4info: list = []
    try:
        plan = _p4info_plan(args)
    except ValueError as e:             # P4InfoFileError
        print(f"error: {e}", file=sys.stderr)
        return 1
    if plan:
        from .p4info import build_p4info
    try:
        doc = compile_program(args.source, include_dirs=args.include_dirs,
                              defines=dict(_define(d) for d in args.defines), warnings=warnings,
                              werror=args.Werror,
                              after_front_end=(lambda prog: p4info.append(build_p4info(prog)))
                              if plan else None)
    except CompileError as e:
        if not args.Werror:
            for w in warnings:
                print(w, file=sys.stderr)
        print(e, file=sys.stderr)
        return 1
    except Exception as e:          # a bug: one line naming it, not a traceback
        print(f"error: internal compiler error: {type(e).__name__}: {e} (please report it "
              f"with the program)", file=sys.stderr)
        return 1
    for w in warnings:
        print(w, file=sys.stderr)
    try:
        output.write_text(to_json_text(doc) + "\n")
    except OSError as e:
        print(f"error: cannot write {output}: {e.strerror}", file=sys.stderr)
        return 1
    if plan:
        from .p4info.files import P4InfoFileError, write_p4info_file
        try:
            for name, fmt in plan:
                write_p4info_file(p4info[0], name, fmt)
        except P4InfoFileError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
