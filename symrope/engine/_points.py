"""What ``verify`` does at exact points: probe, sweep, judge, simplify, cross-check.

A point refutes a claim only when rigorous arithmetic (exact rationals or Arb balls) encloses
``|lhs - rhs|`` away from zero there (:func:`symrope.engine._judgement.evaluate`); a refuting
point is moved, one coordinate at a time, to simpler values where the refutation survives, and
completed so that every free symbol of the claim has a value. Under hypotheses ``a = b`` a point
must satisfy each *exactly*. Every point drawn is counted (sampled, evaluated, agreeing), so an
undecided verdict can say what its sample showed. The decisions are ``_verify.py``'s.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import sympy as sp

from symrope.errors import InternalError
from symrope.engine._judgement import Evaluation, evaluate, exact_values
from symrope.engine._sampling import Unsampleable, sample_point, satisfies, sweep
from symrope.engine._verdict import REFUTED, UNDECIDED, Verdict

__all__ = ["Entry", "Run", "probe", "sweep_entry", "cross_check", "refutation", "refuted",
           "evaluated_points", "counts", "sampling_evidence", "PROBE_POINTS",
           "FALLBACK_PROBE_POINTS", "FRESH_POINTS", "solved_symbol"]

PROBE_POINTS = 3          # random points tried per entry before any rewriting
FALLBACK_PROBE_POINTS = 6  # more points for entries no rewrite could settle
CROSS_CHECK_POINTS = 2
CROSS_CHECK_ENTRIES = 6
FRESH_POINTS = range(10, 10 + CROSS_CHECK_POINTS)  # sampling attempts no probe uses


@dataclass
class Entry:
    """One scalar sub-claim: an entry of a matrix claim, with where it sits."""

    where: tuple | None
    lhs: object
    rhs: object
    verdict: str = UNDECIDED
    method: str | None = None
    _difference: object = None
    sampled: int = 0   # points drawn by the probes of this entry
    evaluated: int = 0  # of those, points where the claim could be evaluated at all
    agreed: int = 0    # of those, points where the difference was negligible at two precisions

    @property
    def difference(self):
        if self._difference is None:
            self._difference = self.lhs - self.rhs
        return self._difference


@dataclass
class Run:
    lhs: object
    rhs: object
    budget: float
    rng: random.Random
    hypotheses: tuple = ()  # (a, b) pairs: a counterexample must satisfy every a = b
    start: float = field(default_factory=time.monotonic)
    counts: Entry = field(default_factory=lambda: Entry(None, None, None))  # all probes

    def elapsed(self) -> float:
        return time.monotonic() - self.start



def counts(entry: Entry) -> dict:
    return {"sampled_points": entry.sampled, "evaluated_points": entry.evaluated,
            "agreeing_points": entry.agreed}


def sampling_evidence(entry: Entry) -> str:
    """What the probes of an undecided entry showed, counted: agreement at no point is no evidence.

    A claim undefined wherever it was sampled (0/0 at every point) agreed nowhere; saying it
    "agreed at every sampled point" would pass off an empty sample as evidence.
    """
    if entry.evaluated == 0:
        return (f"no point could be evaluated (0 of {entry.sampled} sampled points: the claim "
                "is undefined there, outside its real domain, at a jump, or could not be "
                "enclosed rigorously), so there is no numerical evidence either way")
    others = entry.sampled - entry.agreed
    rest = "" if not others else (f" (at the other {others} it is undefined, outside its real "
                                  "domain, at a jump, or the enclosure was inconclusive)")
    return (f"it agreed numerically at {entry.agreed} of {entry.sampled} sampled points{rest}, "
            "which is evidence, not proof")



def _sample(run: Run, *exprs, attempt: int = 0) -> dict | None:
    """An exact point for ``exprs``, or None where no exact value meets some symbol's assumptions
    (then nothing can be refuted or cross-checked by sampling, but a proof is still a proof)."""
    try:
        return sample_point(run.rng, *exprs, attempt=attempt)
    except Unsampleable:
        return None


def evaluated_points(run: Run, lhs, rhs, attempts: range, *, within_hypotheses: bool):
    """``(point, evaluations)`` at each sampled exact point where the claim can be evaluated.

    The one loop behind probing and cross-checking, scalar or matrix: a point that cannot be
    sampled or made to satisfy the hypotheses, or where the claim is undefined (a pole), is
    skipped. The order of random draws is the order of ``attempts``, so verdicts stay
    reproducible for a seed.
    """
    for attempt in attempts:
        point = _sample(run, lhs, rhs, attempt=attempt)
        if point is not None and within_hypotheses:
            point = _within_hypotheses(run, point)
        if point is None:
            continue
        try:
            evaluations = evaluate(lhs, rhs, point)
        except (ZeroDivisionError, ValueError, TypeError):
            continue  # undefined at this point (a pole): try another
        yield point, evaluations


def refutation(lhs: object, rhs: object, point: dict, evaluation: Evaluation,
               entry: tuple | None, how: str, seconds: float = 0.0,
               details: dict | None = None) -> Verdict:
    """A refuted verdict at ``point``, carrying ``evaluation``'s certificate."""
    certificate = {**evaluation.certificate(),
                   "entry": None if entry is None else [int(i) for i in entry]}
    return Verdict(REFUTED, lhs, rhs, counterexample=point, difference=evaluation.bounds(),
                   entry=entry, seconds=seconds,
                   method=f"{how} {certificate['arithmetic']} encloses |lhs - rhs| away from 0",
                   details={**(details or {}), "certificate": certificate})


