"""Certified evaluation: a rigorous enclosure of ``lhs - rhs`` at an exact point.

A counterexample is only as good as the arithmetic that showed the difference is not zero.
Rounded arithmetic (SymPy's ``evalf``, even at two precisions) can apply ``sign`` to rounding
noise around a true zero, so here every value is either *exact* (a rational, or a Gaussian
rational ``a + b i``, computed with FLINT's ``fmpq``) or a *ball* (Arb's ``arb``/``acb`` from
python-flint: a midpoint and a radius that provably contain the true value). A claim is refuted
at a point only when the enclosure of ``|lhs - rhs|`` excludes zero. A function with no rigorous
enclosure here (an undefined ``f(x)``, a special function Arb is not asked for) makes the point
inconclusive: it is never evaluated in rounded arithmetic instead.

Functions that jump (``sign``, ``floor``, ``ceiling``, ``frac``, ``Mod``, ``Heaviside``,
``arg``, ``atan2``, ``Piecewise`` conditions, comparisons) are evaluated only where the
enclosure of their argument is exact or stays on one side of the jump; otherwise the point is
*inconclusive* (:class:`Inconclusive`) and the caller tries another. ``Min``, ``Max`` and
``Abs`` are continuous, so a ball enclosure of them is rigorous wherever the argument lies.

The claim's domain: a function applied to a *real* value (one built from real symbols and
real constants by real operations) must be real-valued there. ``log`` of a negative real,
``sqrt`` of a negative real or a non-integer power of a negative real puts the point outside
the claim's domain (inconclusive), however the complex principal branch would read it. A
sub-expression without free symbols (the constant ``log(-2)``) is a number, not a domain
question, and is evaluated on its principal branch.

The values and their arithmetic (exact while it can be, balls otherwise) are ``_values.py``'s.

References
==========

.. [1] F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval arithmetic",
   IEEE Transactions on Computers 66 (2017); https://flintlib.org/doc/using.html (ball
   semantics: the inclusion principle).
"""

from __future__ import annotations

import math

import sympy as sp
from flint import acb, arb, ctx, fmpq

from symrope._exact import exact_rational
from symrope.engine._values import (GaussianRational, IMAGINARY_UNIT, Inconclusive,
                                    MAX_EXACT_FACTORIAL, ONE, ZERO, add, as_ball, as_complex_ball,
                                    as_gaussian, exact_sqrt, finite, floor_value, imaginary_part,
                                    is_exact, is_nonzero, is_real, magnitude, multiply, negate,
                                    power_integer, real_part, sign_of_real, subtract)

__all__ = ["Inconclusive", "PointEvaluator", "is_exact", "magnitude", "subtract"]


# Functions Arb has, by the name of their arb/acb method.
_ANALYTIC = {
    sp.exp: "exp", sp.log: "log", sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.cot: "cot",
    sp.sec: "sec", sp.csc: "csc", sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh",
    sp.coth: "coth", sp.sech: "sech", sp.csch: "csch", sp.asin: "asin", sp.acos: "acos",
    sp.atan: "atan", sp.asinh: "asinh", sp.acosh: "acosh", sp.atanh: "atanh", sp.erf: "erf",
    sp.erfc: "erfc", sp.erfi: "erfi", sp.gamma: "gamma", sp.loggamma: "lgamma",
    sp.digamma: "digamma", sp.sinc: "sinc", sp.Ei: "ei", sp.Si: "si", sp.Ci: "ci", sp.li: "li",
    sp.Shi: "shi", sp.Chi: "chi",
}
# Where a complex argument meets a branch cut, SymPy's and Arb's values on the cut need not
# agree: the axis each function's cuts lie on.
_CUTS = {"asin": "real", "acos": "real", "atanh": "real", "acosh": "real", "atan": "imag",
         "asinh": "imag"}
# Inverse functions of reciprocals, for real arguments: acot(x) = atan(1/x) and so on (SymPy's
# definitions). mpmath's ``iv`` context has no rigorous version of them (its native interval
# functions, exp, log, sqrt, sin, cos, tan and gamma, are all Arb's too; its other functions are
# generic series whose truncation error no interval bounds), so Arb evaluates these as well.
_RECIPROCAL = {sp.acot: "atan", sp.asec: "acos", sp.acsc: "asin", sp.acoth: "atanh",
               sp.asech: "acosh", sp.acsch: "asinh"}
_CALCULUS = (sp.Derivative, sp.Integral, sp.Sum, sp.Product)


