"""The text of a BMv2 JSON document, as the compiler writes it.

The same bytes as `json.dumps(doc, indent=2)` (p4c writes its JSON indented too), made
without recursion: a long operator chain nests an expression thousands of levels deep, and
the standard library's encoders recurse once per level. Values nested deeper than
INDENTED_DEPTH levels are written on one line (`json.dumps`'s compact form, `", "` and
`": "`): indenting them would make the file grow with the square of the chain's length
(a 3,000-term sum would be 0.8 GB). No document of an ordinary program nests that deep (the
gateway's nests 25 levels).
"""
from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii

INDENTED_DEPTH = 100
INDENT = "  "


def to_json_text(doc) -> str:
    """`doc` (dicts with string keys, lists, strings, ints, floats, bools, None) as JSON."""
    out: list = []
    emit = out.append
    work: list = [(doc, 0)]        # (value, level) to encode, or (text, None) to write
    while work:
        value, level = work.pop()
        if level is None:
            emit(value)
        elif isinstance(value, dict):
            _container(work, emit, list(value.items()), level, "{", "}", keyed=True)
        elif isinstance(value, (list, tuple)):
            _container(work, emit, list(value), level, "[", "]", keyed=False)
        else:
            emit(_scalar(value))
    return "".join(out)


def _container(work: list, emit, items: list, level: int, open_: str, close: str, *,
               keyed: bool) -> None:
    """Write `open_`, push the items (last first, so they come out in order) and `close`."""
    if not items:
        emit(open_ + close)
        return
    emit(open_)
    if level < INDENTED_DEPTH:
        inner = "\n" + INDENT * (level + 1)
        first, between, end = inner, "," + inner, "\n" + INDENT * level + close
    else:
        first, between, end = "", ", ", close
    work.append((end, None))
    for i in range(len(items) - 1, -1, -1):
        if keyed:
            key, value = items[i]
            prefix = (first if i == 0 else between) + encode_basestring_ascii(_key(key)) + ": "
        else:
            value, prefix = items[i], first if i == 0 else between
        work.append((value, level + 1))
        work.append((prefix, None))


def _key(key) -> str:
    if isinstance(key, str):
        return key
    return json.dumps(key).strip('"')        # what json.dumps makes of a non-string key


def _scalar(value) -> str:
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    return json.dumps(value)                 # floats: json's own spelling (NaN, Infinity)
