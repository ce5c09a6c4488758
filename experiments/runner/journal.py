"""A sweep's journal, OUT/runs.jsonl: one JSON row per finished run, appended the moment the run
ends, so an interrupted sweep keeps what it did and ``--resume`` runs only the rest. Reading it
never stops on a bad line (cut short, not UTF-8, ill-typed) and never drops a finished row: rows
of runs the current sweep does not ask for stay in the file.

Each row carries ``code_version`` (``code_version()``: a hash of the code and gateway program
that decide a run's numbers). ``--resume`` reuses only rows of the running code's version; a row
of another version, or of none (journals written before rows carried one), runs again. A row's
numbers do not depend on its time series (``sample_step`` only adds the sampler's own events to
``events``), so a row recorded with a series serves a request without one, and a request for a
series reuses only rows that hold it at the same step (``select``).

Beside it, OUT/invocations.jsonl: one line per invocation of the sweep on this journal (its wall
time, jobs, workers, code version, runs done and reused, finished or interrupted), which
summary.json lists."""

from __future__ import annotations

import ast
import hashlib
import json
import math
import sys
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Sequence

from experiments.runner.spec import RunSpec, UnknownScenario
from sim.program import REPO_ROOT

__all__ = ["Journal", "Resumed", "scan_journal", "spec_key", "run_key", "row_key", "select",
           "previous_rows", "set_aside", "finished_count", "code_version", "code_files",
           "CODE_TREES", "CODE_FILES", "record_invocation", "read_invocations",
           "INVOCATIONS_NAME"]

_SPEC_FIELDS = tuple(f.name for f in fields(RunSpec))
# what decides a run's numbers: every RunSpec field but the time series' step
_RUN_FIELDS = tuple(name for name in _SPEC_FIELDS if name != "sample_step")
# RunSpec fields added after journals were first written, with the value older rows meant
_ADDED_FIELDS = {"scenario": "rdtcp", "delay": "", "ack_level": 0.0, "drop": 0.0, "bursts": 0.0,
                 "path_delay": 0.0, "fa_ratio": 0.0, "legacy": "none", "r2_drop": 0.0}

# ----------------------------------------------------------------------------- code version
# The sources whose code decides a run's numbers, relative to the repository root: every .py file
# under these trees, these files, and each study's scenario with the modules of its study it
# imports (``study_files``). They are the modules a run imports (the TCP hosts, the simulator,
# the topology, the controller, the P4 target that executes the gateway program, the packet
# helpers, the run's spec and gateway setup, the studies' runs); tests/experiments/test_resume.py
# checks that a run loads no other module of the repository. The gateway program itself enters
# as the BMv2 JSON the runs load (compiled from p4src/ by toolchain/compiler/, or
# RDTCP_PROGRAM's), so an edit to p4src/ or the compiler that changes the program changes the
# version. Left out: the rest of the run machinery (cli, journal, pool, worker, sweep, report,
# plots), the drivers and the studies' reports and plots, which carry rows and draw them but
# compute no number; docs and tests.
CODE_TREES = ("controller", "hosts", "netbase", "sim", "toolchain/switch", "topologies",
              "analyzer")
CODE_FILES = ("toolchain/__init__.py", "experiments/__init__.py", "experiments/runner/__init__.py",
              "experiments/runner/spec.py", "experiments/runner/gateways.py",
              "experiments/runner/program.py", "experiments/studies/__init__.py")
# each study's runs: its package and its scenario module (with the study modules it imports)
STUDY_RUNS = ("experiments/studies/*/__init__.py", "experiments/studies/*/scenario.py")


def study_files(root: Path) -> list[Path]:
    """The studies' files a run loads: STUDY_RUNS and, transitively, every module under
    experiments/studies/ that one of them imports (read from its import statements)."""
    todo = [p for pattern in STUDY_RUNS for p in root.glob(pattern)]
    found: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in found:
            continue
        found.add(path)
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.startswith("experiments.studies."):
                    module = root.joinpath(*name.split("."))
                    todo += [p for p in (module.with_suffix(".py"), module / "__init__.py")
                             if p.exists()]
    return sorted(found)


def code_files(root: Path) -> list[Path]:
    """The source files ``code_version`` hashes, sorted (see CODE_TREES)."""
    found = [p for tree in CODE_TREES for p in (root / tree).rglob("*.py")
             if "__pycache__" not in p.parts]
    found += [root / name for name in CODE_FILES if (root / name).exists()]
    found += study_files(root)
    return sorted(set(found))


def code_version(program_path: str | Path, root: Path | None = None) -> str:
    """12 hex digits of a SHA-256 over the relative name and bytes of every ``code_files`` file
    and over the gateway program's JSON (parsed and written canonically, so its formatting does
    not count). Files only, no git: a tarball of the sources gives the same version as the
    checkout it came from, wherever it is unpacked."""
    if root is None:
        root = REPO_ROOT
    h = hashlib.sha256()
    for path in code_files(root):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    program = json.loads(Path(program_path).read_text())
    h.update(b"program\0" + json.dumps(program, sort_keys=True, separators=(",", ":")).encode())
    return h.hexdigest()[:12]


