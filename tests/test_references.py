"""docs/references.md is the bibliography: every RFC the code and documents cite has its entry
there, and so has each paper's key."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_source_text import tracked_text_files

ROOT = Path(__file__).resolve().parent.parent
REFERENCES = ROOT / "docs" / "references.md"
RFC = re.compile(r"\bRFC ?(\d{3,4})\b")
DATA = ROOT / "tests" / "data"          # p4c's and others' files, cited as they are


def cited(pattern: re.Pattern) -> dict[str, str]:
    """What ``pattern`` captures in the tracked text files, with one file citing it."""
    found: dict[str, str] = {}
    for path in tracked_text_files():
        if DATA in path.parents or path == REFERENCES:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for value in pattern.findall(text):
            found.setdefault(value, str(path.relative_to(ROOT)))
    return found


def listed_rfcs() -> set[str]:
    return set(re.findall(r"^\| RFC (\d+) \|", REFERENCES.read_text(encoding="utf-8"), re.M))


def listed_keys() -> set[str]:
    return set(re.findall(r"^\| \[([A-Z]+)\] \|", REFERENCES.read_text(encoding="utf-8"), re.M))


def test_every_cited_rfc_is_listed():
    missing = {n: where for n, where in cited(RFC).items() if n not in listed_rfcs()}
    assert not missing, "RFCs cited but not in docs/references.md: " + ", ".join(
        f"RFC {n} ({where})" for n, where in sorted(missing.items()))


def test_every_paper_key_is_listed():
    assert listed_keys() == {"RDTCP", "RRTCP", "FRTO", "NETRENO", "TCPDEBUG"}


def test_the_checks_see_a_citation():
    assert RFC.findall("as RFC 6298 §3 and RFC2988 say") == ["6298", "2988"]
    assert "6298" in listed_rfcs() and "9293" in listed_rfcs()
    assert not RFC.findall("RFC-ish 12")
