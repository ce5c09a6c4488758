"""docs/tutorial.md runs as written: every ``sh`` block in order, in one bash in a fresh folder,
each block's output checked against the ``text`` block right after it (``...`` matches
anything, whitespace runs compare equal, as doctest's ELLIPSIS and NORMALIZE_WHITESPACE); a
block with no ``text`` block after it must print nothing. ``<!-- tour: skip -->`` before a
block leaves it out (``make deps``); ``<!-- tour: root -->`` runs it only as root (the live
run). So the tour cannot go stale: a change to a command's output fails this test until the
tour shows it.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "docs" / "tutorial.md"
# what the tour's commands read from the checkout, linked into the folder it runs in
CHECKOUT_PARTS = ("p4src", "controller")
NEEDS = ("rdtcp-p4c", "rdtcp-switch", "simple_switch_CLI", "tshark")
MARK = "@@tour-step-{}@@"
FENCE = re.compile(r"^```(\w*)\s*$")
TAG = re.compile(r"^<!--\s*tour:\s*(\w+)\s*-->\s*$")


@dataclass
class Step:
    line: int               # where the sh block starts in the file
    commands: str
    expected: str           # "" when the block must print nothing
    tag: str = ""           # "", "skip" or "root"


def steps(text: str) -> list[Step]:
    """The tour's sh blocks with their tag and expected output, in order."""
    lines = text.splitlines()
    found: list[Step] = []
    tag = ""
    i = 0
    while i < len(lines):
        m = TAG.match(lines[i])
        if m:
            tag = m.group(1)
            i += 1
            continue
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                tag = ""        # a tag applies to the block right below it
            i += 1
            continue
        kind, start = m.group(1), i
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        body = "\n".join(lines[i + 1:end])
        i = end + 1
        if kind == "sh":
            found.append(Step(start + 1, body, "", tag))
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            fence = FENCE.match(lines[j]) if j < len(lines) else None
            if fence and fence.group(1) == "text":
                out_end = next(k for k in range(j + 1, len(lines)) if lines[k].startswith("```"))
                found[-1].expected = "\n".join(lines[j + 1:out_end])
                i = out_end + 1
        tag = ""
    return found


def script(tour: list[Step], *, root: bool) -> str:
    """One bash script running the steps, each preceded by its marker on stdout; background
    jobs a step leaves (the tour's switch) are ended when the script ends, however it ends."""
    parts = ["set -e", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT"]
    for n, step in enumerate(tour):
        parts.append(f"echo '{MARK.format(n)}'")
        if step.tag == "skip" or (step.tag == "root" and not root):
            continue
        parts.append(step.commands)
    parts.append(f"echo '{MARK.format('end')}'")
    return "\n".join(parts) + "\n"


def outputs(stdout: str, count: int) -> list[str | None]:
    """Each step's stdout, None for a step the script never reached."""
    got: list[str | None] = [None] * count
    pieces = re.split(r"^@@tour-step-(\d+|end)@@\n", stdout, flags=re.M)
    for name, text in zip(pieces[1::2], pieces[2::2]):
        if name != "end":
            got[int(name)] = text
    return got


def mismatch(step: Step, got: str) -> str | None:
    """doctest's report of how ``got`` differs from the step's expected output, or None."""
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    want = step.expected.strip("\n") + "\n" if step.expected.strip() else ""
    got = got if got.strip() else ""
    if checker.check_output(want, got, flags):
        return None
    example = doctest.Example(step.commands, want)
    return checker.output_difference(example, got, flags)


# ------------------------------------------------------------------------ the harness itself
FAKE = """\
Intro.

<!-- tour: skip -->
```sh
make deps
```

```sh
echo one; echo two
```

```text
one
...
```

prose

```sh
true
```

<!-- tour: root -->
```sh
echo as root
```

```text
as root
```
"""


def test_the_tour_is_read_as_steps_with_tags_and_outputs():
    tour = steps(FAKE)
    assert [(s.commands, s.expected, s.tag) for s in tour] == [
        ("make deps", "", "skip"), ("echo one; echo two", "one\n...", ""), ("true", "", ""),
        ("echo as root", "as root", "root")]


def test_a_wrong_output_or_any_output_where_none_is_shown_is_reported(tmp_path):
    tour = steps(FAKE)
    run = subprocess.run(["bash", "-c", script(tour, root=False)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    got = outputs(run.stdout, len(tour))
    assert got == ["", "one\ntwo\n", "", ""]            # the root step left out, not root
    assert [mismatch(s, g) for s, g in zip(tour[1:3], got[1:3])] == [None, None]
    assert mismatch(tour[3], got[3]) is not None       # what a skipped step would have shown
    assert mismatch(tour[1], "two\none\n") is not None
    assert mismatch(tour[2], "surprise\n") is not None
    failing = tour[:2] + [Step(0, "false", "")] + tour[2:]
    run = subprocess.run(["bash", "-c", script(failing, root=False)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and outputs(run.stdout, len(failing))[3] is None


# ------------------------------------------------------------------------ the tour
@pytest.mark.serial             # a switch on the fixed Thrift port 9090; as root, namespaces
@pytest.mark.timeout(1800)
def test_the_tour_runs_as_written(tmp_path):
    missing = [tool for tool in NEEDS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the tour needs {', '.join(missing)} (make deps installs them)")
    for part in CHECKOUT_PARTS:
        (tmp_path / part).symlink_to(ROOT / part)
    tour = steps(TOUR.read_text(encoding="utf-8"))
    assert len(tour) >= 12 and any(s.tag == "root" for s in tour)
    root = os.geteuid() == 0
    run = subprocess.run(["bash", "-c", script(tour, root=root)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=1700)
    got = outputs(run.stdout, len(tour))
    problems = []
    for n, (step, out) in enumerate(zip(tour, got)):
        if out is None:
            problems.append(f"docs/tutorial.md:{step.line}: never reached (bash exited "
                            f"{run.returncode}); stderr:\n{run.stderr[-3000:]}")
            break
        if step.tag == "skip" or (step.tag == "root" and not root):
            continue
        diff = mismatch(step, out)
        if diff:
            problems.append(f"docs/tutorial.md:{step.line}: {step.commands.splitlines()[0]}\n"
                            f"{diff}")
    assert not problems, "\n".join(problems)
    assert run.returncode == 0, run.stderr[-3000:]
