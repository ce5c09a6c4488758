"""What every driver writes beside its study's own report: CSV files of rows and the head of
summary.json."""

from __future__ import annotations

import csv
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable

__all__ = ["write_csv", "summary_header"]


def write_csv(path: Path, rows: list[dict]) -> None:
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)


def summary_header(rows: list[dict], cfg: Any, *, mode: str, invocations: Iterable[dict],
                   code_version: str | None) -> dict:
    """The part every driver's summary.json begins with: the mode and its configuration, the
    code version, the wall time of every invocation that made the journal (summed), the
    invocations themselves, and how many runs there are and failed."""
    invocations = list(invocations)
    return {"mode": mode, "config": asdict(cfg), "code_version": code_version,
            "wall_s": round(sum(i["wall_s"] for i in invocations
                                if isinstance(i.get("wall_s"), (int, float))), 3),
            "invocations": invocations, "runs": len(rows),
            "failed_runs": sum("error" in r for r in rows)}
