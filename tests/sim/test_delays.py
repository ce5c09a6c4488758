"""sim.delays: [RRTCP]'s delay distributions (§5.5) parsed by name, drawn from a seeded stream with
the mean each is given, and bad parameters refused by name."""

import math
import random
import statistics

import pytest

from sim.delays import COV_MAX, DEFAULT_SHAPES, Distribution, DistributionError, normal, parse


def _draws(text: str, n: int = 40_000, seed: int = 5) -> list[float]:
    dist, rng = parse(text), random.Random(seed)
    return [dist.draw(rng) for _ in range(n)]


@pytest.mark.parametrize("text, canonical", [
    ("normal:0.025,0.008", "normal:0.025,0.008"),
    ("exponential:0.025", "exponential:0.025"),
    ("hyperexponential:0.025", "hyperexponential:0.025,4"),      # ns-2's default COV
    ("pareto:0.025", "pareto:0.025,1.5"),                        # ns-2's default shape
    ("pareto2:0.025", "pareto2:0.025,1.2"),
    ("uniform:0,0.05", "uniform:0,0.05"),
    (" Constant: 0.1 ", "constant:0.1"),
])
def test_parse_gives_one_canonical_spelling_that_parses_back(text, canonical):
    dist = parse(text)
    assert str(dist) == canonical
    assert parse(str(dist)) == dist


def test_draws_have_the_mean_each_distribution_is_given():
    assert statistics.fmean(_draws("exponential:0.025")) == pytest.approx(0.025, rel=0.03)
    assert statistics.fmean(_draws("uniform:0,0.05")) == pytest.approx(0.025, rel=0.02)
    assert statistics.fmean(_draws("constant:0.1", 10)) == 0.1
    # N(25 ms, 8 ms) clipped at 0 (3 sd away: the clip barely moves the mean)
    normal_draws = _draws("normal:0.025,0.008")
    assert min(normal_draws) >= 0 and statistics.fmean(normal_draws) == pytest.approx(0.025,
                                                                                        rel=0.01)
    # hyperexponential: two exponential phases, mean and coefficient of variation as asked
    h = _draws("hyperexponential:0.025,2", n=200_000)
    assert statistics.fmean(h) == pytest.approx(0.025, rel=0.03)
    assert statistics.pstdev(h) / statistics.fmean(h) == pytest.approx(2.0, rel=0.05)


def test_pareto_draws_follow_their_scale_and_shape():
    # heavy tails (infinite variance at these shapes): check the medians, which converge
    p = _draws("pareto:0.025,1.5")
    scale = 0.025 * 0.5 / 1.5
    assert min(p) >= scale
    assert statistics.median(p) == pytest.approx(scale * 2 ** (1 / 1.5), rel=0.03)
    p2 = _draws("pareto2:0.025,1.2")
    lomax_scale = 0.025 * 0.2
    assert min(p2) >= 0
    assert statistics.median(p2) == pytest.approx(lomax_scale * (2 ** (1 / 1.2) - 1), rel=0.03)


def test_a_seed_fixes_every_draw():
    assert _draws("pareto2:0.025", 100, seed=9) == _draws("pareto2:0.025", 100, seed=9)
    assert _draws("pareto2:0.025", 100, seed=9) != _draws("pareto2:0.025", 100, seed=10)


def test_normal_helper_is_the_parsed_distribution():
    assert normal(0.025, 0.008) == parse("normal:0.025,0.008")
    assert normal(0.025, 0.008).mean == 0.025 and parse("uniform:0,0.4").mean == 0.2


@pytest.mark.parametrize("text, message", [
    ("gamma:1", "unknown delay distribution 'gamma'"),
    ("normal", "normal needs parameters"),
    ("normal:0.1", "normal takes MEAN,SD"),
    ("exponential:1,2", "exponential takes MEAN"),
    ("pareto:0.025,1", "SHAPE must be > 1"),
    ("pareto2:0.025,0.5", "SHAPE must be > 1"),
    ("hyperexponential:0.025,7", "COV must be in"),
    ("hyperexponential:0.025,0.5", "COV must be in"),
    ("uniform:0.05,0", "LOW must be <= HIGH"),
    ("exponential:-1", ">= 0"),
    ("normal:a,b", "parameters must be numbers"),
    ("normal:nan,1", "finite"),
])
def test_bad_distributions_are_refused_by_name(text, message):
    with pytest.raises(DistributionError, match=message):
        parse(text)


def test_the_hyperexponential_bound_keeps_the_first_phase_mean_positive():
    dist = Distribution("hyperexponential", (1.0, COV_MAX))
    rng = random.Random(1)
    assert all(dist.draw(rng) >= 0 for _ in range(1000))
    assert math.isclose(COV_MAX, math.sqrt(39))
    assert set(DEFAULT_SHAPES) == {"hyperexponential", "pareto", "pareto2"}
