"""`python -m toolchain.compiler.backend.bmv2_schema prog.json ...`"""
from __future__ import annotations

import json
import sys

from ...deep import run_deep
from ...diagnostics import CompileError
from . import check_bmv2_json


def _load_and_check(path: str) -> list:
    """The problems of the file at `path` (read and checked with room for deep nesting:
    both recurse once per level of the document)."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    return [str(p) for p in check_bmv2_json(doc)]


def main(argv: list[str] | None = None) -> int:
    """`python -m toolchain.compiler.backend.bmv2_schema prog.json ...`: one line per
    problem, exit status 1 if any file breaks a rule."""
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m toolchain.compiler.backend.bmv2_schema prog.json ...",
              file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            problems = run_deep(_load_and_check, path)
        except (OSError, ValueError, CompileError) as exc:    # CompileError: too deep
            print(f"{path}: cannot read JSON: {exc}")
            status = 1
            continue
        for p in problems:
            print(f"{path}: {p}")
        if problems:
            status = 1
        else:
            print(f"{path}: ok")
    return status


if __name__ == "__main__":
    sys.exit(main())
