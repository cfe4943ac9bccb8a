"""``verify``: decide an identity between SymPy expressions or matrices, honestly.

The order of work:

0. read every Float as the exact rational its binary value is (``_exact.py``): the claim is
   about those numbers, and no arithmetic ever happens in 53-bit Floats;
1. normalise both sides (block matrices are collapsed and compared block by block, so a
   block-diagonal claim costs time linear in the number of blocks);
2. *probe*: evaluate the difference at a few exact points from the shared sampler (small and
   wide denominators, magnitudes 10^-9..10^9, the claim's own breakpoints); a point refutes
   the claim only when rigorous arithmetic (exact rationals or Arb balls) encloses
   ``|lhs - rhs|`` away from zero, and that enclosure is the verdict's certificate;
3. *prove*: try assumption-respecting rewrites until the difference is a literal zero; entries
   that are the same expression up to constants (one template per RoPE frequency, say) are
   proved once, for symbolic (``Dummy``) constants, and an entry counts as proved by a template
   only when the template instantiated with the entry's constants *is* the entry;
4. *cross-check* proofs numerically at fresh points, as a safety net: a certified disagreement
   is an :class:`~symrope.errors.InternalError`, raised, never swallowed.

Anything else is ``undecided``, with the reason. The whole call respects its time budget.
"""

# Over 500 lines: the whole decision procedure of verify (probe, prove, sweep, cross-check)
# in one place, so the order of work in the docstring can be read against the code.

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import sympy as sp

from symrope._typing import ClaimSide
from symrope.errors import InternalError, UsageError
from symrope.engine._child import decide_in_child
from symrope.engine._deadline import BudgetExhausted, deadline, signals_available
from symrope.engine._exact import FloatOutOfRange, read_floats_exactly
from symrope.engine._sampling import (Unsampleable, evaluate, exact_values, has_thresholds,
                                      sample_point, satisfies, sweep)
from symrope.engine._blocks import (block_claims, claim_key, evaluate_shape, explicit,
                                    expression_key, is_instance, template_of)
from symrope.engine._blocks import evaluate as evaluate_block
from symrope.engine._strategies import (_MATRIX_STRATEGIES, STRATEGIES, TEMPLATE_STRATEGIES,
                                        is_literal_zero)
from symrope.engine._verdict import PROVED, REFUTED, UNDECIDED, Verdict

__all__ = ["verify"]

_PROBE_POINTS = 3          # random points tried per entry before any rewriting
_FALLBACK_PROBE_POINTS = 6  # more points for entries no rewrite could settle
_CROSS_CHECK_POINTS = 2
_CROSS_CHECK_ENTRIES = 6
_FRESH_POINTS = range(10, 10 + _CROSS_CHECK_POINTS)  # sampling attempts no probe uses
_EXPLICIT_LIMIT = 64 * 64   # larger explicit matrices must come as block matrices


