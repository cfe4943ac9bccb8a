"""What each operation computes, exactly: one table keyed by framework-neutral names.

A tracer (``_aten.py`` for torch's ``aten`` ops, ``_jax_eval.py`` for JAX's primitives) maps its own ops
onto these names; the meaning of ``floor_divide``, a cast to an integer type or
``round`` is written here once. The values are SymPy expressions over real symbols.

Exact semantics:

* a float constant is the rational value of its binary number (:func:`exact_number`, which
  reads it through :mod:`symrope._exact`, the one home of "float -> exact rational");
* a cast between float types is the identity (rounding is the audit's business; the tracer
  records it as a precision hazard where it touches positions), a cast from a float to an
  integer type truncates toward zero, to ``bool`` compares with zero, from ``bool`` gives 0/1;
* ``trunc``, ``floor``, ``ceil``, ``round`` (half to even; ``round_half_away``, XLA's default,
  half away from zero), ``floor_divide``, ``remainder``
  (the sign of the divisor) and ``fmod`` (the sign of the dividend) are the step functions they
  compute; comparisons are SymPy relations and ``where`` a ``Piecewise``;
* a value that is an integer wherever the positions are integers (``p``, ``2*p + 1``,
  ``p_1 - p_0``: :func:`integral`) is its own ``trunc``/``floor``/``round``: positions are
  integers in the code that runs, so the step is the identity there.

Examples
========

>>> import sympy as sp
>>> from symrope.lifting._semantics import OPS, cast, FLOAT32, INT64, positions_are_integers
>>> p = sp.Symbol("p", real=True)
>>> with positions_are_integers([p]):
...     cast(p / 2, FLOAT32, INT64), cast(p, FLOAT32, INT64), OPS["floor_divide"](p, 2)
(Piecewise((floor(p/2), p >= 0), (ceiling(p/2), True)), p, floor(p/2))
>>> OPS["round"](sp.Rational(5, 2)), OPS["round"](sp.Rational(-1, 2)), OPS["fmod"](-7, 3)
(2, 0, -1)
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from symrope._exact import exact_rational

__all__ = ["NumberType", "BOOL", "INT64", "FLOAT16", "BFLOAT16", "FLOAT32", "FLOAT64",
           "COMPLEX64", "COMPLEX128", "OPS", "exact_number", "cast", "integral",
           "positions_are_integers", "as_number", "is_boolean"]


@dataclass(frozen=True)
class NumberType:
    """A framework-neutral element type: its kind and, for floats, the significand's bits.

    ``exact_integers`` is the largest n such that every integer up to n is representable
    (2048 for float16, 256 for bfloat16, 2^24 for float32).
    """

    name: str
    kind: str                  # "bool", "int", "float" or "complex"
    significand_bits: int = 0  # with the implicit bit: 11 (fp16), 8 (bf16), 24, 53

    @property
    def exact_integers(self) -> int | None:
        return 2 ** self.significand_bits if self.kind in ("float", "complex") else None


BOOL = NumberType("bool", "bool")
INT64 = NumberType("int64", "int")
FLOAT16 = NumberType("float16", "float", 11)
BFLOAT16 = NumberType("bfloat16", "float", 8)
FLOAT32 = NumberType("float32", "float", 24)
FLOAT64 = NumberType("float64", "float", 53)
COMPLEX64 = NumberType("complex64", "complex", 24)
COMPLEX128 = NumberType("complex128", "complex", 53)


# ----------------------------------------------------------------------------- exact numbers

def exact_number(value):
    """A Python or numpy scalar as an exact SymPy number (a float is the rational of its bits).

    Examples
    ========

    >>> from symrope.lifting._semantics import exact_number
    >>> exact_number(0.1)
    3602879701896397/36028797018963968
    >>> exact_number(True), exact_number(2 + 0.5j)
    (1, 2 + I/2)
    """
    if isinstance(value, complex):
        return exact_number(value.real) + sp.I * exact_number(value.imag)
    if hasattr(value, "item") and not isinstance(value, sp.Basic):  # a numpy scalar
        return exact_number(value.item())
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return sp.nan if value != value else (sp.oo if value > 0 else -sp.oo)
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (bool, int, float)):
        return exact_rational(value)  # symrope._exact: the one float -> exact rational reading
    return sp.sympify(value, strict=True)


# ----------------------------------------------------------------------------- integrality

_INTEGER_SYMBOLS: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "integer_symbols", default=None)


@contextlib.contextmanager
def positions_are_integers(symbols):
    """Within the block, ``symbols`` (the positions) are integers in the code that runs."""
    token = _INTEGER_SYMBOLS.set({s: sp.Dummy(s.name, integer=True) for s in symbols})
    try:
        yield
    finally:
        _INTEGER_SYMBOLS.reset(token)


def integral(value) -> bool:
    """True when ``value`` is an integer wherever the positions are integers."""
    value = sp.sympify(value, strict=True)
    if value.is_integer:
        return True
    symbols = _INTEGER_SYMBOLS.get() or {}
    if not symbols or not (value.free_symbols & symbols.keys()):
        return False
    return bool(value.xreplace(symbols).is_integer)


# ----------------------------------------------------------------------------- booleans

def is_boolean(value) -> bool:
    return isinstance(value, (sp.logic.boolalg.Boolean, bool)) and not isinstance(value, sp.Expr)


def as_number(value):
    """A boolean (a relation) as the number 0/1 it becomes in arithmetic."""
    if value is True or value == sp.true:
        return sp.Integer(1)
    if value is False or value == sp.false:
        return sp.Integer(0)
    if is_boolean(value):
        return sp.Piecewise((sp.Integer(1), value), (sp.Integer(0), True))
    return value


def _condition(value):
    """A number or relation as the condition it is in ``where`` (nonzero is true)."""
    if is_boolean(value):
        return value
    value = sp.sympify(value, strict=True)
    if value.is_number:
        return sp.true if value != 0 else sp.false
    return sp.Ne(value, 0)


def where(condition, a, b):
    condition = _condition(condition)
    if condition == sp.true:
        return a
    if condition == sp.false:
        return b
    return sp.Piecewise((a, condition), (b, True))


# ----------------------------------------------------------------------------- steps

def trunc(value):
    value = sp.sympify(value, strict=True)
    if integral(value):
        return value
    if value.is_Rational:
        return sp.Integer(int(Fraction(int(value.p), int(value.q))))
    if value.is_nonnegative:
        return sp.floor(value)
    if value.is_nonpositive:
        return sp.ceiling(value)
    return sp.Piecewise((sp.floor(value), value >= 0), (sp.ceiling(value), True))


def floor(value):
    value = sp.sympify(value, strict=True)
    return value if integral(value) else sp.floor(value)


def ceil(value):
    value = sp.sympify(value, strict=True)
    return value if integral(value) else sp.ceiling(value)


def round_half_even(value):
    """``round``: to the nearest integer, ties to the even one (torch, numpy, IEEE 754)."""
    value = sp.sympify(value, strict=True)
    if integral(value):
        return value
    if value.is_Rational:
        return sp.Integer(round(Fraction(int(value.p), int(value.q))))
    nearest = sp.floor(value + sp.Rational(1, 2))
    tie_to_odd = sp.And(sp.Eq(value + sp.Rational(1, 2), nearest), sp.Eq(sp.Mod(nearest, 2), 1))
    return sp.Piecewise((nearest - 1, tie_to_odd), (nearest, True))


def round_half_away(value):
    """``round`` half away from zero (XLA's default ``lax.round``, C's ``round``)."""
    value = sp.sympify(value, strict=True)
    if integral(value):
        return value
    if value.is_Rational:
        magnitude = abs(Fraction(int(value.p), int(value.q)))
        whole = int(magnitude + Fraction(1, 2))  # floor(|v| + 1/2): ties go away from zero
        return sp.Integer(whole if value >= 0 else -whole)
    return sp.sign(value) * sp.floor(sp.Abs(value) + sp.Rational(1, 2))


def floor_divide(a, b):
    return floor(sp.sympify(a, strict=True) / b)


def trunc_divide(a, b):
    return trunc(sp.sympify(a, strict=True) / b)


def remainder(a, b):
    """Python's ``%`` (torch.remainder): the sign of the divisor."""
    return sp.sympify(a, strict=True) - b * floor_divide(a, b)


