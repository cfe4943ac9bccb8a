"""A scalar claim's polynomial model: every ``cos``, ``sin`` and ``exp`` a variable.

The certificate of :mod:`symrope.kernel._certificate` works in the polynomial ring over the
Coq subterms a claim names: :class:`PolynomialModel` (a SymPy ``Printer`` whose output is a
polynomial, not a string; its fallback refuses what it cannot model) turns each top-level atom
into a variable, :func:`expansion` is the polynomial Coq's rewriting produces for an atom of a
sum of base angles, and :func:`generator_order` the lex order in which the ideal's generators
are a Groebner basis.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.printing.printer import Printer

from symrope.kernel._translate import (CoqPrinter, Untranslatable, exact_power,
                                      exponential_argument)

__all__ = ["NoCertificate", "Atom", "PolynomialModel", "rational_gcd", "expansion",
           "generator_order", "TRIG", "EXPONENTIAL", "SIGN"]

TRIG, EXPONENTIAL, SIGN = "trig", "exp", "sign"


class NoCertificate(ValueError):
    """SymPy found no proof in the fragment the scripts cover (the message says why)."""


@dataclass
class Atom:
    family: str   # TRIG or EXPONENTIAL
    function: str  # cos, sin, exp
    argument: object  # SymPy expression of the argument
    argument_text: str


class PolynomialModel(Printer):
    """Each Coq subterm the certificate names becomes a polynomial variable, keyed by its text.

    A SymPy :class:`~sympy.printing.printer.Printer` whose output is a polynomial over those
    variables, not a string: ``of(e)`` is ``e`` with every ``cos``, ``sin`` and ``exp`` (and
    every symbol, ``pi`` or ``log``) replaced by its variable; its fallback refuses, like
    :class:`~symrope.kernel._translate.CoqPrinter`'s.
    """

    printmethod = "_symrope_certificate"
    _default_settings: dict = {}

    def __init__(self, printer: CoqPrinter) -> None:
        super().__init__()
        self.printer = printer
        self.variables: dict = {}  # Coq text -> Symbol
        self.atoms: dict = {}      # Coq text -> Atom (top-level only)
        self._top = True

    def variable(self, text: str) -> sp.Symbol:
        if text not in self.variables:
            self.variables[text] = sp.Symbol(f"g{len(self.variables)}")
        return self.variables[text]

    def atom(self, function, argument, argument_text):
        text = f"({function} {argument_text})"
        if self._top and text not in self.atoms:
            family = {"exp": EXPONENTIAL, "symrope_sign": SIGN}.get(function, TRIG)
            self.atoms[text] = Atom(family, function, argument, argument_text)
        return self.variable(text)

    def of(self, e, top=True):
        """The polynomial of ``e``; ``top=False`` for the argument of an atom (no new atoms)."""
        outer, self._top = self._top, top
        try:
            return self._print(e)
        finally:
            self._top = outer

    def emptyPrinter(self, e):
        raise Untranslatable(f"{type(e).__name__} has no exact Coq translation here")

    def _print_Float(self, e):
        raise Untranslatable(f"decimal constant {e}")

    def _print_Rational(self, e):
        return e

    def _named(self, e):
        return self.variable(self.printer.print(e))

    _print_Symbol = _print_Pi = _print_log = _named

    def _print_Exp1(self, e):
        return self.atom("exp", sp.Integer(1), "(IZR 1)")

    def _print_Add(self, e):
        return sp.Add(*[self._print(a) for a in e.args])

    def _print_Mul(self, e):
        return sp.Mul(*[self._print(a) for a in e.args])

    def _print_exp(self, e):
        return self.atom("exp", e.args[0], self.printer.print(e.args[0]))

    def _print_cos(self, e):
        return self.atom("cos", e.args[0], self.printer.print(e.args[0]))

    def _print_sin(self, e):
        return self.atom("sin", e.args[0], self.printer.print(e.args[0]))

    def _print_Pow(self, e):
        value = exact_power(e.base, e.exp)
        if value is not None:
            return value
        if e.base == -1 and not e.exp.is_Integer and e.exp.is_integer:
            return self.atom("symrope_sign", e.exp, self.printer.print(e.exp))
        if e.exp.is_Integer:
            n = int(e.exp)
            if n >= 0:
                return self._print(e.base) ** n
            argument = exponential_argument(e.base)
            if argument is not None:
                negated = self.atom("exp", sp.Mul(-1, argument, evaluate=False),
                                    f"(- {self.printer.exponent_text(e.base)})")
                return negated ** (-n)
            if e.base.is_Rational and e.base != 0:
                return sp.Rational(e.base) ** n
            raise NoCertificate(f"division by the non-constant {sp.sstr(e.base)}")
        argument = exponential_argument(e)
        if argument is None:
            raise Untranslatable(f"power {sp.sstr(e)} of a base not known to be positive")
        return self.atom("exp", argument, self.printer.exponent_text(e))

    def text(self, polynomial) -> str:
        names = {symbol: text for text, symbol in self.variables.items()}
        return CoqPrinter(names).print(sp.sympify(polynomial))


def rational_gcd(values) -> sp.Rational:
    result = sp.Integer(0)
    for value in values:
        result = sp.gcd(result, abs(sp.Rational(value)))
    return result


def expansion(family, terms, base_variables):
    """The polynomial Coq's rewriting produces for f(t1 + (t2 + ...)), each t = (+-1, base)."""
    sign, base = terms[0]
    if family == EXPONENTIAL:
        first = base_variables[(base, sign)]
        if len(terms) == 1:
            return first
        return first * expansion(family, terms[1:], base_variables)
    c, s = base_variables[(base, "cos")], base_variables[(base, "sin")]
    first = (c, s) if sign > 0 else (c, -s)
    if len(terms) == 1:
        return first
    rest = expansion(family, terms[1:], base_variables)
    return (first[0] * rest[0] - first[1] * rest[1], first[1] * rest[0] + first[0] * rest[1])


def generator_order(model, atom_variables, base_variables):
    """Lex order with the atoms first, then cos before sin and exp before exp(-): the leading
    monomials of the generators are then pairwise coprime (a Groebner basis)."""
    first = list(atom_variables)
    cosines = [v for (b, kind), v in base_variables.items() if kind == "cos"]
    sines = [v for (b, kind), v in base_variables.items() if kind == "sin"]
    signs = [v for (b, kind), v in base_variables.items() if kind == "sign"]
    ups = [v for (b, kind), v in base_variables.items() if kind == 1]
    downs = [v for (b, kind), v in base_variables.items() if kind == -1]
    ordered = []
    for v in first + cosines + sines + signs + ups + downs:
        if v not in ordered:
            ordered.append(v)
    rest = [v for v in model.variables.values() if v not in ordered]
    return ordered + sorted(rest, key=str)