class PointEvaluator:
    """Evaluates SymPy expressions at one exact point, exactly or in Arb balls of ``bits``.

    ``point`` maps symbols to exact values (rationals, Gaussian rationals, or any expression
    without free symbols). One evaluator may serve every entry of a matrix claim: shared
    sub-expressions are computed once.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._certified import PointEvaluator
    >>> x = sp.Symbol("x", real=True)
    >>> evaluator = PointEvaluator({x: sp.Rational(1, 3)}, bits=128)
    >>> evaluator.value(3 * x + 1)
    2
    >>> evaluator.value(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1).contains(0)
    True
    """

    def __init__(self, point: dict, bits: int):
        self.bits = bits
        self._point = point
        self._env: dict = {}
        self._memo: dict = {}

    def value(self, expr):
        """The exact value or the Arb ball of ``expr`` (raises :class:`Inconclusive`)."""
        with ctx.workprec(self.bits):
            return self._value(expr)

    # ------------------------------------------------------------------ the tree walk
    def _value(self, node):
        known = self._memo.get(node)
        if known is None:
            known = self._memo[node] = self._compute(node)
        return known

    def _compute(self, node):
        if not isinstance(node, sp.Basic):
            return self._number(sp.sympify(node, strict=True))
        if node.is_Symbol:
            return self._symbol(node)
        if node.is_Number or node.is_NumberSymbol or node is sp.I:
            return self._number(node)
        if node.is_Add:
            total = self._value(node.args[0])
            for arg in node.args[1:]:
                total = add(total, self._value(arg))
            return total
        if node.is_Mul:
            product = self._value(node.args[0])
            for arg in node.args[1:]:
                product = multiply(product, self._value(arg))
            return product
        if node.is_Pow:
            return self._power(node)
        if isinstance(node, sp.Piecewise):
            for piece, condition in node.args:
                truth = self._truth(condition)
                if truth is None:
                    raise Inconclusive("a Piecewise condition at its boundary")
                if truth:
                    return self._value(piece)
            raise Inconclusive("no Piecewise condition holds")
        handler = _HANDLERS.get(node.func)
        if handler is not None:
            return handler(self, node)
        if node.func in _ANALYTIC:
            return self._analytic(node, _ANALYTIC[node.func])
        if node.func in _RECIPROCAL:
            return self._reciprocal(node, _RECIPROCAL[node.func])
        if isinstance(node, _CALCULUS):
            done = node.doit()
            if done != node and not done.has(*_CALCULUS):
                return self._value(done)
        raise Inconclusive(f"no rigorous enclosure for {type(node).__name__}")

    def _symbol(self, symbol):
        if symbol not in self._env:
            if symbol not in self._point:
                raise Inconclusive(f"no value for {symbol}")
            given = PointEvaluator({}, self.bits)._value(sp.sympify(self._point[symbol], strict=True))
            if symbol.is_extended_real is not True and is_real(given):
                # a complex symbol at a real value is still complex: no real domain to keep
                given = as_gaussian(given) if type(given) is fmpq else acb(given)
            self._env[symbol] = given
        return self._env[symbol]

    def _number(self, number):
        if number.is_Integer:
            return fmpq(int(number))
        if number.is_Rational:
            return fmpq(int(number.p), int(number.q))
        if number.is_Float:
            rational = exact_rational(number)
            return fmpq(int(rational.p), int(rational.q))
        if number is sp.I:
            return IMAGINARY_UNIT
        if number is sp.pi:
            return arb.pi()
        if number is sp.E:
            return arb.const_e()
        if number is sp.EulerGamma:
            return arb.const_euler()
        if number is sp.Catalan:
            return arb.const_catalan()
        if number is sp.GoldenRatio:
            return (1 + arb(5).sqrt()) / 2
        raise Inconclusive(f"no rigorous enclosure for {number}")

    def _outside_real_domain(self, node, what: str, compute):
        """A real argument outside ``what``'s real domain: a constant is read on the principal
        (complex) branch; anything that depends on the point is outside the claim's domain."""
        if node.free_symbols:
            raise Inconclusive(f"{what} outside its real domain")
        return finite(compute())

    def _power(self, node):
        base_node, exponent_node = node.args
        if base_node is sp.E:
            return self._analytic_value(node, "exp", self._value(exponent_node))
        exponent = self._value(exponent_node)
        base = self._value(base_node)
        if type(exponent) is fmpq and exponent.q == 1:
            return power_integer(base, int(exponent.p))
        if type(base) is fmpq and type(exponent) is fmpq and base >= 0:
            root = exact_sqrt(base) if exponent.q == 2 else None
            if root is not None:
                return power_integer(root, int(exponent.p))
            if base == 0:
                if exponent > 0:
                    return ZERO
                raise Inconclusive("division by zero")
        if is_real(base) and is_real(exponent):
            result = as_ball(base) ** as_ball(exponent)
            if result.is_finite():
                return result
            return self._outside_real_domain(
                node, "a power", lambda: as_complex_ball(base) ** as_complex_ball(exponent))
        if type(base) is fmpq and base == 0 or type(base) is GaussianRational and base.is_zero():
            raise Inconclusive("0 to a complex power")
        return finite(as_complex_ball(base) ** as_complex_ball(exponent))

    def _analytic(self, node, name: str):
        if len(node.args) != 1:
            raise Inconclusive(f"no rigorous enclosure for {type(node).__name__} with "
                               f"{len(node.args)} arguments")
        return self._analytic_value(node, name, self._value(node.args[0]))

    def _analytic_value(self, node, name: str, argument):
        if is_real(argument):
            result = getattr(as_ball(argument), name)()
            if result.is_finite():
                return result
            return self._outside_real_domain(
                node, name, lambda: getattr(as_complex_ball(argument), name)())
        argument = as_complex_ball(argument)
        axis = _CUTS.get(name)
        if axis is not None:
            across, along = (argument.imag, argument.real) if axis == "real" else \
                (argument.real, argument.imag)
            safe = along > 1 if name == "acosh" else abs(along) < 1
            if across.contains(0) and not safe:
                raise Inconclusive(f"{name} at its branch cut")
        return finite(getattr(argument, name)())

    def _reciprocal(self, node, name: str):
        argument = self._value(node.args[0])
        if not is_real(argument):
            raise Inconclusive(f"no rigorous enclosure for {type(node).__name__} of a complex "
                               "argument")
        if is_nonzero(argument) is False and node.func is sp.acot:
            return arb.pi() / 2
        if not is_nonzero(argument):
            raise Inconclusive(f"{type(node).__name__} at an argument that may be 0")
        inverse = power_integer(argument, -1)
        return self._analytic_value(node, name, inverse)

    # ------------------------------------------------------------------ conditions
    def _truth(self, condition) -> bool | None:
        if condition is sp.true:
            return True
        if condition is sp.false:
            return False
        if isinstance(condition, sp.And):
            values = [self._truth(c) for c in condition.args]
            return False if False in values else (None if None in values else True)
        if isinstance(condition, sp.Or):
            values = [self._truth(c) for c in condition.args]
            return True if True in values else (None if None in values else False)
        if isinstance(condition, sp.Not):
            value = self._truth(condition.args[0])
            return None if value is None else not value
        if isinstance(condition, sp.core.relational.Relational):
            difference = add(self._value(condition.lhs), negate(self._value(condition.rhs)))
            if isinstance(condition, (sp.Eq, sp.Ne)):
                nonzero = is_nonzero(difference)
                if nonzero is None:
                    return None
                return nonzero if isinstance(condition, sp.Ne) else not nonzero
            if not is_real(difference):
                return None
            sign = sign_of_real(difference)
            if sign is None:
                return None
            return {sp.StrictLessThan: sign < 0, sp.LessThan: sign <= 0,
                    sp.StrictGreaterThan: sign > 0, sp.GreaterThan: sign >= 0}.get(
                type(condition))
        return None