def verify(lhs: ClaimSide, rhs: ClaimSide, *,
           assumptions: Iterable[sp.Equality | tuple[ClaimSide, ClaimSide]] | None = None,
           budget: float = 10.0, seed: int = 0) -> Verdict:
    """Decide whether ``lhs = rhs`` holds for every value of the free symbols.

    Parameters
    ==========

    lhs, rhs : SymPy expressions, matrices (explicit, block or symbolic) or numbers
        The two sides. Both scalar or both matrices of the same shape.
    assumptions : iterable, optional
        Hypotheses. An ``Eq(a, b)`` (or a pair ``(a, b)``) is used as the rewrite ``a -> b``
        before deciding, so the verdict is conditional on it. Assumptions about single symbols
        belong on the symbols themselves (``Symbol('x', positive=True)``): sampling respects them.
    budget : float
        Seconds. Past it the verdict is ``undecided``; the call returns within ``budget + 1``.
        Off the main thread (where no signal can interrupt SymPy) the claim is decided in a
        child process from multiprocessing's ``forkserver``, killed at the deadline: the claim
        must pickle (SymPy expressions do), a script that calls ``verify`` from threads needs
        the ``if __name__ == "__main__":`` guard multiprocessing asks for, and the first such
        call also spends part of its budget starting that server.
    seed : int
        Seed of the random points, so verdicts are reproducible.

    Returns
    =======

    Verdict
        ``proved`` only when the difference was rewritten to a literal zero; ``refuted`` only
        with an exact counterexample where rigorous arithmetic encloses ``|lhs - rhs|`` away
        from zero (``details["certificate"]``: the enclosure, the arithmetic, the precision);
        otherwise ``undecided``, saying how many sampled points agreed. With real symbols a
        counterexample lies in the claim's real domain (every function real-valued there).
        Floats are read as the exact rationals their binary values are (``0.1`` is
        ``3602879701896397/2**55``); ``details["floats_read_exactly"]`` counts them.

    Examples
    ========

    >>> from sympy import symbols, sin, cos, sqrt
    >>> from symrope import verify
    >>> a, b = symbols('a b', real=True)
    >>> verify(cos(a + b), cos(a)*cos(b) - sin(a)*sin(b)).status
    'proved'
    >>> wrong = verify(cos(a + b), cos(a)*cos(b) + sin(a)*sin(b))
    >>> wrong.status, sorted(map(str, wrong.counterexample))
    ('refuted', ['a', 'b'])
    >>> x = symbols('x', real=True)
    >>> verify(sqrt(x**2), x).status
    'refuted'
    >>> tiny = verify((x + 1e-40) * (x + 3), x**2 + 3*x + 3e-40)
    >>> tiny.status, tiny.details["floats_read_exactly"]
    ('refuted', 2)

    References
    ==========

    .. [1] Principle 1 of symrope's design: numeric agreement is evidence, never a proof.
    """
    if budget <= 0:
        raise UsageError(f"budget must be positive, got {budget}")
    lhs, rhs = _normalise(lhs), _normalise(rhs)
    rewrites = _rewrites(assumptions)
    try:
        (lhs, rhs), rewrites, floats = _read_floats_exactly(lhs, rhs, rewrites)
    except FloatOutOfRange as error:  # never decided in rounded arithmetic: undecided, and why
        return Verdict(UNDECIDED, lhs, rhs, reason=str(error))
    if rewrites:
        # subs (not xreplace) also rewrites a sub-product: X1*X2 inside s*X1*X2.
        lhs, rhs = lhs.subs(list(rewrites.items())), rhs.subs(list(rewrites.items()))
    _check_shapes(lhs, rhs)
    hypotheses = tuple(rewrites.items())
    if signals_available():
        verdict = _verify_here(lhs, rhs, budget, seed, hypotheses)
    else:
        verdict = decide_in_child(_verify_here, lhs, rhs, budget, seed, hypotheses)
    if floats:
        verdict = dataclasses.replace(verdict, details={**verdict.details,
                                                        "floats_read_exactly": floats})
    return verdict


def _read_floats_exactly(lhs, rhs, rewrites: dict):
    """Every Float of the claim and its hypotheses as its exact rational, and how many there were."""
    seen = set()
    for thing in (lhs, rhs, *rewrites.keys(), *rewrites.values()):
        if isinstance(thing, (sp.Basic, sp.MatrixBase)):
            seen |= thing.atoms(sp.Float)
    if not seen:
        return (lhs, rhs), rewrites, 0
    exact = {}
    for key, value in rewrites.items():
        exact[read_floats_exactly(key)[0]] = read_floats_exactly(value)[0]
    return (read_floats_exactly(lhs)[0], read_floats_exactly(rhs)[0]), exact, len(seen)


def _normalise(side):
    if isinstance(side, sp.MatrixBase):
        return sp.ImmutableMatrix(side)
    if isinstance(side, (list, tuple)):
        return sp.ImmutableMatrix(side)
    try:
        return sp.sympify(side, strict=True)
    except sp.SympifyError as error:
        raise UsageError(f"cannot read {side!r} as a SymPy expression: {error}") from None


