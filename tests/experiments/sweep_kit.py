"""What the runner's tests share: a two-run sweep in this process, and readers of its outputs."""

import csv
import json
from pathlib import Path

# two short runs of one sender (zero swaps and 15 swaps every second), in this process
ARGS = ["--mode", "quick", "--jobs", "1", "--seeds", "1", "--variants", "sack", "--swaps", "0,15",
        "--interval", "1", "--duration", "2", "--no-k-study", "--no-progress",
        "--worker-python", "self"]


def journal_rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]


def runs_csv(out: Path) -> list[dict]:
    with open(out / "runs.csv") as f:
        return list(csv.DictReader(f))


def summary(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())
