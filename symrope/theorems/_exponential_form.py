"""Theorem 2: continuity turns the one-parameter group into ``H(d) = e^{dX}``, ``X = H'(0)``.

The argument (the integral trick, then uniqueness for a linear ODE):

* ``A = int_0^e H(u) du`` is invertible for small ``e > 0`` (continuity; cited);
* ``H(d) A = int_d^{d+e} H(u) du`` (group law and a change of variables; the calculus is
  checked on an arbitrary scalar function, since integrals of matrices are taken entrywise);
* so ``H`` is differentiable with ``H'(d) = H(d) X``, ``X = (H(e) - I) A^{-1} = H'(0)``, and
  ``X`` commutes with every ``H(d)`` (matrix algebra on opaque matrices, each use of a
  hypothesis a stated rewrite);
* ``d/dd [e^{-dX} H(d)] = e^{-dX}(H' - X H) = 0``, hence ``H(d) = e^{dX}``.

The analytic lemma (a continuous one-parameter subgroup is differentiable and of the form
``exp(dX)``) is cited with its machine-checked reference in Lean Mathlib. Without continuity
the conclusion fails: Cauchy's equation has non-measurable solutions (cited).
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.theorems._group_law import matrix_size

__all__ = ["exponential_form", "exponential_of", "MATHLIB_GENERATOR", "HAMEL_CAUCHY",
           "EXP_SERIES"]

MATHLIB_GENERATOR = (r"Lean Mathlib, OneParameterSubgroup.existsUnique_generator "
                     r"(Mathlib/Analysis/Normed/Algebra/OneParameterSubgroup.lean): a continuous "
                     r"one-parameter subgroup of a complete normed algebra is $t \mapsto \exp(t X)$ "
                     r"for a unique $X$")
HAMEL_CAUCHY = ("G. Hamel, 'Eine Basis aller Zahlen und die unstetigen Loesungen der "
                "Funktionalgleichung $f(x+y) = f(x) + f(y)$', Math. Ann. 60 (1905) 459-462")
MATHLIB_INTEGRAL_UNIT = (r"Lean Mathlib, OneParameterSubgroup.existsUnique_generator "
                         r"(Mathlib/Analysis/Normed/Algebra/OneParameterSubgroup.lean): its proof "
                         r"shows that for a continuous one-parameter subgroup $U$ there is $\varepsilon > 0$ "
                         r"with $\int_0^\varepsilon U(x)\,dx$ invertible (continuity at $0$ puts the "
                         r"integral near $\varepsilon \cdot 1$, and Units.ofNearby makes it a unit); the "
                         r"lemma itself is private to that file")
INTEGRAL_LINEARITY = (r"linearity of the (entrywise) interval integral: a constant matrix factor "
                      r"moves inside, $M \int f = \int M f$ and $(\int f) M = \int f M$ "
                      r"(Mathlib ContinuousLinearMap.intervalIntegral_comp_comm; the same file's "
                      r"proof of existsUnique_generator uses it for $U(t) \int_0^d U = \int_0^d "
                      r"U(t + x)\,dx$)")
MEAN_VALUE = ("mean value theorem (e.g. W. Rudin, Principles of Mathematical Analysis, 3rd "
              "ed., Thm. 5.11): a function with zero derivative on an interval is constant")
EXP_SERIES = ("the exponential series converges absolutely and may be differentiated term by "
              "term; $e^{A} e^{B} = e^{A+B}$ when $AB = BA$, $(e^A)^{-1} = e^{-A}$, "
              "$(e^A)^\\top = e^{A^\\top}$ (B. C. Hall, Lie Groups, Lie Algebras, and "
              "Representations, 2nd ed. (2015), Prop. 2.3); $\\frac{d}{dt} e^{tA} = A e^{tA}$ "
              "(ibid., Prop. 2.4)")


_SCALE = sp.Dummy("x", real=True)
_EXPONENTIALS: dict = {}


def exponential_of(matrix, scale) -> sp.ImmutableMatrix:
    """SymPy's closed form of ``e^{x M}`` (computed once per ``M``), evaluated at ``x = scale``.

    Examples
    ========

    >>> import sympy as sp
    >>> phi = sp.Symbol('phi', real=True)
    >>> exponential_of(sp.Matrix([[0, -1], [1, 0]]), phi)
    Matrix([
    [cos(phi), -sin(phi)],
    [sin(phi),  cos(phi)]])
    """
    key = sp.ImmutableMatrix(matrix)
    if key not in _EXPONENTIALS:
        _EXPONENTIALS[key] = sp.ImmutableMatrix((_SCALE * key).exp()).applyfunc(
            lambda entry: entry.rewrite(sp.cos) if entry.has(sp.I) else entry)
    return sp.ImmutableMatrix(_EXPONENTIALS[key].subs(_SCALE, scale))


def _product(*factors):
    """A product kept as written, so that a rewrite can match a sub-product."""
    return sp.MatMul(*factors, evaluate=False)


def _difference(minuend, subtrahend):
    """``minuend - subtrahend`` kept as written (``-`` would flatten nested products)."""
    return sp.MatAdd(minuend, sp.MatMul(-1, subtrahend, evaluate=False), evaluate=False)


@theorem("exponential_form", "continuity gives H(d) = e^{dX} with X = H'(0) (integral trick, "
         "ODE uniqueness; analytic lemma cited from Mathlib)", title="Continuity gives the exponential form")
def exponential_form(n=3) -> Theorem:
    """Build theorem 2 for ``n x n`` matrices (``n`` symbolic by default).

    Parameters
    ==========

    n : int or "n"
        Size of the opaque matrices ``H(d)`` (default 3; ``"n"`` for a symbolic size). No step
        uses their entries.

    Returns
    =======

    Theorem
        The integral-trick and ODE-uniqueness steps checked; the analytic lemma cited.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("exponential_form").build().prove()
    >>> report.verdict, report.cited_lemmas
    ('proved', 6)

    References
    ==========

    .. [1] Lean Mathlib, ``OneParameterSubgroup.existsUnique_generator``.
    .. [2] B. C. Hall, Lie Groups, Lie Algebras, and Representations, 2nd ed. (2015), Ch. 2.
    """
    size = matrix_size(n)
    identity = sp.Identity(size)
    # delta is an offset and epsilon the length of the integration interval (e is Euler's).
    u, v, d, e = sp.symbols("u v delta epsilon", real=True)
    h = sp.Function("h")
    H_d, H_e, H_de, H_0, A, X, dH_d, E, dE, E_pos, H_u, H_du = [
        sp.MatrixSymbol(name, size, size) for name in
        ("H(delta)", "H(epsilon)", "H(delta+epsilon)", "H(0)", "A", "X", "H'(delta)",
         "E(delta)", "E'(delta)", "e^{delta X}", "H(u)", "H(delta+u)")]
    thm = Theorem(
        "exponential_form",
        r"If $\delta \mapsto H(\delta)$ is a continuous map from the reals to invertible "
        r"$n \times n$ matrices with $H(a + b) = H(a) H(b)$ and $H(0) = I$, then $H$ is "
        r"differentiable, $X = H'(0)$ commutes with every $H(\delta)$, and "
        r"$H(\delta) = e^{\delta X}$ for every real $\delta$.",
        hypotheses=["$H(a + b) = H(a) H(b)$, $H(0) = I$ (the group law)",
                    "$H$ is continuous (assumption 4)"],
        statement_latex=r"H \text{ continuous},\ H(a+b) = H(a)H(b),\ H(0) = I \implies "
                        r"H(\delta) = e^{\delta X},\ X = H'(0)")
    thm.cite(r"a continuous one-parameter subgroup $H$ of $\mathrm{GL}(n, \mathbb{R})$ is "
             r"differentiable and $H(\delta) = \exp(\delta X)$ for a unique $X$",
             MATHLIB_GENERATOR,
             "the analytic lemma this theorem rests on; the steps below check its algebraic and "
             "calculus skeleton where SymPy can")
    thm.cite(r"$A = \int_0^\varepsilon H(u) \,du$ is invertible for some $\varepsilon > 0$",
             MATHLIB_INTEGRAL_UNIT,
             r"$A / \varepsilon \to H(0) = I$ as $\varepsilon \to 0$ by continuity, and the "
             r"invertible matrices are open")
    thm.define("A", r"$\int_0^\varepsilon H(u) \,du$",
               r"the integral of $H$ over $[0, \varepsilon]$, entrywise")
    thm.define(r"$H(\delta), H(\varepsilon), H(\delta+\varepsilon), H(0), H'(\delta), H(u), "
               r"H(\delta+u)$",
               rf"opaque ${size} \times {size}$ matrices", "nothing about their entries is used")

    # The calculus, on one entry h of H (integrals and derivatives of matrices act entrywise).
    thm.check(sp.diff(sp.Integral(h(d + u), (u, 0, e)), e),
              sp.diff(sp.Integral(h(v), (v, d, d + e)), e),
              r"fundamental theorem of calculus: both sides have derivative "
              r"$h(\delta + \varepsilon)$ in $\varepsilon$, and both vanish at $\varepsilon = 0$, "
              r"so $\int_0^\varepsilon h(\delta + u) \,du = \int_\delta^{\delta+\varepsilon} "
              r"h(v) \,dv$",
              claim="d/de int_0^e h(d+u) du = d/de int_d^{d+e} h(v) dv",
              display=(r"\frac{\partial}{\partial \varepsilon} \int_0^{\varepsilon} "
                       r"h(\delta + u)\,du",
                       r"\frac{\partial}{\partial \varepsilon} \int_{\delta}^{\delta+\varepsilon} "
                       r"h(v)\,dv"))
    thm.check(sp.diff(sp.Integral(h(v), (v, d, d + e)), d), h(d + e) - h(d),
              "Leibniz rule for an integral with moving limits",
              claim="d/dd int_d^{d+e} h(v) dv = h(d + e) - h(d)",
              display=(r"\frac{\partial}{\partial \delta} \int_{\delta}^{\delta+\varepsilon} "
                       r"h(v)\,dv", r"h(\delta + \varepsilon) - h(\delta)"))
    thm.check(_product(H_d, H_u), _product(H_u, H_d),
              r"both products are $H(\delta + u)$ by the group law (so the integrands of "
              r"$H(\delta) A$ and $A H(\delta)$ agree at every $u$)",
              claim="H(d) H(u) = H(u) H(d)",
              assumptions=[sp.Eq(_product(H_d, H_u), H_du), sp.Eq(_product(H_u, H_d), H_du)])
    thm.cite(r"$H(\delta) A = \int_0^\varepsilon H(\delta) H(u) \,du = \int_0^\varepsilon "
             r"H(\delta + u) \,du = \int_\delta^{\delta+\varepsilon} H(v) \,dv$, and "
             r"$A H(\delta) = \int_0^\varepsilon H(u) H(\delta) \,du = H(\delta) A$",
             INTEGRAL_LINEARITY,
             "linearity of the integral, then the group law (the step above), then the change of "
             "variables checked above on one entry")

    # (H(e) - I) A^{-1} is written out as H(e) A^{-1} - A^{-1}: same matrix, and the random
    # matrix cross-checks stay cheap (no identity inside a product).
    group_law = sp.Eq(H_de, _product(H_d, H_e))
    thm.check(H_de - H_d, _product(H_d, H_e) - H_d,
              r"the group law $H(\delta + \varepsilon) = H(\delta) H(\varepsilon)$",
              claim="H'(d) A = H(d + e) - H(d) = H(d) (H(e) - I)", assumptions=[group_law])
    generator = _product(H_e, A.I) - A.I
    thm.define("X", r"$(H(\varepsilon) - I) A^{-1} = H(\varepsilon) A^{-1} - A^{-1}$",
               "the candidate generator")
    thm.check(dH_d, _product(H_d, X),
              "divide by the invertible $A$ on the right, then use the definition of $X$",
              claim="H'(d) = (H(d + e) - H(d)) A^{-1} = H(d) X",
              assumptions=[sp.Eq(dH_d, _product(_product(H_d, H_e) - H_d, A.I)),
                           sp.Eq(X, generator)])
    thm.check(_product(H_0, X), X, "$H(0) = I$", claim="H'(0) = H(0) X = X",
              assumptions=[sp.Eq(H_0, identity)])

    # X commutes with H(d).
    commutes_with_A = sp.Eq(_product(H_d, A), _product(A, H_d))
    thm.check(_product(A.I, _product(H_d, A), A.I), _product(H_d, A.I),
              r"$H(\delta) A = A H(\delta)$ (cited above); multiply by $A^{-1}$ on both sides",
              claim="A^{-1} H(d) = H(d) A^{-1}", assumptions=[commutes_with_A])
    thm.check(_difference(_product(H_e, _product(A.I, H_d)), _product(A.I, H_d)),
              _product(H_e, H_d, A.I) - _product(H_d, A.I),
              "the previous step, in both terms", claim="X H(d) = (H(e) - I) H(d) A^{-1}",
              assumptions=[sp.Eq(_product(A.I, H_d), _product(H_d, A.I))])
    thm.check(_difference(_product(_product(H_e, H_d), A.I), _product(H_d, A.I)),
              _product(H_d, X),
              r"$H(\varepsilon) H(\delta) = H(\varepsilon + \delta) = H(\delta) H(\varepsilon)$",
              claim="(H(e) - I) H(d) A^{-1} = H(d) (H(e) - I) A^{-1} = H(d) X",
              assumptions=[sp.Eq(_product(H_e, H_d), _product(H_d, H_e)), sp.Eq(X, generator)])

    # ODE uniqueness: e^{-dX} H(d) has zero derivative.
    lam, omega = sp.symbols("lambda omega", real=True)
    latex_of = {"X = lambda I + omega J": r"\lambda I + \omega J",
                "X = lambda I + N (Jordan block)": r"\begin{pmatrix}\lambda & 1\\ 0 & \lambda"
                                                   r"\end{pmatrix}"}
    for name, example in (("X = lambda I + omega J", sp.Matrix([[lam, -omega], [omega, lam]])),
                          ("X = lambda I + N (Jordan block)", sp.Matrix([[lam, 1], [0, lam]]))):
        exponential = exponential_of(example, -d)
        shown = latex_of[name]
        thm.check(sp.diff(exponential, d), -example * exponential,
                  rf"for the instance $X = {shown}$, differentiate SymPy's closed form of the "
                  r"exponential (the general fact is the term-by-term derivative of the series)",
                  claim=f"d/dd e^{{-dX}} = -X e^{{-dX}} for {name}", instance=f"2x2, {name}",
                  display=(r"\frac{d}{d\delta}\, e^{-\delta X}", r"-X e^{-\delta X}"))
        thm.check(exponential * exponential_of(example, d), sp.eye(2),
                  rf"for the instance $X = {shown}$: $\delta X$ and $-\delta X$ commute, so "
                  r"$e^{-\delta X} e^{\delta X} = e^{0} = I$",
                  claim=f"e^{{-dX}} e^{{dX}} = I for {name}", instance=f"2x2, {name}",
                  display=(r"e^{-\delta X} e^{\delta X}", "I"))
    thm.cite(r"$\frac{d}{d\delta} e^{-\delta X} = -e^{-\delta X} X$ and "
             r"$e^{\delta X} e^{-\delta X} = I$ for every square $X$",
             EXP_SERIES,
             r"differentiate the series term by term; $\delta X$ commutes with $-\delta X$")
    thm.define(r"$E(\delta)$", r"$e^{-\delta X}$",
               r"an opaque matrix again, with derivative $E'(\delta)$")
    thm.check(_product(dE, H_d) + _product(E, dH_d), sp.ZeroMatrix(size, size),
              r"product rule; $E'(\delta) = -e^{-\delta X} X$ and $H'(\delta) = H(\delta) X = "
              r"X H(\delta)$",
              claim="d/dd [e^{-dX} H(d)] = e^{-dX}(H'(d) - X H(d)) = 0",
              assumptions=[sp.Eq(dE, -_product(E, X)), sp.Eq(dH_d, _product(X, H_d))])
    thm.cite(r"$e^{-\delta X} H(\delta) = e^{0} H(0) = I$ for every $\delta$", MEAN_VALUE,
             "its derivative vanishes on the whole real line (entrywise)")
    thm.check(_product(_product(E_pos, E), H_d), H_d, r"$e^{\delta X} e^{-\delta X} = I$",
              claim="(e^{dX} e^{-dX}) H(d) = H(d)",
              assumptions=[sp.Eq(_product(E_pos, E), identity)])
    thm.check(_product(_product(E_pos, E), H_d), _product(E_pos, _product(E, H_d)),
              "associativity", claim="(e^{dX} e^{-dX}) H(d) = e^{dX} (e^{-dX} H(d))")
    thm.check(_product(E_pos, _product(E, H_d)), E_pos,
              r"$e^{-\delta X} H(\delta) = I$ (above); with the two previous steps, "
              r"$H(\delta) = e^{\delta X}$",
              claim="e^{dX} (e^{-dX} H(d)) = e^{dX}, hence H(d) = e^{dX}",
              assumptions=[sp.Eq(_product(E, H_d), identity)])
    thm.cite("without continuity the conclusion fails", HAMEL_CAUCHY,
             r"for $n = 1$, $H(\delta) = e^{f(\delta)}$ with $f$ a non-measurable additive "
             r"function (Hamel basis) satisfies the group law but is not $e^{\delta X}$")
    return thm
