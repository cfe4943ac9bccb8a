"""``verify``: decide an identity between SymPy expressions or matrices, honestly.

The order of work:

0. read every Float as the exact rational its binary value is (``symrope._exact``): the claim is
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
The decisions are here; what happens at a point (probing, sweeping, moving a counterexample to
simpler values, the hypotheses, the cross-check) is ``_points.py``'s.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable

import sympy as sp

from symrope._typing import ClaimSide
from symrope.errors import InternalError, UsageError
from symrope.engine._child import decide_in_child
from symrope.engine._deadline import BudgetExhausted, deadline, signals_available
from symrope._exact import FloatOutOfRange, read_floats_exactly
from symrope.engine import _points as points
from symrope.engine._sampling import Unsampleable, has_thresholds
from symrope.engine._blocks import (block_claims, claim_key, evaluate_shape, explicit,
                                    expression_key, is_instance, template_of)
from symrope.engine._blocks import evaluate as evaluate_block
from symrope.engine._strategies import (_MATRIX_STRATEGIES, STRATEGIES, TEMPLATE_STRATEGIES,
                                        is_literal_zero)
from symrope.engine._reasons import UndecidedReason
from symrope.engine._verdict import PROVED, Verdict

__all__ = ["verify"]

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
        return Verdict.undecided_because(UndecidedReason.FLOAT_OUT_OF_RANGE, lhs, rhs,
                                         detail=str(error))
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

def _verify_here(lhs, rhs, budget, seed, hypotheses=()) -> Verdict:
    run = points.Run(lhs, rhs, budget, random.Random(seed), hypotheses)
    try:
        with deadline(budget) as clock:
            verdict = _decide(run, clock)
    except Unsampleable as error:
        return Verdict.undecided_because(UndecidedReason.UNSAMPLEABLE, lhs, rhs,
                                         seconds=run.elapsed(), detail=error)
    except BudgetExhausted:
        return Verdict.undecided_because(UndecidedReason.TIME_BUDGET, lhs, rhs,
                                         seconds=run.elapsed(), details=points.counts(run.counts),
                                         budget=budget, evidence=points.sampling_evidence(run.counts))
    return verdict


def _decide(run: points.Run, clock) -> Verdict:
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


def _decide_entries(run: points.Run, clock, entries: list[points.Entry]):
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
    groups: dict[tuple, list[points.Entry]] = {}
    for entry in pending:
        groups.setdefault(expression_key(entry.difference, memo, facts), []).append(entry)
    for members in groups.values():
        refutation = points.probe(run, members[0], points.PROBE_POINTS)
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
        refutation = points.probe(run, entry, points.FALLBACK_PROBE_POINTS)
        if refutation:
            return refutation
        # A claim that jumps is swept at its breakpoints before any rewriting (cheap, and a
        # one-point difference hides nowhere else); any other claim only once no rewrite works.
        swept = has_thresholds(entry.difference)
        refutation = points.sweep_entry(run, entry) if swept else None
        if refutation:
            return refutation
        method = _rewrite_to_zero(entry.difference, clock)
        if method:
            entry.verdict, entry.method = PROVED, method
        else:
            refutation = None if swept else points.sweep_entry(run, entry)
            return refutation or _undecided(run, entry)
    return len(groups)


def _undecided(run: points.Run, entry: points.Entry) -> Verdict:
    where = f" (entry {entry.where})" if entry.where is not None else ""
    return Verdict.undecided_because(UndecidedReason.NO_REWRITE, run.lhs, run.rhs,
                                     entry=entry.where, seconds=run.elapsed(),
                                     details=points.counts(entry), where=where,
                                     evidence=points.sampling_evidence(entry))

def _method_phrase(methods: list[str]) -> str:
    """The methods once each: a method also named with its template ("trigonometric expansion,
    one template for 2 entries") is not named again bare.

    >>> _method_phrase(["trigonometric expansion",
    ...                 "trigonometric expansion, one template for 2 entries"])
    'trigonometric expansion, one template for 2 entries'
    """
    named = [m for m in methods if not any(o != m and o.startswith(m + ",") for o in methods)]
    return "; ".join(named) or "identical"


def _conclude(run: points.Run, checked_entries: list[points.Entry], details: dict) -> Verdict:
    checks = points.cross_check(run, checked_entries)
    methods = details.setdefault("methods", sorted({e.method for e in checked_entries if e.method}))
    return Verdict(PROVED, run.lhs, run.rhs, method=_method_phrase(methods),
                   seconds=run.elapsed(), cross_checks=checks, details=details)


def _block_entries(claim) -> list[points.Entry]:
    left, right = evaluate_block(claim.lhs), evaluate_block(claim.rhs)
    rows, cols = left.shape
    if claim.offset is not None:  # regrouped blocks: name entries by row and column
        return [points.Entry((claim.offset + i, claim.offset + j), left[i, j], right[i, j])
                for i in range(rows) for j in range(cols)]
    return [points.Entry((claim.index, i, j), left[i, j], right[i, j])
            for i in range(rows) for j in range(cols)]


def _decide_blocks(run: points.Run, clock, claims) -> Verdict:
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
                refutation = points.probe(run, entry, points.PROBE_POINTS)
                if refutation:
                    return refutation
    sampled: list[points.Entry] = []
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


def _explicit_entries(lhs, rhs) -> list[points.Entry]:
    if not isinstance(lhs, (sp.MatrixBase, sp.MatrixExpr)):
        return [points.Entry(None, lhs, rhs)]
    rows, cols = lhs.shape
    if rows * cols > _EXPLICIT_LIMIT:
        raise UsageError(f"a {rows}x{cols} claim is too large to compare entry by entry; "
                         "state it with BlockDiagMatrix so it is decided block by block")
    left, right = explicit(lhs), explicit(rhs)
    return [points.Entry((i, j), left[i, j], right[i, j]) for i in range(rows) for j in range(cols)]

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


def _decide_matrix_algebra(run: points.Run, clock) -> Verdict:
    """Claims about symbolic (noncommutative) matrices: matrix algebra, random integer matrices."""
    difference = run.lhs - run.rhs
    counts = run.counts
    counts.sampled += points.FALLBACK_PROBE_POINTS
    for point, evaluations in points.evaluated_points(run, run.lhs, run.rhs,
                                                range(points.FALLBACK_PROBE_POINTS),
                                                within_hypotheses=True):
        for evaluation in evaluations:
            if evaluation.clearly_nonzero:
                return points.refuted(run, point, evaluation, evaluation.entry,
                                "random integer matrices;")
        if all(e.conclusive for e in evaluations):
            counts.evaluated += 1
            counts.agreed += 1
    method = _rewrite_to_zero(difference, clock, _MATRIX_STRATEGIES)
    if not method:
        return Verdict.undecided_because(UndecidedReason.MATRIX_ALGEBRA, run.lhs, run.rhs,
                                         seconds=run.elapsed(), details=points.counts(counts),
                                         evidence=points.sampling_evidence(counts))
    checks = 0
    for point, evaluations in points.evaluated_points(run, run.lhs, run.rhs, points.FRESH_POINTS,
                                                within_hypotheses=False):
        if any(e.clearly_nonzero for e in evaluations):
            raise InternalError(f"symrope proved {difference} = 0 ({method}) but random matrices "
                                f"{point} disagree; please report this bug")
        checks += 1
    return Verdict(PROVED, run.lhs, run.rhs, method=method, seconds=run.elapsed(),
                   cross_checks=checks)
