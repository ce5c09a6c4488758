"""Delay distributions of reordering by delay: how much later a delayed packet arrives.

[RRTCP] ([RRTCP] §5) delays a packet selected for delay by a draw from one of
ns-2's random variables: normal (most of its figures), exponential, hyperexponential, Pareto,
Pareto II, uniform (§5.5), and a constant for the two paths of §5.6. Each is written here from
its definition, parameterised as ns-2's ``RandomVariable`` classes are (a mean and a shape),
with ns-2's default shapes where [RRTCP] gives none:

* ``normal:MEAN,SD``: N(MEAN, SD); a negative draw is clipped to 0 (a packet cannot arrive
  before it was sent).
* ``exponential:MEAN``: Exp with that mean.
* ``hyperexponential:MEAN[,COV]``: two exponential phases, the first taken with probability
  ALPHA = 0.95, with means MEAN(1 - t(1 - ALPHA)) and MEAN(1 + t ALPHA), t =
  sqrt((COV^2 - 1) / (2 ALPHA (1 - ALPHA))): mean MEAN, coefficient of variation COV (default
  4, ns-2's). COV must be in [1, COV_MAX] for the first phase's mean to stay positive.
* ``pareto:MEAN[,SHAPE]``: Pareto (first kind) with scale MEAN(SHAPE - 1)/SHAPE, so its mean is
  MEAN; SHAPE > 1 (default 1.5, ns-2's).
* ``pareto2:MEAN[,SHAPE]``: Pareto of the second kind (Lomax), scale MEAN(SHAPE - 1), support
  from 0, mean MEAN; SHAPE > 1 (default 1.2, ns-2's).
* ``uniform:LOW,HIGH``: U[LOW, HIGH].
* ``constant:VALUE``: always VALUE (§5.6's path difference).

Values are seconds. ``parse("normal:0.025,0.008")`` gives a ``Distribution``; ``str()`` of one
gives the canonical spelling back (what a run's row records); ``draw(rng)`` takes one sample
from a ``random.Random``. The draws use only ``rng.random()``, ``rng.gauss()`` and
``rng.expovariate()``, so a seed fixes every delay on any interpreter.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

__all__ = ["Distribution", "parse", "normal", "KINDS", "HYPEREXP_ALPHA", "COV_MAX",
           "DEFAULT_SHAPES", "DistributionError"]

HYPEREXP_ALPHA = 0.95           # ns-2's HyperExponentialRandomVariable: the first phase's weight
COV_MAX = math.sqrt(1 + 2 * HYPEREXP_ALPHA * (1 - HYPEREXP_ALPHA) / (1 - HYPEREXP_ALPHA) ** 2)
# ns-2's defaults (tcl/lib/ns-default.tcl) for the shape [RRTCP] does not give
DEFAULT_SHAPES = {"hyperexponential": 4.0, "pareto": 1.5, "pareto2": 1.2}
# name -> (how many parameters it takes at least, at most)
KINDS = {"normal": (2, 2), "exponential": (1, 1), "hyperexponential": (1, 2),
         "pareto": (1, 2), "pareto2": (1, 2), "uniform": (2, 2), "constant": (1, 1)}


class DistributionError(ValueError):
    """A delay distribution that cannot be parsed or has parameters out of range."""


@dataclass(frozen=True)
class Distribution:
    """One delay distribution: ``kind`` (a key of KINDS) and its parameters in seconds (the
    shape parameters, a COV or a SHAPE, are plain numbers)."""

    kind: str
    params: tuple[float, ...]

    def __post_init__(self) -> None:
        _check(self.kind, self.params)

    def __str__(self) -> str:
        return f"{self.kind}:" + ",".join(f"{p:g}" for p in self.params)

    @property
    def mean(self) -> float:
        """The mean delay (for the normal, of the distribution before clipping at 0)."""
        if self.kind == "uniform":
            return (self.params[0] + self.params[1]) / 2
        return self.params[0]

    def draw(self, rng: random.Random) -> float:
        """One delay, >= 0 seconds."""
        return _DRAW[self.kind](rng, *self.params)


def normal(mean: float, sd: float) -> Distribution:
    return Distribution("normal", (float(mean), float(sd)))


def parse(text: str) -> Distribution:
    """``KIND:P1[,P2]`` (see the module docstring); DistributionError naming the problem."""
    kind, sep, rest = text.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise DistributionError(f"unknown delay distribution {kind!r} in {text!r}; choose from "
                                f"{', '.join(KINDS)}")
    if not sep or not rest.strip():
        raise DistributionError(f"{text!r}: {kind} needs parameters ({_usage(kind)})")
    try:
        params = tuple(float(p) for p in rest.split(","))
    except ValueError:
        raise DistributionError(f"{text!r}: parameters must be numbers ({_usage(kind)})") from None
    lo, hi = KINDS[kind]
    if not lo <= len(params) <= hi:
        raise DistributionError(f"{text!r}: {kind} takes {_usage(kind)}")
    if len(params) < hi:
        params += (DEFAULT_SHAPES[kind],)
    return Distribution(kind, params)


def _usage(kind: str) -> str:
    return {"normal": "MEAN,SD", "exponential": "MEAN", "hyperexponential": "MEAN[,COV]",
            "pareto": "MEAN[,SHAPE]", "pareto2": "MEAN[,SHAPE]", "uniform": "LOW,HIGH",
            "constant": "VALUE"}[kind] + " in seconds"


def _check(kind: str, params: tuple[float, ...]) -> None:
    if kind not in KINDS:
        raise DistributionError(f"unknown delay distribution {kind!r}")
    if len(params) != KINDS[kind][1]:
        raise DistributionError(f"{kind} takes {_usage(kind)}")
    if not all(isinstance(p, (int, float)) and math.isfinite(p) for p in params):
        raise DistributionError(f"{kind}: parameters must be finite numbers, got {params}")
    if params[0] < 0 or (kind != "uniform" and min(params) < 0):
        raise DistributionError(f"{kind}: delays and their parameters are >= 0, got {params}")
    if kind == "uniform" and params[1] < params[0]:
        raise DistributionError(f"uniform: LOW must be <= HIGH, got {params}")
    if kind in ("pareto", "pareto2") and params[1] <= 1:
        raise DistributionError(f"{kind}: SHAPE must be > 1 for the mean to exist, got "
                                f"{params[1]:g}")
    if kind == "hyperexponential" and not 1 <= params[1] <= COV_MAX:
        raise DistributionError(f"hyperexponential: COV must be in [1, {COV_MAX:.2f}] (the "
                                f"first phase's mean must be positive), got {params[1]:g}")


def _normal(rng: random.Random, mean: float, sd: float) -> float:
    return max(0.0, rng.gauss(mean, sd))


def _exponential(rng: random.Random, mean: float) -> float:
    return rng.expovariate(1.0 / mean) if mean > 0 else 0.0


def _hyperexponential(rng: random.Random, mean: float, cov: float) -> float:
    t = math.sqrt((cov * cov - 1.0) / (2.0 * HYPEREXP_ALPHA * (1.0 - HYPEREXP_ALPHA)))
    if rng.random() < HYPEREXP_ALPHA:
        return _exponential(rng, mean * (1.0 - t * (1.0 - HYPEREXP_ALPHA)))
    return _exponential(rng, mean * (1.0 + t * HYPEREXP_ALPHA))


def _uniform_open(rng: random.Random) -> float:
    """U in (0, 1]: the inverse-CDF draws below divide by a power of it."""
    return 1.0 - rng.random()


def _pareto(rng: random.Random, mean: float, shape: float) -> float:
    scale = mean * (shape - 1.0) / shape
    return scale * _uniform_open(rng) ** (-1.0 / shape)


def _pareto2(rng: random.Random, mean: float, shape: float) -> float:
    scale = mean * (shape - 1.0)
    return scale * (_uniform_open(rng) ** (-1.0 / shape) - 1.0)


def _uniform(rng: random.Random, low: float, high: float) -> float:
    return low + (high - low) * rng.random()


def _constant(rng: random.Random, value: float) -> float:
    return value


_DRAW = {"normal": _normal, "exponential": _exponential, "hyperexponential": _hyperexponential,
         "pareto": _pareto, "pareto2": _pareto2, "uniform": _uniform, "constant": _constant}