# ----------------------------------------------------------------------------- reading
@dataclass
class Journal:
    """What a journal file holds: ``lines``, each readable row with its line as written (kept
    byte for byte when the journal is rewritten), and ``bad``, the lines that are no row."""

    lines: list[tuple[bytes, dict]]
    bad: list[bytes]
    ends_with_newline: bool = True

    def finished(self) -> dict[tuple, list[dict]]:
        """The finished (error-free) rows of each run by ``run_key``, in journal order."""
        out: dict[tuple, list[dict]] = {}
        for _, row in self.lines:
            if "error" not in row:
                out.setdefault(run_key(row), []).append(row)
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


def _number(value, *, integral: bool = False) -> bool:
    kinds = (int,) if integral else (int, float)
    return isinstance(value, kinds) and not isinstance(value, bool) and math.isfinite(value)


def _journal_row(raw: bytes) -> dict | None:
    """The row on one journal line, its spec fields normalised as RunSpec has them (5 -> 5.0),
    or None when the line is not a row the report can use. Checked: the spec fields, ``error``
    and ``code_version`` (strings), ``throughput_Bps`` (a finite number), the swap counts the
    report averages (whole numbers) and ``_series`` (a list of rows); every other column (the
    counters, and columns a later version may add) is kept as it is; so are the spec fields of
    a row whose scenario no study imported here registered."""
    try:
        row = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(row, dict):
        return None
    try:
        given = {name: row[name] if name in row else _ADDED_FIELDS[name] for name in _SPEC_FIELDS}
        spec = asdict(RunSpec(**given))
    except UnknownScenario:
        # a run of a study this process has not imported: no sweep here asks for it, and the
        # journal keeps its row as written
        spec = given
    except (KeyError, TypeError, ValueError):
        return None
    if not isinstance(row.get("code_version", ""), str):
        return None
    if "error" in row:                          # a failed run: rerun by --resume
        return {**row, **spec} if isinstance(row["error"], str) else None
    if not _number(row.get("throughput_Bps")) or \
            not all(_number(row[name], integral=True)
                    for name in ("swaps_done", "swaps_skipped") if name in row):
        return None
    series = row.get("_series", [])
    if not isinstance(series, list) or not all(isinstance(r, list) for r in series):
        return None
    return {**row, **spec}


def spec_key(spec_or_row) -> tuple:
    """Every RunSpec field, from a spec or from its row."""
    return _key(spec_or_row, _SPEC_FIELDS)


def run_key(spec_or_row) -> tuple:
    """What decides a run's numbers: every RunSpec field but ``sample_step``."""
    return _key(spec_or_row, _RUN_FIELDS)


def _key(spec_or_row, names) -> tuple:
    get = spec_or_row.get if isinstance(spec_or_row, dict) else \
        (lambda name: getattr(spec_or_row, name))
    return tuple(get(name) for name in names)


def row_key(row: dict) -> tuple:
    return (row.get("scenario", RunSpec.scenario), row.get("legacy", "none"),
            row.get("r2_drop", 0.0), row["variant"], row["injection"], row["interval"],
            row["swaps"], row["level"], row.get("k", RunSpec.k), row.get("swap_span", 0),
            row["seed"])


# ----------------------------------------------------------------------------- reuse
# why a finished row of a run is not reused (``select``)
OTHER_VERSION, NO_VERSION, NO_SERIES = "other version", "no version", "no series"


def select(rows: Sequence[dict], spec: RunSpec, version: str) -> tuple[dict | None, str | None]:
    """Of a run's finished rows (same ``run_key`` as ``spec``), the one ``--resume`` reuses for
    ``spec`` under code ``version``, and else why none: None (no row at all), OTHER_VERSION
    (rows of other code only), NO_VERSION (rows without a version only: journals from before
    versions were recorded) or NO_SERIES (rows of this code, none with the time series ``spec`` asks for at its step). A
    row made with a series serves a spec without one (a row of the same step is preferred); the
    row returned is the spec's view of it: without ``_series`` unless the spec asks for it."""
    if not rows:
        return None, None
    ours = [r for r in rows if r.get("code_version") == version]
    if not ours:
        return None, (OTHER_VERSION if any("code_version" in r for r in rows) else NO_VERSION)
    same_step = [r for r in ours if r["sample_step"] == spec.sample_step]
    if spec.sample_step:
        with_series = [r for r in same_step if r.get("_series")]
        return (with_series[0], None) if with_series else (None, NO_SERIES)
    row = (same_step or ours)[0]
    return ({k: v for k, v in row.items() if k != "_series"}, None)


@dataclass
class Resumed:
    """What ``previous_rows`` found: ``kept``, the reused row of each spec; ``rerun``, per reason
    (OTHER_VERSION, NO_VERSION, NO_SERIES), the specs whose finished rows cannot be reused."""

    kept: dict[RunSpec, dict]
    rerun: dict[str, list[RunSpec]]