def _rewrites(assumptions) -> dict:
    rewrites = {}
    for hypothesis in assumptions or ():
        if isinstance(hypothesis, sp.Equality):
            rewrites[hypothesis.lhs] = hypothesis.rhs
        elif isinstance(hypothesis, tuple) and len(hypothesis) == 2:
            rewrites[_normalise(hypothesis[0])] = _normalise(hypothesis[1])
        else:
            raise UsageError(f"an assumption must be Eq(a, b) or a pair (a, b), got {hypothesis!r}")
    return rewrites


def _shape(side):
    return side.shape if isinstance(side, (sp.MatrixBase, sp.MatrixExpr)) else None


def _check_shapes(lhs, rhs) -> None:
    left, right = _shape(lhs), _shape(rhs)
    if left != right:
        raise UsageError(f"the two sides have different shapes: {left or 'scalar'} and "
                         f"{right or 'scalar'}")


@dataclass
class _Entry:
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
class _Run:
    lhs: object
    rhs: object
    budget: float
    rng: random.Random
    hypotheses: tuple = ()  # (a, b) pairs: a counterexample must satisfy every a = b
    start: float = field(default_factory=time.monotonic)
    counts: _Entry = field(default_factory=lambda: _Entry(None, None, None))  # all probes

    def elapsed(self) -> float:
        return time.monotonic() - self.start


def _verify_here(lhs, rhs, budget, seed, hypotheses=()) -> Verdict:
    run = _Run(lhs, rhs, budget, random.Random(seed), hypotheses)
    try:
        with deadline(budget) as clock:
            verdict = _decide(run, clock)
    except Unsampleable as error:
        return Verdict(UNDECIDED, lhs, rhs, seconds=run.elapsed(),
                       reason=f"cannot sample exact points: {error}")
    except BudgetExhausted:
        return Verdict(UNDECIDED, lhs, rhs, reason=f"time budget of {budget:g} s exhausted "
                       "before the difference reduced to zero or a counterexample was found; "
                       f"{_sampling_evidence(run.counts)}", seconds=run.elapsed(),
                       details=_counts(run.counts))
    return verdict


def _decide(run: _Run, clock) -> Verdict:
    lhs, rhs = run.lhs, run.rhs
    if _has_symbolic_matrices(lhs) or _has_symbolic_matrices(rhs):
        return _decide_matrix_algebra(run, clock)
    claims = block_claims(lhs, rhs) if isinstance(lhs, sp.MatrixExpr) else None
    if claims is not None:
        return _decide_blocks(run, clock, claims)
    entries = _explicit_entries(lhs, rhs)
    outcome = _decide_entries(run, clock, entries)
    if isinstance(outcome, Verdict):
        return outcome
    return _conclude(run, entries, {"entries": len(entries), "templates": outcome})


