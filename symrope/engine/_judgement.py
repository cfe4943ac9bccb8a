"""The certified judgement of a claim at an exact point: nonzero, zero, or inconclusive.

The arithmetic is :mod:`symrope.engine._certified`'s (exact rationals while the arithmetic is
rational, Arb balls otherwise), never rounded arithmetic. The difference ``lhs - rhs`` is
*nonzero* only when its enclosure excludes zero, *zero* (agreement: evidence, not proof) when the
enclosure contains zero and is tiny against the size of the terms, and *inconclusive* when a
jump, a pole or the edge of the claim's real domain is in the way (or the enclosure stays wide
after the precision grows). The points themselves come from :mod:`symrope.engine._sampling`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Context, Decimal
from functools import lru_cache

import flint
import sympy as sp
from flint import arb, fmpq

from symrope._exact import read_floats_exactly
from symrope.engine._certified import (Inconclusive, PointEvaluator, is_exact, magnitude,
                                       subtract)

__all__ = ["Evaluation", "evaluate", "exact_values", "working_bits", "NONZERO", "ZERO",
           "INCONCLUSIVE", "BASE_BITS"]

NONZERO, ZERO, INCONCLUSIVE = "nonzero", "zero", "inconclusive"

# Base working precision (bits); it grows with the bits of the exact numbers involved, so a
# difference of 1e-40 * s (read exactly: a 133-bit denominator) is far above the noise.
BASE_BITS = 128
_MAX_BITS = 1 << 15
_RETRIES = 2          # a wide enclosure is recomputed at 4x, then 16x the precision


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
    >>> from symrope.engine._judgement import working_bits
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
        >>> from symrope.engine._judgement import evaluate
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
    >>> from symrope.engine._judgement import _decimal
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


def evaluate(lhs: object, rhs: object, point: dict, entries: list | None = None) -> list[Evaluation]:
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
