"""The sweep runner's and one_run's command lines: resume never loses rows, bad input gets one
`error:` line and status 2, Ctrl-C keeps the journal, options that would be ignored are refused,
--help shows the defaults, zero-swap points run once, and series.png's lines are in the flow's
own segments."""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sweep_kit import ARGS, journal_rows, runs_csv

from experiments import one_run
from experiments.rdtcp_figures import MODES, build_specs, main, parse_args
from experiments.runner import pool
from experiments.runner.journal import scan_journal, spec_key
from experiments.runner.spec import RunSpec
from experiments.runner.sweep import run_lengths
from experiments.studies.rdtcp.scenario import run_paper
from sim.program import REPO_ROOT, gateway_json


# --------------------------------------------------------------------------- resume and journal
def test_resume_with_a_smaller_sweep_keeps_the_larger_sweeps_rows(tmp_path, capsys):
    assert main(ARGS + ["--out", str(tmp_path)]) == 0
    before = (tmp_path / "runs.jsonl").read_text()
    assert len(before.splitlines()) == 2
    capsys.readouterr()
    assert main(ARGS + ["--out", str(tmp_path), "--swaps", "15", "--resume"]) == 0
    err = capsys.readouterr().err
    assert "1 kept from" in err and "nothing to run" in err
    assert "also holds 1 finished run(s) this sweep does not ask for" in err
    # the journal keeps both rows as written; this sweep's outputs have only its own run
    assert (tmp_path / "runs.jsonl").read_text() == before
    assert [r["swaps"] for r in runs_csv(tmp_path)] == ["15"]
    # and the larger sweep resumed again finds everything
    assert main(ARGS + ["--out", str(tmp_path), "--resume"]) == 0
    assert "2 kept from" in capsys.readouterr().err
    assert len(runs_csv(tmp_path)) == 2 and (tmp_path / "runs.jsonl").read_text() == before