def _decide_entries(run: _Run, clock, entries: list[_Entry]):
    """Decide scalar sub-claims in place; a Verdict when one refutes or stays undecided.

    Entries that are the same expression up to constants are probed and proved once, as a
    template; entries whose template fails are decided one by one with every strategy.
    Returns the number of templates when every entry was proved.
    """
    pending = []
    for entry in entries:
        if is_literal_zero(entry.difference):
            entry.verdict, entry.method = PROVED, "identical"
        else:
            pending.append(entry)
    memo, facts = {}, {}
    groups: dict[tuple, list[_Entry]] = {}
    for entry in pending:
        groups.setdefault(expression_key(entry.difference, memo, facts), []).append(entry)
    for members in groups.values():
        refutation = _probe(run, members[0], _PROBE_POINTS)
        if refutation:
            return refutation
    for (_, slots), members in groups.items():
        if len(members) == 1:
            continue
        clock.check()
        if slots:
            template, dummies = template_of(members[0].difference, memo)
            method = _rewrite_to_zero(template, clock, TEMPLATE_STRATEGIES)
        else:  # no constants: the members are one expression, decided once with everything
            template, dummies = members[0].difference, ()
            method = _rewrite_to_zero(template, clock)
        if method:
            # The key only grouped them: the proof covers exactly the checked instances.
            covered = [e for e in members if is_instance(template, dummies, e.difference, memo)]
            for entry in covered:
                entry.verdict = PROVED
                entry.method = f"{method}, one template for {len(covered)} entries"
    for entry in pending:
        if entry.verdict == PROVED:
            continue
        refutation = _probe(run, entry, _FALLBACK_PROBE_POINTS)
        if refutation:
            return refutation
        # A claim that jumps is swept at its breakpoints before any rewriting (cheap, and a
        # one-point difference hides nowhere else); any other claim only once no rewrite works.
        swept = has_thresholds(entry.difference)
        refutation = _sweep(run, entry) if swept else None
        if refutation:
            return refutation
        method = _rewrite_to_zero(entry.difference, clock)
        if method:
            entry.verdict, entry.method = PROVED, method
        else:
            refutation = None if swept else _sweep(run, entry)
            return refutation or _undecided(run, entry)
    return len(groups)


def _undecided(run: _Run, entry: _Entry) -> Verdict:
    where = f" (entry {entry.where})" if entry.where is not None else ""
    return Verdict(UNDECIDED, run.lhs, run.rhs, entry=entry.where, seconds=run.elapsed(),
                   reason=f"no rewrite reduced the difference to zero{where}; "
                          f"{_sampling_evidence(entry)}", details=_counts(entry))


def _counts(entry: _Entry) -> dict:
    return {"sampled_points": entry.sampled, "evaluated_points": entry.evaluated,
            "agreeing_points": entry.agreed}


def _sampling_evidence(entry: _Entry) -> str:
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


def _method_phrase(methods: list[str]) -> str:
    """The methods once each: a method also named with its template ("trigonometric expansion,
    one template for 2 entries") is not named again bare.

    >>> _method_phrase(["trigonometric expansion",
    ...                 "trigonometric expansion, one template for 2 entries"])
    'trigonometric expansion, one template for 2 entries'
    """
    named = [m for m in methods if not any(o != m and o.startswith(m + ",") for o in methods)]
    return "; ".join(named) or "identical"


def _conclude(run: _Run, checked_entries: list[_Entry], details: dict) -> Verdict:
    checks = _cross_check(run, checked_entries)
    methods = details.setdefault("methods", sorted({e.method for e in checked_entries if e.method}))
    return Verdict(PROVED, run.lhs, run.rhs, method=_method_phrase(methods),
                   seconds=run.elapsed(), cross_checks=checks, details=details)


def _block_entries(claim) -> list[_Entry]:
    left, right = evaluate_block(claim.lhs), evaluate_block(claim.rhs)
    rows, cols = left.shape
    if claim.offset is not None:  # regrouped blocks: name entries by row and column
        return [_Entry((claim.offset + i, claim.offset + j), left[i, j], right[i, j])
                for i in range(rows) for j in range(cols)]
    return [_Entry((claim.index, i, j), left[i, j], right[i, j])
            for i in range(rows) for j in range(cols)]


