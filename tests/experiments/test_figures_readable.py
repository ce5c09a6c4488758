"""Every driver's figures, rendered from a small run, read as a paper's do: no legend larger than
a quarter of its axes (or covering more than that of one), no two curves of one axes drawn with
the same colour, line style, marker and fill (``experiments.runner.plots.readability_problems``,
from matplotlib's artists as each figure is saved)."""

import pytest
from matplotlib.figure import Figure

from experiments import (dbce_tables, frto_tables, netreno_tables, one_run, rdtcp_figures,
                         rrtcp_figures)
from experiments.runner.plots import readability_problems

RUNS = {
    "rdtcp": (rdtcp_figures, ["--variants", "sack,dsack,dsack-inc,rdtcp,rdtcp-measured-undo,"
                              "eifel,rack,rrtcp", "--swaps", "0,15", "--interval", "1,8",
                              "--seeds", "2", "--duration", "4", "--k-values", "0,3",
                              "--injections", "altpath,delay", "--levels", "0.02",
                              "--legacy", "r1,r2", "--legacy-swaps", "0"]),
    "rrtcp": (rrtcp_figures, ["--mode", "quick", "--duration", "3", "--seeds", "2"]),
    "frto": (frto_tables, ["--mode", "quick", "--seeds", "2", "--fairness-runs", "2",
                           "--levels", "0.05"]),
    "netreno": (netreno_tables, ["--mode", "quick", "--runs", "1", "--duration", "2",
                                 "--lab-duration", "5", "--trace-runs", "1",
                                 "--trace-levels", "0.05"]),
    "dbce": (dbce_tables, ["--mode", "quick", "--duration", "20", "--networks",
                           "dbce-shallow,dbce-cross", "--reorderings", "none,recirc"]),
    "one_run": (one_run, ["--variant", "rdtcp", "--swaps", "15", "--duration", "5",
                          "--series", "0.5", "--pcap"]),
}


# figures a driver's small run must draw besides (the time-sequence diagrams of one traced
# connection each)
EXPECTED = {"netreno": {"fig2_small_window.png", "fig3_lost_retransmission.png",
                        "fig4_ack_clock.png", "fig5_back_to_back.png"},
            "dbce": {"fig5_1_loss_rate.png", "fig5_3_lead.png", "fig5_5_best_case.png",
                     "fig3_5_unexplained.png", "fig4_2_detection.png", "fig4_3_best_case.png",
                     "fig4_10_smart.png", "fig4_11_smart_vs_best.png"}}


@pytest.fixture(scope="module", params=sorted(RUNS))
def figures(request, tmp_path_factory, monkeypatch_module):
    """{file name: readability problems} of every figure the driver saved on a small run."""
    module, argv = RUNS[request.param]
    found: dict[str, list[str]] = {}
    real = Figure.savefig

    def savefig(fig, fname, *args, **kwargs):
        real(fig, fname, *args, **kwargs)
        found[str(fname).rsplit("/", 1)[-1]] = readability_problems(fig)

    monkeypatch_module.setattr(Figure, "savefig", savefig)
    out = tmp_path_factory.mktemp(request.param)
    extra = [] if module is one_run else ["--jobs", "2", "--no-progress"]
    assert module.main(argv + extra + ["--out", str(out)]) == 0
    monkeypatch_module.setattr(Figure, "savefig", real)
    return request.param, found


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.slow             # a small run of every driver: minutes (make test-slow)
def test_every_figure_of_every_driver_is_readable(figures):
    driver, found = figures
    assert found, f"{driver} saved no figure"
    assert EXPECTED.get(driver, set()) <= set(found), sorted(found)
    problems = {name: p for name, p in found.items() if p}
    assert not problems, problems


def test_the_check_finds_a_large_legend_and_curves_drawn_alike():
    import matplotlib.pyplot as plt
    fig, (ax, other) = plt.subplots(1, 2, figsize=(8, 3))
    for i in range(12):
        ax.plot([0, 1], [i, i + 1], color="C0" if i < 2 else f"C{i % 10}",
                ls="-" if i < 2 else ":", marker="o" if i < 2 else "s",
                label=f"a long legend entry, curve {i}")
    ax.legend(fontsize=9)
    other.plot([0, 1], [0, 1], "o-", color="C1", label="alone")
    other.legend(fontsize=7)
    found = readability_problems(fig)
    plt.close(fig)
    assert any("legend of" in p for p in found), found
    assert any("'a long legend entry, curve 0' and 'a long legend entry, curve 1' drawn alike"
               in p for p in found), found
    # the other panel's small legend and lone curve are fine, and so is the same sender's
    # style repeated in another panel
    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
    for ax in (left, right):
        ax.plot([0, 1], [0, 1], "o-", color="C1", label="SACK")
        ax.plot([0, 1], [1, 0], "s--", color="C2", label="RD-TCP")
        ax.legend(fontsize=7)
    assert readability_problems(fig) == []
    plt.close(fig)
