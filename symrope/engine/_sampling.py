"""Exact points a rational grid cannot dodge, and the certified difference of a claim there.

One sampler serves ``verify`` and the checker. A counterexample must be *exact* (rationals,
Gaussian rationals, integer matrices) so that a reader can re-check it, and a point draws each
coordinate from one of four kinds, in turn, so that a claim cannot hide between them:

* *small*: ``p/q`` with ``q <= 9`` and the classic probes (``-3/2``, ``7/3``...) that expose false
  "simplifications" (``sqrt(x**2) = x`` at ``x < 0``, ``log(exp(z)) = z`` off the strip);
* *wide*: denominators from large primes (up to ``2**31 - 1``) and random integers to ``10**6``,
  so ``sin(2520*pi*x) = 0`` (true at every ``p/q`` with ``q <= 9``) is caught;
* *scale*: magnitudes ``10**-9`` to ``10**9``, so a claim that switches at ``10**6`` is too;
* *special*: the claim's own constants and breakpoints (a ``Piecewise`` threshold, the jump of a
  ``floor``, the one point where an ``Eq`` holds), at them and just beside them, on both sides.

Symbolic matrix sizes take several values (3, 2, 4, 1, 5) across attempts.

A point is judged by :mod:`symrope.engine._certified`: exact rational arithmetic or Arb balls,
never rounded arithmetic. The difference is *nonzero* only when its enclosure excludes zero,
*zero* (agreement: evidence, not proof) when the enclosure contains zero and is tiny against
the size of the terms, and *inconclusive* when a jump, a pole or the edge of the claim's real
domain is in the way (or the enclosure stays wide after the precision grows).
"""

# Over 500 lines: the sampler and the judgement of a point share the claim's special values
# and precision rules; _certified.py holds the arithmetic itself.

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache

import flint
import sympy as sp
from flint import arb, fmpq

from symrope.engine._certified import (Inconclusive, PointEvaluator, is_exact, magnitude,
                                       subtract)
from symrope._exact import read_floats_exactly

__all__ = ["Evaluation", "Unsampleable", "sample_point", "evaluate", "matrix_symbols",
           "scalar_symbols", "working_bits", "exact_values", "threshold_constants",
           "has_thresholds", "scale_values", "special_values", "sweep", "satisfies"]

NONZERO, ZERO, INCONCLUSIVE = "nonzero", "zero", "inconclusive"

# Base working precision (bits); it grows with the bits of the exact numbers involved, so a
# difference of 1e-40 * s (read exactly: a 133-bit denominator) is far above the noise.
BASE_BITS = 128
_MAX_BITS = 1 << 15
_RETRIES = 2          # a wide enclosure is recomputed at 4x, then 16x the precision
_MATRIX_SIDES = (3, 2, 4, 1, 5)

# Points tried early: they hit the classic false "simplifications"
# (sqrt(x**2) = x at x < 0, log(exp(z)) = z at |Im z| > pi, integer parity...).
_REAL_PROBES = [sp.Rational(-3, 2), sp.Rational(7, 3), sp.Rational(-5, 7), sp.Rational(11, 4)]
_COMPLEX_PROBES = [sp.Rational(1, 2) + 4 * sp.I, sp.Rational(-2, 3) - sp.Rational(7, 2) * sp.I]
_WIDE_PRIMES = (11, 13, 17, 101, 1009, 10007, 65537, 100003, 999983, 1000003, 2147483647)
_SCALE_EXPONENTS = tuple(k for k in range(-9, 10) if k)
_KINDS = ("small", "wide", "scale", "special")
_NEAR = (sp.Rational(1, 10), sp.Rational(1, 10007))  # "just beside" a breakpoint


def scalar_symbols(expr) -> list[sp.Symbol]:
    symbols = [s for s in expr.free_symbols if isinstance(s, sp.Symbol)]
    return sorted(symbols, key=sp.default_sort_key)


def matrix_symbols(expr) -> list[sp.MatrixSymbol]:
    found = [s for s in expr.atoms(sp.MatrixSymbol)]
    return sorted(found, key=lambda s: s.name)


class Unsampleable(ValueError):
    """No exact value satisfies a symbol's assumptions (a transcendental symbol, say)."""


def satisfies(symbol: sp.Symbol, value) -> bool:
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


# ---------------------------------------------------------------------- the claim's own values
_THRESHOLD_NODES = (sp.Piecewise, sp.Max, sp.Min, sp.Heaviside, sp.floor, sp.ceiling, sp.frac,
                    sp.sign, sp.Mod)