def _decide_blocks(run: _Run, clock, claims) -> Verdict:
    """Block-diagonal claims: probe one block per template, prove each template once."""
    memo, facts = {}, {}
    groups: dict[str, list] = {}
    for claim in claims:
        groups.setdefault(claim_key(claim, memo, facts), []).append(claim)
    representatives = {}
    for key, members in groups.items():
        entries = representatives[key] = _block_entries(members[0])
        for entry in entries:
            if not is_literal_zero(entry.difference):
                refutation = _probe(run, entry, _PROBE_POINTS)
                if refutation:
                    return refutation
    sampled: list[_Entry] = []
    methods = set()
    for key, members in groups.items():
        clock.check()
        if len(members) > 1:
            abstracted, dummies = template_of(members[0], memo)
            template = _block_entries(abstracted)
            found = [_rewrite_to_zero(e.difference, clock, TEMPLATE_STRATEGIES)
                     if not is_literal_zero(e.difference) else "identical" for e in template]
            if all(found):
                # The key only grouped them: the proof covers exactly the checked instances.
                outside = [m for m in members if not is_instance(abstracted, dummies, m, memo)]
                methods.add(f"{'; '.join(sorted(set(found)))}, one template for "
                            f"{len(members) - len(outside)} blocks with symbolic constants")
                sampled += representatives[key]
                members = outside
        for member in members:
            entries = representatives[key] if member is groups[key][0] else \
                _block_entries(member)
            outcome = _decide_entries(run, clock, entries)
            if isinstance(outcome, Verdict):
                return outcome
            methods.update(e.method for e in entries if e.method)
            sampled += entries
    entries = sum(rows * cols for rows, cols in (evaluate_shape(c.lhs) for c in claims))
    details = {"blocks": len(claims), "entries": entries, "templates": len(groups),
               "methods": sorted(methods)}
    return _conclude(run, sampled, details)


def _has_symbolic_matrices(side) -> bool:
    return isinstance(side, sp.Basic) and bool(side.atoms(sp.MatrixSymbol))


def _explicit_entries(lhs, rhs) -> list[_Entry]:
    if not isinstance(lhs, (sp.MatrixBase, sp.MatrixExpr)):
        return [_Entry(None, lhs, rhs)]
    rows, cols = lhs.shape
    if rows * cols > _EXPLICIT_LIMIT:
        raise UsageError(f"a {rows}x{cols} claim is too large to compare entry by entry; "
                         "state it with BlockDiagMatrix so it is decided block by block")
    left, right = explicit(lhs), explicit(rhs)
    return [_Entry((i, j), left[i, j], right[i, j]) for i in range(rows) for j in range(cols)]


def _sample(run: _Run, *exprs, attempt: int = 0) -> dict | None:
    """An exact point for ``exprs``, or None where no exact value meets some symbol's assumptions
    (then nothing can be refuted or cross-checked by sampling, but a proof is still a proof)."""
    try:
        return sample_point(run.rng, *exprs, attempt=attempt)
    except Unsampleable:
        return None


def _evaluated_points(run: _Run, lhs, rhs, attempts: range, *, within_hypotheses: bool):
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


def refutation(lhs, rhs, point: dict, evaluation, entry, how: str, seconds: float = 0.0,
               details: dict | None = None) -> Verdict:
    """A refuted verdict at ``point``, carrying ``evaluation``'s certificate."""
    certificate = {**evaluation.certificate(),
                   "entry": None if entry is None else [int(i) for i in entry]}
    return Verdict(REFUTED, lhs, rhs, counterexample=point, difference=evaluation.bounds(),
                   entry=entry, seconds=seconds,
                   method=f"{how} {certificate['arithmetic']} encloses |lhs - rhs| away from 0",
                   details={**(details or {}), "certificate": certificate})


def _refuted(run: _Run, point: dict, evaluation, entry, how: str) -> Verdict:
    return refutation(run.lhs, run.rhs, point, evaluation, entry, how, run.elapsed())


# A point where the claim is undefined, outside its real domain or at a jump decides nothing:
# up to this many times the asked-for number of points are drawn to find conclusive ones.
_DRAWS_PER_POINT = 3


def _probe(run: _Run, entry: _Entry, points: int) -> Verdict | None:
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


def _sweep(run: _Run, entry: _Entry) -> Verdict | None:
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


def _look(run: _Run, entry: _Entry, point: dict | None) -> Verdict | bool:
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
        return _refuted(run, _complete_point(run, point), evaluation, entry.where,
                        "exact counterexample;")
    entry.agreed += 1
    run.counts.agreed += 1
    return True


