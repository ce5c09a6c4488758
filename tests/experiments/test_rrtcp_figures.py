"""RR-TCP's evaluation ([RRTCP] §5) as a sweep: every figure's runs built once, the metrics read
off the rows, [RRTCP]'s statements checked against them (ok, not ok, not run), and the driver
writing every figure and table, resumably; the §5.7 sweep's conditions and its best-sender
table."""

import json
from dataclasses import asdict, replace

import pytest

from experiments.rrtcp_figures import MODES, main, series_name
from experiments.runner.journal import scan_journal
from experiments.runner.spec import RunSpec
from experiments.studies.rrtcp.checks import View, checks_of
from experiments.studies.rrtcp.evaluation import (ALL_FIGURES, DISTRIBUTIONS, RrConfig, base_spec,
                                                  build_specs, ideal_key, panels, point_key,
                                                  point_keys, tables, traces)
from experiments.studies.rrtcp.report import points_of, run_metrics
from experiments.studies.rrtcp.sweep57 import (best_table, conditions, sweep_checks, sweep_markdown,
                                               sweep_specs)
from hosts.tcp.variants import VARIANTS

QUICK = MODES["quick"]


def test_full_mode_is_000s_runs_and_both_modes_cover_every_figure_and_table():
    assert MODES["full"].duration == 1000.0 and MODES["full"].seeds == 5    # [RRTCP] §5
    for mode in MODES.values():
        assert mode.figures == ALL_FIGURES
        drawn = {p.number.rstrip("abc") for p in panels(mode)} | {t.number for t in traces(mode)}
        drawn |= {"t" + t.number for t in tables(mode)}
        assert drawn == set(ALL_FIGURES)


def test_each_point_runs_once_per_seed_and_shared_setups_share_runs():
    specs = build_specs(QUICK)
    assert len(specs) == len(set(specs))
    keys = point_keys(QUICK)
    nodelay = base_spec(QUICK, "sack")
    assert nodelay in keys and [s for s in specs if point_key(s) == nodelay] == [nodelay]
    randomised = [k for k in keys if k.level or k.drop or k.bursts or k.ack_level]
    assert all(sum(point_key(s) == k for s in specs) == QUICK.seeds for k in randomised)
    # Fig. 15's normal curve is Fig. 4's runs; Fig. 8's fixed FA at 90 % is DSACK-FA's own
    assert DISTRIBUTIONS["normal"] == "normal:0.025,0.008"
    fig15 = {key for p in panels(QUICK) if p.number == "15" for c in p.curves
             if c.style == "normal" for _, key in c.points}
    fig4 = {key for p in panels(QUICK) if p.number == "4" for c in p.curves
            for _, key in c.points}
    assert {replace(k, delay="") for k in fig15} <= fig4 | {replace(k, delay="") for k in fig4}
    fa90 = [key for p in panels(QUICK) if p.number == "8c" for c in p.curves
            if c.variant == "rrtcp-fa" for x, key in c.points if x == 90]
    assert fa90 and fa90[0].fa_ratio == 0.0
    assert all(s.scenario == "rrtcp" and s.max_cwnd_segments == 50 for s in specs)


def test_figures_use_000s_setups():
    by_number = {p.number: p for p in panels(QUICK)}
    key = by_number["10"].curves[0].points[-1][1]           # k = 8, P = 200 ms
    assert (key.path_delay, key.level, key.delay) == (0.2, 0.04, "normal:1.6,0.533333")
    key = by_number["7"].curves[0].points[0][1]             # P = 50 ms
    assert (key.level, key.drop, key.delay) == (0.014, 0.006, "uniform:0,0.2")
    key = by_number["16"].curves[0].points[-1][1]
    assert (key.injection, key.level, key.alt_extra_delay) == ("altpath", 0.5, "200ms")
    table4 = {(k.variant, k.bursts) for _, k in tables(QUICK)[1].rows}
    assert table4 == {(v, b) for v in ("dsack-inc", "rrtcp") for b in (0.0, 0.0002)}
    assert ideal_key(key) == base_spec(QUICK, "sack")


def test_variants_restrict_every_figure_but_the_ideal():
    cfg = replace(QUICK, variants=("rrtcp",), figures=("4",))
    assert {s.variant for s in build_specs(cfg)} == {"rrtcp", "sack"}
    assert {s.level for s in build_specs(cfg) if s.variant == "sack"} == {0.0}


