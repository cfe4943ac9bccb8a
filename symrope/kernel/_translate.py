"""SymPy claims as Coq statements over the reals (``Reals``), printed exactly.

The printer is the trusted part of kernel checking: a Coq lemma only says something about a
SymPy claim if it *is* that claim. So it prints every node it knows with its exact meaning and
refuses (:class:`Untranslatable`) every node it does not, never approximating:

* integers and rationals as ``IZR`` ratios (``(IZR 3 / IZR 4)``), never decimals; SymPy
  ``Float``\\ s are refused;
* a rational power of a rational that is itself rational (``10000**(-1/2)``) as that rational
  (SymPy's exact integer root);
* ``x**n`` for an integer ``n`` as ``x ^ n`` (``/ x ^ n`` for negative ``n``), any other power
  ``b**e`` as ``Rpower b e`` (``exp (e * ln b)``) only when SymPy knows ``b > 0``, which is when
  the two agree; a half-integer power of a base SymPy knows only nonnegative (``a^2 + b^2``)
  with Coq's ``sqrt``; ``(-1)**k`` for an integer ``k`` as ``symrope_sign k`` (``cos (PI * k)``,
  defined in the file's preamble); ``log(x)`` as ``ln x`` only for ``x > 0``;
* ``cos``, ``sin``, ``exp``, ``pi`` and ``E`` as ``cos``, ``sin``, ``exp``, ``PI``, ``exp 1``;
* every symbol must be real (a SymPy symbol without ``real=True`` ranges over the complex
  numbers, and a statement over the reals would be weaker than the claim); its sign facts
  become hypotheses (``0 < x``).

Printing is *compositional* (every node fully parenthesised), so the text of a subterm is the
same wherever it occurs: the proof scripts of :mod:`symrope.kernel._certificate` rely on it to
name subterms of a goal. Identifiers come from :func:`sanitise`: no user text reaches Coq
unescaped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import sympy as sp
from sympy.printing.printer import Printer

from symrope._typing import ExactScalar

__all__ = ["Untranslatable", "CoqPrinter", "sanitise", "binders", "exact_power",
           "exponential_argument", "is_square_root"]

# Names the generated files use themselves, or that Coq's Reals exports: never a variable.
_RESERVED = frozenset("""
    as at cofix else end exists exists2 fix for forall fun if IF in let match mod Prop return
    Set then Type using where with Lemma Theorem Proof Qed Definition Axiom Admitted admit
    Require Import Open Scope Section End Variable Hypothesis Ltac Local Global Notation
    R Rplus Rmult Rminus Ropp Rinv Rdiv IZR Z nat pow cos sin tan exp ln sqrt Rpower Rabs PI
    Rsqr INR Q2R Q True False and or not eq
    """.split())
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


class Untranslatable(ValueError):
    """A SymPy node with no exact counterpart in Coq's ``Reals``; the message says which."""


def sanitise(name: str, taken: set[str] | frozenset = frozenset()) -> str:
    """A Coq identifier for the SymPy name ``name``, distinct from ``taken`` and reserved words.

    Letters, digits and ``_`` are kept; any other character becomes ``_xHH_`` (its code point
    in hex), so distinct names stay distinct. Names that would not start with a letter, or that
    clash with Coq or with the generated file's own names, get the prefix ``v_``.

    Examples
    ========

    >>> sanitise("theta")
    'theta'
    >>> sanitise("q_a"), sanitise("c-1"), sanitise("cos"), sanitise("_x")
    ('q_a', 'c_x2d_1', 'v_cos', 'v__x')
    >>> sanitise("x", taken={"x"})
    'x_2'
    """
    text = "".join(ch if (ch.isascii() and (ch.isalnum() or ch == "_")) else f"_x{ord(ch):x}_"
                   for ch in name) or "v"
    if not _IDENTIFIER.match(text) or text in _RESERVED or text.startswith("symrope"):
        text = "v_" + text
    candidate, counter = text, 2
    while candidate in taken:
        candidate, counter = f"{text}_{counter}", counter + 1
    return candidate


def _integer(n: int) -> str:
    return f"(IZR {n})" if n >= 0 else f"(IZR ({n}))"


def _rational(value: sp.Rational) -> str:
    if value.q == 1:
        return _integer(int(value.p))
    return f"({_integer(int(value.p))} / {_integer(int(value.q))})"


