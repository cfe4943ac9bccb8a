"""The values of a certified evaluation: exact (rationals, Gaussian rationals) or Arb balls.

Every value :class:`~symrope.engine._certified.PointEvaluator` computes is either *exact* (a
FLINT ``fmpq``, or a :class:`GaussianRational` ``a + b i``) or a *ball* (Arb's ``arb``/``acb``:
a midpoint and a radius that provably contain the true value). The arithmetic here keeps a
result exact while both operands are, and falls back to balls otherwise; a question it cannot
answer for certain (the sign of a ball around zero, the floor of a ball meeting an integer) is
:class:`Inconclusive`, never answered in rounded arithmetic.
"""

from __future__ import annotations

from flint import acb, arb, fmpq

__all__ = ["Inconclusive", "GaussianRational", "IMAGINARY_UNIT", "ZERO", "ONE",
           "MAX_EXACT_FACTORIAL", "is_exact", "is_real", "as_ball", "as_complex_ball",
           "as_gaussian", "finite", "add", "multiply", "negate", "subtract", "power_integer",
           "magnitude", "exact_sqrt", "real_and_imaginary", "real_part", "imaginary_part",
           "sign_of_real", "is_nonzero", "floor_value"]

# Exact rationals whose powers would grow past this many bits are evaluated as balls instead.
EXACT_BITS_LIMIT = 1 << 15
MAX_EXACT_FACTORIAL = 1000


class Inconclusive(ArithmeticError):
    """The point decides nothing: a jump, a pole, the edge of the domain, an unknown function."""


class GaussianRational:
    """An exact Gaussian rational ``re + im i`` (complex-typed even where ``im`` is 0)."""

    __slots__ = ("re", "im")

    def __init__(self, re: fmpq, im: fmpq):
        self.re, self.im = re, im

    def is_zero(self) -> bool:
        return self.re == 0 and self.im == 0


ZERO, ONE = fmpq(0), fmpq(1)
IMAGINARY_UNIT = GaussianRational(ZERO, ONE)


def is_exact(value) -> bool:
    return type(value) is fmpq or type(value) is GaussianRational


def is_real(value) -> bool:
    return type(value) is fmpq or type(value) is arb


def as_ball(value):
    kind = type(value)
    if kind is fmpq:
        return arb(value)
    if kind is GaussianRational:
        return acb(arb(value.re), arb(value.im))
    return value


def as_complex_ball(value):
    value = as_ball(value)
    return acb(value) if type(value) is arb else value


def as_gaussian(value) -> GaussianRational:
    return value if type(value) is GaussianRational else GaussianRational(value, ZERO)


def finite(value):
    if not value.is_finite():
        raise Inconclusive("a pole or an undefined value")
    return value


def add(a, b):
    if type(a) is fmpq and type(b) is fmpq:
        return a + b
    if is_exact(a) and is_exact(b):
        a, b = as_gaussian(a), as_gaussian(b)
        return GaussianRational(a.re + b.re, a.im + b.im)
    return as_ball(a) + as_ball(b)


def multiply(a, b):
    if type(a) is fmpq and type(b) is fmpq:
        return a * b
    if is_exact(a) and is_exact(b):
        a, b = as_gaussian(a), as_gaussian(b)
        return GaussianRational(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
    return as_ball(a) * as_ball(b)


def negate(a):
    if type(a) is GaussianRational:
        return GaussianRational(-a.re, -a.im)
    return -a


def subtract(a, b):
    """``a - b`` for two values of a certified evaluation (exact when both are)."""
    return add(a, negate(b))


def height_bits(value) -> int:
    if type(value) is fmpq:
        return value.height_bits()
    return max(value.re.height_bits(), value.im.height_bits())


def power_integer(base, n: int):
    if is_exact(base):
        if (base == 0 if type(base) is fmpq else base.is_zero()):
            if n < 0:
                raise Inconclusive("division by zero")
            return ONE if n == 0 else base
        if height_bits(base) * abs(n) <= EXACT_BITS_LIMIT:
            if type(base) is fmpq:
                return base ** n
            result, square, k = GaussianRational(ONE, ZERO), base, abs(n)
            while k:
                if k & 1:
                    result = multiply(result, square)
                square, k = multiply(square, square), k >> 1
            if n < 0:
                norm = result.re * result.re + result.im * result.im
                result = GaussianRational(result.re / norm, -result.im / norm)
            return result
    return finite(as_ball(base) ** n)


def magnitude(value):
    """``|value|``: exact where ``value`` is a rational, otherwise a real ball."""
    if type(value) is fmpq:
        return abs(value)
    if type(value) is GaussianRational:
        if value.im == 0:
            return abs(value.re)
        if value.re == 0:
            return abs(value.im)
        return exact_sqrt(value.re * value.re + value.im * value.im) or \
            arb(value.re * value.re + value.im * value.im).sqrt()
    return abs(value)


def exact_sqrt(value: fmpq):
    try:
        return value.sqrt()
    except Exception:  # noqa: BLE001 - FLINT's DomainError: not a square
        return None


def real_and_imaginary(value) -> tuple:
    """``(real part, imaginary part)`` of a value, each exact or a real ball."""
    kind = type(value)
    if kind is GaussianRational:
        return value.re, value.im
    if kind is acb:
        return value.real, value.imag
    return value, (ZERO if kind is fmpq else arb(0))


def real_part(value):
    return real_and_imaginary(value)[0]


def imaginary_part(value):
    return real_and_imaginary(value)[1]


def sign_of_real(value) -> int | None:
    """-1, 0 or 1 where certain (0 only for an exact zero), else None."""
    if type(value) is fmpq:
        return (value > 0) - (value < 0)
    if value > 0:
        return 1
    if value < 0:
        return -1
    return 0 if value.is_zero() else None


def is_nonzero(value) -> bool | None:
    """Certainly nonzero (True), exactly zero (False), or unknown (None)."""
    kind = type(value)
    if kind is fmpq:
        return value != 0
    if kind is GaussianRational:
        return not value.is_zero()
    if value.is_zero():
        return False
    return True if not value.contains(0) else None


def floor_value(value):
    """``floor`` of a real value, only where it is certain (the ball meets no integer jump)."""
    if type(value) is fmpq:
        return fmpq(value.floor())
    whole = value.floor().unique_fmpz()
    if whole is None:
        raise Inconclusive("floor at an argument whose enclosure meets an integer")
    return fmpq(whole)