# ---------------------------------------------------------------------- jumps and parts
def _sign(evaluator, node):
    value = evaluator._value(node.args[0])
    if is_real(value):
        sign = sign_of_real(value)
        if sign is None:
            raise Inconclusive("sign at an argument whose enclosure contains 0")
        return fmpq(sign)
    nonzero = is_nonzero(value)
    if nonzero is None:
        raise Inconclusive("sign at an argument whose enclosure contains 0")
    if not nonzero:
        return ZERO
    ball = as_complex_ball(value)
    return ball / abs(ball)


def _floor_node(evaluator, node, *, ceiling: bool = False, fraction: bool = False):
    value = evaluator._value(node.args[0])

    def one(part):
        whole = -floor_value(-part) if ceiling else floor_value(part)
        return add(part, negate(whole)) if fraction else whole

    if is_real(value):
        return one(value)
    return add(one(real_part(value)), multiply(IMAGINARY_UNIT, one(imaginary_part(value))))


def _mod(evaluator, node):
    a, m = (evaluator._value(arg) for arg in node.args)
    if not (is_real(a) and is_real(m)):
        raise Inconclusive("Mod of complex values")
    if not is_nonzero(m):
        raise Inconclusive("Mod by a modulus that may be 0")
    quotient = a / m if type(a) is fmpq and type(m) is fmpq else as_ball(a) / as_ball(m)
    return add(a, negate(multiply(m, floor_value(quotient))))


