"""--ns2 on the figure drivers: the runs of the senders ns-2 has, run in ns-2 itself beside
ours, with ns-2's curves in the figures and a column ns-2 in paper_table.md
(experiments/ns2/beside.py)."""

from __future__ import annotations

import csv
import json

import pytest

from experiments.ns2 import beside as beside_module
from experiments.ns2 import install
from experiments.ns2.beside import LACKS, Ns2Beside, plan
from experiments.ns2.install import Ns2Error
from experiments.rdtcp_figures import main as rdtcp_main
from experiments.runner.cli import UsageError
from experiments.runner.plots import readability_problems
from experiments.runner.spec import RunSpec
from experiments.runner.verdicts import OK, Statement, beside
from experiments.studies.rdtcp.plots import NS2_LABEL, swap_figure

NO_NS = None if install.ns_binary() else "ns-2 is not installed (apt-get install ns2)"


def test_the_plan_sorts_specs_into_ns2s_runs_the_senders_it_lacks_and_what_it_cannot_express():
    specs = [RunSpec("sack", swaps=15), RunSpec("sack", swaps=15, sample_step=0.5),
             RunSpec("rdtcp", swaps=15), RunSpec("sack", injection="altpath", level=0.02)]
    p = plan(specs)
    assert [r.spec for r in p.runs] == [RunSpec("sack", swaps=15)]     # series: ours only
    assert p.lacking == {"rdtcp": LACKS}
    [(reason, n)] = p.inexpressible.items()
    assert n == 1 and "altpath" in reason
    assert "1 runs of sack" in p.describe() and "rdtcp" in p.describe()


