"""Floats read exactly: the one home of "float -> exact rational".

A binary float *is* a rational number, ``mantissa * 2**exponent``; symrope reads every float as
that number before any arithmetic, wherever one enters: a claim's SymPy Floats
(:func:`read_floats_exactly`, what ``symrope.verify`` does first), a schedule's config value in
the schedules' SymPy context, a constant of lifted torch code (``symrope.lifting``'s
``exact_number``). SymPy's Floats carry a fixed number of bits, so arithmetic on them rounds:
``(s + 1e20)`` at ``s = 37/7`` loses ``s`` entirely, and ``3 + 1e-40`` is ``3``; no arithmetic
ever happens in Floats once they are read.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import sympy as sp

from symrope.errors import UsageError

__all__ = ["exact_rational", "read_floats_exactly", "FloatOutOfRange", "MAX_BINARY_EXPONENT"]

# |exponent| of the largest power of two a Float may carry to be read exactly: 2**65536 is a
# 19729-digit integer, already far past any float format; beyond it (1e+43429448190325182765,
# which SymPy makes from exp of a large Float) the exact integer could not even be allocated.
MAX_BINARY_EXPONENT = 65536


class FloatOutOfRange(UsageError):
    """A Float whose exact rational value is too large (or small) to construct.

    ``verify`` answers ``undecided`` with this reason; elsewhere (an encoding) it is bad input.
    """


def exact_rational(value) -> sp.Rational:
    """The exact rational value of a binary float (its mantissa times a power of two).

    Parameters
    ==========

    value : sympy.Float, float, int, bool or fractions.Fraction
        A SymPy Float of any precision, a Python float (or a numpy floating scalar: float32 and
        float16 values are float64 values too), an integer or a fraction. Infinities and NaN
        have no rational value (``ValueError``).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope._exact import exact_rational
    >>> exact_rational(sp.Float(0.5)), exact_rational(0.1)
    (1/2, 3602879701896397/36028797018963968)
    >>> exact_rational(sp.Float("0.1", 40)) == exact_rational(0.1)
    False
    >>> exact_rational(True), exact_rational(3)
    (1, 3)
    """
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Integral):  # Python's and numpy's integers
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if not isinstance(value, sp.Float):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{value} has no rational value")
        value = sp.Float(value)  # a Python float's 53 bits, exactly
    sign, mantissa, exponent, _bits = value._mpf_
    if mantissa == 0:
        if exponent != 0:  # mpmath's encodings of inf and nan have a zero mantissa too
            raise ValueError(f"{value} has no rational value")
        return sp.Integer(0)
    if abs(exponent) > MAX_BINARY_EXPONENT:
        raise FloatOutOfRange(f"the Float {sp.sstr(value)[:40]} carries 2**{exponent}, beyond "
                              f"2**±{MAX_BINARY_EXPONENT}: its exact value cannot be built")
    magnitude = sp.Integer(mantissa) * sp.Integer(2) ** exponent
    return -magnitude if sign else magnitude


def read_floats_exactly(expr):
    """``(expr with every Float replaced by its exact rational, number of distinct Floats)``.

    Works on expressions, explicit and block matrices, and matrix expressions; anything that is
    not a SymPy object is returned unchanged.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope._exact import read_floats_exactly
    >>> s = sp.Symbol('s')
    >>> read_floats_exactly(0.25*s + 2.0)
    (s/4 + 2, 2)
    >>> read_floats_exactly(sp.Matrix([[0.5, s]]))
    (Matrix([[1/2, s]]), 1)
    """
    if not isinstance(expr, (sp.Basic, sp.MatrixBase)):
        return expr, 0
    floats = expr.atoms(sp.Float)
    if not floats:
        return expr, 0
    return expr.xreplace({f: exact_rational(f) for f in floats}), len(floats)
