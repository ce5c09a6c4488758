"""Two verdicts on every statement a paper makes about its results, shared by every study.

A statement (``Statement``) keeps the paper's own words and number. It is judged twice:

- **direction**: does the paper's ordering or sign hold in our runs (A above B, falls as X
  rises, fewer than)? ``test`` says how it is read off our numbers.
- **size**: is the paper's number matched within a tolerance stated beside it (``Tolerance``):
  relative for throughputs, times and counts, absolute for ratios and shares, a bound as the
  paper states it ("over 71 %"), or, for "no difference", an equivalence test (``Alike``: the
  90 % confidence interval of the ratio of the two samples' locations inside the margin, which
  is two one-sided tests at 5 %; too few runs to decide is said as such, with the runs needed).

Either verdict is ``OK``, ``NOT_OK``, ``NOT_RUN`` (the run could not judge it: the reason is in
the explanation) or ``NONE`` (the statement has no such part: a shape with no number of the
paper's, or a number with no ordering). A statement the project reads differently from its
words keeps the words and their verdicts; the reading goes into ``note``, the explanation.

``markdown`` writes the statements as a table with a "not run" list under it, ``counts`` and
``summary_line`` count them for the READMEs. The table's value columns are ``columns`` (the
paper's number and ours by default): a study that also has another simulator's number for a
statement puts it in ``Statement.values`` under a new name and passes that name in
``columns``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from experiments.runner.stats import paired_shift_interval, shift_interval

__all__ = ["OK", "NOT_OK", "NOT_RUN", "NONE", "Tolerance", "relative", "absolute", "bound",
           "Near", "Alike", "Statement", "judge", "not_run", "markdown", "counts",
           "summary_line", "rows", "csv_rows", "fmt", "REL", "ABS", "ALIKE_MARGIN", "VERDICTS",
           "beside"]

OK, NOT_OK, NOT_RUN, NONE = "ok", "not ok", "not run", "-"
VERDICTS = (OK, NOT_OK, NOT_RUN, NONE)

# The default tolerances (a statement may state its own): 10 % of a throughput, time or
# count, 0.05 of a ratio or share (5 points), 10 % either way for "alike". They are wider than
# the seeds' spread of one point (a sample sd of 1.5 % of the mean at the median of [RRTCP]'s
# 5-seed points) and narrow enough that a paper's "17-19 % faster" is not met by 5 %.
REL = 0.10
ABS = 0.05
ALIKE_MARGIN = 0.10


def fmt(v: Any) -> str:
    """A number as a table shows it: 4 significant digits, thousands separated."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        if abs(v) >= 10_000:
            return f"{v:,.0f}"
        return f"{v:.4g}"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{fmt(k)}: {fmt(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    return str(v)


# --------------------------------------------------------------------------- tolerances
@dataclass(frozen=True)
class Tolerance:
    """How close our number must come to the paper's. ``kind``: "relative" (ours within
    ``amount`` x the paper's, either way), "absolute" (within ``amount``, for ratios and
    shares), "bound" (the paper states a bound, "over X" or "under X", and ours must meet it
    as stated: ``amount`` is +1 for over, -1 for under)."""
    kind: str
    amount: float

    def text(self, paper: float | tuple[float, float]) -> str:
        lo, hi = _range(paper)
        what = fmt(lo) if lo == hi else f"{fmt(lo)}-{fmt(hi)}"
        if self.kind == "relative":
            return f"{what} ± {self.amount:.0%} (relative)"
        if self.kind == "absolute":
            return f"{what} ± {fmt(self.amount)} (absolute)"
        return f"{'over' if self.amount > 0 else 'under'} {what} (the paper's bound)"

    def holds(self, ours: float, paper: float | tuple[float, float]) -> bool:
        lo, hi = _range(paper)
        if self.kind == "relative":
            return lo * (1 - self.amount) <= ours <= hi * (1 + self.amount) \
                if lo >= 0 else hi * (1 + self.amount) <= ours <= lo * (1 - self.amount)
        if self.kind == "absolute":
            return lo - self.amount <= ours <= hi + self.amount
        return ours > hi if self.amount > 0 else ours < lo


def relative(amount: float = REL) -> Tolerance:
    return Tolerance("relative", amount)


def absolute(amount: float = ABS) -> Tolerance:
    return Tolerance("absolute", amount)


def bound(over: bool = True) -> Tolerance:
    return Tolerance("bound", 1.0 if over else -1.0)


def _range(paper: float | tuple[float, float]) -> tuple[float, float]:
    if isinstance(paper, tuple):
        return min(paper), max(paper)
    return paper, paper


@dataclass(frozen=True)
class Near:
    """The size of a statement: ``measure(values)`` (our number) against ``paper`` (a number
    or a (low, high) range the paper gives) within ``tolerance``. ``what`` names the number
    ("TA / SACK-NODELAY at 30 %")."""
    what: str
    measure: Callable[[Mapping[str, Any]], float | None]
    paper: float | tuple[float, float]
    tolerance: Tolerance

    def judge(self, values: Mapping[str, Any]) -> tuple[str, str, str, str]:
        """(verdict, our number as text, the tolerance as text, why it is not run)."""
        tol = f"{self.what}: {self.tolerance.text(self.paper)}"
        try:
            ours = self.measure(values)
        except (KeyError, IndexError, ZeroDivisionError, ValueError, TypeError,
                AttributeError):
            ours = None         # a number the run did not measure
        if ours is None or (isinstance(ours, float) and math.isnan(ours)):
            return NOT_RUN, "", tol, ""
        return (OK if self.tolerance.holds(ours, self.paper) else NOT_OK), \
            f"{self.what} {fmt(ours)}", tol, ""


@dataclass(frozen=True)
class Alike:
    """The size of a "no difference" statement: the samples ``values[a]`` and ``values[b]``
    (per-run values, each > 0) are equivalent within ``margin`` when the 90 % confidence
    interval of the ratio of their locations lies inside [1 / (1 + margin), 1 + margin]: two
    one-sided tests at 5 %. Samples given as {seed: value} are paired on their common seeds
    (the runs of one seed share the impairments' random draws: common random numbers), and the
    interval is that of the per-seed log ratios (``paired_shift_interval``, Wilcoxon's); lists
    are unpaired, the interval that of the shift between the two samples' logarithms
    (``shift_interval``, Mann-Whitney's). They differ (not ok) when the interval lies wholly
    outside the margin; an interval across a limit cannot decide, and the verdict is NOT_RUN,
    with how many runs would decide it if the estimate held (the interval narrows as
    1 / sqrt(n))."""
    what: str
    a: str
    b: str
    margin: float = ALIKE_MARGIN

    def judge(self, values: Mapping[str, Any]) -> tuple[str, str, str, str]:
        a, b = values.get(self.a), values.get(self.b)
        paired = isinstance(a, Mapping) and isinstance(b, Mapping)
        tol = (f"{self.what}: 90 % interval of {self.a} / {self.b}"
               f"{' (paired)' if paired else ''} within "
               f"[{1 / (1 + self.margin):.3g}, {1 + self.margin:.3g}] (equivalence, two "
               f"one-sided tests at 5 %)")
        if paired:
            seeds = sorted(set(a) & set(b))
            xs, ys = [a[k] for k in seeds], [b[k] for k in seeds]
        else:
            xs, ys = list(a or ()), list(b or ())
        if not xs or not ys or min(xs) <= 0 or min(ys) <= 0:
            return NOT_RUN, "", tol, ""
        if paired:
            ci = paired_shift_interval([math.log(x / y) for x, y in zip(xs, ys)], 0.90)
            n = f"n = {len(xs)} pairs"
        else:
            ci = shift_interval([math.log(x) for x in xs], [math.log(y) for y in ys], 0.90)
            n = f"n = {len(xs)}, {len(ys)}"
        if ci is None:
            return NOT_RUN, "", tol, f"{n}: too few runs for a 90 % interval"
        lo, hi = math.exp(ci[0]), math.exp(ci[1])
        limit = math.log(1 + self.margin)
        text = f"{self.what} ratio, 90 % interval [{lo:.3f}, {hi:.3f}] ({n})"
        if -limit <= ci[0] and ci[1] <= limit:
            return OK, text, tol, ""
        if ci[0] > limit or ci[1] < -limit:
            return NOT_OK, text, tol, ""
        half = (ci[1] - ci[0]) / 2
        centre = (ci[0] + ci[1]) / 2
        room = limit - abs(centre)
        runs = len(xs) if paired else max(len(xs), len(ys))
        need = math.ceil(runs * (half / room) ** 2) if room > 0 else None
        if need is not None and need <= 100 * runs:
            why = f"about {need} {'pairs' if paired else 'runs each'} would decide it"
        elif room <= 0:
            why = (f"its estimate, {math.exp(centre):.3f}, lies outside the margin: more runs "
                   f"would not show them alike")
        else:
            why = (f"its estimate, {math.exp(centre):.3f}, lies near the margin: no practical "
                   f"number of runs would decide it")
        return NOT_RUN, text, tol, f"the interval crosses the margin: {n} cannot decide; {why}"


# --------------------------------------------------------------------------- statements
@dataclass
class Statement:
    """One statement of a paper, its two verdicts and what they rest on. ``values`` holds the
    table's value columns as text ("paper", "ours", and any other a study adds)."""
    key: str
    item: str
    says: str
    direction: str
    size: str
    test: str = ""
    tolerance: str = ""
    note: str = ""
    values: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, Any] = field(default_factory=dict)

    @property
    def not_run(self) -> bool:
        return NOT_RUN in (self.direction, self.size)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> "Statement":
        """The statement a ``row()`` was written from (a journal's summary.json read back)."""
        fixed = ("key", "item", "says", "direction", "size", "test", "tolerance", "note",
                 "numbers")
        return cls(row["key"], row["item"], row["says"], row["direction"], row["size"],
                   test=row.get("test", ""), tolerance=row.get("tolerance", ""),
                   note=row.get("note", ""), numbers=dict(row.get("numbers") or {}),
                   values={k: v for k, v in row.items() if k not in fixed})

    def row(self) -> dict:
        return {"key": self.key, "item": self.item, "says": self.says,
                **{name: text for name, text in self.values.items()},
                "direction": self.direction, "size": self.size, "test": self.test,
                "tolerance": self.tolerance, "note": self.note,
                "numbers": _jsonable(self.numbers)}


def _jsonable(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    return v


def _missing(values: Mapping[str, Any]) -> list[str]:
    return [k for k, v in values.items() if v is None or (isinstance(v, (dict, list, tuple))
                                                        and not v)]


def judge(key: str, item: str, says: str, *, paper: str, values: Mapping[str, Any],
          direction: Callable[[Mapping[str, Any]], bool] | None, test: str = "",
          size: Near | Alike | None = None, note: str = "", why_missing: str = "",
          show: Sequence[str] | None = None) -> Statement:
    """A statement judged on ``values`` (our numbers by name). ``direction(values)`` is the
    ordering or sign the paper states (None: the statement states none); ``size`` its number
    with a tolerance (None: the paper gives none). A value that is None or empty means the run
    did not measure it: what needs it is NOT_RUN, and the explanation names what is missing
    (``why_missing`` says why, e.g. the mode runs no such point). ``show``: the values the
    "ours" column shows (all by default)."""
    missing = _missing(values)
    shown = {k: values[k] for k in (show if show is not None else values)
             if k not in missing}
    ours = "; ".join(f"{k} {fmt(v)}" for k, v in shown.items())
    whys = [("no " + ", ".join(missing) + (f" ({why_missing})" if why_missing else ""))
            if missing else ""]
    if direction is None:
        d = NONE
    elif missing:
        d = NOT_RUN
    else:
        try:
            d = OK if direction(values) else NOT_OK
        except (KeyError, IndexError) as e:
            d = NOT_RUN         # a curve without the point the statement compares at
            whys.append(f"the run has no point {e} the ordering needs")
        except (ZeroDivisionError, TypeError, AttributeError):
            d = NOT_RUN
            whys.append("a number the ordering compares was not measured")
    s, tol = NONE, ""
    if size is not None:
        s, size_text, tol, why = size.judge(values)
        if size_text and not _shown(size_text, shown):
            ours = f"{ours}; {size_text}" if ours else size_text
        if s == NOT_RUN and not missing:
            whys.append(why or "its number was not measured")
    lack = "; ".join(w for w in whys if w)
    explanation = "; ".join(x for x in (note, lack and f"not run: {lack}") if x)
    return Statement(key, item, says, d, s, test=test, tolerance=tol, note=explanation,
                     values={"paper": paper, "ours": ours or "-"}, numbers=dict(values))


def _shown(size_text: str, shown: Mapping[str, Any]) -> bool:
    """Whether the number ``size_text`` ends with is one the "ours" column already shows."""
    number = size_text.rsplit(" ", 1)[-1]
    return any(fmt(v) == number for v in shown.values() if isinstance(v, (int, float)))


def not_run(key: str, item: str, says: str, *, paper: str, why: str,
            has_size: bool = True, has_direction: bool = True) -> Statement:
    """A statement this run cannot judge at all, with why."""
    return Statement(key, item, says, NOT_RUN if has_direction else NONE,
                     NOT_RUN if has_size else NONE, note=f"not run: {why}",
                     values={"paper": paper, "ours": "-"})


def beside(statements: Sequence[Statement], reference: Sequence[Statement], name: str, *,
           lacking: str = "") -> None:
    """Another simulator's numbers beside ours: each statement gets, under ``name`` in its
    ``values``, what the same statement judged on ``reference`` (the other simulator's runs,
    matched by key) measured, with that judgement's two verdicts; where the reference could
    not judge it, "—" and why (``lacking``: what the other simulator does not have, added to
    the reason where ours measured what the reference did not). Our verdicts are left as they
    are."""
    ref = {s.key: s for s in reference}
    for s in statements:
        r = ref.get(s.key)
        if r is None or r.not_run or r.values.get("ours", "-") == "-":
            why = "not run" if r is None else (
                r.note.split("not run: ", 1)[-1] if "not run: " in r.note else "not measured")
            # what the other simulator lacks is the reason only where ours measured it
            theirs = r is not None and set(_missing(r.numbers)) - set(_missing(s.numbers))
            s.values[name] = f"— ({why}{'; ' + lacking if lacking and theirs else ''})"
            continue
        verdicts = ", ".join(f"{what} {v}" for what, v in (("direction", r.direction),
                                                          ("size", r.size)) if v != NONE)
        s.values[name] = f"{r.values['ours']} ({verdicts})" if verdicts else r.values["ours"]


# --------------------------------------------------------------------------- reporting
def counts(statements: Iterable[Statement]) -> dict[str, int]:
    """How many statements; directions and sizes judged and ok; statements not run (a verdict
    the run could not give)."""
    st = list(statements)
    return {"statements": len(st),
            "direction_judged": sum(s.direction in (OK, NOT_OK) for s in st),
            "direction_ok": sum(s.direction == OK for s in st),
            "size_judged": sum(s.size in (OK, NOT_OK) for s in st),
            "size_ok": sum(s.size == OK for s in st),
            "not_run": sum(s.not_run for s in st)}


def summary_line(statements: Iterable[Statement]) -> str:
    c = counts(statements)
    return (f"{c['statements']} statements: direction ok in {c['direction_ok']} of the "
            f"{c['direction_judged']} judged, size ok in {c['size_ok']} of the "
            f"{c['size_judged']} judged, {c['not_run']} with a verdict not run")


def rows(statements: Iterable[Statement]) -> list[dict]:
    """paper_table.csv's rows and summary.json's ``statements``."""
    return [s.row() for s in statements]


def csv_rows(statements: Iterable[Statement]) -> list[dict]:
    """statements.csv's rows: ``rows`` without the raw numbers (summary.json has them)."""
    return [{k: v for k, v in r.items() if k != "numbers"} for r in rows(statements)]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(statements: Sequence[Statement], *, paper: str,
             columns: Sequence[tuple[str, str]] = (("paper", "paper"), ("ours", "ours")),
             intro: str = "") -> str:
    """The statements as a table (item, the paper's words, each of ``columns`` as (key in
    ``Statement.values``, header), direction, size, tolerance, explanation) with the counts
    above it and the list of statements not run under it. ``paper`` names the paper in the
    headers ("[RRTCP]")."""
    lines = []
    if intro:
        lines += [intro, ""]
    lines += [f"{summary_line(statements)}. Direction: the paper's ordering or sign; size: the "
              f"paper's number within the tolerance given; {NONE}: the statement has none.", ""]
    head = ["#", "item", f"{paper} says", *[h for _, h in columns], "direction", "size",
            "tolerance", "test and explanation"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, s in enumerate(statements, 1):
        expl = "; ".join(x for x in (s.test and f"test: {s.test}", s.note) if x)
        cells = [str(i), s.item, s.says, *[s.values.get(k, "") or "-" for k, _ in columns],
                 s.direction, s.size, s.tolerance or "-", expl or "-"]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    missing = [(i, s) for i, s in enumerate(statements, 1) if s.not_run]
    lines += ["", f"**Not run** ({len(missing)}): " + ("none." if not missing else "")]
    for i, s in missing:
        which = " and ".join(n for n, v in (("direction", s.direction), ("size", s.size))
                             if v == NOT_RUN)
        why = s.note.split("not run: ", 1)[-1] if "not run: " in s.note else s.note
        lines.append(f"- #{i} {s.item}, {which}: {s.says} ({why})")
    return "\n".join(lines)
