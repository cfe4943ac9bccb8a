"""Exact points a rational grid cannot dodge, where the certified difference of a claim is judged.

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

A point is judged by :mod:`symrope.engine._judgement` (``evaluate``): exact rational arithmetic
or Arb balls, never rounded arithmetic.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache

import sympy as sp

__all__ = ["Unsampleable", "sample_point", "matrix_symbols", "scalar_symbols",
           "threshold_constants", "has_thresholds", "scale_values", "special_values", "sweep",
           "satisfies"]

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


def threshold_constants(*exprs: object) -> list:
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


def has_thresholds(*exprs: object) -> bool:
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


def scale_values(*exprs: object) -> list:
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


def sweep(rng: random.Random, *exprs: object, symbols: list | None = None,
          limit: int = 256) -> Iterator[dict]:
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
