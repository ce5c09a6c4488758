"""--resume after a code change, with and without --series, over several invocations: rows carry
the code version that made them and only rows of the running code are reused; a row recorded
with a time series serves a sweep without one; summary.json lists every invocation; journal
rows with columns this code does not know are kept."""

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sweep_kit import ARGS, journal_rows, runs_csv, summary

from experiments.rdtcp_figures import main
from experiments.runner import sweep
from experiments.runner.journal import CODE_TREES, code_files, code_version, scan_journal, select
from experiments.runner.program import gateway_program
from experiments.runner.spec import RunSpec
from sim.program import REPO_ROOT


def _notes(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("note:")]


@pytest.fixture(scope="module")
def this_version() -> str:
    path, _ = gateway_program()
    return code_version(path)


# --------------------------------------------------------------------------- code version
def test_rows_runs_csv_and_summary_carry_the_code_version(tmp_path, this_version, capsys):
    assert main(ARGS + ["--out", str(tmp_path)]) == 0
    assert f"code version {this_version}" in capsys.readouterr().err
    assert [r["code_version"] for r in journal_rows(tmp_path)] == [this_version] * 2
    assert [r["code_version"] for r in runs_csv(tmp_path)] == [this_version] * 2
    assert summary(tmp_path)["code_version"] == this_version


def test_resume_after_a_code_change_reruns_the_rows_of_the_other_code(tmp_path, this_version,
                                                                      monkeypatch, capsys):
    argv = ARGS + ["--out", str(tmp_path)]
    assert main(argv) == 0
    capsys.readouterr()
    monkeypatch.setattr(sweep, "code_version", lambda _path: "0123456789ab")
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "0 kept from" in err and "2 to run" in err
    assert (f"note: 2 finished run(s) of this sweep in {tmp_path / 'runs.jsonl'} were made by "
            f"other code (code version {this_version}; this code is 0123456789ab): they run "
            f"again, and their old rows stay in the journal") in err
    # the old rows stay; this sweep's outputs hold only the new code's rows
    assert [r["code_version"] for r in journal_rows(tmp_path)] == [this_version] * 2 + \
        ["0123456789ab"] * 2
    assert [r["code_version"] for r in runs_csv(tmp_path)] == ["0123456789ab"] * 2
    last = summary(tmp_path)["invocations"][-1]
    assert (last["runs_reused"], last["reused_runs"], last["runs_done"]) == (0, [], 2)
    # resumed again by the same code: everything reused, said which
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "2 kept from" in err and "nothing to run" in err and _notes(err) == []
    last = summary(tmp_path)["invocations"][-1]
    assert last["reused_runs"] == ["sack_noreordering_seed1", "sack_swaps15_every1s_span0_seed1"]
    assert last["runs_done"] == 0 and len(journal_rows(tmp_path)) == 4


def test_a_journal_from_before_versions_reruns_with_one_note(tmp_path, capsys):
    argv = ARGS + ["--out", str(tmp_path)]
    assert main(argv) == 0
    old = [{k: v for k, v in r.items() if k != "code_version"} for r in journal_rows(tmp_path)]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err                   # readable rows, not bad lines
    assert _notes(err) == [f"note: 2 finished run(s) of this sweep in {tmp_path / 'runs.jsonl'} "
                           "carry no code version (written before rows recorded one, so the "
                           "code that made them is unknown): they run again"]
    assert "0 kept from" in err and "2 to run" in err
    assert journal_rows(tmp_path)[:2] == old and len(journal_rows(tmp_path)) == 4


def test_the_summary_says_which_rows_were_reused(tmp_path, capsys):
    assert main(ARGS + ["--out", str(tmp_path), "--swaps", "0"]) == 0
    assert main(ARGS + ["--out", str(tmp_path), "--resume"]) == 0
    assert "1 kept from" in capsys.readouterr().err
    first, second = summary(tmp_path)["invocations"]
    assert (first["runs_reused"], first["runs_done"], first["resume"]) == (0, 1, False)
    assert (second["runs_reused"], second["runs_done"], second["resume"]) == (1, 1, True)
    assert second["reused_runs"] == ["sack_noreordering_seed1"]


