"""P4Info files in the three formats p4c writes: protobuf text, JSON and binary.

p4c's `--p4runtime-files a,b,...` picks each file's format by its suffix: `.txtpb` and
`.txt` text, `.json` JSON, `.bin` binary; another suffix is an error. `--p4runtime-format
text|json|binary` gives the format of `--p4runtime-file` (one file, p4c's older option)
and, here, of a `--p4runtime-files` name whose suffix says nothing. The text format starts
with the two `# proto-file` / `# proto-message` comment lines p4c writes (readers skip
comments); JSON uses protobuf's JSON mapping (camelCase names, 64-bit integers as strings).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

__all__ = ["FORMATS", "format_for", "serialize", "write_p4info_file", "write_p4info_files",
           "P4InfoFileError", "parse_p4info"]

FORMATS = ("text", "json", "binary")
_SUFFIXES = {".txtpb": "text", ".txt": "text", ".json": "json", ".bin": "binary"}


class P4InfoFileError(ValueError):
    """A file name or format refused, or a file that cannot be written; one line."""


def format_for(name: str, default: Optional[str] = None) -> str:
    """The format of a P4Info file by its suffix, else ``default``, else P4InfoFileError."""
    fmt = _SUFFIXES.get(Path(name).suffix.lower())
    if fmt is not None:
        return fmt
    if default is not None:
        if default not in FORMATS:
            raise P4InfoFileError(f"unknown P4Runtime format {default!r} (text, json, binary)")
        return default
    raise P4InfoFileError(f"{name}: unknown file kind; known suffixes are .bin, .txt, .json "
                          "and .txtpb (or give --p4runtime-format)")


def serialize(info, fmt: str) -> bytes:
    """A P4Info message in one of FORMATS."""
    if fmt == "binary":
        return info.SerializeToString()
    if fmt == "json":
        from google.protobuf import json_format
        return (json_format.MessageToJson(info, indent=1) + "\n").encode()
    if fmt == "text":
        from google.protobuf import text_format
        head = (f"# proto-file: {info.DESCRIPTOR.file.name}\n"
                f"# proto-message: {info.DESCRIPTOR.full_name}\n\n")
        return (head + text_format.MessageToString(info)).encode()
    raise P4InfoFileError(f"unknown P4Runtime format {fmt!r} (text, json, binary)")


def parse_p4info(data: bytes, fmt: str):
    """A P4Info message from bytes in one of FORMATS (for tools and the switch's tests)."""
    from .build import p4info_pb2
    info = p4info_pb2().P4Info()
    if fmt == "binary":
        info.ParseFromString(data)
    elif fmt == "json":
        from google.protobuf import json_format
        json_format.Parse(data.decode(), info)
    else:
        from google.protobuf import text_format
        text_format.Parse(data.decode(), info)
    return info


def write_p4info_file(info, name: str, fmt: str) -> None:
    """Write ``info`` to ``name`` in ``fmt``, whole: under a temporary name, then renamed."""
    data = serialize(info, fmt)
    tmp = f"{name}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as out:
            out.write(data)
        os.replace(tmp, name)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise P4InfoFileError(f"cannot write {name}: {e.strerror or e}") from None


def write_p4info_files(info, names: str, default_format: Optional[str] = None) -> list[str]:
    """Write ``info`` to each comma-separated file of ``names`` (formats by suffix); every
    name is checked before any file is written."""
    files = [n for n in names.split(",") if n]
    if not files:
        raise P4InfoFileError("no P4Info file name given")
    plan = [(f, format_for(f, default_format)) for f in files]
    for f, fmt in plan:
        write_p4info_file(info, f, fmt)
    return files
