"""An engine-independent re-check of counterexamples, shared by the soundness tests and fuzzer.

The claim's Floats are read through mpmath's exact (mantissa, exponent), the point is
substituted exactly, and each entry of the difference is evaluated by mpmath (through
``lambdify``) at 120 and at 240 digits. Nothing here calls symrope.
"""

from __future__ import annotations

import mpmath
import sympy as sp

CHECK_DIGITS = 120


def _exact(expr):
    """``expr`` with each Float replaced by the rational mpmath says it is (exact)."""
    if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
        return sp.sympify(expr)
    mapping = {}
    for number in expr.atoms(sp.Float):
        mantissa, exponent = mpmath.mpf(number._mpf_).man_exp
        mapping[number] = sp.Integer(int(mantissa)) * sp.Rational(2) ** int(exponent)
    return expr.xreplace(mapping) if mapping else expr


def _entries(value) -> list:
    if isinstance(value, sp.MatrixExpr):
        value = value.doit()
        value = value.as_explicit() if isinstance(value, sp.MatrixExpr) else value
    if isinstance(value, sp.MatrixBase):
        return list(value)
    return [value]


def _at(expr, point):
    matrices = {k: v for k, v in point.items() if isinstance(k, sp.MatrixSymbol)}
    scalars = {k: v for k, v in point.items() if not isinstance(k, sp.MatrixSymbol)}
    value = _exact(sp.sympify(expr) if not isinstance(expr, sp.MatrixBase) else expr)
    if matrices:
        value = value.xreplace(matrices)
    return _entries(value.xreplace(scalars) if scalars else value)


def _mpmath_value(number, digits: int):
    with mpmath.workdps(digits):
        return mpmath.mpmathify(sp.lambdify([], number, modules="mpmath")())


def independent_differences(lhs, rhs, point) -> list:
    """|lhs - rhs| entry by entry at ``point``: (value at 120 digits, value at 240 digits)."""
    out = []
    for left, right in zip(_at(lhs, point), _at(rhs, point)):
        difference = sp.sympify(left - right)
        if difference.free_symbols:
            raise AssertionError(f"the counterexample leaves {difference.free_symbols} free")
        low = abs(_mpmath_value(difference, CHECK_DIGITS))
        high = abs(_mpmath_value(difference, 2 * CHECK_DIGITS))
        out.append((low, high))
    return out


def refutes(lhs, rhs, point) -> bool:
    """The point makes some entry clearly nonzero at both precisions (agreeing to 40 digits)."""
    for low, high in independent_differences(lhs, rhs, point):
        with mpmath.workdps(2 * CHECK_DIGITS):
            if high > mpmath.mpf(10) ** (-(CHECK_DIGITS - 20)) and \
                    abs(low - high) <= high * mpmath.mpf(10) ** -40:
                return True
    return False


def assert_sound_refutation(lhs, rhs, verdict) -> None:
    """A refutation's counterexample, substituted and evaluated here, really refutes the claim."""
    assert verdict.refuted, verdict.explain()
    point = verdict.counterexample
    assert all(not getattr(v, "atoms", lambda *_: ())(sp.Float) for v in point.values())
    assert refutes(lhs, rhs, point), f"{verdict.explain()}: not confirmed independently"
