"""Exact random points that respect each symbol's assumptions, and two-precision evaluation.

A counterexample must be *exact* (rationals, Gaussian rationals, integer matrices) so that a
reader can re-check it, and it is confirmed with mpmath (through SymPy's adaptive ``evalf``) at
two working precisions: a value that is really nonzero agrees with itself at both, while
rounding noise around a true zero does not. The claim and the point are exact (Floats are read
as their binary rationals first), and the working precisions grow with the number of digits of
the rationals involved (``1e-40`` read exactly has a 56-digit denominator), so a difference of
``1e-40 * s`` is seen and a cancellation of ``1e20`` terms is not mistaken for one. The
nonzero test uses ``evalf(strict=True)``, which raises rather than return digits it could not
certify.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import mpmath
import sympy as sp
from sympy.core.evalf import PrecisionExhausted

from symrope.engine._exact import read_floats_exactly

__all__ = ["Evaluation", "Unsampleable", "sample_point", "evaluate", "matrix_symbols",
           "scalar_symbols", "working_digits", "exact_values"]

# Base working precisions; both grow with the digits of the exact numbers involved.
LOW_DPS, HIGH_DPS = 30, 60
_MAX_EXTRA_DIGITS = 2000    # beyond this the claim's numbers are too long to evaluate honestly
# Noise at d digits is about scale * 10**-d: a nonzero value must clear it by this many digits...
_NONZERO_MARGIN_DIGITS = 10
# ...and the two (strict) precisions must agree to this many significant digits.
_AGREEMENT_DIGITS = 20
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


class Unsampleable(ValueError):
    """No exact value satisfies a symbol's assumptions (a transcendental symbol, say)."""


def _satisfies(symbol: sp.Symbol, value) -> bool:
    """True when ``value`` has every property that ``symbol`` is assumed to have (or not have).

    Every fact counts (``imaginary``, ``extended_positive``, ``transcendental``...): a point
    that breaks one is not a point of the claim, and a "counterexample" there refutes nothing.
    """
    for fact, expected in symbol.assumptions0.items():
        if fact == "commutative":
            continue
        actual = getattr(value, f"is_{fact}", None)
        if actual != expected:  # None (unknown) is not good enough either
            return False
    return True


def _candidate(symbol: sp.Symbol, rng: random.Random, attempt: int):
    if symbol.is_integer:
        return sp.Integer(rng.randint(-7, 7))
    if symbol.is_imaginary:
        return sp.I * sp.Rational(rng.choice([-1, 1]) * rng.randint(1, 60), rng.randint(1, 9))
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
    raise Unsampleable(f"no exact value found that satisfies the assumptions of {symbol} "
                       f"({', '.join(sorted(k for k, v in symbol.assumptions0.items() if v))})")


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
            raise Unsampleable(f"matrix size {size} must be a positive integer symbol")
    point.update({m: _matrix_for(m, rng, point) for m in sorted(matrices, key=lambda m: m.name)})
    return point


def _entries(expr) -> list:
    if isinstance(expr, sp.MatrixBase):
        return list(expr)
    if isinstance(expr, sp.MatrixExpr):
        return list(expr.as_explicit())
    return [expr]


def exact_values(expr, point: dict) -> list:
    """The exact entries of ``expr`` (a scalar, a matrix or a matrix expression) at ``point``."""
    return _entries(_substitute(expr, point))


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


def working_digits(*values) -> tuple[int, int]:
    """The two working precisions (digits) for evaluating ``values`` honestly.

    Each grows with the longest numerator or denominator among the rationals in ``values``:
    a number with k digits needs more than k digits of working precision before rounding noise
    drops below it.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._sampling import working_digits
    >>> working_digits(sp.Rational(1, 3))
    (30, 60)
    >>> working_digits(sp.Rational(1, 10**40))
    (71, 142)
    """
    extra = 0
    for value in values:
        if isinstance(value, (sp.Basic, sp.MatrixBase)):
            for number in value.atoms(sp.Rational):
                extra = max(extra, len(str(abs(number.p))), len(str(number.q)))
    extra = min(extra, _MAX_EXTRA_DIGITS)
    low = LOW_DPS + (extra if extra > 3 else 0)
    return low, max(HIGH_DPS, 2 * low)


def _absolute(value, dps: int, strict: bool = False):
    """|value| as an mpmath number at ``dps`` digits, or None where undefined or uncertifiable.

    With ``strict`` SymPy's evalf raises instead of returning digits it could not certify
    (around a true zero); that is None too.
    """
    try:
        number = value.evalf(dps, strict=strict, maxn=max(100, 3 * dps))
    except PrecisionExhausted:
        return None
    except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
        return None
    if number.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not number.is_number:
        return None
    re, im = number.as_real_imag()
    if not (re.is_Number and im.is_Number):
        return None
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
    low: object                  # |lhs - rhs| at the low precision (mpmath mpf)
    high: object                 # |lhs - rhs| at the high precision
    scale: object                # size of the terms, max(1, |lhs|, |rhs|)
    exact_nonzero: bool = False  # the difference evaluated to a nonzero rational: no rounding at all
    digits: int = LOW_DPS        # the low working precision
    certified: bool = False      # strict evalf gave both values, agreeing to _AGREEMENT_DIGITS

    @property
    def clearly_nonzero(self) -> bool:
        if self.exact_nonzero:
            return True
        if not self.certified or self.low is None or self.high is None:
            return False
        threshold = self.scale * mpmath.mpf(10) ** (-(self.digits - _NONZERO_MARGIN_DIGITS))
        return self.low > threshold and self.high > threshold

    @property
    def negligible(self) -> bool:
        """Zero to ``digits - 5`` digits relative to the terms: what a true identity gives."""
        return self.low is not None and \
            self.low <= self.scale * mpmath.mpf(10) ** (-(self.digits - 5))