def fmod(a, b):
    """C's ``fmod`` (torch.fmod): the sign of the dividend."""
    return sp.sympify(a, strict=True) - b * trunc_divide(a, b)


# ----------------------------------------------------------------------------- casts

def cast(value, source: NumberType, target: NumberType):
    """The value a cast from ``source`` to ``target`` computes, exactly (see the module doc)."""
    if target.kind == "bool":
        return _condition(value)
    if source.kind == "bool":
        value = as_number(value)
    if target.kind == "int" and source.kind in ("float", "complex"):
        if source.kind == "complex":
            value = sp.re(value)
        return trunc(value)
    if target.kind in ("int", "float") and source.kind == "complex":
        return sp.re(value)  # torch drops the imaginary part (with a warning)
    return value


def _safe_power(a, b):
    return a ** b


# The table: neutral name -> rule on exact values. Comparisons give relations (booleans).
OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "true_divide": lambda a, b: a / b, "neg": lambda a: -a, "pow": _safe_power,
    "reciprocal": lambda a: 1 / a, "exp": sp.exp, "exp2": lambda a: 2 ** a, "log": sp.log,
    "log2": lambda a: sp.log(a, 2), "sqrt": sp.sqrt, "rsqrt": lambda a: 1 / sp.sqrt(a),
    "cos": sp.cos, "sin": sp.sin, "tan": sp.tan, "atan": sp.atan, "tanh": sp.tanh,
    "sigmoid": lambda a: 1 / (1 + sp.exp(-a)), "abs": sp.Abs, "sign": sp.sign,
    "trunc": trunc, "floor": floor, "ceil": ceil, "round": round_half_even,
    "round_half_away": round_half_away, "atan2": sp.atan2, "expm1": lambda a: sp.exp(a) - 1,
    "log1p": lambda a: sp.log(1 + a),
    "floor_divide": floor_divide, "trunc_divide": trunc_divide, "remainder": remainder,
    "fmod": fmod, "maximum": sp.Max, "minimum": sp.Min,
    "clamp": lambda a, lo=None, hi=None: sp.Min(sp.Max(a, -sp.oo if lo is None else lo),
                                                sp.oo if hi is None else hi),
    "gt": sp.Gt, "lt": sp.Lt, "ge": sp.Ge, "le": sp.Le, "eq": sp.Eq, "ne": sp.Ne,
    "logical_and": lambda a, b: sp.And(_condition(a), _condition(b)),
    "logical_or": lambda a, b: sp.Or(_condition(a), _condition(b)),
    "logical_not": lambda a: sp.Not(_condition(a)),
    "where": where,
    "conj": sp.conjugate, "real": sp.re, "imag": sp.im,
    "complex": lambda re, im: re + sp.I * im,
    "polar": lambda r, theta: r * (sp.cos(theta) + sp.I * sp.sin(theta)),
}

# Rules whose operands stay booleans; every other rule sees a boolean as the number 0/1.
BOOLEAN_OPERANDS = frozenset({"logical_and", "logical_or", "logical_not", "where"})
