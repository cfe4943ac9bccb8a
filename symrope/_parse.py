"""Text from outside -- a command-line value, a config file, a saved report -- read as a number
or a name by a grammar that cannot run code: the one parser every command shares.

The grammar is four shapes and nothing else:

* an integer: ``12``, ``-3``, ``+7``;
* a decimal, with an optional exponent: ``0.4``, ``.5``, ``1e4``, ``2.5E-3``;
* an exact rational ``p/q`` of two integers: ``2/5``, ``-1/3``;
* a name, only where the caller lists it (``theta`` for a symbolic base, ``distinct`` for a
  kind); ``True``, ``False`` and ``None`` where the caller allows constants.

Decimals and rationals come back as :class:`fractions.Fraction`, exactly the number written
(``0.4`` is 2/5, not the binary float nearest it); integers as ``int``. Nothing here calls
``eval``, ``sympify`` or ``parse_expr``: SymPy's string parser evaluates Python, so a value such
as ``__import__('os').system(...)`` would run there. Sizes are bounded (digits, exponent), so a
hostile value cannot make the parser itself run for minutes.

This module sits just above the error types (``symrope/cli/README.md``'s layer table): it imports
nothing of symrope but :class:`~symrope.errors.UsageError`, so every layer (schedules, the audit,
the command line) reads text through it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from fractions import Fraction

from symrope.errors import UsageError

__all__ = ["CONSTANTS", "GRAMMAR", "parse_number", "parse_value", "parse_real", "parse_integer",
           "integer_option", "real_option"]

#: What the grammar accepts, in words (error messages end with it).
GRAMMAR = "an integer, a decimal (0.4, 1e4) or a fraction p/q"

#: The constants :func:`parse_value` knows when asked to (Python's spelling).
CONSTANTS = {"True": True, "False": False, "None": None}

_MAX_LENGTH = 400          # characters: far beyond any real parameter, far below a slow parse
_MAX_EXPONENT = 400        # |e| in 1eN: Fraction("1e999999999") would build a billion-digit int
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:[eE]([+-]?[0-9]+))?")
_RATIONAL = re.compile(r"([+-]?[0-9]+)/([+-]?[0-9]+)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def parse_number(text: str, what: str = "value", names: Iterable[str] = ()) -> int | Fraction | str:
    """``text`` as an ``int``, an exact :class:`~fractions.Fraction`, or one of ``names``.

    Parameters
    ==========

    text : str
        The value as written (surrounding blanks are ignored).
    what : str
        What the value is, for the one-line error (``"--param theta"``, ``"rope_theta"``).
    names : iterable of str
        The names this value may be instead of a number (``("theta",)``); none by default.

    Raises
    ======

    UsageError
        ``text`` is none of these (one line naming ``what`` and the grammar).

    Examples
    ========

    >>> from symrope._parse import parse_number
    >>> parse_number("12"), parse_number("0.4"), parse_number("-2/6"), parse_number("1e4")
    (12, Fraction(2, 5), Fraction(-1, 3), Fraction(10000, 1))
    >>> parse_number("theta", "--param theta", names=("theta",))
    'theta'
    >>> parse_number("__import__('os').system('true')", "--param theta")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: --param theta: "__import__('os').system('true')" is not an integer, a decimal (0.4, 1e4) or a fraction p/q
    """
    if not isinstance(text, str):
        raise UsageError(f"{what}: expected text, got {type(text).__name__}")
    names = tuple(names)
    stripped = text.strip()
    if len(stripped) <= _MAX_LENGTH:
        if _INTEGER.fullmatch(stripped):
            return int(stripped)
        match = _RATIONAL.fullmatch(stripped)
        if match:
            numerator, denominator = int(match.group(1)), int(match.group(2))
            if denominator == 0:
                raise UsageError(f"{what}: {_shown(text)} divides by zero")
            return Fraction(numerator, denominator)
        match = _DECIMAL.fullmatch(stripped)
        if match and (match.group(2) is None or abs(int(match.group(2))) <= _MAX_EXPONENT):
            return Fraction(stripped)
        if stripped in names:
            return stripped
    allowed = GRAMMAR + (f", or {' or '.join(repr(n) for n in names)}" if names else "")
    raise UsageError(f"{what}: {_shown(text)} is not {allowed}")


def parse_value(text: str, what: str = "value", names: Iterable[str] | None = (),
                constants: bool = False) -> int | Fraction | str | bool | None:
    """A number, one of ``names`` (``None``: any name), or with ``constants`` True/False/None.

    Examples
    ========

    >>> from symrope._parse import parse_value
    >>> parse_value("True", constants=True), parse_value("distinct", names=None)
    (True, 'distinct')
    >>> parse_value("os.system", names=None)
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: value: 'os.system' is not an integer, a decimal (0.4, 1e4) or a fraction p/q, or a name
    """
    stripped = text.strip() if isinstance(text, str) else text
    if constants and stripped in CONSTANTS:
        return CONSTANTS[stripped]
    if names is None:
        if isinstance(stripped, str) and _NAME.fullmatch(stripped) and len(stripped) <= _MAX_LENGTH:
            return stripped
        try:
            return parse_number(text, what)
        except UsageError:
            raise UsageError(f"{what}: {_shown(str(text))} is not {GRAMMAR}, or a name") from None
    return parse_number(text, what, names)


def parse_real(text: str, what: str) -> float:
    """A finite real number as the nearest float (the exact value rounded once).

    Examples
    ========

    >>> from symrope._parse import parse_real
    >>> parse_real("1/3", "--tolerance") == 1 / 3, parse_real("5e-1", "--theta")
    (True, 0.5)
    """
    value = parse_number(text, what)
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise UsageError(f"{what}: {_shown(text)} is too large for a float")
    return result


def parse_integer(text: str, what: str) -> int:
    """An integer (``12``, or a decimal/fraction that is a whole number, such as ``1e6``).

    Examples
    ========

    >>> from symrope._parse import parse_integer
    >>> parse_integer("1e6", "--max-position")
    1000000
    >>> parse_integer("2.5", "--head-dim")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: --head-dim must be an integer, got '2.5'
    """
    value = parse_number(text, what)
    if isinstance(value, Fraction):
        if value.denominator != 1:
            raise UsageError(f"{what} must be an integer, got {_shown(text)}")
        value = value.numerator
    return int(value)


def integer_option(flag: str, minimum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type=`` for an integer option (one-line error below ``minimum``).

    Examples
    ========

    >>> from symrope._parse import integer_option
    >>> integer_option("--seed", 0)("7")
    7
    >>> integer_option("--seed", 0)("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a non-negative integer, got '-1'
    """
    def parse(text: str) -> int:
        with _for_argparse(flag):
            value = parse_integer(text, flag)
            if minimum is not None and value < minimum:
                bound = ("non-negative" if minimum == 0 else "positive" if minimum == 1
                         else f">= {minimum}")
                raise UsageError(f"{flag} must be a {bound} integer, got {_shown(text)}")
        return value
    parse.__name__ = "integer"
    return parse


def real_option(flag: str, positive: bool = False) -> Callable[[str], float]:
    """An argparse ``type=`` for a real option (finite; with ``positive``, > 0).

    Examples
    ========

    >>> from symrope._parse import real_option
    >>> real_option("--theta", positive=True)("1e4")
    10000.0
    """
    def parse(text: str) -> float:
        with _for_argparse(flag):
            value = parse_real(text, flag)
            if positive and not value > 0:
                raise UsageError(f"{flag} must be a positive number, got {_shown(text)}")
        return value
    parse.__name__ = "number"
    return parse


class _for_argparse:
    """Turn a :class:`UsageError` into argparse's own type error (argparse would replace a
    ``ValueError``'s message with "invalid value"; its error line already names the flag)."""

    def __init__(self, flag: str):
        self.flag = flag

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if kind is not None and issubclass(kind, UsageError):
            import argparse

            message = str(error)
            for prefix in (f"{self.flag}: ", f"{self.flag} "):
                if message.startswith(prefix):
                    message = message[len(prefix):]
                    break
            raise argparse.ArgumentTypeError(message) from None
        return False
