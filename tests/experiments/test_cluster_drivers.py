"""Every sweep driver on ``--scheduler local:2`` writes the files of a run on this machine's own
pool: each driver run twice through its command line (``python -m experiments.NAME``) on the
same tiny sweep, the output folders compared file by file, byte for byte. What may differ is
what says how long and where the runs went: each run's own ``wall_s`` and the simulation's part
of it, ``sim_wall_s`` (Net Reno's and [TCPDEBUG]'s rows; columns of runs.csv, keys of the journal's
rows), summary.json's ``wall_s`` and ``invocations``, and invocations.jsonl.
"""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from sim.program import REPO_ROOT  # noqa: E402

# per driver: a sweep of a few short runs (two senders or two conditions, one seed)
SWEEPS = {
    "rrtcp_figures": ["--seeds", "1", "--duration", "3", "--figures", "t3"],
    "frto_tables": ["--seeds", "1", "--scenarios", "delay", "--variants", "frto,sack"],
    "netreno_tables": ["--parts", "sim", "--runs", "1", "--duration", "2",
                       "--variants", "netreno,newreno"],
    "dbce_tables": ["--seeds", "1", "--duration", "6", "--networks", "dbce-dumbbell",
                    "--reorderings", "none,recirc", "--variants", "sack"],
}
# what records the time and place of the runs, not their results
TIMING = {"invocations.jsonl"}
ROW_TIMING = {"wall_s", "sim_wall_s"}
SUMMARY_TIMING = ("wall_s", "invocations")


def sweep(driver: str, out: Path, *where: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", f"experiments.{driver}", *SWEEPS[driver], "--no-progress",
         "--out", str(out), *where], cwd=REPO_ROOT, capture_output=True, text=True,
        timeout=900)


def files_less_timing(out: Path) -> dict[str, bytes]:
    """Every file the sweep wrote (by its path in ``out``), as bytes, less the timing."""
    found = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name = str(path.relative_to(out))
        data = path.read_bytes()
        if name in TIMING:
            continue
        if name == "runs.csv":
            rows = list(csv.reader(io.StringIO(data.decode(), newline="")))
            drop = {i for i, name in enumerate(rows[0]) if name in ROW_TIMING}
            data = "\n".join(",".join(c for i, c in enumerate(r) if i not in drop)
                             for r in rows).encode()
        elif name == "runs.jsonl":      # in the order the rows came back
            data = "\n".join(sorted(json.dumps({k: v for k, v in json.loads(line).items()
                                                if k not in ROW_TIMING})
                                    for line in data.decode().splitlines())).encode()
        elif name == "summary.json":
            summary = json.loads(data)
            for key in SUMMARY_TIMING:
                summary.pop(key)
            data = json.dumps(summary, indent=1).encode()
        found[name] = data
    return found


@pytest.mark.parametrize("driver", sorted(SWEEPS))
@pytest.mark.slow          # eight small sweeps, two per driver: minutes (make test-slow)
def test_a_driver_on_local_2_writes_the_files_of_a_local_run(driver, tmp_path):
    here, there = tmp_path / "local", tmp_path / "cluster"
    local = sweep(driver, here, "--jobs", "2")
    assert local.returncode == 0, local.stderr
    on_dask = sweep(driver, there, "--scheduler", "local:2")
    assert on_dask.returncode == 0, on_dask.stderr
    assert "to run on the Dask scheduler local:2 (tcp://127.0.0.1:" in on_dask.stderr
    ours, theirs = files_less_timing(here), files_less_timing(there)
    assert sorted(theirs) == sorted(ours)
    assert {"runs.csv", "runs.jsonl", "summary.json"} <= set(ours)
    assert [name for name in ours if theirs[name] != ours[name]] == []
    assert on_dask.stdout == local.stdout         # the table the driver prints
    rows = [json.loads(line) for line in (there / "runs.jsonl").read_text().splitlines()]
    assert len(rows) >= 2 and all("error" not in r and r["interpreter"] for r in rows)
