"""The figures' styling: one colour and marker per sender in every figure, the paper's stars in
their sender's colour and named, error bars only where a point has an sd, and titles that say
what the bars are and how long the transfers were."""

import matplotlib.colors as mcolors
import pytest

from experiments.runner.plots import sender_style
from experiments.runner.spec import SENDERS
from experiments.studies.rdtcp.plots import (FIGURES, K_STUDY_PAPER_STAR, injection_figure,
                                             k_study_figure, plot_all, swap_figure)
from experiments.studies.rdtcp.report import aggregate, aggregate_all, k_study
from experiments.studies.rdtcp.scenario import PAPER, VARIANTS
from experiments.studies.rrtcp.evaluation import PAPER_NAMES

SWAPS = {0: 600_000, 5: 590_000, 15: 580_000, 30: 570_000}


def _rows(variants=VARIANTS, *, zero_seeds=2, intervals=(1.0, 8.0)):
    rows = []
    for n, variant in enumerate(variants):
        for swaps, tput in SWAPS.items():
            for interval in (intervals[:1] if swaps == 0 else intervals):
                for seed in range(1, (zero_seeds if swaps == 0 else 2) + 1):
                    rows.append({"variant": variant, "swaps": swaps, "interval": interval,
                                 "seed": seed, "injection": "swap", "level": 0.0,
                                 "throughput_Bps": tput - 1000 * n + 50 * seed})
    return rows


def _curves(ax):
    """{legend label: (colour, marker)} of the figure's curves and stars."""
    return {line.get_label(): (mcolors.to_hex(line.get_color()), line.get_marker())
            for line in ax.get_lines() if not line.get_label().startswith("_")}


def _figure(name, points, **kw):
    title, variants = FIGURES[name]
    return swap_figure(points, variants, [1.0, 8.0], title, **kw)


def test_every_sender_has_its_own_colour_and_marker():
    styles = [sender_style(v) for v in VARIANTS]
    assert len({c for c, _ in styles}) == len(VARIANTS)
    assert len({m for _, m in styles}) == len(VARIANTS)


def test_every_registered_sender_has_a_style_of_its_own():
    # every sender a figure can draw (the registry), and [RRTCP]'s 14 (drawn together in its
    # figures) each in a colour of its own
    styles = {v: sender_style(v) for v in SENDERS}
    assert len(set(styles.values())) == len(SENDERS)
    rr = ("sack", "dsack", "rrtcp-fa", "rrtcp-fa-rtx", "rrtcp", "rrtcp-rtx", "rrtcp-faes",
          "rrtcp-taes", "rrtcp-hg", "dsack-inc", "dsack-avg", "dsack-ewma", "dsack-timedel",
          "dsack-timeinc")
    assert set(rr) <= set(PAPER_NAMES)
    assert len({mcolors.to_hex(styles[v][0]) for v in rr}) == len(rr)


def test_a_sender_keeps_its_colour_and_marker_in_every_figure():
    points = aggregate(_rows())
    seen: dict[str, set] = {}
    for name in FIGURES:
        for label, style in _curves(_figure(name, points).axes[0]).items():
            if not label.startswith("paper"):
                seen.setdefault(label.split(", every")[0], set()).add(style)
    # SACK in Figs. 1 and 3, RD-TCP in Figs. 2, 3 and 4: one style each, its sender_style
    assert seen["TCP SACK"] == {(mcolors.to_hex(sender_style("sack")[0]), "o")}
    assert seen["RD-TCP (k=3)"] == {(mcolors.to_hex(sender_style("rdtcp")[0]),
                                     sender_style("rdtcp")[1])}
    assert all(len(styles) == 1 for styles in seen.values()), seen


