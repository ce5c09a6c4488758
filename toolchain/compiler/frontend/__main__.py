"""Check a P4 program with the front end only (like p4c's `p4test`), optionally showing the
typed AST:

    python -m toolchain.compiler.frontend prog.p4 [-I dir] [-D NAME[=V]] [--dump [NAME]]

Prints warnings and errors as `file:line:col: ...`; exit status 0 when the program checks,
1 when it has errors. `--dump` prints the program's declarations (not those of the
project's core.p4/v1model.p4) as an indented tree, each expression with its type and folded value;
`--dump NAME` only the top-level declaration NAME.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import fields
from pathlib import Path

from . import P4INCLUDE, parse_and_check
from . import ast as A
from ..diagnostics import failure_text

_SKIP = {"pos", "annotations", "member_pos", "match_kind_pos", "all_annotations", "scope",
         "errors", "match_kinds", "main"}


def _label(node) -> str:
    parts = [type(node).__name__]
    name = getattr(node, "name", None)
    if isinstance(name, str):
        parts.append(name)
    for attr in ("op", "member", "value", "direction", "match_kind"):
        v = getattr(node, attr, None)
        if isinstance(v, (str, int, bool)) and not isinstance(node, A.Decl) or (
                attr == "direction" and v):
            parts.append(repr(v) if attr == "value" else str(v))
    t = getattr(node, "type", None) if isinstance(node, A.Expr) else getattr(node, "p4type", None)
    if t is not None and not isinstance(t, A.Node):
        parts.append(f": {t}")
    folded = getattr(node, "folded", None)
    if folded is not None:
        parts.append(f"= {folded}")
    kind = getattr(node, "kind", None)
    if isinstance(node, (A.MethodCallExpr, A.MemberExpr)) and kind:
        parts.append(f"[{kind}{'/' + node.builtin if getattr(node, 'builtin', None) else ''}]")
    return " ".join(parts)


def dump(node, out, depth: int = 0) -> None:
    """Write an indented tree of `node`'s syntax (the types the checker gave it included);
    without recursion, as a long operator chain makes the tree thousands of levels deep."""
    stack = [(node, depth)]
    while stack:
        node, depth = stack.pop()
        out.write("  " * depth + _label(node) + "\n")
        stack.extend((child, depth + 1) for child in reversed(_dumped_children(node)))


def _dumped_children(node) -> list:
    children = []
    for f in fields(node):
        if f.name in _SKIP or (f.kw_only and f.name not in ("annotations",)):
            continue
        v = getattr(node, f.name)
        for it in v if isinstance(v, list) else [v]:
            if isinstance(it, tuple):                   # StructInitExpr fields
                it = it[1]
            if isinstance(it, A.Node):
                children.append(it)
    return children


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m toolchain.compiler.frontend",
                                 description="Check a P4_16 program (front end only).")
    ap.add_argument("source")
    ap.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=V]")
    ap.add_argument("--dump", nargs="?", const="", default=None, metavar="NAME",
                    help="print the typed AST (of one top-level declaration NAME)")
    ap.add_argument("--no-main", action="store_true",
                    help="accept a program without a `main` instantiation (a library)")
    args = ap.parse_args(argv)
    defines = dict((d.partition("=")[0], d.partition("=")[2] or "1") for d in args.defines)
    try:
        program, warnings = parse_and_check(args.source, include_dirs=args.include_dirs,
                                            defines=defines, require_main=not args.no_main)
    except Exception as e:          # an error in the program, or a bug: lines, not a traceback
        print(failure_text(e), file=sys.stderr)
        return 1
    for w in warnings:
        print(w, file=sys.stderr)
    if args.dump is not None:
        library = str(P4INCLUDE)
        for d in program.decls:
            if not args.dump and str(Path(d.pos.file).resolve()).startswith(library):
                continue
            if args.dump and getattr(d, "name", None) != args.dump:
                continue
            dump(d, sys.stdout)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:            # `... --dump | head`: the reader left; not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