def _copy_sources(to: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for tree in CODE_TREES:
        shutil.copytree(REPO_ROOT / tree, to / tree, ignore=ignore)
    for path in code_files(REPO_ROOT):
        name = path.relative_to(REPO_ROOT)
        (to / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, to / name)


def test_the_code_version_needs_no_git_and_follows_the_code_and_the_program(tmp_path):
    program_path, _ = gateway_program()
    program = json.loads(Path(program_path).read_text())
    ours = tmp_path / "program.json"
    ours.write_text(json.dumps(program))
    # an unpacked tarball: the sources alone, no .git, somewhere else
    copy = tmp_path / "unpacked"
    _copy_sources(copy)
    version = code_version(ours)
    assert not (copy / ".git").exists() and code_version(ours, copy) == version
    assert len(version) == 12 and int(version, 16) >= 0
    # the program's formatting does not count, its content does
    ours.write_text(json.dumps(program, indent=2, sort_keys=True))
    assert code_version(ours, copy) == version
    ours.write_text(json.dumps({**program, "__meta__": {"version": [2, 99]}}))
    assert code_version(ours, copy) != version
    ours.write_text(json.dumps(program))
    # a change to the code a run executes does
    engine = copy / "hosts" / "tcp" / "connection.py"
    engine.write_text(engine.read_text() + "\n# changed\n")
    assert code_version(ours, copy) != version
    engine.write_text(engine.read_text()[: -len("\n# changed\n")])
    assert code_version(ours, copy) == version
    # the runner and the docs do not
    (copy / "experiments" / "journal.py").write_text("# the runner carries rows\n")
    (copy / "hosts" / "README.md").write_text("docs\n")
    assert code_version(ours, copy) == version


def test_the_code_version_covers_every_module_a_run_loads():
    """A run (swaps with a series, altpath, recirc, an RD-TCP sender) in a fresh interpreter
    loads no module of the repository outside code_files: the version sees all its code."""
    script = textwrap.dedent("""
        import os, sys
        from experiments.runner.program import gateway_program
        from experiments.runner.spec import RunSpec
        from experiments.studies.rdtcp.scenario import run_paper
        from sim.program import REPO_ROOT
        _, program = gateway_program()
        for spec in (RunSpec("rdtcp", swaps=5, duration=0.5, sample_step=0.1),
                     RunSpec("dsack-avg", injection="altpath", level=0.05, duration=0.5),
                     RunSpec("rdtcp-measured", injection="recirc", level=0.05, duration=0.5)):
            run_paper(spec, program)
        root = str(REPO_ROOT) + os.sep
        env = os.path.abspath(sys.prefix) + os.sep     # a virtual environment inside the checkout
        for module in list(sys.modules.values()):
            path = os.path.abspath(getattr(module, "__file__", None) or "")
            if path.startswith(root) and not path.startswith(env):
                print(os.path.relpath(path, REPO_ROOT))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                          text=True, check=True)
    loaded = set(done.stdout.split())
    hashed = {p.relative_to(REPO_ROOT).as_posix() for p in code_files(REPO_ROOT)}
    assert "hosts/tcp/connection.py" in loaded and "toolchain/switch/runtime.py" in loaded
    assert loaded - hashed == set()


# --------------------------------------------------------------------------- --series on resume
def test_series_rows_serve_a_sweep_without_series_and_only_missing_series_run(tmp_path, capsys):
    out = ["--out", str(tmp_path)]
    # the zero-swap run with a series
    assert main(ARGS + out + ["--swaps", "0", "--series", "0.5"]) == 0
    assert [p.name for p in (tmp_path / "series").iterdir()] == ["sack_noreordering_seed1.csv"]
    capsys.readouterr()
    # no series asked: the zero-swap row is reused although it was run with one
    assert main(ARGS + out + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "1 kept from" in err and "1 to run" in err and _notes(err) == []
    assert [r["swaps"] for r in runs_csv(tmp_path)] == ["0", "15"]
    assert len(list((tmp_path / "series").iterdir())) == 1          # none asked, none written
    # a series asked: only the run whose row has none runs
    assert main(ARGS + out + ["--resume", "--series", "0.5"]) == 0
    err = capsys.readouterr().err
    assert "1 kept from" in err and "1 to run" in err
    assert _notes(err) == [f"note: 1 finished run(s) of this sweep in {tmp_path / 'runs.jsonl'} "
                           "have no time series at --series 0.5: they run again to record it "
                           "(the others are reused)"]
    assert sorted(p.name for p in (tmp_path / "series").iterdir()) == \
        ["sack_noreordering_seed1.csv", "sack_swaps15_every1s_span0_seed1.csv"]
    # both have it now; another step needs both again
    assert main(ARGS + out + ["--resume", "--series", "0.5"]) == 0
    assert "2 kept from" in capsys.readouterr().err
    assert main(ARGS + out + ["--resume", "--series", "0.25"]) == 0
    err = capsys.readouterr().err
    assert "0 kept from" in err and "2 finished run(s)" in err and "--series 0.25" in err


def _row(version="v1", **spec):
    spec = RunSpec("sack", duration=2.0, **spec)
    return {**spec.__dict__, "throughput_Bps": 1.0, "code_version": version}


def test_select_prefers_the_runs_own_step_and_needs_the_series_asked_for():
    assert select([], RunSpec("sack"), "v1") == (None, None)
    plain, sampled = _row(), {**_row(sample_step=0.5), "_series": [[0.0]]}
    no_series, with_series = RunSpec("sack", duration=2.0), RunSpec("sack", duration=2.0,
                                                                      sample_step=0.5)
    assert select([sampled, plain], no_series, "v1") == (plain, None)
    # a series row serving a sweep without series comes without its series
    assert select([sampled], no_series, "v1") == ({k: v for k, v in sampled.items()
                                                   if k != "_series"}, None)
    assert select([plain, sampled], with_series, "v1") == (sampled, None)
    assert select([plain], with_series, "v1") == (None, "no series")
    assert select([{**sampled, "sample_step": 0.25}], with_series, "v1") == (None, "no series")
    assert select([plain, sampled], no_series, "v2") == (None, "other version")
    unversioned = {k: v for k, v in plain.items() if k != "code_version"}
    assert select([unversioned], no_series, "v1") == (None, "no version")
    assert select([unversioned, _row("v0")], no_series, "v1") == (None, "other version")


# --------------------------------------------------------------------------- invocations
def test_the_summary_lists_every_invocation_also_an_interrupted_one(tmp_path, capsys,
                                                                    ctrl_c_at_second_run):
    argv = ARGS + ["--out", str(tmp_path)]
    assert main(argv) == 130
    ctrl_c_at_second_run()                          # runs go through again
    assert main(argv + ["--resume", "--jobs", "2"]) == 0
    got = summary(tmp_path)
    first, second = got["invocations"]
    assert (first["outcome"], first["runs_done"], first["jobs"]) == ("interrupted", 1, 1)
    assert (second["outcome"], second["runs_done"], second["runs_reused"], second["jobs"]) == \
        ("finished", 1, 1, 1)           # --jobs 2 capped at the one run to do
    assert got["wall_s"] == pytest.approx(first["wall_s"] + second["wall_s"], abs=2e-3)
    assert first["wall_s"] > 0 and second["wall_s"] > 0
    assert all(i["code_version"] == got["code_version"] for i in got["invocations"])
    assert "the sweep's 2 invocations on this journal" in capsys.readouterr().err
    # a new sweep without --resume starts a new log, the old one set aside with its journal
    assert main(argv + ["--swaps", "0"]) == 0
    assert len(summary(tmp_path)["invocations"]) == 1
    aside = [json.loads(line) for line in
             (tmp_path / "invocations.jsonl.prev").read_text().splitlines()]
    assert [i["outcome"] for i in aside] == ["interrupted", "finished"]
    assert (tmp_path / "runs.jsonl.prev").exists()


# --------------------------------------------------------------------------- journal columns
def test_journal_rows_with_columns_this_code_does_not_know_are_kept(tmp_path, this_version,
                                                                    capsys):
    argv = ARGS + ["--out", str(tmp_path), "--swaps", "0"]
    assert main(argv) == 0
    row = journal_rows(tmp_path)[0]
    later = {**row, "host_kernel": "a later column", "notes": {"any": ["json"]}, "flag": True}
    (tmp_path / "runs.jsonl").write_text(json.dumps(later) + "\n")
    journal = scan_journal(tmp_path / "runs.jsonl")
    assert journal.bad == [] and journal.lines[0][1]["host_kernel"] == "a later column"
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err and "1 kept from" in err and "nothing to run" in err
    assert runs_csv(tmp_path)[0]["host_kernel"] == "a later column"
    # the columns the report reads are still checked
    for bad in ({**row, "code_version": 7}, {**row, "swaps_done": "many"},
                {**row, "throughput_Bps": "fast"}, {**row, "error": 1}):
        (tmp_path / "j").write_text(json.dumps(bad) + "\n")
        assert len(scan_journal(tmp_path / "j").bad) == 1, bad
