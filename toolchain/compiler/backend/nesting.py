"""How deep the BMv2 JSON document nests, and where in the source the deepest value comes from.

simple_switch reads its JSON with jsoncpp, whose reader refuses a value nested deeper than its
stackLimit (1000 in the jsoncpp that Debian 12 and Ubuntu ship; counted as the embedded switch
counts it, `toolchain/switch/bm_sim/json_checks.py`: the document is level 1, every value one
level deeper than its container). A P4 expression costs two levels per operator, so a chain of
about 500 operators compiles to JSON that simple_switch cannot load. The compiler writes it
anyway (the program is valid P4, as with real p4c) and warns at the expression's line.
"""
from __future__ import annotations

from pathlib import Path

SIMPLE_SWITCH_NESTING = 1000


def deepest_value(doc) -> tuple[int, dict | None]:
    """The level of the deepest value in ``doc`` and the ``source_info`` of the innermost
    object on the way to it that carries one (None when none does). Walks without recursion:
    the documents this is for are the ones too deep to recurse over."""
    best, best_info = 0, None
    work = [(doc, 1, None)]
    while work:
        value, level, info = work.pop()
        if isinstance(value, dict):
            info = value.get("source_info", info) if isinstance(value.get("source_info"),
                                                                  dict) else info
            work.extend((v, level + 1, info) for v in value.values())
        elif isinstance(value, list):
            work.extend((v, level + 1, info) for v in value)
        if level > best:
            best, best_info = level, info
    return best, best_info


def nesting_warning(doc, limit: int = SIMPLE_SWITCH_NESTING, *,
                    main_file: Path | None = None) -> str | None:
    """A compiler warning when ``doc`` nests deeper than simple_switch reads, else None.
    ``main_file``: the path the compiler was given, which the warning names as the errors do
    (source_info names the main file by its base name, as BMv2's logs show it)."""
    depth, info = deepest_value(doc)
    if depth <= limit:
        return None
    where = ""
    if info and info.get("filename") and info.get("line"):
        name = info["filename"]
        if main_file is not None and name == main_file.name:
            name = str(main_file)
        where = f"{name}:{info['line']}:{info.get('column', 1)}: "
    return (f"{where}warning: this expression nests the BMv2 JSON {depth} levels deep; "
            f"simple_switch reads at most {limit} (jsoncpp's stackLimit) and will refuse the "
            f"file: split it into shorter expressions through temporaries")
