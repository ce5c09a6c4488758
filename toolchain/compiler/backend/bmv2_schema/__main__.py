"""`python -m toolchain.compiler.backend.bmv2_schema prog.json ...`"""
from __future__ import annotations

import json
import sys

from . import check_bmv2_json


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
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as exc:
            print(f"{path}: cannot read JSON: {exc}")
            status = 1
            continue
        problems = check_bmv2_json(doc)
        for p in problems:
            print(f"{path}: {p}")
        if problems:
            status = 1
        else:
            print(f"{path}: ok")
    return status


if __name__ == "__main__":
    sys.exit(main())
