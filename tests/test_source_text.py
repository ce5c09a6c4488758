"""Code and docs state requirements and reasons, not the project's history: no reference to the
tracker's issue numbers, which mean nothing to a reader of a release. (p4c's sample programs named
like ``issue1560-bmv2`` are names, not references, and are allowed.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ISSUE_REFERENCE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
TEXT_SUFFIXES = {".py", ".p4", ".md", ".txt", ".cfg", ".toml", ".sh", ".mk", ""}


def tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / name for name in out.splitlines()
            if Path(name).suffix in TEXT_SUFFIXES and (ROOT / name).is_file()]


def lines_matching(pattern: re.Pattern) -> list[str]:
    """``file:line: text`` of every line of a tracked text file that ``pattern`` finds, this
    file left out (it holds the patterns and their examples)."""
    found = []
    for path in tracked_text_files():
        if path == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_issue_numbers_in_code_or_docs():
    found = lines_matching(ISSUE_REFERENCE)
    assert not found, "references to issue numbers:\n" + "\n".join(found)


# the project's own history told as if a reader were part of it: who worked when, and on which
# ticket ("other sessions' runs", "the issue's checks")
HISTORY = re.compile(r"\b(other|this|last|previous|earlier|next) (work )?sessions?\b"
                     r"|\bthe issue'?s\b|\bthe lead\b", re.IGNORECASE)


def test_no_project_history_in_code_or_docs():
    found = lines_matching(HISTORY)
    assert not found, "the project's history, not a requirement or reason:\n" + "\n".join(found)


def test_the_history_check_sees_it():
    for text in ("load 12 (other sessions' test suites)", "the issue's checks", "This session",
                 "as the lead asked"):
        assert HISTORY.search(text), text
    for text in ("a P4Runtime session", "the Thrift client's session", "the issue tracker"):
        assert not HISTORY.search(text), text


def test_the_check_sees_a_reference():
    assert ISSUE_REFERENCE.search("checked here (issue 6: valid P4)")
    assert ISSUE_REFERENCE.search("see Issues #12")
    assert not ISSUE_REFERENCE.search("as in p4c's sample issue1560-bmv2")


# a path or file a user who clones the repository does not have: the papers are cited by their
# keys in docs/references.md, the project's design by the documents under docs/
OUTSIDE = re.compile(r"\.\./shared|/work/shared|shared/(p4-kit|seeds|notes)|\bseeds/0[0-4]"
                     r"|\bdesign\.md\b|notes/digest")


def test_no_reference_to_a_file_outside_the_repository():
    found = lines_matching(OUTSIDE)
    assert not found, "references outside the repository:\n" + "\n".join(found)