class CoqPrinter(Printer):
    """Prints SymPy expressions as Coq terms over ``R``; ``names`` maps symbols to identifiers.

    A SymPy :class:`~sympy.printing.printer.Printer`: one ``_print_<Class>`` method per node it
    translates exactly, and a fallback (``emptyPrinter``) that refuses every other node with
    :class:`Untranslatable`, never an approximation.

    With ``unfolded=True`` it prints the term Coq's goal holds after the proof scripts'
    ``unfold Rpower; rewrite ?symrope_inv_exp_pow, ?symrope_inv_exp``: ``Rpower b e`` as
    ``exp (e * ln b)`` and the inverse of an exponential as the exponential of the negation.

    Examples
    ========

    >>> import sympy as sp
    >>> x = sp.Symbol('x', real=True); w = sp.Symbol('w', positive=True)
    >>> printer = CoqPrinter({x: 'x', w: 'w'})
    >>> printer.doprint(sp.cos(x / 2) + w**sp.Rational(-3, 4))
    '((Rpower w ((IZR (-3)) / (IZR 4))) + (cos (((IZR 1) / (IZR 2)) * x)))'
    >>> printer.doprint(sp.Float(0.5))
    Traceback (most recent call last):
    ...
    symrope.kernel._translate.Untranslatable: decimal constant 0.500000000000000 (exact rationals only)
    >>> printer.doprint(sp.tan(x))
    Traceback (most recent call last):
    ...
    symrope.kernel._translate.Untranslatable: tan (tan(x)) has no exact Coq translation here
    """

    printmethod = "_symrope_coq"  # no SymPy class defines it: every node goes through this class
    _default_settings: dict = {}

    def __init__(self, names: dict[sp.Symbol, str], *, unfolded: bool = False) -> None:
        super().__init__()
        self.names = names
        self.unfolded = unfolded

    def doprint(self, e: ExactScalar) -> str:
        return self._print(sp.sympify(e))

    def print(self, e: sp.Basic) -> str:
        """One subterm (already a SymPy object), as the scripts name subterms of a goal."""
        return self._print(e)

    def emptyPrinter(self, e: object) -> str:
        raise Untranslatable(f"{type(e).__name__} ({sp.sstr(e)[:60]}) has no exact Coq "
                             "translation here")

    def _print_Float(self, e) -> str:
        raise Untranslatable(f"decimal constant {e} (exact rationals only)")

    def _print_Integer(self, e) -> str:
        return _integer(int(e))

    def _print_Rational(self, e) -> str:
        return _rational(e)

    def _print_Pi(self, e) -> str:
        return "PI"

    def _print_Exp1(self, e) -> str:
        return "(exp (IZR 1))"

    def _print_Symbol(self, e) -> str:
        if e not in self.names:
            raise Untranslatable(f"symbol {e} has no Coq name")
        return self.names[e]

    def _print_Add(self, e) -> str:
        return binary_chain(" + ", map(self._print, e.args))

    def _print_Mul(self, e) -> str:
        return binary_chain(" * ", map(self._print, e.args))

    def _print_exp(self, e) -> str:
        return f"(exp {self._print(e.args[0])})"

    def _print_log(self, e) -> str:
        if len(e.args) != 1 or e.args[0].is_positive is not True:
            raise Untranslatable(f"log of {e.args[0]}, not known to be positive")
        return f"(ln {self._print(e.args[0])})"

    def _print_cos(self, e) -> str:
        return f"(cos {self._print(e.args[0])})"

    def _print_sin(self, e) -> str:
        return f"(sin {self._print(e.args[0])})"

    def _print_Pow(self, e) -> str:
        base, exponent = e.base, e.exp
        value = exact_power(base, exponent)
        if value is not None:
            return _rational(value)
        if exponent.is_Integer:
            n = int(exponent)
            if n >= 0:
                return f"({self._print(base)} ^ {n})"
            if self.unfolded and exponential_argument(base) is not None:
                negated = f"(exp (- {self.exponent_text(base)}))"
                return negated if n == -1 else f"({negated} ^ {-n})"
            inner = self._print(base) if n == -1 else f"({self._print(base)} ^ {-n})"
            return f"(/ {inner})"
        if base == -1 and exponent.is_integer:
            # (-1)^k for an integer k: cos(PI k), symrope_sign in the file's preamble
            return f"(symrope_sign {self._print(exponent)})"
        if is_square_root(e):
            # u^(k/2) of a base known nonnegative but not positive (a^2 + b^2): Coq's sqrt,
            # which is the real square root on u >= 0
            root, k = f"(sqrt {self._print(base)})", int(exponent * 2)
            power = root if abs(k) == 1 else f"({root} ^ {abs(k)})"
            return power if k > 0 else f"(/ {power})"
        if base.is_positive is not True:
            raise Untranslatable(f"power {sp.sstr(base)}**({sp.sstr(exponent)}) of a base not "
                                 "known to be positive (Rpower agrees with it only for base > 0)")
        if base is sp.E:
            return f"(exp {self._print(exponent)})"
        if self.unfolded:
            return f"(exp {self.exponent_text(sp.Pow(base, exponent, evaluate=False))})"
        return f"(Rpower {self._print(base)} {self._print(exponent)})"

    def exponent_text(self, e: sp.Basic) -> str:
        """The argument of the exponential that ``e`` (``exp(x)`` or ``b**y``) unfolds to."""
        if isinstance(e, sp.exp):
            return self._print(e.args[0])
        return f"({self._print(e.exp)} * (ln {self._print(e.base)}))"