_JUMP_NODES = _THRESHOLD_NODES + (sp.Abs, sp.KroneckerDelta)
_MAX_BREAKPOINT_EQUATIONS = 64


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


def _jump_equations(expr):
    """Expressions whose zeros are where a jump node of ``expr`` switches."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, sp.Piecewise):
            for _, condition in node.args:
                for relation in condition.atoms(sp.core.relational.Relational):
                    yield relation.lhs - relation.rhs
        elif isinstance(node, (sp.floor, sp.ceiling, sp.frac)):
            yield from (node.args[0] - k for k in (-1, 0, 1))
        elif isinstance(node, sp.Mod):
            yield from (node.args[0] - k * node.args[1] for k in (-1, 0, 1))
        elif isinstance(node, (sp.Max, sp.Min)):
            yield from (a - b for i, a in enumerate(node.args) for b in node.args[i + 1:])
        elif isinstance(node, sp.KroneckerDelta):
            yield node.args[0] - node.args[1]
        elif isinstance(node, (sp.sign, sp.Heaviside, sp.Abs)):
            yield node.args[0]


def _rational_roots(equation, symbol) -> list:
    """The rational roots of ``equation`` in ``symbol`` when it is a polynomial of degree <= 2."""
    try:
        poly = sp.Poly(equation, symbol)
    except (sp.PolynomialError, sp.GeneratorsNeeded, ValueError, TypeError):
        return []
    if poly.degree() not in (1, 2) or not all(c.is_Rational for c in poly.all_coeffs()):
        return []
    return [r for r in sp.roots(poly, multiple=True) if r.is_Rational]


@lru_cache(maxsize=128)
def _special_values(exprs: tuple) -> tuple:
    """``(per-symbol breakpoints, claim-wide threshold constants)``, each with its neighbours."""
    constants = threshold_constants(*exprs)
    per_symbol: dict = {}
    equations = 0
    for expr in exprs:
        if not isinstance(expr, sp.Basic) or not expr.has(*_JUMP_NODES):
            continue
        for equation in _jump_equations(expr):
            equations += 1
            if equations > _MAX_BREAKPOINT_EQUATIONS:
                break
            free = [s for s in equation.free_symbols if isinstance(s, sp.Symbol)]
            if len(free) == 1:
                per_symbol.setdefault(free[0], set()).update(_rational_roots(equation, free[0]))

    def beside(values):
        return sorted({v + d for v in values for d in (0, *_NEAR, *(-n for n in _NEAR))})

    return ({symbol: tuple(beside(values)) for symbol, values in per_symbol.items() if values},
            tuple(beside(constants)))


def special_values(*exprs) -> dict:
    """Per free symbol, the exact points at and beside the claim's breakpoints and thresholds.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._sampling import special_values
    >>> x = sp.Symbol("x", real=True)
    >>> values = special_values(sp.Piecewise((1, sp.Eq(3 * x, 2)), (0, True)))[x]
    >>> sp.Rational(2, 3) in values, sp.Rational(2, 3) + sp.Rational(1, 10007) in values
    (True, True)
    """
    per_symbol, constants = _special_values(tuple(e for e in exprs if isinstance(e, sp.Basic)))
    symbols = set()
    for expr in exprs:
        if isinstance(expr, sp.Basic):
            symbols.update(scalar_symbols(expr))
    return {s: tuple(per_symbol.get(s, ())) + constants for s in symbols
            if per_symbol.get(s) or constants}


def scale_values(*exprs) -> list:
    """Exact positions across scales: ``10**k`` (k = -9..9, k != 0, both signs) and each
    threshold constant of ``exprs`` with the points just either side of it (``c +- 1/10``).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._sampling import scale_values
    >>> p = sp.Symbol("p", real=True)
    >>> values = scale_values(sp.Piecewise((p, p > 2048), (1, True)))
    >>> [v for v in values if 2000 < v < 2100]
    [20479/10, 2048, 20481/10]
    >>> max(values), min(v for v in values if v > 0)
    (1000000000, 1/1000000000)
    """
    values = set()
    for c in threshold_constants(*exprs):
        values |= {c - sp.Rational(1, 10), c, c + sp.Rational(1, 10)}
    for k in _SCALE_EXPONENTS:
        values |= {sp.Integer(10) ** k, -sp.Integer(10) ** k}
    return sorted(values)


# ---------------------------------------------------------------------- drawing a point
def _real_candidate(kind: str, rng: random.Random, attempt: int, special: tuple):
    if kind == "special" and special:
        return rng.choice(special)
    if kind == "scale":
        power = sp.Integer(10) ** rng.choice(_SCALE_EXPONENTS)
        q = rng.choice(_WIDE_PRIMES[:5])
        mantissa = sp.Integer(1) if rng.random() < 0.3 else sp.Rational(rng.randint(q, 10 * q), q)
        return rng.choice([-1, 1]) * power * mantissa
    if kind in ("wide", "special"):
        q = rng.choice(_WIDE_PRIMES) if rng.random() < 0.6 else rng.randint(10, 10**6)
        return sp.Rational(rng.randint(-60 * q, 60 * q), q)
    if attempt < len(_REAL_PROBES) and rng.random() < 0.5:
        return _REAL_PROBES[rng.randrange(len(_REAL_PROBES))]
    return sp.Rational(rng.randint(-60, 60), rng.randint(1, 9))


def _integer_candidate(kind: str, rng: random.Random, special: tuple):
    if kind == "special" and special:
        value = rng.choice(special)
        return sp.floor(value) if rng.random() < 0.5 else sp.ceiling(value)
    if kind == "scale":
        return rng.choice([-1, 1]) * (sp.Integer(10) ** rng.randint(1, 9) + rng.randint(-3, 3))
    if kind == "wide":
        return sp.Integer(rng.randint(-10**6, 10**6))
    return sp.Integer(rng.randint(-7, 7))


def _candidate(symbol: sp.Symbol, kind: str, rng: random.Random, attempt: int, special: tuple):
    if symbol.is_integer:
        value = _integer_candidate(kind, rng, special)
    elif symbol.is_imaginary:
        value = _real_candidate(kind, rng, attempt, ())
        return sp.I * (value if value != 0 else sp.Integer(1))
    elif symbol.is_extended_real or symbol.is_real:
        value = _real_candidate(kind, rng, attempt, special)
    else:
        if kind == "small" and attempt < len(_COMPLEX_PROBES) and rng.random() < 0.5:
            return _COMPLEX_PROBES[rng.randrange(len(_COMPLEX_PROBES))]
        return _real_candidate(kind, rng, attempt, special) + sp.I * _real_candidate(
            kind, rng, attempt, ())
    if symbol.is_extended_nonnegative:
        value = abs(value)
    elif symbol.is_extended_nonpositive:
        value = -abs(value)
    return value


def _value_for(symbol: sp.Symbol, rng: random.Random, attempt: int, kind: str, special: tuple):
    for tries in range(200):
        if tries >= 20:  # this kind has nothing that fits the assumptions: try the others
            kind = _KINDS[tries % len(_KINDS)]
        value = _candidate(symbol, kind, rng, attempt, special)
        if satisfies(symbol, value):
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
    """An exact point for every free scalar and matrix symbol of ``exprs``.

    Attempt 0 draws every coordinate from the small kind (readable counterexamples first);
    after it, symbol ``i`` of the sorted symbols draws from kind ``(attempt + i) % 4`` (small,
    wide, scale, special), so every few attempts each coordinate has met every kind.

    Examples
    ========

    >>> import random
    >>> import sympy as sp
    >>> from symrope.engine._sampling import sample_point
    >>> x = sp.Symbol("x", real=True)
    >>> points = [sample_point(random.Random(0), sp.sin(x), attempt=k)[x] for k in range(4)]
    >>> all(v.is_Rational for v in points), max(v.q for v in points) > 9
    (True, True)
    """
    scalars, matrices = set(), set()
    for expr in exprs:
        if isinstance(expr, sp.Basic):
            scalars.update(scalar_symbols(expr))
            matrices.update(matrix_symbols(expr))
    special = special_values(*exprs) if scalars else {}
    point = {}
    for index, symbol in enumerate(sorted(scalars, key=sp.default_sort_key)):
        kind = _KINDS[(attempt + index) % len(_KINDS) if attempt else 0]
        point[symbol] = _value_for(symbol, rng, attempt, kind, special.get(symbol, ()))
    # A symbolic size n of a matrix symbol is instantiated at several small sizes.
    side = sp.Integer(_MATRIX_SIDES[attempt % len(_MATRIX_SIDES)])
    for size in sorted({n for m in matrices for n in m.shape if isinstance(n, sp.Symbol)},
                       key=sp.default_sort_key):
        if satisfies(size, side):
            point[size] = side
        elif satisfies(size, sp.Integer(3)):
            point[size] = sp.Integer(3)
        else:
            raise Unsampleable(f"matrix size {size} must be a positive integer symbol")
    point.update({m: _matrix_for(m, rng, point) for m in sorted(matrices, key=lambda m: m.name)})
    return point


def _fits(symbol: sp.Symbol, value):
    """``value`` made to fit an integer symbol (its floor and ceiling), if it satisfies it."""
    candidates = [sp.floor(value), sp.ceiling(value)] if symbol.is_integer else [value]
    return [c for c in dict.fromkeys(candidates) if satisfies(symbol, c)]


def sweep(rng: random.Random, *exprs, symbols=None, limit: int = 256):
    """Points that put one symbol at a time at each of its special and scale values.

    For each symbol of ``symbols`` (default: every scalar symbol of ``exprs``), in turn: the
    claim's breakpoints and thresholds at and beside them (:func:`special_values`), then
    ``+-10**k`` for k = -9..9; the other coordinates are drawn by :func:`sample_point`. At most
    ``limit`` points. Raises :class:`Unsampleable` like :func:`sample_point`.

    Examples
    ========

    >>> import random
    >>> import sympy as sp
    >>> from symrope.engine._sampling import sweep
    >>> x, y = sp.symbols("x y", real=True)
    >>> claim = sp.Piecewise((y, x > 10**6), (0, True))
    >>> values = [point[x] for point in sweep(random.Random(0), claim, symbols=[x])]
    >>> 10**6 in values and 10**6 + sp.Rational(1, 10) in values and 10**9 in values
    True
    """
    special = special_values(*exprs)
    if symbols is None:
        symbols = sorted({s for e in exprs if isinstance(e, sp.Basic)
                          for s in scalar_symbols(e)}, key=sp.default_sort_key)
    scales = [sign * sp.Integer(10) ** k for k in _SCALE_EXPONENTS for sign in (1, -1)]
    count = 0
    for symbol in symbols:
        values = list(dict.fromkeys(special.get(symbol, ()))) + scales
        for value in (v for raw in values for v in _fits(symbol, raw)):
            if count >= limit:
                return
            point = sample_point(rng, *exprs, attempt=count + 1)
            point[symbol] = value
            count += 1
            yield point


# ---------------------------------------------------------------------- evaluating a claim
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


def _with_matrices(expr, point: dict):
    """``expr`` with its matrix symbols (and their sizes) replaced, scalars left symbolic.

    Scalars are never substituted into SymPy here: substitution evaluates, and SymPy's automatic
    evaluation of ``sign(sin(x)**2 + cos(x)**2 - 1)`` at a number is rounded arithmetic.
    """
    matrices = {k: v for k, v in point.items() if isinstance(k, sp.MatrixSymbol)}
    if not matrices:
        return expr
    sizes = {n: point[n] for m in matrices for n in m.shape if isinstance(n, sp.Symbol)
             and n in point}
    expr = expr.xreplace(matrices).xreplace(sizes).doit()
    return expr.as_explicit() if isinstance(expr, sp.MatrixExpr) else expr


def _expression_bits(expr) -> int:
    if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
        return 0
    try:
        return _cached_bits(expr)
    except TypeError:  # a mutable Matrix: not hashable
        return _cached_bits.__wrapped__(expr)


@lru_cache(maxsize=512)
def _cached_bits(expr) -> int:
    return max((max(int(n.p).bit_length(), int(n.q).bit_length())
                for n in expr.atoms(sp.Rational)), default=0)


def working_bits(*values) -> int:
    """The working precision (bits) for evaluating ``values`` honestly.

    It grows with the longest numerator or denominator among their rationals: a number of k bits
    needs well over k bits of working precision before rounding noise drops below it.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._sampling import working_bits
    >>> working_bits(sp.Rational(1, 3))
    128
    >>> working_bits(sp.Rational(1, 10**40))
    394
    """
    bits = max((_expression_bits(v) for v in values), default=0)
    extra = 2 * bits if bits > 8 else 0
    return min(BASE_BITS + extra, _MAX_BITS)


@dataclass(frozen=True)
class Evaluation:
    """The difference of a claim at one exact point: certified, or why not.

    ``status`` is ``"nonzero"`` (the enclosure of ``|lhs - rhs|`` excludes zero: a
    counterexample), ``"zero"`` (the enclosure contains zero and is tiny against ``scale``:
    agreement, which is evidence and never proof) or ``"inconclusive"`` (``reason``).
    ``magnitude`` is the exact ``|lhs - rhs|`` (an ``fmpq``) or its Arb ball; ``bits`` the
    precision of the balls (0 when everything was exact).
    """

    point: dict
    entry: tuple | None          # (row, col) of the entry that was evaluated, for matrices
    status: str
    magnitude: object = None
    bits: int = 0
    reason: str | None = None

    @property
    def clearly_nonzero(self) -> bool:
        return self.status == NONZERO

    @property
    def negligible(self) -> bool:
        return self.status == ZERO

    @property
    def conclusive(self) -> bool:
        return self.status != INCONCLUSIVE

    @property
    def exact(self) -> bool:
        return type(self.magnitude) is fmpq

    def bounds(self, digits: int = 6) -> tuple[str, str]:
        """A lower and an upper bound of ``|lhs - rhs|``, rounded outward to ``digits``."""
        low, high = _endpoints(self.magnitude)
        return (_decimal(low, digits, ROUND_FLOOR), _decimal(high, digits, ROUND_CEILING))

    def certificate(self) -> dict:
        """The evidence of a refutation: the enclosure of ``|lhs - rhs|`` and how it was made.

        Examples
        ========

        >>> import sympy as sp
        >>> from symrope.engine._sampling import evaluate
        >>> x = sp.Symbol("x", real=True)
        >>> (found,) = evaluate(sp.sqrt(x**2), x, {x: sp.Rational(-5, 7)})
        >>> found.certificate()["enclosure"], found.certificate()["arithmetic"]
        ('10/7', 'exact rational arithmetic')
        >>> (found,) = evaluate(sp.sin(x), 0, {x: sp.Rational(1, 3)})
        >>> found.certificate()["lower_bound"], found.certificate()["precision_bits"]
        ('0.327194', 128)
        """
        low, high = self.bounds()
        if self.exact:
            enclosure, arithmetic, bits = str(self.magnitude), "exact rational arithmetic", None
        else:
            enclosure = self.magnitude.str(min(40, max(10, self.bits // 4)), radius=True)
            arithmetic, bits = "Arb ball arithmetic", self.bits
        return {"value": _decimal(_midpoint(self.magnitude), 6, ROUND_HALF_EVEN),
                "lower_bound": low, "upper_bound": high, "enclosure": enclosure,
                "excludes_zero": self.status == NONZERO, "arithmetic": arithmetic,
                "precision_bits": bits, "library": f"python-flint {flint.__version__}",
                "entry": None if self.entry is None else list(self.entry)}


def _endpoints(value) -> tuple:
    if type(value) is fmpq:
        return value, value
    return value.lower(), value.upper()


def _midpoint(value):
    return value if type(value) is fmpq else value.mid()


_EXACT_EXPONENT = 1 << 16  # binary exponents beyond it are formatted by Arb, never exactly


def _decimal(value, digits: int, rounding) -> str:
    """An exact ``value`` (an ``fmpq`` or an exact ``arb``) to ``digits`` significant digits,
    rounded in the given direction.

    Arb's own arithmetic finds the decimal exponent, so a bound like ``exp(-10**14)`` (a binary
    exponent of -1.4e14) is printed without building its exact rational.

    Examples
    ========

    >>> from decimal import ROUND_CEILING, ROUND_FLOOR
    >>> from flint import arb, fmpq
    >>> from symrope.engine._sampling import _decimal
    >>> _decimal(fmpq(10, 7), 6, ROUND_FLOOR), _decimal(fmpq(10, 7), 6, ROUND_CEILING)
    ('1.42857', '1.42858')
    >>> _decimal((-arb(10) ** 14).exp().mid(), 3, ROUND_FLOOR)
    '6.56e-43429448190326'
    """
    if value == 0:
        return "0"
    if type(value) is arb:
        mantissa, exponent = value.man_exp()
        if abs(int(exponent)) < _EXACT_EXPONENT:  # an exact dyadic of moderate size
            value = fmpq(int(mantissa)) * fmpq(2) ** int(exponent)
    if type(value) is fmpq:  # exact rationals are bounded in size: Decimal divides them exactly
        context = Context(prec=digits, rounding=rounding)
        number = context.divide(Decimal(int(value.p)), Decimal(int(value.q)))
        return _tidy(f"{number:.{digits}g}")
    size = abs(value)
    with flint.ctx.workprec(64 + 4 * digits + 2 * size.mid_rad_10exp()[2].bit_length()):
        guess = int((size.log() / arb(10).log()).mid().floor().unique_fmpz())
        for power in (guess, guess + 1, guess - 1):
            scaled = size / arb(10) ** (power - digits + 1)
            if rounding == ROUND_FLOOR:
                whole = scaled.lower().floor()
            elif rounding == ROUND_CEILING:
                whole = scaled.upper().ceil()
            else:
                whole = (scaled.mid() + arb(1) / 2).floor()
            mantissa = int(whole.unique_fmpz())
            if 10 ** (digits - 1) <= mantissa < 10 ** digits:
                break
    exponent = power - digits + 1
    if abs(exponent) < 10**6:  # Decimal formats it exactly (the mantissa has `digits` digits)
        return _tidy(f"{Decimal(mantissa).scaleb(exponent):.{digits}g}")
    text = str(mantissa).rstrip("0")
    head = text[0] + (f".{text[1:]}" if len(text) > 1 else "")
    return f"{'-' if value < 0 else ''}{head}e{power:+d}"


def _tidy(text: str) -> str:
    """``1.50000E-7`` as ``1.5e-7``: no trailing zeros after the point, a lower-case ``e``."""
    mantissa, _, exponent = text.lower().partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent}" if exponent else mantissa


def _classify(left, right, bits: int):
    """``(status, |lhs - rhs|)`` for two values at one point (exact or balls)."""
    difference = subtract(left, right)
    size = magnitude(difference)
    if is_exact(difference):
        return (NONZERO if size != 0 else ZERO), size
    size = arb(size) if type(size) is fmpq else size
    if size > 0:
        return NONZERO, size
    scale = arb(1)
    for side in (left, right):
        side_size = magnitude(side)
        scale = scale.max(arb(side_size) if type(side_size) is fmpq else side_size)
    if size.upper() <= scale.upper() * arb(2) ** (-(bits // 2)):
        return ZERO, size
    return None, size  # wide: a higher precision may decide


def _judge(evaluators: list, point: dict, lhs, rhs, entry) -> Evaluation:
    """One entry at one point: at the first precision that decides, within the retries."""
    size = None
    for attempt in range(_RETRIES + 1):
        if attempt == len(evaluators):
            evaluators.append(PointEvaluator(point, min(evaluators[-1].bits * 4, _MAX_BITS)))
        evaluator = evaluators[attempt]
        try:
            left, right = evaluator.value(lhs), evaluator.value(rhs)
            with flint.ctx.workprec(evaluator.bits):  # the subtraction at the same precision
                status, size = _classify(left, right, evaluator.bits)
        except Inconclusive as why:
            return Evaluation(point, entry, INCONCLUSIVE, reason=str(why))
        except (ValueError, ZeroDivisionError, TypeError, ArithmeticError) as error:
            return Evaluation(point, entry, INCONCLUSIVE, reason=f"cannot evaluate: {error}")
        if status is not None:
            return Evaluation(point, entry, status, size, 0 if is_exact(size) else
                              evaluator.bits)
        if evaluator.bits >= _MAX_BITS:
            break
    return Evaluation(point, entry, INCONCLUSIVE, size, evaluators[-1].bits,
                      "the enclosure of the difference contains 0 and stays wide")


def evaluate(lhs, rhs, point: dict, entries: list | None = None) -> list[Evaluation]:
    """Certify ``lhs - rhs`` at the exact ``point``, entry by entry for matrices.

    Floats in the claim or the point are read exactly first (never evaluated in 53 bits); the
    precision grows with the bits of the numbers (see :func:`working_bits`) and again where an
    enclosure is too wide to decide. Scalar values are never substituted into SymPy (whose
    automatic evaluation rounds); only matrix symbols are, to make entries explicit.
    """
    lhs, _ = read_floats_exactly(lhs)
    rhs, _ = read_floats_exactly(rhs)
    point = {k: read_floats_exactly(v)[0] for k, v in point.items()}
    left, right = _entries(_with_matrices(lhs, point)), _entries(_with_matrices(rhs, point))
    shape = getattr(lhs, "shape", None)
    cols = int(sp.sympify(shape[1]).xreplace(point)) if shape else 1
    chosen = range(len(left)) if entries is None else entries
    scalars = {k: v for k, v in point.items() if not isinstance(k, sp.MatrixSymbol)}
    bits = working_bits(lhs, rhs, *scalars.values())
    evaluators = [PointEvaluator(scalars, bits)]
    results = []
    for index in chosen:
        entry = tuple(int(i) for i in divmod(index, cols)) if shape else None
        results.append(_judge(evaluators, point, left[index], right[index], entry))
    return results