def _row(variant, tput, **kw):
    counters = {k: kw.pop(k) for k in list(kw) if k in (
        "fast_retransmits", "timeouts", "segments_sent", "delayed_segments", "delivered_packets",
        "r1_drops_random", "rto_mean_s", "fa_ratio_end", "dupthresh_mean", "fa_ratio_mean")}
    spec = base_spec(QUICK, variant, **kw)
    return {**asdict(spec), "throughput_Bps": tput, "fast_retransmits": 0, "timeouts": 0,
            "segments_sent": 1000, "delayed_segments": 100 if spec.level else 0,
            "delivered_packets": 900, **counters}


def test_metrics_are_000s_measures():
    m = run_metrics(_row("rrtcp", 1000.0, level=0.3, fast_retransmits=5, timeouts=2,
                         segments_sent=2000, delivered_packets=1000))
    assert m["ffr_ratio"] == 5 / 100 and m["timeout_fraction"] == 2 / 2000
    assert m["fr_fraction"] == 5 / 2000 and m["fr_ratio_pct"] == 0.5
    # with a drop a fast retransmit may be true: no false-retransmit ratio
    assert run_metrics(_row("rrtcp", 1.0, level=0.3, r1_drops_random=1))["ffr_ratio"] is None
    points = points_of([_row("sack", 1000.0), _row("rrtcp", 800.0, level=0.3, seed=1),
                        _row("rrtcp", 700.0, level=0.3, seed=2)])
    p = points[base_spec(QUICK, "rrtcp", level=0.3)]
    assert p["n"] == 2 and p["throughput"] == 750.0 and p["relative"] == 0.75
    assert p["throughput_std"] == pytest.approx(70.71, abs=0.01)


def _fig4_rows(ta_at_30: float, fa_ffr: int):
    rows = [_row("sack", 1000.0)]
    for lv, sack, fa, ta in ((0.05, 300.0, 850.0, 900.0), (0.15, 200.0, 800.0, 850.0),
                             (0.30, 100.0, 700.0, ta_at_30)):
        rows += [_row("sack", sack, level=lv, fast_retransmits=40),
                 _row("dsack", sack + 50, level=lv, fast_retransmits=30),
                 _row("rrtcp-fa", fa, level=lv, fast_retransmits=fa_ffr, fa_ratio_end=0.9),
                 _row("rrtcp", ta, level=lv, fast_retransmits=1, fa_ratio_end=0.99)]
    return rows


def _fig4_checks(rows):
    cfg = replace(QUICK, figures=("4", "5"))
    view = View(points_of(rows), panels(cfg), tables(cfg), {})
    return {c.key: c for c in checks_of(view) if c.item.startswith("Fig. 4")
            or c.item.startswith("Fig. 5")}


def test_checks_read_000s_statements_off_the_points():
    checks = _fig4_checks(_fig4_rows(ta_at_30=750.0, fa_ffr=5))
    assert (checks["fig4_ta_71"].direction, checks["fig4_ta_71"].size) == ("-", "ok")
    assert checks["fig5_fa_under_10"].size == "ok"
    assert checks["fig4_dsack_better"].direction == "ok"
    # the senders that did not run: their statements are "not run", not passed
    atop = checks["fig4_ta_rtx_atop"]
    assert (atop.direction, atop.size) == ("-", "not run") and "TA-RTX" in atop.note
    # TA below 71 % and FA retransmitting falsely for 12 % of the delayed packets: both fail
    checks = _fig4_checks(_fig4_rows(ta_at_30=650.0, fa_ffr=12))
    assert checks["fig4_ta_71"].size == "not ok"
    assert checks["fig5_fa_under_10"].size == "not ok"


def test_every_statement_is_listed_even_when_nothing_ran():
    checks = checks_of(View({}, panels(QUICK), tables(QUICK), {}))
    assert len(checks) >= 40
    assert all(c.direction in ("not run", "-") and c.size in ("not run", "-") for c in checks)
    assert all(c.not_run for c in checks)
    items = {c.item for c in checks}
    for item in ("Fig. 1", "Fig. 4", "Fig. 5", "Fig. 6", "Fig. 7", "Fig. 8a", "Fig. 8b",
                 "Fig. 8c", "Fig. 9", "Fig. 10", "Fig. 11", "Fig. 12", "Fig. 13", "Table 3",
                 "Fig. 14", "Fig. 15", "Fig. 16", "Fig. 17", "Fig. 18", "Table 4", "Fig. 19"):
        assert item in items, item


