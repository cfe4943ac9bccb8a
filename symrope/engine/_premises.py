"""Can a step's premises hold at all? A witness that satisfies them, or the step is refused.

A step proved *under hypotheses* says "if a = b, then lhs = rhs". When no point satisfies the
hypotheses the implication is vacuously true, and so is its Coq lemma (``I = 0`` holds in the
zero ring, so MathComp accepts ``I = 0 -> AB = 0 -> AB = I``): such a proof says nothing.
:func:`check_premises` looks for a *witness*: values of every symbol of the step at which every
premise holds exactly and both sides of the claim are defined (every inverse exists). The
candidates, in order: identity matrices, zero matrices, seeded random integer matrices, and
identity/zero mixtures; scalars are sampled within their assumptions. A premise whose one side
is a symbol (or a matrix symbol's transpose or inverse) not occurring on its other side
*defines* that symbol (``H(a) = G(0)^{-1} G(a)`` sets ``H(a)``). No witness means the step is
refused: "premises not shown satisfiable", never proved.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import sympy as sp

from symrope.engine._judgement import exact_values
from symrope.engine._sampling import Unsampleable, sample_point
# the same forms the engine's counterexample search solves a hypothesis for
from symrope.engine._points import solved_symbol as _solvable

__all__ = ["PremiseCheck", "check_premises"]

_RANDOM_ATTEMPTS = 4
_MIXTURE_LIMIT = 5  # identity/zero mixtures are tried for at most this many free matrices


@dataclass(frozen=True)
class PremiseCheck:
    """The outcome: ``satisfiable`` with the witness found, or not, with the reason."""

    satisfiable: bool
    witness: str | None = None
    reason: str | None = None

    def text(self) -> str:
        if self.satisfiable:
            return f"premises satisfiable ({self.witness})"
        return f"premises not shown satisfiable: {self.reason}"


def _pairs(assumptions) -> list[tuple]:
    pairs = []
    for hypothesis in assumptions:
        if isinstance(hypothesis, sp.Equality):
            pairs.append((hypothesis.lhs, hypothesis.rhs))
        else:
            a, b = hypothesis
            pairs.append((sp.sympify(a, strict=True), sp.sympify(b, strict=True)))
    return pairs


def _value(expr, point):
    values = exact_values(expr, point)
    shape = getattr(expr, "shape", None)
    if shape is None:
        return values[0]
    rows = int(sp.sympify(shape[0], strict=True).xreplace(point))
    cols = int(sp.sympify(shape[1], strict=True).xreplace(point))
    return sp.ImmutableMatrix(rows, cols, values)


def _holds(a, b, point) -> bool:
    left, right = exact_values(a, point), exact_values(b, point)
    return len(left) == len(right) and all(
        u == v or sp.expand(u - v) == 0 or sp.simplify(u - v) == 0 for u, v in zip(left, right))


def _define(pairs, point) -> dict:
    """The point with every symbol a premise defines set from the premise's other side."""
    point, defined = dict(point), set()
    for _ in range(len(pairs)):
        changed = False
        for a, b in pairs:
            for side, other in ((a, b), (b, a)):
                solved = _solvable(side)
                if solved is None or solved[0] in defined:
                    continue
                symbol, how = solved
                if symbol in other.free_symbols or (
                        isinstance(other, sp.Basic) and symbol in other.atoms(sp.MatrixSymbol)):
                    continue
                point[symbol] = how(_value(other, point))
                defined.add(symbol)
                changed = True
                break
        if not changed:
            break
    return point


def _square(matrix: sp.MatrixSymbol, point) -> tuple[int, int]:
    return tuple(int(sp.sympify(n, strict=True).xreplace(point)) for n in matrix.shape)


def _candidates(pairs, sides, seed: int):
    """``(description, point)``: the base points tried, before premises define symbols."""
    exprs = [e for pair in pairs for e in pair] + [s for s in sides if s is not None]
    rng = random.Random(seed)
    base = sample_point(rng, *exprs)  # scalars within their assumptions, sizes instantiated
    matrices = sorted((k for k in base if isinstance(k, sp.MatrixSymbol)), key=lambda m: m.name)

    def filled(kind) -> dict:
        point = dict(base)
        for matrix in matrices:
            rows, cols = _square(matrix, point)
            point[matrix] = sp.ImmutableMatrix(sp.eye(rows)) if kind(matrix) == "identity" and \
                rows == cols else sp.ImmutableMatrix(sp.zeros(rows, cols))
        return point

    yield "identity matrices", filled(lambda m: "identity")
    yield "zero matrices", filled(lambda m: "zero")
    for attempt in range(_RANDOM_ATTEMPTS):
        yield "random integer matrices", sample_point(rng, *exprs, attempt=attempt)
    if 1 < len(matrices) <= _MIXTURE_LIMIT:
        for choice in itertools.product(("identity", "zero"), repeat=len(matrices)):
            if len(set(choice)) > 1:
                kinds = dict(zip(matrices, choice))
                zeros = ", ".join(m.name for m in matrices if kinds[m] == "zero")
                yield f"identity matrices, zero for {zeros}", filled(kinds.get)


def check_premises(assumptions: list, lhs: object = None, rhs: object = None, *, seed: int = 0) -> PremiseCheck:
    """Whether the premises ``assumptions`` (``Eq(a, b)`` or pairs) can all hold at once, with
    both sides of the claim defined there.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._premises import check_premises
    >>> A, B = sp.MatrixSymbol('A', 2, 2), sp.MatrixSymbol('B', 2, 2)
    >>> check_premises([sp.Eq(sp.Identity(2), sp.ZeroMatrix(2, 2)),
    ...                 sp.Eq(A * B, sp.ZeroMatrix(2, 2))], A * B, sp.Identity(2)).text()
    'premises not shown satisfiable: no identity, zero or random matrices satisfy Eq(I, 0)'
    >>> check_premises([sp.Eq(A.T, -A)], A, -A.T).text()
    'premises satisfiable (zero matrices)'
    """
    pairs = _pairs(assumptions)
    if not pairs:
        return PremiseCheck(True, "no premises")
    sides = [lhs, rhs]
    failed: dict[int, int] = {}
    try:
        for description, base in _candidates(pairs, sides, seed):
            try:
                point = _define(pairs, base)
                unmet = next((i for i, (a, b) in enumerate(pairs) if not _holds(a, b, point)),
                             None)
                if unmet is None:
                    for side in sides:  # the claim must be defined at the witness
                        if side is not None:
                            exact_values(side, point)
                    return PremiseCheck(True, description)
                failed[unmet] = failed.get(unmet, 0) + 1
            except (ValueError, ZeroDivisionError, TypeError, AttributeError,
                    sp.matrices.exceptions.NonInvertibleMatrixError):
                continue
    except Unsampleable as error:
        return PremiseCheck(False, reason=f"cannot sample the premises' symbols: {error}")
    if failed:
        worst = max(failed, key=failed.get)
        a, b = pairs[worst]
        return PremiseCheck(False, reason=f"no identity, zero or random matrices satisfy "
                                          f"{sp.sstr(sp.Eq(a, b, evaluate=False))}")
    return PremiseCheck(False, reason="no identity, zero or random matrices satisfy them with "
                                      "the claim defined (an inverse of a singular matrix)")
