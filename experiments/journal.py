"""A sweep's journal, OUT/runs.jsonl: one JSON row per finished run, appended the moment the run
ends, so an interrupted sweep keeps what it did and ``--resume`` runs only the rest. Reading it
never stops on a bad line (cut short, not UTF-8, ill-typed) and never drops a finished row: rows
of runs the current sweep does not ask for stay in the file."""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Sequence

from experiments.paper import RDTCP_K, RunSpec

__all__ = ["Journal", "scan_journal", "spec_key", "row_key", "previous_rows",
           "set_aside", "finished_count"]


@dataclass
class Journal:
    """What a journal file holds: ``lines``, each readable row with its line as written (kept
    byte for byte when the journal is rewritten), and ``bad``, the lines that are no row."""

    lines: list[tuple[bytes, dict]]
    bad: list[bytes]
    ends_with_newline: bool = True

    def finished(self) -> dict[tuple, dict]:
        """The first finished (error-free) row of each run, by ``spec_key``."""
        out: dict[tuple, dict] = {}
        for _, row in self.lines:
            if "error" not in row:
                out.setdefault(spec_key(row), row)
        return out


def scan_journal(path: Path) -> Journal:
    """Read a journal line by line; a line that is not a row (cut short by an interruption,
    not UTF-8, not JSON, fields missing or of the wrong type) goes to ``bad`` instead of
    stopping the sweep."""
    if not path.exists():
        return Journal([], [])
    data = path.read_bytes()
    lines: list[tuple[bytes, dict]] = []
    bad: list[bytes] = []
    for raw in data.splitlines(keepends=True):
        if not raw.strip():
            continue
        row = _journal_row(raw)
        if row is None:
            bad.append(raw)
        else:
            lines.append((raw, row))
    return Journal(lines, bad, not data or data.endswith(b"\n"))


def _journal_row(raw: bytes) -> dict | None:
    """The row on one journal line, its spec fields normalised as RunSpec has them (5 -> 5.0),
    or None when the line is not a row the report can use."""
    try:
        row = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(row, dict):
        return None
    try:
        spec = RunSpec(**{f.name: row[f.name] for f in fields(RunSpec)})
    except (KeyError, TypeError, ValueError):
        return None
    if "error" in row:                          # a failed run: rerun by --resume
        return {**row, **asdict(spec)} if isinstance(row["error"], str) else None
    spec_fields = {f.name for f in fields(RunSpec)}
    counters = [v for k, v in row.items() if k not in spec_fields and k != "_series"]
    if not isinstance(row.get("throughput_Bps"), (int, float)) or \
            not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    for v in counters):
        return None
    series = row.get("_series", [])
    if not isinstance(series, list) or not all(isinstance(r, list) for r in series):
        return None
    return {**row, **asdict(spec)}


def spec_key(spec_or_row) -> tuple:
    """What identifies a run: every RunSpec field, from a spec or from its row."""
    get = spec_or_row.get if isinstance(spec_or_row, dict) else \
        (lambda name: getattr(spec_or_row, name))
    return tuple(get(f.name) for f in fields(RunSpec))


def row_key(row: dict) -> tuple:
    return (row["variant"], row["injection"], row["interval"], row["swaps"], row["level"],
            row.get("k", RDTCP_K), row.get("swap_span", 0), row["seed"])


def previous_rows(journal: Path, specs: Sequence[RunSpec], *,
                  resume: bool) -> list[dict]:
    """With ``resume``, the finished rows of the journal that this sweep asks for. The journal
    keeps every row it has, also those of runs this sweep does not ask for (a smaller sweep
    resumed from a larger one's journal must not lose them); lines that are no row are
    counted, moved to runs.jsonl.bad and dropped from it. Without ``resume`` an old journal is
    set aside (``set_aside``)."""
    if not resume:
        set_aside(journal)
        return []
    contents = scan_journal(journal)
    if contents.bad:
        bad = journal.with_name(journal.name + ".bad")
        with open(bad, "ab") as f:
            f.writelines(line if line.endswith(b"\n") else line + b"\n" for line in contents.bad)
        print(f"warning: skipped {len(contents.bad)} line(s) of {journal} that are no run row "
              f"(cut short, not UTF-8, or fields missing or of the wrong type); moved to {bad}",
              file=sys.stderr)
    if contents.bad or not contents.ends_with_newline:
        # rewritten whole (atomically) so that the rows this sweep appends start on a line of
        # their own; every readable row stays as it was written
        tmp = journal.with_name(journal.name + ".tmp")
        tmp.write_bytes(b"".join(line if line.endswith(b"\n") else line + b"\n"
                                 for line, _ in contents.lines))
        tmp.replace(journal)
    wanted = {spec_key(s) for s in specs}
    finished = contents.finished()
    others = sum(key not in wanted for key in finished)
    if others:
        print(f"note: {journal} also holds {others} finished run(s) this sweep does not ask "
              f"for; they stay in it", file=sys.stderr)
    return [row for key, row in finished.items() if key in wanted]


def set_aside(journal: Path) -> None:
    """A sweep without --resume starts a new journal; the old one becomes runs.jsonl.prev. An
    older .prev is not overwritten: it moves to the first free runs.jsonl.prev.N (N = 1, 2, ...
    in the order they were set aside), and the user is told where each went."""
    if not journal.exists():
        return
    if journal.stat().st_size == 0:
        journal.unlink()
        return
    prev = journal.with_name(journal.name + ".prev")
    older = ""
    if prev.exists():
        n = 1
        while prev.with_name(f"{prev.name}.{n}").exists():
            n += 1
        prev.replace(prev.with_name(f"{prev.name}.{n}"))
        older = f" (the .prev there before is now {prev.name}.{n})"
    journal.replace(prev)
    finished = len(scan_journal(prev).finished())
    print(f"note: the earlier sweep's journal ({finished} finished run(s)) set aside as "
          f"{prev}{older}; --resume would have reused its runs", file=sys.stderr)


def finished_count(journal: Path, specs: Sequence[RunSpec]) -> int:
    """How many of ``specs`` have a finished row in the journal."""
    wanted = {spec_key(s) for s in specs}
    return sum(key in wanted for key in scan_journal(journal).finished())