def test_the_papers_stars_take_their_senders_colour_and_are_named():
    ax = _figure("fig4_dsack_vs_rdtcp.png", aggregate(_rows())).axes[0]
    stars = {label: colour for label, (colour, marker) in _curves(ax).items() if marker == "*"}
    # Fig. 4: the paper's DSACK and RD-TCP; the BL schemes are ours, so no stars of their own
    assert stars == {
        "paper: TCP using DSACK, 15 swaps every 1 s (600,600 B/s)":
            mcolors.to_hex(sender_style("dsack")[0]),
        "paper: RD-TCP (k=3), 15 swaps every 1 s (607,440 B/s)":
            mcolors.to_hex(sender_style("rdtcp")[0])}
    # no legend (it took 40 % of the figure): each star's number is written beside it in its
    # sender's colour, and each sender named at its curve's end
    assert ax.get_legend() is None
    texts = {t.get_text(): mcolors.to_hex(t.get_color()) for t in ax.texts}
    assert texts["[RDTCP]: TCP using DSACK 600,600"] == mcolors.to_hex(sender_style("dsack")[0])
    assert texts["RD-TCP (k=3)"] == mcolors.to_hex(sender_style("rdtcp")[0])
    star = [line for line in ax.get_lines() if line.get_label().startswith("paper: RD-TCP")][0]
    assert list(star.get_xydata()[0]) == [15, PAPER[("rdtcp", 15)]]


def _bars(ax):
    """The error bars drawn: (x, length) per bar."""
    out = []
    for container in ax.containers:
        for segment in container.lines[2][0].get_segments():
            out.append((segment[0][0], abs(segment[1][1] - segment[0][1])))
    return sorted(out)


def test_a_point_from_one_seed_gets_no_error_bar():
    points = aggregate(_rows(("sack",), zero_seeds=1))
    ax = _figure("fig1_sack.png", points).axes[0]
    bars = _bars(ax)
    assert [x for x, _ in bars] == [5, 5, 15, 15, 30, 30]      # none at zero swaps (n = 1)
    assert all(length == pytest.approx(2 * 50 / 2 ** 0.5) for _, length in bars)  # ± sd of 2
    # and the zero-swap mean is still drawn, on both intervals' curves
    assert all(line.get_xdata()[0] == 0 for line in ax.get_lines()
               if line.get_label().startswith("TCP SACK"))


def test_the_figure_says_what_the_bars_are_and_how_long_the_transfers():
    points = aggregate(_rows(("sack", "rdtcp"), zero_seeds=1))
    ax = _figure("fig3_sack_vs_rdtcp.png", points, duration=60.0).axes[0]
    notes = " ".join(t.get_text() for t in ax.texts)
    assert "mean ± sample sd over n = 1-2 seeds per point (n = 1: no bar)" in notes
    assert "60 s transfers" in notes
    assert "every 1 s (solid, filled markers), 8 s (dashed, open markers)" in notes
    assert "swaps asked per interval" in ax.get_xlabel()
    assert "bytes/s" in ax.get_ylabel()


def test_injection_and_k_study_figures_follow_the_same_rules():
    rows = _rows(("sack", "rdtcp"), zero_seeds=1)
    for variant in ("sack", "rdtcp"):
        for seed in (1, 2):
            rows.append({"variant": variant, "swaps": 0, "interval": 1.0, "seed": seed,
                         "injection": "altpath", "level": 0.05,
                         "throughput_Bps": 590_000.0 + seed})
    ax = injection_figure(aggregate(rows), duration=60.0).axes[0]
    curves = _curves(ax)
    assert curves["TCP SACK, altpath"] == (mcolors.to_hex(sender_style("sack")[0]), "o")
    assert [x for x, _ in _bars(ax)] == [5, 5]        # the level's two seeds; no bar at 0 %
    rows += [dict(r, k=6) for r in rows if r["variant"] == "rdtcp" and r["swaps"] == 15
             and r["interval"] == 1.0 and r["seed"] == 1]
    study = k_study(aggregate_all(rows), swaps=15, interval=1.0)
    ax = k_study_figure(study, duration=60.0).axes[0]
    assert [x for x, _ in _bars(ax)] == [3]           # k = 6 ran one seed
    star = [c for label, (c, m) in _curves(ax).items() if m == "*"]
    assert star == [mcolors.to_hex(K_STUDY_PAPER_STAR["color"])]