def _gaussian_rational(e) -> bool:
    """``e`` is built from rationals and ``I`` by sums, products and integer powers."""
    if e.is_Rational or e is sp.I:
        return True
    if e.is_Add or e.is_Mul:
        return all(_gaussian_rational(a) for a in e.args)
    if e.is_Pow:
        return e.exp.is_Integer and _gaussian_rational(e.base)
    return False


def _exact_nonzero(difference) -> bool:
    """The difference is a nonzero (Gaussian) rational: nothing was rounded."""
    if difference.is_Rational:
        return difference != 0
    if not _gaussian_rational(difference):
        return False
    real, imaginary = difference.as_real_imag()
    return bool(real.is_Rational and imaginary.is_Rational and (real != 0 or imaginary != 0))


def evaluate(lhs, rhs, point: dict, entries: list | None = None) -> list[Evaluation]:
    """Evaluate ``lhs - rhs`` at ``point`` entry by entry (matrices) at two precisions.

    Floats in the claim or the point are read exactly first (never evaluated in 53 bits), and
    the precisions grow with the digits of the numbers (see :func:`working_digits`). The high
    precision value is computed only where the low one is not already negligible: a true
    identity needs no second opinion to be *not refuted*.
    """
    lhs, _ = read_floats_exactly(lhs)
    rhs, _ = read_floats_exactly(rhs)
    point = {k: read_floats_exactly(v)[0] for k, v in point.items()}
    left, right = _entries(_substitute(lhs, point)), _entries(_substitute(rhs, point))
    shape = getattr(lhs, "shape", None)
    cols = int(sp.sympify(shape[1]).xreplace(point)) if shape else 1
    chosen = range(len(left)) if entries is None else entries
    results = []
    for index in chosen:
        low_dps, high_dps = working_digits(left[index], right[index])
        difference = left[index] - right[index]
        exact_nonzero = _exact_nonzero(difference)
        sizes = [_absolute(left[index], 15), _absolute(right[index], 15)]
        scale = max([mpmath.mpf(1)] + [s for s in sizes if s is not None])
        low = _absolute(difference, low_dps)
        negligible = low is not None and low <= scale * mpmath.mpf(10) ** (-(low_dps - 5))
        high, certified = low, False
        if not negligible and not exact_nonzero:
            strict_low = _absolute(difference, low_dps, strict=True)
            high = _absolute(difference, high_dps, strict=True)
            if strict_low is not None and high is not None:
                low = strict_low
                with mpmath.workdps(high_dps):
                    certified = abs(low - high) <= high * mpmath.mpf(10) ** (-_AGREEMENT_DIGITS)
        entry = tuple(int(i) for i in divmod(index, cols)) if shape else None
        results.append(Evaluation(point, entry, low, high, scale, exact_nonzero, low_dps,
                                  certified))
    return results


# Positions far from the +-60 of random sampling: thresholds (a context length of 2048, say)
# and behaviour that only shows at scale. Exact integers, so a counterexample stays exact.
_SCALE_EXPONENTS = range(1, 8)
_THRESHOLD_NODES = (sp.Piecewise, sp.Max, sp.Min, sp.Heaviside, sp.floor, sp.ceiling, sp.frac,
                    sp.sign, sp.Mod)


def threshold_constants(*exprs) -> list:
    """Numbers at which a ``Piecewise`` condition, ``Max``, ``Min``, a step or ``Mod`` switches.

    The numeric constants of those nodes (conditions, arguments, the modulus) with their
    negatives: exact and sorted.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._sampling import threshold_constants
    >>> p = sp.Symbol("p", real=True)
    >>> threshold_constants(sp.Piecewise((p, p > 2048), (1, True)) + sp.Max(p, 3) * sp.cos(p))
    [-2048, -3, 3, 2048]
    """
    found = set()
    for expr in exprs:
        if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
            continue
        for node in sp.preorder_traversal(expr):
            if isinstance(node, sp.Piecewise):  # the conditions switch, not the pieces
                parts = [condition for _, condition in node.args]
            elif isinstance(node, _THRESHOLD_NODES):
                parts = [node]
            else:
                continue
            for part in parts:
                found |= {abs(n) for n in part.atoms(sp.Number) if n.is_Rational and n != 0}
    return sorted(found | {-n for n in found})


def has_thresholds(*exprs) -> bool:
    """True when an expression contains a node that switches at a threshold (see above)."""
    return any(isinstance(expr, (sp.Basic, sp.MatrixBase)) and expr.has(*_THRESHOLD_NODES)
               for expr in exprs)


def scale_values(*exprs) -> list:
    """Exact positions across scales: ``10**k`` (k = 1..7, both signs) and each threshold
    constant of ``exprs`` with the points just either side of it (``c +- 1/10``).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._sampling import scale_values
    >>> p = sp.Symbol("p", real=True)
    >>> values = scale_values(sp.Piecewise((p, p > 2048), (1, True)))
    >>> [v for v in values if 2000 < v < 2100]
    [20479/10, 2048, 20481/10]
    >>> max(values)
    10000000
    """
    values = set()
    for c in threshold_constants(*exprs):
        values |= {c - sp.Rational(1, 10), c, c + sp.Rational(1, 10)}
    for k in _SCALE_EXPONENTS:
        values |= {sp.Integer(10) ** k, -sp.Integer(10) ** k}
    return sorted(values)