def _heaviside(evaluator, node):
    value = evaluator._value(node.args[0])
    if not is_real(value):
        raise Inconclusive("Heaviside of a complex value")
    sign = sign_of_real(value)
    if sign is None:
        raise Inconclusive("Heaviside at an argument whose enclosure contains 0")
    if sign == 0:
        if len(node.args) < 2:
            raise Inconclusive("Heaviside(0) without a stated value")
        return evaluator._value(node.args[1])
    return fmpq(int(sign > 0))


def _abs(evaluator, node):
    return magnitude(evaluator._value(node.args[0]))


def _extremum(evaluator, node):
    values = [evaluator._value(arg) for arg in node.args]
    if not all(is_real(v) for v in values):
        raise Inconclusive(f"{type(node).__name__} of complex values")
    largest = isinstance(node, sp.Max)
    if all(type(v) is fmpq for v in values):
        return max(values) if largest else min(values)
    result = as_ball(values[0])
    for value in values[1:]:
        result = result.max(as_ball(value)) if largest else result.min(as_ball(value))
    return result


def _re(evaluator, node):
    return real_part(evaluator._value(node.args[0]))


def _im(evaluator, node):
    return imaginary_part(evaluator._value(node.args[0]))


def _conjugate(evaluator, node):
    value = evaluator._value(node.args[0])
    if type(value) is GaussianRational:
        return GaussianRational(value.re, -value.im)
    return value.conjugate() if type(value) is acb else value


def _angle(y, x):
    """``atan2(y, x)`` where certain: off the cut (-oo, 0] and away from the origin."""
    if sign_of_real(x) == 1 or is_nonzero(y):
        return arb.atan2(as_ball(y), as_ball(x))
    if is_nonzero(y) is False and sign_of_real(x) == -1:
        return arb.pi()
    raise Inconclusive("arg or atan2 at the branch cut or at 0")


def _arg(evaluator, node):
    value = evaluator._value(node.args[0])
    return _angle(imaginary_part(value), real_part(value))


def _atan2(evaluator, node):
    y, x = (evaluator._value(arg) for arg in node.args)
    if not (is_real(y) and is_real(x)):
        raise Inconclusive("atan2 of complex values")
    return _angle(y, x)


def _kronecker(evaluator, node):
    i, j = (evaluator._value(arg) for arg in node.args)
    nonzero = is_nonzero(add(i, negate(j)))
    if nonzero is None:
        raise Inconclusive("KroneckerDelta of values that may be equal")
    return fmpq(int(not nonzero))


def _factorial(evaluator, node):
    value = evaluator._value(node.args[0])
    if type(value) is fmpq and value.q == 1 and 0 <= value.p <= MAX_EXACT_FACTORIAL:
        return fmpq(math.factorial(int(value.p)))
    return evaluator._analytic_value(node, "gamma", add(value, ONE))


def _lambert(evaluator, node):
    if len(node.args) != 1:
        raise Inconclusive("LambertW of another branch")
    return evaluator._analytic_value(node, "lambertw", evaluator._value(node.args[0]))


def _zeta(evaluator, node):
    if len(node.args) != 1:
        raise Inconclusive("the Hurwitz zeta function")
    return evaluator._analytic_value(node, "zeta", evaluator._value(node.args[0]))


_HANDLERS = {
    sp.sign: _sign, sp.floor: _floor_node,
    sp.ceiling: lambda e, n: _floor_node(e, n, ceiling=True),
    sp.frac: lambda e, n: _floor_node(e, n, fraction=True),
    sp.Mod: _mod, sp.Heaviside: _heaviside, sp.Abs: _abs, sp.Max: _extremum,
    sp.Min: _extremum, sp.re: _re, sp.im: _im, sp.conjugate: _conjugate, sp.arg: _arg,
    sp.atan2: _atan2, sp.KroneckerDelta: _kronecker, sp.factorial: _factorial,
    sp.LambertW: _lambert, sp.zeta: _zeta,
}