def previous_rows(journal: Path, specs: Sequence[RunSpec], *, resume: bool,
                  version: str) -> Resumed:
    """With ``resume``, the finished rows of the journal that this sweep can reuse (``select``),
    with a note on stderr for each kind of finished row it cannot. The journal keeps every row
    it has, also those of runs this sweep does not ask for (a smaller sweep resumed from a
    larger one's journal must not lose them) and those of other code versions; lines that are
    no row are counted, moved to runs.jsonl.bad and dropped from it. Without ``resume`` an old
    journal is set aside (``set_aside``)."""
    if not resume:
        set_aside(journal)
        return Resumed({}, {})
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
    finished = contents.finished()
    resumed = Resumed({}, {})
    for spec in specs:
        row, why = select(finished.get(run_key(spec), ()), spec, version)
        if row is not None:
            resumed.kept[spec] = row
        elif why is not None:
            resumed.rerun.setdefault(why, []).append(spec)
    _say_why_rerun(journal, resumed.rerun, finished, version)
    wanted = {run_key(s) for s in specs}
    others = sum(key not in wanted for key in finished)
    if others:
        print(f"note: {journal} also holds {others} finished run(s) this sweep does not ask "
              f"for; they stay in it", file=sys.stderr)
    return resumed


def _say_why_rerun(journal: Path, rerun: dict[str, list[RunSpec]],
                   finished: dict[tuple, list[dict]], version: str) -> None:
    if rerun.get(OTHER_VERSION):
        specs = rerun[OTHER_VERSION]
        versions = sorted({r["code_version"] for s in specs for r in finished[run_key(s)]
                           if "code_version" in r})
        print(f"note: {len(specs)} finished run(s) of this sweep in {journal} were made by other "
              f"code (code version {', '.join(versions)}; this code is {version}): they run "
              f"again, and their old rows stay in the journal", file=sys.stderr)
    if rerun.get(NO_VERSION):
        print(f"note: {len(rerun[NO_VERSION])} finished run(s) of this sweep in {journal} carry "
              f"no code version (written before rows recorded one, so the code that made them "
              f"is unknown): they run again", file=sys.stderr)
    if rerun.get(NO_SERIES):
        steps = sorted({s.sample_step for s in rerun[NO_SERIES]})
        print(f"note: {len(rerun[NO_SERIES])} finished run(s) of this sweep in {journal} have "
              f"no time series at --series {', '.join(f'{s:g}' for s in steps)}: they run again "
              f"to record it (the others are reused)", file=sys.stderr)


def set_aside(journal: Path) -> None:
    """A sweep without --resume starts a new journal; the old one becomes runs.jsonl.prev. An
    older .prev is not overwritten: it moves to the first free runs.jsonl.prev.N (N = 1, 2, ...
    in the order they were set aside), and the user is told where each went. The invocation log
    beside it (INVOCATIONS_NAME) goes with it, to the same suffix."""
    log = journal.with_name(INVOCATIONS_NAME)
    if not journal.exists() or journal.stat().st_size == 0:
        journal.unlink(missing_ok=True)
        log.unlink(missing_ok=True)     # the invocations of no run
        return
    prev = journal.with_name(journal.name + ".prev")
    older = ""
    if prev.exists():
        n = 1
        while prev.with_name(f"{prev.name}.{n}").exists():
            n += 1
        prev.replace(prev.with_name(f"{prev.name}.{n}"))
        older = f" (the .prev there before is now {prev.name}.{n})"
        prev_log = log.with_name(log.name + ".prev")
        if prev_log.exists():
            prev_log.replace(log.with_name(f"{log.name}.prev.{n}"))
    journal.replace(prev)
    if log.exists():
        log.replace(log.with_name(log.name + ".prev"))
    finished = len(scan_journal(prev).finished())
    print(f"note: the earlier sweep's journal ({finished} finished run(s)) set aside as "
          f"{prev}{older}; --resume would have reused its runs", file=sys.stderr)


def finished_count(journal: Path, specs: Sequence[RunSpec], version: str) -> int:
    """How many of ``specs`` have a row in the journal that --resume would reuse."""
    finished = scan_journal(journal).finished()
    return sum(select(finished.get(run_key(s), ()), s, version)[0] is not None for s in specs)


# ----------------------------------------------------------------------------- invocations
INVOCATIONS_NAME = "invocations.jsonl"


def record_invocation(journal: Path, entry: dict) -> None:
    """Append one invocation's entry to the log beside ``journal``."""
    with open(journal.with_name(INVOCATIONS_NAME), "a") as f:
        f.write(json.dumps(entry) + "\n")


def read_invocations(journal: Path) -> list[dict]:
    """The entries of the invocation log beside ``journal``, oldest first; a line that is not
    a JSON object (cut short) is left out."""
    path = journal.with_name(INVOCATIONS_NAME)
    entries = []
    if path.exists():
        for line in path.read_bytes().splitlines():
            try:
                entry = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                continue
            if isinstance(entry, dict):
                entries.append(entry)
    return entries
