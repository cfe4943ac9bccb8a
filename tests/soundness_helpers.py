"""An engine-independent re-check of counterexamples, shared by the soundness tests and fuzzer.

The claim's Floats are read through mpmath's exact (mantissa, exponent), the point is
substituted exactly, and each entry of the difference is evaluated by mpmath (through
``lambdify``) at 120 and at 240 digits. Nothing here calls symrope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import sympy as sp

from tests.matrix_helpers import explicit_matrix

CHECK_DIGITS = 120


@dataclass
class Claim:
    """A claim whose truth is known by construction, from one fuzzer family."""

    lhs: object
    rhs: object
    true: bool
    family: str
    assumptions: tuple = field(default=())


_hx, _ha, _hb, _hc, _hd = sp.symbols("x a b c d", real=True)
# A true claim (sin^2 + cos^2 = 1) that no budget of a few seconds decides: every rewrite must
# expand a 5-variable 30th power first (over 30 s). The budget tests' one example of it.
HARD_TRUE_CLAIM = ((sp.sin(_hx) ** 2 + sp.cos(_hx) ** 2 + _ha + _hb + _hc + _hd) ** 30,
                   (1 + _ha + _hb + _hc + _hd) ** 30)


def _exact(expr):
    """``expr`` with each Float replaced by the rational its binary digits are (exact)."""
    if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
        return sp.sympify(expr)
    mapping = {}
    for number in expr.atoms(sp.Float):
        # the (sign, mantissa, exponent, bits) tuple itself: mpmath.mpf() would round it to
        # mpmath's global precision, which a leaky caller may have lowered
        sign, mantissa, exponent, _ = number._mpf_
        magnitude = sp.Integer(int(mantissa)) * sp.Rational(2) ** int(exponent)
        mapping[number] = -magnitude if sign else magnitude
    return expr.xreplace(mapping) if mapping else expr


def _number(value, digits: int):
    with mpmath.workdps(digits):
        value = sp.sympify(value)
        if value.free_symbols:
            raise AssertionError(f"the counterexample leaves {value.free_symbols} free")
        return mpmath.mpmathify(sp.lambdify([], value, modules="mpmath")())


def _numeric(value, digits: int):
    """``value`` (scalar, explicit, block or product matrix, all numbers) as mpmath numbers.

    Products are multiplied out numerically: SymPy's own ``as_explicit`` of a product of
    block matrices goes through symbolic sums and takes minutes.
    """
    if isinstance(value, sp.MatrixBase):
        rows, cols = value.shape
        return mpmath.matrix([[_number(value[i, j], digits) for j in range(cols)]
                              for i in range(rows)])
    if isinstance(value, sp.BlockDiagMatrix):
        blocks = [_numeric(sp.ImmutableMatrix(b), digits) for b in value.diag]
        size = sum(b.rows for b in blocks)
        with mpmath.workdps(digits):
            out = mpmath.zeros(size, size)
            offset = 0
            for b in blocks:
                for i in range(b.rows):
                    for j in range(b.cols):
                        out[offset + i, offset + j] = b[i, j]
                offset += b.rows
        return out
    if isinstance(value, (sp.MatMul, sp.MatAdd)):
        parts = [_numeric(arg, digits) for arg in value.args]
        with mpmath.workdps(digits):
            result = parts[0]
            for part in parts[1:]:
                result = result * part if isinstance(value, sp.MatMul) else result + part
        return result
    if isinstance(value, sp.Transpose):
        return _numeric(value.arg, digits).T
    if isinstance(value, sp.Inverse):
        with mpmath.workdps(digits):
            return mpmath.inverse(_numeric(value.arg, digits))
    if isinstance(value, sp.MatrixExpr):
        return _numeric(sp.ImmutableMatrix(explicit_matrix(value)), digits)
    return _number(value, digits)


def _at(expr, point):
    matrices = {k: v for k, v in point.items() if isinstance(k, sp.MatrixSymbol)}
    scalars = {k: v for k, v in point.items() if not isinstance(k, sp.MatrixSymbol)}
    value = _exact(sp.sympify(expr) if not isinstance(expr, sp.MatrixBase) else expr)
    if matrices:
        value = value.xreplace(matrices)
    return value.xreplace(scalars) if scalars else value


def _flat(value) -> list:
    if isinstance(value, mpmath.matrix):
        return [value[i, j] for i in range(value.rows) for j in range(value.cols)]
    return [value]


def independent_differences(lhs, rhs, point) -> list:
    """|lhs - rhs| entry by entry at ``point``: (value at 120 digits, value at 240 digits)."""
    return [(low, high) for low, high, _ in _differences_and_sizes(lhs, rhs, point)]


def _differences_and_sizes(lhs, rhs, point) -> list:
    """Per entry: |lhs - rhs| at 120 and at 240 digits, and max(|lhs|, |rhs|) at 240."""
    left, right = _at(lhs, point), _at(rhs, point)
    values = []
    for digits in (CHECK_DIGITS, 2 * CHECK_DIGITS):
        with mpmath.workdps(digits):
            pairs = list(zip(_flat(_numeric(left, digits)), _flat(_numeric(right, digits))))
            values.append([abs(a - b) for a, b in pairs])
    with mpmath.workdps(2 * CHECK_DIGITS):
        sizes = [max(abs(a), abs(b)) for a, b in pairs]
    return list(zip(*values, sizes))


def _exact_difference_nonzero(lhs, rhs, point) -> bool:
    """Where the claim at the point is rational arithmetic (floats read exactly, polynomials),
    its difference is an exact rational: nonzero is a confirmation no precision can blur."""
    left, right = _at(lhs, point), _at(rhs, point)
    pairs = zip(left, right) if isinstance(left, sp.MatrixBase) and \
        isinstance(right, sp.MatrixBase) else [(left, right)]
    for a, b in pairs:
        if not (isinstance(a, sp.Expr) and isinstance(b, sp.Expr)):
            continue
        difference = sp.expand(a - b)
        if difference.is_Rational and difference != 0:
            return True
    return False


def refutes(lhs, rhs, point) -> bool:
    """The point makes some entry clearly nonzero: exactly (a nonzero rational difference), or at
    both precisions (agreeing to 40 digits) and above the noise of the sides' own size (so a
    difference of exp(-10**14) between sides of that size counts, and rounding noise does not)."""
    if _exact_difference_nonzero(lhs, rhs, point):
        return True
    for low, high, size in _differences_and_sizes(lhs, rhs, point):
        with mpmath.workdps(2 * CHECK_DIGITS):
            if high > size * mpmath.mpf(10) ** (-(CHECK_DIGITS - 20)) and high > 0 and \
                    abs(low - high) <= high * mpmath.mpf(10) ** -40:
                return True
    return False


def _real_valued_nodes(expr, point):
    """The function and power nodes of ``expr`` that are evaluated at ``point`` and should be
    real there: their free symbols are all real and ``I`` is not among their atoms. Only the
    taken piece of a Piecewise counts (the others are not evaluated)."""
    if not isinstance(expr, sp.Basic) or not expr.free_symbols:
        return
    if isinstance(expr, sp.Piecewise):
        for piece, condition in expr.args:
            yield from _real_valued_nodes(condition, point)
            if bool(_at(condition, point)):
                yield from _real_valued_nodes(piece, point)
                return
        return
    if isinstance(expr, (sp.Function, sp.Pow)) and not expr.has(sp.I) and all(
            s.is_extended_real for s in expr.free_symbols):
        yield expr
    for arg in expr.args:
        yield from _real_valued_nodes(arg, point)


def in_real_domain(lhs, rhs, point) -> bool:
    """Every function of the claim whose arguments are built from real symbols is real-valued at
    ``point`` (mpmath at 60 digits): the point lies in the claim's real domain."""
    for side in (lhs, rhs):
        entries = list(explicit_matrix(side)) if isinstance(side, (sp.MatrixBase, sp.MatrixExpr)) \
            else [sp.sympify(side)]
        for entry in entries:
            for node in _real_valued_nodes(_exact(entry), point):
                value = _number(_at(node, point), 60)
                if isinstance(value, mpmath.mpc) and abs(value.imag) > mpmath.mpf(10) ** -40 * (
                        1 + abs(value.real)):
                    return False
    return True


def assert_sound_refutation(lhs, rhs, verdict) -> None:
    """A refutation's counterexample, substituted and evaluated here, really refutes the claim,
    inside its real domain."""
    assert verdict.refuted, verdict.explain()
    point = verdict.counterexample
    assert all(not getattr(v, "atoms", lambda *_: ())(sp.Float) for v in point.values())
    assert refutes(lhs, rhs, point), f"{verdict.explain()}: not confirmed independently"
    assert in_real_domain(lhs, rhs, point), f"{verdict.explain()}: outside the real domain"