def test_the_first_line_names_the_settings_that_differ_from_the_mode(tmp_path, capsys):
    """A 2 s sweep with quick mode's other defaults changed is not 'quick mode'."""
    assert main(ARGS + ["--out", str(tmp_path)]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith("2 runs (quick mode with duration, seeds, swaps, intervals, "
                            "variants, k_values, k_spans changed, 2 s each"), first


def test_the_first_line_gives_each_parts_run_length():
    """A sweep whose parts run for different times (Net Reno's 10 s simulation, 60 s lab and
    1800 s trace runs) says the range, not the mode's first duration."""
    mixed = [RunSpec("netreno", duration=d) for d in (10.0, 1800.0, 60.0, 10.0)]
    assert run_lengths(mixed, 10.0) == "10-1800 s"
    assert run_lengths(mixed[:1] * 3, 99.0) == "10 s each"
    assert run_lengths([], 5.0) == "5 s each"


def test_new_sweeps_set_old_journals_aside_without_overwriting_one(tmp_path, capsys):
    argv = ARGS + ["--out", str(tmp_path), "--swaps", "0"]
    journals = []
    for _ in range(3):
        assert main(argv) == 0
        journals.append((tmp_path / "runs.jsonl").read_text())
    err = capsys.readouterr().err
    assert (tmp_path / "runs.jsonl.prev.1").read_text() == journals[0]
    assert (tmp_path / "runs.jsonl.prev").read_text() == journals[1]
    assert "set aside as" in err and "runs.jsonl.prev.1" in err
    assert "--resume would have reused its runs" in err


def test_resume_skips_journal_lines_that_are_no_row_and_keeps_them_aside(tmp_path, capsys):
    argv = ARGS + ["--out", str(tmp_path), "--swaps", "0"]
    assert main(argv) == 0
    good = (tmp_path / "runs.jsonl").read_bytes()
    row = json.loads(good)
    junk = [b"\xff\xfe not utf-8\n",
            json.dumps({**row, "swaps": "x"}).encode() + b"\n",
            json.dumps({k: v for k, v in row.items() if k != "variant"}).encode() + b"\n",
            json.dumps({**row, "swaps_done": "many"}).encode() + b"\n",
            json.dumps({**row, "swaps": 15, "throughput_Bps": None}).encode() + b"\n",
            b"[1, 2]\n",
            good[: len(good) // 2]]                      # cut short, no newline
    (tmp_path / "runs.jsonl").write_bytes(good + b"".join(junk))
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert "warning: skipped 7 line(s)" in err and "Traceback" not in err
    assert "1 kept from" in err and "nothing to run" in err
    assert (tmp_path / "runs.jsonl").read_bytes() == good     # the row kept as written
    bad = (tmp_path / "runs.jsonl.bad").read_bytes()
    assert bad.count(b"\n") == 7 and b"\xff\xfe not utf-8" in bad    # nothing lost
    assert len(runs_csv(tmp_path)) == 1


def test_scan_journal_normalises_the_spec_fields_it_reads(tmp_path):
    row = {**RunSpec("sack", duration=2).__dict__, "throughput_Bps": 1.0}
    row["duration"] = 2                                         # an int where RunSpec has 2.0
    (tmp_path / "j").write_text(json.dumps(row) + "\n" + json.dumps({**row, "seed": True}) + "\n")
    journal = scan_journal(tmp_path / "j")
    assert len(journal.lines) == 1 and len(journal.bad) == 1       # a bool is no seed
    assert spec_key(journal.lines[0][1]) == \
        spec_key(RunSpec("sack", duration=2.0))


# --------------------------------------------------------------------------- input validation
@pytest.mark.parametrize("argv,message", [
    (["--series", "61"], "--series 61: the step is longer than the 60 s transfers"),
    (["--mode", "full", "--duration", "5", "--series", "6"],
     "--series 6: the step is longer than the 5 s transfers"),
])
def test_sweep_refuses_a_series_step_longer_than_the_transfers(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--mode", "quick"] + argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage:") and message in err
    assert parse_args(["--mode", "quick", "--series", "60"]).series == 60      # as long: fine


@pytest.mark.parametrize("argv", [["--duration", "nan"], ["--duration", "inf"],
                                  ["--interval", "1,inf"], ["--series", "nan"],
                                  ["--levels", "0.01,nan"]])
def test_sweep_refuses_non_finite_numbers(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2 and "finite" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--duration", "inf"], ["--interval", "nan"],
                                  ["--injection", "recirc", "--level", "nan"],
                                  ["--series", "inf"]])
def test_one_run_refuses_non_finite_numbers(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        one_run.main(argv + ["--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and "finite" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("field", ["duration", "interval", "level", "sample_step"])
@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_run_spec_refuses_non_finite_numbers(field, value):
    with pytest.raises(ValueError, match=f"{field} must be a finite number"):
        RunSpec("sack", **{field: value})


@pytest.mark.parametrize("seed", [0, -3])
def test_run_spec_refuses_a_seed_below_one(seed):
    with pytest.raises(ValueError, match="seed must be >= 1"):
        RunSpec("sack", seed=seed)


def test_run_spec_refuses_wrong_types_and_normalises_whole_numbers():
    with pytest.raises(TypeError, match="swaps must be an integer"):
        RunSpec("sack", swaps="x")
    with pytest.raises(TypeError, match="seed must be an integer"):
        RunSpec("sack", seed=True)
    spec = RunSpec("sack", duration=5)
    assert spec == RunSpec("sack", duration=5.0) and isinstance(spec.duration, float)


def test_sweep_refuses_options_the_other_option_would_discard(capsys):
    for argv, message in [(["--no-injections", "--levels", "0.01"], "--no-injections contradicts"),
                          (["--no-k-study", "--k-values", "1"], "--no-k-study contradicts"),
                          (["--variants", "sack", "--k-values", "1"], "add rdtcp to --variants"),
                          (["--variants", "dsack-inc", "--injections", "altpath"],
                           "add one of them to --variants"),
                          (["--levels", "0"], "level 0 is the zero-swap run")]:
        with pytest.raises(SystemExit):
            parse_args(argv)
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("cli", ["sweep", "one_run"])
def test_out_naming_a_file_is_an_error_and_the_file_is_kept(cli, tmp_path, capsys):
    target = tmp_path / "results"
    target.write_text("mine\n")
    run = main if cli == "sweep" else one_run.main
    argv = ARGS if cli == "sweep" else ["--duration", "1"]
    assert run(argv + ["--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"error: --out {target}: exists and is not a directory" in err
    assert "Traceback" not in err and target.read_text() == "mine\n"


@pytest.mark.parametrize("cli", ["sweep", "one_run"])
@pytest.mark.parametrize("program,message", [
    ("missing.json", "cannot read it: No such file or directory"),
    ("garbage.json", "not a BMv2 JSON program the target can load"),
    ("empty-object.json", "not a BMv2 JSON program the target can load"),
])
def test_an_unusable_rdtcp_program_is_an_error(cli, program, message, tmp_path, monkeypatch,
                                               capsys):
    (tmp_path / "garbage.json").write_bytes(b"\xff\x00 not json")
    (tmp_path / "empty-object.json").write_text("{}")
    monkeypatch.setenv("RDTCP_PROGRAM", str(tmp_path / program))
    out = tmp_path / "out"
    run = main if cli == "sweep" else one_run.main
    argv = ARGS if cli == "sweep" else ["--duration", "1"]
    assert run(argv + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"error: RDTCP_PROGRAM={tmp_path / program}: {message}" in err
    assert not out.exists()


# --------------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_in_a_sweep_keeps_the_journal_and_says_how_to_finish(tmp_path, capsys,
                                                                    ctrl_c_at_second_run):
    argv = ARGS + ["--out", str(tmp_path)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    journal = tmp_path / "runs.jsonl"
    assert f"interrupted: 1 of 2 runs kept in {journal}; rerun with --resume to finish" in err
    assert len(journal_rows(tmp_path)) == 1
    ctrl_c_at_second_run()                          # runs go through again
    assert main(argv + ["--resume"]) == 0
    assert "1 kept from" in capsys.readouterr().err and len(journal_rows(tmp_path)) == 2


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in cmdline:
                found.append(cmdline)
    return found


@pytest.mark.skipif(os.name != "posix" or not Path("/proc").is_dir(),
                    reason="sends SIGINT to a process group and reads /proc")
@pytest.mark.parametrize("workers", ["self", "interpreter"])
def test_sigint_ends_the_sweep_and_its_workers_cleanly(workers, tmp_path):
    # a copy of the program in tmp_path: every worker's command line names it, so leftovers
    # can be found afterwards (forked workers carry the sweep's own --out)
    program = tmp_path / "rdtcp.json"
    gateway_json()
    shutil.copy(REPO_ROOT / "build" / "rdtcp.json", program)
    out = tmp_path / "out"
    python = "self" if workers == "self" else sys.executable
    argv = [sys.executable, "-m", "experiments.rdtcp_figures", "--mode", "quick", "--jobs", "2",
            "--seeds", "1", "--variants", "sack", "--swaps", "0,5,10,15,20,25,30",
            "--interval", "1", "--duration", "10", "--no-k-study", "--no-progress",
            "--worker-python", python, "--out", str(out)]
    env = dict(os.environ, RDTCP_PROGRAM=str(program), PYTHONPATH=str(REPO_ROOT))
    # a session of its own, as a shell's foreground job: Ctrl-C goes to the whole group. An
    # interactive shell gives its foreground job SIGINT's default action; a test runner that
    # was itself started in the background (`cmd &` in a script, nohup) ignores SIGINT, which
    # the sweep would inherit (Python keeps an ignored SIGINT ignored)
    proc = subprocess.Popen(argv, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    journal = out / "runs.jsonl"
    deadline = time.monotonic() + 120
    while not (journal.exists() and journal.read_text().count("\n") >= 1):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    rows = journal_rows(out)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert f"interrupted: {len(rows)} of 7 runs kept in {journal}; rerun with --resume" in err
    assert 1 <= len(rows) < 7 and all("error" not in r for r in rows)   # no run failed by it
    # the sweep has returned; its workers exit on the same signal, which a loaded machine
    # may take a moment to schedule: any left after 10 s were orphaned
    deadline = time.monotonic() + 10
    while _processes_mentioning(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_mentioning(str(tmp_path)) == []


# --------------------------------------------------------------------------- one_run's options
@pytest.mark.parametrize("argv,message", [
    (["--injection", "altpath", "--level", "0.02", "--swaps", "5"],
     "--swaps set(s) the queue swaps, which --injection altpath replaces"),
    (["--injection", "recirc", "--level", "0.02", "--interval", "8", "--swap-span", "3"],
     "--interval, --swap-span set(s) the queue swaps, which --injection recirc replaces"),
    (["--level", "0.02"], "--level is the probability of an injection"),
    (["--injection", "swap", "--level", "0"], "--level is the probability of an injection"),
    (["--injection", "altpath"], "--injection altpath needs --level P"),
    (["--variant", "sack", "--k", "5"], "--variant sack has no k"),
    (["--variant", "dsack-avg", "--k", "3"], "--variant dsack-avg has no k"),
    (["--swaps", "0", "--interval", "8"], "--interval shape(s) the swaps: nothing to shape"),
])
def test_one_run_refuses_options_that_would_not_act(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        one_run.parse_args(argv)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_one_run_defaults_the_user_did_not_type_raise_no_conflict():
    args = one_run.parse_args(["--variant", "sack"])
    assert (args.swaps, args.interval, args.swap_span, args.k, args.level) == (15, 1.0, 0, 3, 0.0)
    args = one_run.parse_args(["--variant", "sack", "--injection", "recirc", "--level", "0.05"])
    assert (args.swaps, args.level) == (0, 0.05)
    assert one_run.parse_args(["--variant", "rdtcp-measured", "--k", "1"]).k == 1


# --------------------------------------------------------------------------- --help and --jobs
def test_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        one_run.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for shown in ("sender (default: rdtcp)", "(default: 15;", "(default: 60.0)", "(default: 1)",
                  "(default: run)", "run seed:", "(default: swap)"):
        assert shown in text, shown
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for shown in ("(default: full)", "(default: results)", "(default: auto)",
                  "default by --mode: full 3, quick 2", "default by --mode: full 600, quick 60",
                  "(default: all cores)"):
        assert shown in text, shown
    assert "(default: None)" not in text and "(default: False)" not in text


def test_jobs_are_capped_at_the_runs_to_do(tmp_path, capsys, started_workers):
    argv = ARGS + ["--out", str(tmp_path), "--swaps", "0", "--jobs", "8",
                   "--worker-python", sys.executable]
    assert main(argv) == 0
    assert "1 to run on 1 process(es)" in capsys.readouterr().err
    assert len(started_workers) == 1
    assert json.loads((tmp_path / "summary.json").read_text())["invocations"][-1]["jobs"] == 1


def test_one_place_decides_the_jobs_count(tmp_path, monkeypatch, capsys, started_workers):
    """pool.jobs_for decides the workers: the sweep prints and records its answer and run_specs
    starts that many, whatever it answers."""
    assert [pool.jobs_for(r, n) for r, n in ((8, 1), (2, 5), (3, 3), (4, 0), (0, 4))] == \
        [1, 2, 3, 1, 1]
    asked = []

    def one_job(requested, runs):
        asked.append((requested, runs))
        return 1

    monkeypatch.setattr(pool, "jobs_for", one_job)
    argv = ARGS + ["--out", str(tmp_path), "--jobs", "2", "--worker-python", sys.executable]
    assert main(argv) == 0
    assert "2 to run on 1 process(es)" in capsys.readouterr().err
    assert len(started_workers) == 1 and set(asked) == {(2, 2)}
    assert json.loads((tmp_path / "summary.json").read_text())["invocations"][-1]["jobs"] == 1


# --------------------------------------------------------------------------- zero-swap points
def test_zero_swap_runs_do_not_depend_on_the_seed():
    from toolchain.switch import load_program
    program = load_program(gateway_json())
    for variant in ("sack", "rdtcp"):
        seen = []
        for seed in (1, 2):
            result = run_paper(RunSpec(variant, seed=seed, duration=3.0, sample_step=0.5),
                               program)
            row = {k: v for k, v in result.row().items() if k not in ("seed", "wall_s")}
            seen.append((row, result.series))
        assert seen[0] == seen[1], variant


def test_zero_swap_points_run_for_seed_1_only():
    quick = build_specs(MODES["quick"])
    assert len(quick) == 157 and len(build_specs(MODES["full"])) == 605
    zero = [s for s in quick if s.swaps == 0 and s.injection == "swap"]
    assert sorted(s.variant for s in zero) == sorted(MODES["quick"].variants)
    assert {s.seed for s in zero} == {1}
    assert {s.seed for s in quick if s.swaps} == {1, 2}          # the swapped points keep theirs
    full = build_specs(MODES["full"])
    assert all(s.level > 0 for s in full if s.injection != "swap")   # no level-0 copies


# --------------------------------------------------------------------------- series.png
def test_series_lines_use_the_flows_mss_and_leave_out_the_unset_ssthresh():
    infinite = 1 << 30
    rows = [(0.0, "f", 14480, infinite, 3, 0, 0, 0, 0, 0, 0.0),
            (0.1, "f", 28960, infinite, 3, 0, 0, 0, 0, 1448, 14480.0),
            (0.2, "f", 14480, 14480, 6, 1, 0, 1, 0, 2896, 14480.0)]
    lines = one_run.series_lines(rows, mss=1448)
    assert lines["cwnd"] == [10.0, 20.0, 10.0]
    assert lines["ssthresh"] == [None, None, 10.0]
    assert lines["fast"] == [0.2] and lines["spurious"] == []


@pytest.mark.parametrize("variant,mss", [("rdtcp", 1448), ("sack", 1460)])
def test_one_run_plots_in_the_flows_own_segments(variant, mss, tmp_path, monkeypatch):
    drawn = {}
    real = one_run.plot_series

    def spy(rows, path, **kw):
        drawn.update(kw, rows=rows)
        return real(rows, path, **kw)

    monkeypatch.setattr(one_run, "plot_series", spy)
    assert one_run.main(["--variant", variant, "--duration", "2", "--series", "0.1",
                         "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "run.json").read_text())["mss"] == mss == drawn["mss"]
    lines = one_run.series_lines(drawn["rows"], mss=drawn["mss"])
    assert lines["ssthresh"][0] is None                      # before the first loss: not drawn
    assert max(lines["cwnd"]) <= 500
    assert (tmp_path / "series.png").read_bytes()[:4] == b"\x89PNG"


def test_a_front_end_that_cannot_run_is_one_error_line(tmp_path, monkeypatch, capsys):
    """PyPy 3.9 with a stale gateway JSON and no python3 for the front end: no traceback."""
    import shutil

    import sim.program as program
    root = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "p4src", root / "p4src")
    monkeypatch.setattr(program, "FRONT_END_IN_PROCESS", False)
    monkeypatch.setenv("RDTCP_COMPILER_PYTHON", "no-such-python3")
    real = program.gateway_json
    monkeypatch.setattr(program, "gateway_json", lambda root_=root: real(root_))
    out = tmp_path / "out"
    assert one_run.main(["--variant", "sack", "--duration", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "needs Python 3.10+" in err and "Traceback" not in err
    assert not out.exists()


def test_series_file_names_name_what_acts_on_the_run():
    from dataclasses import asdict

    from experiments.rdtcp_figures import series_name
    assert series_name(asdict(RunSpec("rdtcp", swaps=15, interval=8.0, seed=2))) == \
        "rdtcp_k3_swaps15_every8s_span0_seed2.csv"
    assert series_name(asdict(RunSpec("sack", injection="altpath", level=0.02))) == \
        "sack_altpath0.02_seed1.csv"                      # no k, no swap interval
    assert series_name(asdict(RunSpec("dsack", swaps=0))) == "dsack_noreordering_seed1.csv"