def test_series_names_tell_runs_apart():
    names = {series_name({**asdict(s), "seed": s.seed}) for s in build_specs(QUICK)}
    assert len(names) == len(build_specs(QUICK))


def test_sweep_writes_figures_tables_checks_and_resumes(tmp_path, capsys):
    argv = ["--duration", "4", "--seeds", "1", "--figures", "1,4,5,t3,t4,19",
            "--variants", "sack,rrtcp,dsack,dsack-inc", "--levels", "0.3", "--jobs", "1",
            "--no-progress", "--worker-python", "self", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "| Fig. 4 |" in out and "| Table 4 |" in out
    for name in ("runs.csv", "points.csv", "paper_table.md", "paper_table.csv", "summary.json",
                 "fig01_false_fast_retransmit.png", "fig04_throughput_vs_delayed.png",
                 "fig05_ffr_ratio_vs_delayed.png", "fig19_dupthresh_over_time.png",
                 "table3_mean_rto.md", "table4_bursty_loss.md"):
        assert (tmp_path / name).stat().st_size > 0, name
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed_runs"] == 0
    runs = len(build_specs(replace(QUICK, duration=4.0, seeds=1, figures=("1", "4", "5", "t3",
                                                                           "t4", "19"),
                                   levels=(0.3,), variants=("sack", "rrtcp", "dsack",
                                                            "dsack-inc"))))
    assert summary["runs"] == runs
    assert "| [RRTCP] | ours |" not in (tmp_path / "table4_bursty_loss.md").read_text()
    assert "97184" in (tmp_path / "table4_bursty_loss.md").read_text()
    assert "1.6" in (tmp_path / "table3_mean_rto.md").read_text()
    rows = [r for _, r in scan_journal(tmp_path / "runs.jsonl").lines]
    assert {r["scenario"] for r in rows} == {"rrtcp"}
    assert main(argv + ["--resume"]) == 0
    assert f"{runs} kept from" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--levels", "0"], "--levels: each fraction delayed must be in (0, 1]"),
    (["--levels", "1.5"], "--levels are probabilities in [0, 1]"),
    (["--variants", "vegas"], "vegas"),
    (["--figures", "2"], "unknown 2"),
    (["--seeds", "0"], "--seeds must be >= 1"),
    (["--sweep-57"], "--sweep-57 runs [RRTCP]'s 1000 s runs: it needs --mode full"),
    (["--mode", "full", "--sweep-57", "--sweep-57-conditions", "0"],
     "--sweep-57-conditions must be >= 1"),
    (["--mode", "full", "--sweep-57", "--seeds-per-condition", "0"],
     "--seeds-per-condition must be >= 1"),
    (["--seeds-per-condition", "3"], "--seeds-per-condition is for --sweep-57"),
])
def test_bad_options_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


# ------------------------------------------------------------------------------- §5.7
def test_sweep57_conditions_are_reproducible_and_in_000s_ranges():
    first = conditions(50)
    assert conditions(10) == first[:10]           # a longer sweep extends a shorter one
    for c in first:
        assert 0.05 <= c["path_delay"] <= 0.4 and 0 <= c["drop"] <= 0.09
        assert 0.001 <= c["level"] <= 0.10
        RunSpec("sack", scenario="rrtcp", delay=c["delay"])      # a valid distribution
    kinds = {c["delay"].split(":")[0] for c in first}
    assert kinds == {"normal", "exponential", "hyperexponential", "pareto", "pareto2",
                     "uniform"}
    assert any(c["drop"] == 0 for c in first) and any(c["drop"] > 0.01 for c in first)
    specs = sweep_specs(MODES["full"], 3)
    assert len(specs) == 3 * len({s.variant for s in specs})
    assert {s.variant for s in specs} <= set(VARIANTS)


