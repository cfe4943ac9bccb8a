"""Closed forms of the default RoPE frequencies and the xPos scales, as exact SymPy numbers.

``omega_i = theta^(-2i/d)`` is written here once as a closed form for the proofs and the
checker's zoo; :func:`symrope.schedules.inv_freq` evaluates the same default schedule in the
order of operations of transformers, in any number system. The theorem ``rope_relative``
checks (symbolically, for a symbolic base) that the two agree, so the formula proved is the
formula audited.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from symrope.errors import UsageError

__all__ = ["rope_frequencies", "xpos_scales", "parse_dimension", "parse_base"]


def parse_dimension(d: int | sp.Integer) -> int:
    """``d`` as an even positive head dimension, or a one-line :class:`UsageError`.

    Examples
    ========

    >>> from symrope.schedules import parse_dimension
    >>> parse_dimension(8)
    8
    >>> parse_dimension(7)
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: head dimension d must be an even integer >= 2, got 7
    """
    try:
        valid = int(d) == d and d >= 2 and int(d) % 2 == 0
    except (TypeError, ValueError):
        valid = False
    if not valid or isinstance(d, bool):
        raise UsageError(f"head dimension d must be an even integer >= 2, got {_shown(d)}")
    return int(d)


def _shown(value) -> str:
    return str(value) if isinstance(value, Fraction) else repr(value)


def _exact(value, what: str, names: tuple[str, ...] = ()) -> sp.Expr | str:
    """A config or parameter value as an exact SymPy number; text is read by the one parser
    (:mod:`symrope._parse`), never by ``sympify``, whose string parser evaluates Python."""
    from symrope._parse import parse_number

    if isinstance(value, str):
        value = parse_number(value, what, names)
        if isinstance(value, str):
            return value
    if isinstance(value, bool):
        raise UsageError(f"{what} must be a number, got {value!r}")
    try:
        # strict: only numbers and SymPy objects convert (never through a string)
        return sp.nsimplify(sp.sympify(value, strict=True))
    except (sp.SympifyError, TypeError, ValueError):
        raise UsageError(f"{what} must be a number, got {value!r}") from None


def parse_base(theta: int | float | str | Fraction | sp.Expr) -> sp.Expr:
    """``theta`` as a SymPy number > 1, or the positive symbol ``theta`` (given as it or as "theta").

    Examples
    ========

    >>> from symrope.schedules import parse_base
    >>> parse_base(10000), parse_base("theta").is_positive
    (10000, True)
    """
    message = f"frequency base theta must be a number > 1 or 'theta', got {_shown(theta)}"
    if isinstance(theta, sp.Symbol) and theta.name == "theta":
        return sp.Symbol("theta", positive=True)
    try:
        base = _exact(theta, "frequency base theta", names=("theta",))
    except UsageError:
        raise UsageError(message) from None
    if base == "theta":
        return sp.Symbol("theta", positive=True)
    if not (base.is_number and base.is_positive and base > 1):
        raise UsageError(message)
    return base


def rope_frequencies(d: int, theta: int | float | str | Fraction | sp.Expr = 10000, *,
                     evaluate: bool = True) -> list[sp.Expr]:
    """``omega_i = theta^(-2i/d)`` for ``i = 0 .. d/2 - 1``, exactly.

    ``evaluate=False`` keeps numeric powers unevaluated (``10000**0`` stays a power): the
    proofs then see every pair, the first included, as the same block template (one proof
    instead of two), and building a large ``d`` stays cheap.

    Examples
    ========

    >>> from symrope.schedules import rope_frequencies
    >>> rope_frequencies(4, 10000)
    [1, 1/100]
    >>> [str(w) for w in rope_frequencies(4, 10000, evaluate=False)]
    ['10000**0', '1/sqrt(10000)']
    >>> rope_frequencies(4, "theta")
    [1, 1/sqrt(theta)]
    """
    d = parse_dimension(d)
    base = parse_base(theta)
    if evaluate or base.is_Symbol:
        return [base ** sp.Rational(-2 * i, d) for i in range(d // 2)]
    return [sp.Pow(base, sp.Rational(-2 * i, d), evaluate=False) for i in range(d // 2)]


def xpos_scales(d: int, gamma: int | float | str | Fraction | sp.Expr = "2/5") -> list[sp.Expr]:
    """The xPos per-pair scales ``zeta_i = (2i/d + gamma)/(1 + gamma)`` (Sun et al. 2022), exactly.

    Examples
    ========

    >>> from symrope.schedules import xpos_scales
    >>> xpos_scales(4)
    [2/7, 9/14]
    """
    d = parse_dimension(d)
    gamma = _exact(gamma, "xPos gamma")
    if not (gamma.is_number and gamma.is_positive):
        raise UsageError(f"xPos gamma must be a positive number, got {gamma!r}")
    return [(sp.Rational(2 * i, d) + gamma) / (1 + gamma) for i in range(d // 2)]