def test_without_ns_the_flag_is_a_one_line_error_before_anything_runs(monkeypatch, tmp_path,
                                                                      capsys):
    monkeypatch.setattr(install, "NS", "ns-not-installed-here")
    out = tmp_path / "out"
    assert rdtcp_main(["--mode", "quick", "--ns2", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --ns2: ns-2 is not installed (ns-not-installed-here is not "
                          "on PATH") and "\n" not in err
    assert not out.exists()


def test_a_failing_ns_after_our_runs_is_one_line_and_writes_no_report(monkeypatch, tmp_path):
    def fails(run, workdir):
        raise Ns2Error(f"ns failed (status 1): invalid command name; script: {workdir}/x.tcl")
    monkeypatch.setattr(beside_module, "run_ns2", fails)
    wrote = []
    write = Ns2Beside(plan([RunSpec("sack")]), progress=False).around(
        lambda *a, **kw: wrote.append(a))
    with pytest.raises(UsageError, match=r"^ns failed .*x\.tcl \(no report written; our runs "
                                         r"are kept in .*runs\.jsonl: --resume reuses them\)$"):
        write([], None, tmp_path, mode="quick")
    assert wrote == []


def test_another_simulators_statements_sit_beside_ours_with_their_verdicts():
    ours = [Statement("a", "§1", "x", OK, OK, values={"paper": "1", "ours": "A 1"},
                      numbers={"A": 1.0}),
            Statement("b", "§2", "y", OK, "-", values={"paper": "", "ours": "B 2"},
                      numbers={"B": 2.0}),
            Statement("c", "§3", "z", "not run", "-", note="not run: no C",
                      values={"paper": "", "ours": "-"}, numbers={"C": None})]
    theirs = [Statement("a", "§1", "x", OK, "not ok", values={"paper": "1", "ours": "A 3"},
                        numbers={"A": 3.0}),
              Statement("b", "§2", "y", "not run", "-", note="not run: no B",
                        values={"paper": "", "ours": "-"}, numbers={"B": None}),
              Statement("c", "§3", "z", "not run", "-", note="not run: no C",
                        values={"paper": "", "ours": "-"}, numbers={"C": None})]
    beside(ours, theirs, "ns-2", lacking="ns-2 has no rdtcp")
    assert ours[0].values["ns-2"] == "A 3 (direction ok, size not ok)"
    assert ours[0].direction == OK and ours[0].size == OK          # our verdicts stay
    assert ours[1].values["ns-2"] == "— (no B; ns-2 has no rdtcp)"  # ours measured it
    assert ours[2].values["ns-2"] == "— (no C)"                     # neither did


def test_ns2s_curve_is_drawn_beside_ours_in_its_own_labelled_style():
    mean = {"std": None, "n": 1}
    ours = {("sack", "swap", None, 0, 0.0): {**mean, "mean": 600_000.0},
            ("sack", "swap", 1.0, 15, 0.0): {**mean, "mean": 500_000.0}}
    ns2 = {("sack", "swap", None, 0, 0.0): {**mean, "mean": 590_000.0},
           ("sack", "swap", 1.0, 15, 0.0): {**mean, "mean": 440_000.0}}
    fig = swap_figure(ours, ("sack",), [1.0], "Fig. 1", duration=60.0, ns2_points=ns2)
    lines = {str(ln.get_label()): ln for ln in fig.axes[0].get_lines()}
    theirs = lines[f"{NS2_LABEL}TCP SACK, every 1 s"]
    mine = lines["TCP SACK, every 1 s"]
    assert list(theirs.get_ydata()) == [590_000.0, 440_000.0]
    assert theirs.get_marker() != mine.get_marker() and theirs.get_linewidth() > \
        mine.get_linewidth()
    assert readability_problems(fig) == []


@pytest.fixture(scope="module")
def ns2_quick(tmp_path_factory):
    if NO_NS:
        pytest.skip(NO_NS)
    out = tmp_path_factory.mktemp("ns2quick")
    status = rdtcp_main(["--mode", "quick", "--seeds", "1", "--variants", "sack,rdtcp",
                         "--swaps", "0,15", "--interval", "1", "--duration", "10",
                         "--no-k-study", "--no-injections", "--jobs", "2", "--no-progress",
                         "--ns2", "--out", str(out)])
    assert status == 0
    return out


def test_the_flag_puts_ns2_beside_paper_and_ours_in_paper_table(ns2_quick):
    text = (ns2_quick / "paper_table.md").read_text()
    head = next(ln for ln in text.splitlines() if ln.startswith("| scenario"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    assert cols.index("paper (B/s)") < cols.index("ns-2 (B/s, mean ± sd, n)") < \
        cols.index("ours (B/s, mean ± sd, n)")
    rows = {(r["scenario"], r["variant"]): r
            for r in csv.DictReader(open(ns2_quick / "paper_table.csv"))}
    sack = rows[("15 swaps every 1 s", "sack")]
    assert float(sack["ns2_Bps"]) > 0 and float(sack["ours_Bps"]) > 0
    assert sack["ns2_size"] in ("ok", "not ok") and sack["size"] in ("ok", "not ok")
    assert rows[("15 swaps every 1 s", "rdtcp")]["ns2_note"] == LACKS
    assert f"— ({LACKS})" in text
    stmt_head = next(ln for ln in text.splitlines() if ln.startswith("| # |"))
    assert "| [RDTCP] | ns-2 | ours | direction | size |" in stmt_head


def test_the_flag_adds_ns2s_curve_and_rows_with_their_engine(ns2_quick):
    summary = json.loads((ns2_quick / "summary.json").read_text())
    assert "fig1_sack.png" in summary["ns2"]["figures"]
    assert (ns2_quick / "fig1_sack.png").exists()
    assert summary["ns2"]["senders"] == {"sack": "Agent/TCP/Sack1"}
    runs = list(csv.DictReader(open(ns2_quick / "runs.csv")))
    engines = {(r["engine"], r["variant"]) for r in runs}
    assert engines == {("ours", "sack"), ("ours", "rdtcp"), ("ns2", "sack")}
    assert len(list((ns2_quick / "ns2").glob("*.tcl"))) == 2      # 0 and 15 swaps, seed 1


def test_rrtcp_figures_refuses_the_flag_without_ns_and_with_the_sweep(monkeypatch, tmp_path,
                                                                     capsys):
    from experiments.rrtcp_figures import main as rrtcp_main
    with pytest.raises(SystemExit) as exc:
        rrtcp_main(["--mode", "full", "--sweep-57", "--ns2", "--out", str(tmp_path / "s")])
    assert exc.value.code == 2 and "--ns2 draws ns-2 beside the figures" in \
        capsys.readouterr().err
    monkeypatch.setattr(install, "NS", "ns-not-installed-here")
    assert rrtcp_main(["--figures", "4", "--ns2", "--out", str(tmp_path / "o"),
                       "--no-progress"]) == 2
    assert capsys.readouterr().err.startswith("error: --ns2: ns-2 is not installed")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow          # a quick sweep of Fig. 4 (minutes of CPU with its gateway)
def test_rrtcp_figures_flag_draws_ns2s_sack_beside_ours_and_adds_its_column(tmp_path):
    if NO_NS:
        pytest.skip(NO_NS)
    from experiments.rrtcp_figures import main as rrtcp_main
    out = tmp_path / "rr"
    assert rrtcp_main(["--mode", "quick", "--figures", "4", "--variants", "sack,rrtcp",
                       "--levels", "0.05,0.3", "--seeds", "1", "--duration", "20",
                       "--jobs", "2", "--no-progress", "--ns2", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ns2"]["figures"] == ["fig04_throughput_vs_delayed.png"]
    assert summary["ns2"]["lacking"] == {"rrtcp": LACKS}
    text = (out / "paper_table.md").read_text()
    assert "| [RRTCP] | ns-2 | ours | direction | size |" in text
    fig4 = next(ln for ln in text.splitlines() if "SACK-NODELAY" in ln and "ns-2" not in ln
                and ln.startswith("| "))
    assert fig4.count("SACK {5%") == 2          # ns-2's curve and ours, side by side
    assert "ns-2 has no rrtcp" in text
    runs = list(csv.DictReader(open(out / "runs.csv")))
    assert {r["engine"] for r in runs if r["variant"] == "sack"} == {"ours", "ns2"}
    assert {r["engine"] for r in runs if r["variant"] == "rrtcp"} == {"ours"}