def test_sweep57_table_counts_the_best_sender_and_its_margins():
    cond = conditions(2)
    rows = []
    for c, tputs in zip(cond, ({"rrtcp-taes": 100.0, "rrtcp-fa": 96.0, "sack": 50.0},
                               {"rrtcp-taes": 97.0, "rrtcp-fa": 100.0, "sack": 40.0})):
        rows += [{**asdict(base_spec(MODES["full"], v, **c)), "throughput_Bps": t}
                 for v, t in tputs.items()]
    per_condition, summary = best_table(rows)
    by = {s["variant"]: s for s in summary}
    assert by["rrtcp-taes"]["best"] == 1 and by["rrtcp-fa"]["best"] == 1
    assert by["rrtcp-taes"]["mean_relative"] == pytest.approx(0.985)
    checks = sweep_checks(per_condition, summary)
    # TAES best; behind by 3 % where it is beaten: under 5 % and under 10 %
    assert [(c.direction, c.size) for c in checks] == [("ok", "-"), ("-", "ok"), ("-", "ok")]
    assert all(c.not_run for c in sweep_checks([], []))


def test_sweep57_a_tie_counts_for_every_sender_in_it_and_is_no_defeat():
    # runs that nothing sets apart are the same run: each tied sender is best there, whatever
    # order the rows come in, and TAES tied with the best is not beaten
    cond = conditions(2)
    tputs = ({"rrtcp-taes": 100.0, "rrtcp": 100.0, "sack": 50.0},
             {"rrtcp-taes": 80.0, "rrtcp": 100.0, "sack": 100.0})
    rows = [{**asdict(base_spec(MODES["full"], v, **c)), "throughput_Bps": t}
            for c, tp in zip(cond, tputs) for v, t in tp.items()]
    for order in (rows, rows[::-1]):
        per_condition, summary = best_table(order)
        by = {s["variant"]: s["best"] for s in summary}
        assert by == {"sack": 1, "rrtcp": 2, "rrtcp-taes": 1}
        assert sorted(c["best"] for c in per_condition) == ["rrtcp+rrtcp-taes", "sack+rrtcp"]
        mostly, every = sweep_checks(per_condition, summary)[1:]
        assert mostly.values["ours"].startswith("conditions TAES is beaten in 1; by under 5 % "
                                                "0"), mostly.values
        assert "largest defeat 0.2" in every.values["ours"] and every.size == "not ok"


def test_sweep57_with_seeds_per_condition_extends_the_one_seed_sweep():
    one, three = sweep_specs(MODES["full"], 2), sweep_specs(MODES["full"], 2, 3)
    assert len(three) == 3 * len(one) and set(one) < set(three)
    assert sorted({s.seed for s in three}) == [1, 2, 3]


def _seeded_rows(tputs_by_condition):
    """Rows of sender -> [throughput per seed] in each of the first conditions."""
    cond = conditions(len(tputs_by_condition))
    return [{**asdict(base_spec(MODES["full"], v, seed=seed, **c)), "throughput_Bps": t}
            for c, tputs in zip(cond, tputs_by_condition) for v, ts in tputs.items()
            for seed, t in enumerate(ts, 1)]


def test_sweep57_judges_the_mean_of_the_seeds_and_gives_their_spread():
    rows = _seeded_rows([{"rrtcp-taes": [100.0, 100.0], "rrtcp-fa": [90.0, 110.0],
                          "sack": [50.0, 50.0]},
                         {"rrtcp-taes": [96.0, 98.0], "rrtcp-fa": [100.0, 100.0],
                          "sack": [40.0, 60.0]}])
    per_condition, summary = best_table(rows)
    first, second = per_condition
    # a tie of the means is a tie: TAES 100 against FA's (90 + 110) / 2
    assert first["best"] == "rrtcp-fa+rrtcp-taes" and first["seeds"] == 2
    assert first["rrtcp-fa_sd"] == pytest.approx(14.142136 / 100) and first["rrtcp-taes_sd"] == 0
    assert second["rrtcp-taes"] == pytest.approx(0.97) and second["best"] == "rrtcp-fa"
    by = {s["variant"]: s for s in summary}
    assert by["rrtcp-fa"]["spread"] == pytest.approx(0.141421 / 2, rel=1e-5)
    assert by["rrtcp-taes"]["seeds"] == 2 and by["sack"]["mean_relative"] == pytest.approx(0.5)
    checks = sweep_checks(per_condition, summary)
    # TAES 3 % behind FA in the second: beyond twice the standard error (TAES's runs 96 and 98,
    # FA's both 100: sd 1.41 %, error 1 %)
    text = sweep_markdown(per_condition, summary, checks, 1000.0)
    mostly = next(line for line in text.splitlines() if "mostly < 5%" in line)
    assert "beyond twice their standard error over 2 seeds" in mostly, mostly
    assert "every sender 2 times each (seeds 1-2;" in text
    assert "| mean relative | worst relative | spread |" in text
    assert "| DSACK-TAES (`rrtcp-taes`) | 1 of 2 | 0.9850 | 0.9700 | 0.0071 |" in text