def test_plot_all_writes_the_figures_with_one_seed_points(tmp_path):
    points = aggregate(_rows(zero_seeds=1))
    written = plot_all(points, tmp_path, duration=60.0)
    assert written == list(FIGURES)
    for name in written:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_k_studys_paper_star_cannot_be_taken_for_a_curve():
    """Fig. 6's curves are all RD-TCP, coloured by swap span: the paper's point is a star of a
    colour and marker no curve has (not RD-TCP's red, which the 'anywhere' curve has), and the
    legend says what it is."""
    from experiments.studies.rdtcp.plots import K_STUDY_SPAN_STYLES
    rows = []
    for span in (0, 5, 3, 7):
        for k in (0, 3, 6):
            rows.append({"variant": "rdtcp", "swaps": 15, "interval": 1.0, "seed": 1,
                         "injection": "swap", "level": 0.0, "k": k, "swap_span": span,
                         "throughput_Bps": 500_000.0 + 10_000 * k + span})
    rows.append({"variant": "rdtcp", "swaps": 0, "interval": 1.0, "seed": 1, "injection": "swap",
                 "level": 0.0, "throughput_Bps": 600_000.0})
    ax = k_study_figure(k_study(aggregate_all(rows), swaps=15, interval=1.0)).axes[0]
    curves = _curves(ax)
    stars = {label: style for label, style in curves.items() if label.startswith("paper:")}
    assert list(stars) == ["paper: RD-TCP, k = 3, 15 swaps every 1 s (607,440 / 607,500 B/s)"]
    (star_colour, star_marker), = stars.values()
    drawn = {style for label, style in curves.items() if "swap" in label and label not in stars}
    assert len(drawn) == 4                                    # one curve per span
    assert star_colour not in {c for c, _ in drawn} and star_marker not in {m for _, m in drawn}
    assert star_colour == mcolors.to_hex(K_STUDY_PAPER_STAR["color"]) != \
        mcolors.to_hex(sender_style("rdtcp")[0])
    assert {mcolors.to_hex(c) for _, _, c in K_STUDY_SPAN_STYLES} == {c for c, _ in drawn}
    star = [line for line in ax.get_lines() if line.get_label() in stars][0]
    assert star.get_linestyle() == "None"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert list(stars)[0] in legend


def test_the_undo_figure_is_drawn_only_when_eifel_ran(tmp_path):
    drawn = {}
    for name, variants in (("without", ("sack", "dsack", "rdtcp")),
                           ("with", ("sack", "dsack", "eifel"))):
        (tmp_path / name).mkdir()
        drawn[name] = plot_all(aggregate(_rows(variants)), tmp_path / name)
    assert "fig7_undo.png" not in drawn["without"]      # it would repeat Figs. 1 and 4
    assert "fig7_undo.png" in drawn["with"] and (tmp_path / "with" / "fig7_undo.png").exists()
    # Fig. 4 compares DSACK with RD-TCP: without RD-TCP its title would name what is not there
    assert "fig4_dsack_vs_rdtcp.png" in drawn["without"]
    assert "fig4_dsack_vs_rdtcp.png" not in drawn["with"]


def test_the_delay_series_gets_a_figure_of_its_own_with_every_sender(tmp_path):
    from experiments.studies.rdtcp.plots import delay_figure
    rows = _rows(("sack", "rack"), zero_seeds=1)
    for variant in ("sack", "rack"):
        for level, tput in ((0.01, 300_000.0), (0.05, 200_000.0)):
            rows.append({"variant": variant, "swaps": 0, "interval": 1.0, "seed": 1,
                         "injection": "delay", "level": level, "throughput_Bps": tput})
    points = aggregate(rows)
    curves = _curves(delay_figure(points, duration=60.0).axes[0])
    assert set(curves) == {"TCP SACK", "TCP SACK with RACK-TLP (time-based, RFC 8985)"}
    written = plot_all(points, tmp_path, duration=60.0)
    assert "fig9_delay.png" in written and "fig5_injection.png" not in written