def refuted(run: Run, point: dict, evaluation, entry, how: str) -> Verdict:
    return refutation(run.lhs, run.rhs, point, evaluation, entry, how, run.elapsed())


# A point where the claim is undefined, outside its real domain or at a jump decides nothing:
# up to this many times the asked-for number of points are drawn to find conclusive ones.
_DRAWS_PER_POINT = 3


def probe(run: Run, entry: Entry, points: int) -> Verdict | None:
    """A refutation at one of ``points`` conclusive exact points, or None; counts what it saw."""
    conclusive = 0
    for attempt in range(_DRAWS_PER_POINT * points):
        if conclusive >= points:
            break
        found = _look(run, entry, _sample(run, entry.lhs, entry.rhs, attempt=attempt))
        if isinstance(found, Verdict):
            return found
        conclusive += found
    return None


# The sweep's points per entry: each symbol at the claim's breakpoints and across scales.
_SWEEP_LIMIT = 128


def sweep_entry(run: Run, entry: Entry) -> Verdict | None:
    """A refutation where the shared sampler's sweep puts one symbol at a time at the claim's
    own breakpoints (at and beside them) and at +-10**k, k = -9..9; or None."""
    try:
        for point in sweep(run.rng, entry.lhs, entry.rhs, limit=_SWEEP_LIMIT):
            found = _look(run, entry, point)
            if isinstance(found, Verdict):
                return found
    except Unsampleable:
        pass
    return None


def _look(run: Run, entry: Entry, point: dict | None) -> Verdict | bool:
    """Judge ``entry`` at ``point`` (made to satisfy the hypotheses) and count it: a refutation,
    or whether the point was conclusive (a certified agreement)."""
    entry.sampled += 1
    run.counts.sampled += 1
    if point is not None:
        point = _within_hypotheses(run, point)
    if point is None:
        return False
    try:
        (evaluation,) = evaluate(entry.lhs, entry.rhs, point)
    except (ZeroDivisionError, ValueError, TypeError):
        return False
    if not evaluation.conclusive:
        return False
    entry.evaluated += 1
    run.counts.evaluated += 1
    if evaluation.clearly_nonzero:
        point, evaluation = _simpler(run, entry, point, evaluation)
        return refuted(run, _complete_point(run, point), evaluation, entry.where,
                        "exact counterexample;")
    entry.agreed += 1
    run.counts.agreed += 1
    return True


# Values a coordinate of a counterexample is moved to, one at a time, when they still refute:
# "a = -1" reads better than "a = -1080000/17".
_SIMPLE_VALUES = (sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(2), sp.Integer(-2),
                  sp.Rational(1, 2), sp.Rational(-1, 2))


def _simpler(run: Run, entry: Entry, point: dict, evaluation):
    """``(point, evaluation)`` with coordinates replaced by small values where the certified
    refutation survives (never under hypotheses, which a moved point may break)."""
    if run.hypotheses:
        return point, evaluation
    for symbol in sorted(point, key=sp.default_sort_key):
        if not isinstance(symbol, sp.Symbol):  # matrices stay as drawn
            continue
        for value in _SIMPLE_VALUES:
            current = point[symbol]
            if value == current or not _simpler_than(value, current) or \
                    not satisfies(symbol, value):
                continue
            moved = {**point, symbol: value}
            (found,) = evaluate(entry.lhs, entry.rhs, moved)
            if found.clearly_nonzero:
                point, evaluation = moved, found
                break
    return point, evaluation