# Values a coordinate of a counterexample is moved to, one at a time, when they still refute:
# "a = -1" reads better than "a = -1080000/17".
_SIMPLE_VALUES = (sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(2), sp.Integer(-2),
                  sp.Rational(1, 2), sp.Rational(-1, 2))


def _simpler(run: _Run, entry: _Entry, point: dict, evaluation):
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


def _complete_point(run: _Run, point: dict) -> dict:
    """Give every free symbol of the whole claim a value, so the counterexample is complete."""
    missing = _sample(run, run.lhs, run.rhs) or {}
    missing = {k: v for k, v in missing.items() if k not in point}
    completed = _within_hypotheses(run, {**point, **missing}) if missing else point
    if completed is None:  # the extra values broke a hypothesis: keep the values that held
        completed = point
    return dict(sorted(completed.items(), key=lambda kv: str(kv[0])))


def _solved_symbol(side):
    """``(symbol, how)`` when ``side`` is a symbol, or a transpose or inverse of a matrix symbol."""
    if isinstance(side, (sp.Symbol, sp.MatrixSymbol)):
        return side, lambda value: value
    if isinstance(side, sp.Transpose) and isinstance(side.arg, sp.MatrixSymbol):
        return side.arg, lambda value: value.T
    if isinstance(side, sp.Inverse) and isinstance(side.arg, sp.MatrixSymbol):
        return side.arg, lambda value: value.inv()
    return None


def _within_hypotheses(run: _Run, point: dict) -> dict | None:
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
        solved = _solved_symbol(a)
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


def _rewrite_to_zero(difference, clock, strategies=None) -> str | None:
    for name, strategy in STRATEGIES if strategies is None else strategies:
        clock.check()
        try:
            if is_literal_zero(strategy(difference)):
                return name
        except (TypeError, ValueError, NotImplementedError, AttributeError, RecursionError,
                sp.PolynomialError):
            continue  # this rewrite does not apply to the expression; others may
    return None


def _cross_check(run: _Run, entries: list[_Entry]) -> int:
    """Re-evaluate proved entries at fresh points; a clear disagreement is a bug in symrope."""
    checks = 0
    sample = run.rng.sample(entries, min(len(entries), _CROSS_CHECK_ENTRIES))
    for entry in sample:
        for point, (evaluation,) in _evaluated_points(run, entry.lhs, entry.rhs, _FRESH_POINTS,
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


def _decide_matrix_algebra(run: _Run, clock) -> Verdict:
    """Claims about symbolic (noncommutative) matrices: matrix algebra, random integer matrices."""
    difference = run.lhs - run.rhs
    counts = run.counts
    counts.sampled += _FALLBACK_PROBE_POINTS
    for point, evaluations in _evaluated_points(run, run.lhs, run.rhs,
                                                range(_FALLBACK_PROBE_POINTS),
                                                within_hypotheses=True):
        for evaluation in evaluations:
            if evaluation.clearly_nonzero:
                return _refuted(run, point, evaluation, evaluation.entry,
                                "random integer matrices;")
        if all(e.conclusive for e in evaluations):
            counts.evaluated += 1
            counts.agreed += 1
    method = _rewrite_to_zero(difference, clock, _MATRIX_STRATEGIES)
    if not method:
        return Verdict(UNDECIDED, run.lhs, run.rhs, seconds=run.elapsed(),
                       reason="matrix algebra did not reduce the difference to zero, and no "
                              "random matrices satisfying the hypotheses refuted it; "
                              f"{_sampling_evidence(counts)}", details=_counts(counts))
    checks = 0
    for point, evaluations in _evaluated_points(run, run.lhs, run.rhs, _FRESH_POINTS,
                                                within_hypotheses=False):
        if any(e.clearly_nonzero for e in evaluations):
            raise InternalError(f"symrope proved {difference} = 0 ({method}) but random matrices "
                                f"{point} disagree; please report this bug")
        checks += 1
    return Verdict(PROVED, run.lhs, run.rhs, method=method, seconds=run.elapsed(),
                   cross_checks=checks)