def test_sweep57_leaves_out_a_condition_missing_a_seeds_run():
    rows = _seeded_rows([{"rrtcp-taes": [100.0, 100.0], "sack": [50.0, 50.0]},
                         {"rrtcp-taes": [100.0, 100.0], "sack": [50.0, 50.0]}])
    rows[-1] = {**rows[-1], "error": "boom"}        # sack's seed 2 in the second condition
    rows.pop(-3)                                    # TAES's seed 2 there: never ran
    per_condition, summary = best_table(rows)
    assert len(per_condition) == 1 and summary[0]["incomplete_conditions"] == 1


def test_sweep57_compares_only_conditions_where_every_sender_ran():
    # a failed run must not make another sender best in its condition
    cond = conditions(2)
    rows = [{**asdict(base_spec(MODES["full"], v, **cond[0])), "throughput_Bps": t}
            for v, t in (("rrtcp-taes", 100.0), ("sack", 50.0))]
    rows += [{**asdict(base_spec(MODES["full"], "rrtcp-taes", **cond[1])), "error": "boom"},
             {**asdict(base_spec(MODES["full"], "sack", **cond[1])), "throughput_Bps": 80.0}]
    per_condition, summary = best_table(rows)
    assert len(per_condition) == 1 and per_condition[0]["best"] == "rrtcp-taes"
    by = {s["variant"]: s for s in summary}
    assert by["sack"]["best"] == 0 and by["sack"]["conditions"] == 1
    assert by["sack"]["incomplete_conditions"] == 1
    text = sweep_markdown(per_condition, summary, sweep_checks(per_condition, summary), 1000.0)
    assert "1 condition(s) where a sender's run failed are left out" in text


def test_sweep57_runs_resumably_into_its_own_folder_and_the_figures_report_it(tmp_path, capsys):
    argv = ["--mode", "full", "--sweep-57", "--sweep-57-conditions", "2", "--duration", "3",
            "--variants", "sack,rrtcp,rrtcp-taes", "--jobs", "1", "--no-progress",
            "--worker-python", "self", "--out", str(tmp_path)]
    assert main(argv) == 0
    sweep = tmp_path / "sweep57"
    assert "| DSACK-TAES (`rrtcp-taes`) |" in (sweep / "sweep57.md").read_text()
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["runs"] == 6 and not any(c["direction"] == "not run"
                                            for c in summary["statements"])
    assert main(argv + ["--resume"]) == 0
    assert "6 kept from" in capsys.readouterr().err
    # the figures' paper_table lists the sweep's three statements with their verdicts
    assert main(["--duration", "2", "--seeds", "1", "--figures", "1", "--jobs", "1",
                 "--no-progress", "--worker-python", "self", "--out", str(tmp_path)]) == 0
    checks = json.loads((tmp_path / "summary.json").read_text())["statements"]
    sweep_checks = [c for c in checks if c["item"] == "§5.7 sweep"]
    assert len(sweep_checks) == 3 and not any(c["direction"] == "not run" or
                                              c["size"] == "not run" for c in sweep_checks)
    assert "| §5.7 sweep |" in (tmp_path / "paper_table.md").read_text()


def test_sweep57_seeds_per_condition_runs_each_sender_n_times(tmp_path):
    argv = ["--mode", "full", "--sweep-57", "--sweep-57-conditions", "1", "--duration", "2",
            "--variants", "sack,rrtcp-taes", "--seeds-per-condition", "2", "--jobs", "1",
            "--no-progress", "--worker-python", "self", "--out", str(tmp_path)]
    assert main(argv) == 0
    sweep = tmp_path / "sweep57"
    assert sorted((r["variant"], r["seed"]) for r in map(json.loads, (
        sweep / "runs.jsonl").read_text().splitlines())) == [
        ("rrtcp-taes", 1), ("rrtcp-taes", 2), ("sack", 1), ("sack", 2)]
    assert "every sender 2 times each" in (sweep / "sweep57.md").read_text()
    header = (sweep / "sweep57.csv").read_text().splitlines()[0].split(",")
    assert {"seeds", "sack_sd", "rrtcp-taes_sd"} <= set(header)