def _simpler_than(value, current) -> bool:
    """Fewer digits: a value of a shorter printed form."""
    return len(sp.sstr(value)) < len(sp.sstr(current))


def _complete_point(run: Run, point: dict) -> dict:
    """Give every free symbol of the whole claim a value, so the counterexample is complete."""
    missing = _sample(run, run.lhs, run.rhs) or {}
    missing = {k: v for k, v in missing.items() if k not in point}
    completed = _within_hypotheses(run, {**point, **missing}) if missing else point
    if completed is None:  # the extra values broke a hypothesis: keep the values that held
        completed = point
    return dict(sorted(completed.items(), key=lambda kv: str(kv[0])))


def solved_symbol(side):
    """``(symbol, how)`` when ``side`` is a symbol, or a transpose or inverse of a matrix symbol."""
    if isinstance(side, (sp.Symbol, sp.MatrixSymbol)):
        return side, lambda value: value
    if isinstance(side, sp.Transpose) and isinstance(side.arg, sp.MatrixSymbol):
        return side.arg, lambda value: value.T
    if isinstance(side, sp.Inverse) and isinstance(side.arg, sp.MatrixSymbol):
        return side.arg, lambda value: value.inv()
    return None


def _within_hypotheses(run: Run, point: dict) -> dict | None:
    """``point`` made to satisfy every hypothesis ``a = b``, or None when it cannot be.

    A counterexample to a claim made under hypotheses must satisfy them *exactly*: holding to
    25 digits is not holding (``x = y + 10**-40`` does not). Where ``a`` is a symbol (or a
    transpose or inverse of a matrix symbol) it is *defined* from ``b``; every other
    hypothesis must reduce to a literal zero at the point.
    """
    if not run.hypotheses:
        return point
    point = dict(point)
    for a, b in run.hypotheses:
        extra = _sample(run, a, b)
        if extra is None:
            return None
        point.update({k: v for k, v in extra.items() if k not in point})
        solved = solved_symbol(a)
        if solved is not None and not (b.free_symbols & {solved[0]}):
            symbol, how = solved
            try:
                value = sp.sympify(b).xreplace(point).doit()
                value = sp.ImmutableMatrix(value.as_explicit()) if isinstance(
                    value, (sp.MatrixBase, sp.MatrixExpr)) else value
                point[symbol] = how(value)
            except (ValueError, ZeroDivisionError, sp.matrices.exceptions.NonInvertibleMatrixError):
                return None
    for a, b in run.hypotheses:
        if not _holds_exactly(a, b, point):
            return None
    return point


def _holds_exactly(a, b, point: dict) -> bool:
    """``a = b`` at the exact ``point``, shown by rewriting the difference to a literal zero."""
    try:
        left, right = exact_values(a, point), exact_values(b, point)
        for difference in (u - v for u, v in zip(left, right)):
            if not (difference == 0 or sp.expand(difference) == 0
                    or sp.simplify(difference) == 0):
                return False
    except (ZeroDivisionError, ValueError, TypeError, AttributeError,
            sp.matrices.exceptions.NonInvertibleMatrixError):
        return False
    return len(left) == len(right)



def cross_check(run: Run, entries: list[Entry]) -> int:
    """Re-evaluate proved entries at fresh points; a clear disagreement is a bug in symrope."""
    checks = 0
    sample = run.rng.sample(entries, min(len(entries), CROSS_CHECK_ENTRIES))
    for entry in sample:
        for point, (evaluation,) in evaluated_points(run, entry.lhs, entry.rhs, FRESH_POINTS,
                                                      within_hypotheses=False):
            if evaluation.clearly_nonzero:
                raise InternalError(
                    f"symrope proved {sp.sstr(entry.lhs)} = {sp.sstr(entry.rhs)} "
                    f"({entry.method}) but |lhs - rhs| is certified in "
                    f"{evaluation.certificate()['enclosure']} at {point}; "
                    "please report this bug")
            if evaluation.negligible:
                checks += 1
    return checks
