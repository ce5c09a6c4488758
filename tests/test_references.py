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


# A paper by number (000-004, the names of its text outside the repository): three digits alone, not
# part of 1,000 / 0.003 / 2003 / 10.0.0.3 / run_001.pcap / fig-004.png / 8w003. A paper is named
# by its key (docs/references.md), whose convention says how.
PAPER_NUMBER = re.compile(r"(?<![\w.,/\-])00[0-4](?![\w]|[.,]\d)")


def paper_numbers() -> dict[str, list[str]]:
    """``file:line: text`` of every line naming a paper by number, by file."""
    found: dict[str, list[str]] = {}
    for path in tracked_text_files():
        if DATA in path.parents or path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        name = str(path.relative_to(ROOT))
        for number, line in enumerate(text.splitlines(), 1):
            if PAPER_NUMBER.search(line):
                found.setdefault(name, []).append(f"{name}:{number}: {line.strip()}")
    return found


def test_no_paper_is_named_by_number():
    found = paper_numbers()
    lines = [line for name, hits in sorted(found.items()) for line in hits]
    assert not lines, "papers named by number, not by key (docs/references.md):\n" + "\n".join(
        lines)


def test_the_check_sees_a_paper_number():
    for text in ("003's Fig. 3", "(000: 1.6 s)", "002 Table 3", "seed 004 ch. 4", 'paper="001"',
                 "/* 003 §3.1 */", "<br>004: 19,115", "ours / 004's"):
        assert PAPER_NUMBER.search(text), text
    for text in ("1,000 frames", "w_q 0.002", "in 2003", "10.0.0.3", "0x003", "run_001.pcap",
                 "fig-004.png", "8w003", "[00:00:00.000]", "0.995-1.001.", "[RDTCP] Fig. 3"):
        assert not PAPER_NUMBER.search(text), text
