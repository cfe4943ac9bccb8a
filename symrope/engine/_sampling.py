"""Exact random points that respect each symbol's assumptions, and two-precision evaluation.

A counterexample must be *exact* (rationals, Gaussian rationals, integer matrices) so that a
reader can re-check it, and it is confirmed with mpmath (through SymPy's adaptive ``evalf``) at
two working precisions: a value that is really nonzero agrees with itself at 30 and 60 digits,
while rounding noise around a true zero does not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import mpmath
import sympy as sp

__all__ = ["Evaluation", "sample_point", "evaluate", "matrix_symbols", "scalar_symbols"]

LOW_DPS, HIGH_DPS = 30, 60
# The value must exceed this fraction of the size of the terms at both precisions...
_NONZERO_RELATIVE = sp.Rational(1, 10**12)
# ...and the two precisions must agree to this (relative) accuracy.
_AGREEMENT_RELATIVE = 1e-20
_MATRIX_SIDE_FOR_SYMBOLIC_SHAPE = 3

# Points tried before random ones: they hit the classic false "simplifications"
# (sqrt(x**2) = x at x < 0, log(exp(z)) = z at |Im z| > pi, integer parity...).
_REAL_PROBES = [sp.Rational(-3, 2), sp.Rational(7, 3), sp.Rational(-5, 7), sp.Rational(11, 4)]
_COMPLEX_PROBES = [sp.Rational(1, 2) + 4 * sp.I, sp.Rational(-2, 3) - sp.Rational(7, 2) * sp.I]


def scalar_symbols(expr) -> list[sp.Symbol]:
    symbols = [s for s in expr.free_symbols if isinstance(s, sp.Symbol)]
    return sorted(symbols, key=sp.default_sort_key)


def matrix_symbols(expr) -> list[sp.MatrixSymbol]:
    found = [s for s in expr.atoms(sp.MatrixSymbol)]
    return sorted(found, key=lambda s: s.name)


def _satisfies(symbol: sp.Symbol, value) -> bool:
    """True when ``value`` has every property that ``symbol`` is assumed to have (or not have)."""
    for fact, expected in symbol.assumptions0.items():
        if fact in {"commutative", "finite", "infinite", "hermitian", "antihermitian", "algebraic",
                    "transcendental", "complex", "extended_real", "extended_positive",
                    "extended_negative", "extended_nonnegative", "extended_nonpositive",
                    "extended_nonzero", "imaginary"}:
            continue
        actual = getattr(value, f"is_{fact}", None)
        if actual is not None and actual != expected:
            return False
    return True


def _candidate(symbol: sp.Symbol, rng: random.Random, attempt: int):
    if symbol.is_integer:
        return sp.Integer(rng.randint(-7, 7))
    if symbol.is_extended_real or symbol.is_real:
        if attempt < len(_REAL_PROBES) and rng.random() < 0.5:
            return _REAL_PROBES[rng.randrange(len(_REAL_PROBES))]
        return sp.Rational(rng.randint(-60, 60), rng.randint(1, 9))
    if attempt < len(_COMPLEX_PROBES) and rng.random() < 0.5:
        return _COMPLEX_PROBES[rng.randrange(len(_COMPLEX_PROBES))]
    return sp.Rational(rng.randint(-30, 30), rng.randint(1, 7)) + sp.I * sp.Rational(
        rng.randint(-42, 42), rng.randint(1, 7))


def _value_for(symbol: sp.Symbol, rng: random.Random, attempt: int):
    for _ in range(200):
        value = _candidate(symbol, rng, attempt)
        if _satisfies(symbol, value):
            return value
    raise ValueError(f"cannot sample a value satisfying the assumptions of {symbol}")


def _matrix_for(symbol: sp.MatrixSymbol, rng: random.Random, sizes: dict):
    rows, cols = (int(sp.sympify(n).xreplace(sizes)) for n in symbol.shape)
    while True:
        value = sp.ImmutableMatrix(rows, cols, lambda i, j: rng.randint(-4, 4))
        if rows != cols or value.det() != 0:  # invertible, so inverses in claims are defined
            return value


def sample_point(rng: random.Random, *exprs, attempt: int = 0) -> dict:
    """An exact random point for every free scalar and matrix symbol of ``exprs``."""
    scalars, matrices = set(), set()
    for expr in exprs:
        if isinstance(expr, sp.Basic):
            scalars.update(scalar_symbols(expr))
            matrices.update(matrix_symbols(expr))
    point = {s: _value_for(s, rng, attempt) for s in sorted(scalars, key=sp.default_sort_key)}
    # A symbolic size n of a matrix symbol is instantiated as a small square size.
    for size in sorted({n for m in matrices for n in m.shape if isinstance(n, sp.Symbol)},
                       key=sp.default_sort_key):
        if _satisfies(size, sp.Integer(_MATRIX_SIDE_FOR_SYMBOLIC_SHAPE)):
            point[size] = sp.Integer(_MATRIX_SIDE_FOR_SYMBOLIC_SHAPE)
        else:
            raise ValueError(f"matrix size {size} must be a positive integer symbol")
    point.update({m: _matrix_for(m, rng, point) for m in sorted(matrices, key=lambda m: m.name)})
    return point


def _entries(expr) -> list:
    if isinstance(expr, sp.MatrixBase):
        return list(expr)
    if isinstance(expr, sp.MatrixExpr):
        return list(expr.as_explicit())
    return [expr]


def _substitute(expr, point):
    scalars = {k: v for k, v in point.items() if not isinstance(k, sp.MatrixSymbol)}
    matrices = {k: v for k, v in point.items() if isinstance(k, sp.MatrixSymbol)}
    if matrices:
        # Matrices first (their keys carry symbolic sizes), then scalars make Identity(n) concrete.
        expr = expr.xreplace(matrices).xreplace(scalars).doit()
        if isinstance(expr, sp.MatrixExpr):
            expr = expr.as_explicit()
        return expr
    return expr.xreplace(scalars) if scalars else expr


def _magnitude(value, dps: int):
    """|value| as an mpmath number at ``dps`` digits, or None where undefined (pole, nan)."""
    number = sp.N(value, dps)
    if number.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not number.is_number:
        return None
    re, im = number.as_real_imag()
    with mpmath.workdps(dps):
        try:
            return mpmath.hypot(mpmath.mpf(sp.Float(re, dps)), mpmath.mpf(sp.Float(im, dps)))
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True)
class Evaluation:
    """The difference of a claim at one exact point, at two precisions."""

    point: dict
    entry: tuple | None          # (row, col) of the entry that was evaluated, for matrices
    low: object                  # |lhs - rhs| at LOW_DPS digits (mpmath mpf)
    high: object                 # |lhs - rhs| at HIGH_DPS digits
    scale: object                # size of the terms, max(1, |lhs|, |rhs|)
    exact_nonzero: bool = False  # the difference evaluated to a nonzero rational: no rounding at all

    @property
    def clearly_nonzero(self) -> bool:
        if self.exact_nonzero:
            return True
        if self.low is None or self.high is None:
            return False
        threshold = self.scale * mpmath.mpf(_NONZERO_RELATIVE)
        agree = abs(self.low - self.high) <= _AGREEMENT_RELATIVE * self.scale
        return self.low > threshold and self.high > threshold and agree

    @property
    def negligible(self) -> bool:
        """Zero to about 25 digits relative to the terms: what a true identity gives."""
        return self.low is not None and self.low <= self.scale * mpmath.mpf(10) ** (-(LOW_DPS - 5))


def evaluate(lhs, rhs, point: dict, entries: list | None = None) -> list[Evaluation]:
    """Evaluate ``lhs - rhs`` at ``point`` entry by entry (matrices) at two precisions.

    The 60-digit value is computed only where the 30-digit one is not already negligible: a
    true identity needs no second opinion to be *not refuted*.
    """
    left, right = _entries(_substitute(lhs, point)), _entries(_substitute(rhs, point))
    shape = getattr(lhs, "shape", None)
    cols = int(sp.sympify(shape[1]).xreplace(point)) if shape else 1
    chosen = range(len(left)) if entries is None else entries
    results = []
    for index in chosen:
        difference = left[index] - right[index]
        exact_nonzero = bool(difference.is_Rational and difference != 0)
        sizes = [_magnitude(left[index], 15), _magnitude(right[index], 15)]
        scale = max([mpmath.mpf(1)] + [s for s in sizes if s is not None])
        low = _magnitude(difference, LOW_DPS)
        negligible = low is not None and low <= scale * mpmath.mpf(10) ** (-(LOW_DPS - 5))
        high = low if negligible else _magnitude(difference, HIGH_DPS)
        entry = tuple(int(i) for i in divmod(index, cols)) if shape else None
        results.append(Evaluation(point, entry, low, high, scale, exact_nonzero))
    return results