def is_square_root(e) -> bool:
    """``u**(k/2)`` (odd ``k``) of a base SymPy knows nonnegative but not positive, such as
    ``sqrt(a**2 + b**2)``: printed with Coq's ``sqrt`` (a positive base keeps ``Rpower``)."""
    return (isinstance(e, sp.Pow) and e.exp.is_Rational and e.exp.q == 2
            and e.base.is_positive is not True and e.base.is_nonnegative is True)


def exact_power(base, exponent):
    """The rational value of ``base**exponent`` for rationals whose power is rational (a perfect
    root such as ``10000**(-1/2) = 1/100``, exact integer arithmetic), else None."""
    if base.is_Rational and exponent.is_Rational and not exponent.is_Integer and base > 0:
        value = sp.Pow(base, exponent)
        if value.is_Rational:
            return value
    return None


def exponential_argument(e):
    """``x`` when ``e`` is ``exp(x)`` or a non-integer power of a positive base (``exp(y ln b)``),
    else None."""
    if isinstance(e, sp.exp):
        return e.args[0]
    if isinstance(e, sp.Pow) and not e.exp.is_Integer and e.base.is_positive is True \
            and exact_power(e.base, e.exp) is None:
        if e.base is sp.E:
            return e.exp
        return sp.Mul(e.exp, sp.log(e.base), evaluate=False)
    return None


# SymPy's sign facts about a symbol, strongest first, and the Coq hypothesis each one gives.
_SIGN_HYPOTHESES = {"is_positive": "0 < {}", "is_nonnegative": "0 <= {}", "is_negative": "{} < 0",
                    "is_nonpositive": "{} <= 0", "is_nonzero": "{} <> 0"}


def binary_chain(operator: str, texts: Iterable[str]) -> str:
    """``((a op b) op c)``: binary and fully parenthesised, one text per Coq term in any context.

    Examples
    ========

    >>> from symrope.kernel._translate import binary_chain
    >>> binary_chain(" + ", ["a", "b", "c"])
    '((a + b) + c)'
    """
    texts = iter(texts)
    text = next(texts)
    for argument in texts:
        text = f"({text}{operator}{argument})"
    return text


def binders(symbols, taken: set[str] | None = None) -> tuple[dict, list[str], list[str]]:
    """Coq names, ``(x y : R)`` binder groups and hypotheses (``0 < x``) for real symbols.

    Raises :class:`Untranslatable` for a symbol not known to be real.
    """
    taken = set() if taken is None else taken
    names, hypotheses = {}, []
    for symbol in sorted(symbols, key=lambda s: (s.name, s.dummy_index or 0
                                                 if isinstance(s, sp.Dummy) else 0)):
        if not isinstance(symbol, sp.Symbol):
            raise Untranslatable(f"{symbol} is not a scalar symbol")
        if symbol.is_extended_real is not True or symbol.is_finite is False:
            raise Untranslatable(f"symbol {symbol} is not declared real: the SymPy claim is "
                                 "over the complex numbers")
        name = sanitise(symbol.name, taken)
        taken.add(name)
        names[symbol] = name
        sign = next((fact for fact in _SIGN_HYPOTHESES if getattr(symbol, fact)), None)
        if sign is not None:  # the strongest sign SymPy knows, as a Coq hypothesis
            hypotheses.append(_SIGN_HYPOTHESES[sign].format(name))
        if symbol.is_integer:
            hypotheses.append(f"exists z : Z, {name} = IZR z")
    return names, list(names.values()), hypotheses
