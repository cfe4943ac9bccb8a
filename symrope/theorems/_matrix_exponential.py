"""Theorem 4: the matrix exponential of ``J`` is the rotation ``R(phi)``; skew generators rotate.

* ``J^2 = -I``, so the powers of ``J`` cycle ``I, J, -I, -J``;
* the exponential series collects to ``cos(phi) I + sin(phi) J``: its partial sum of order
  ``2N + 1`` is exactly ``C_{2N}(phi) I + S_{2N+1}(phi) J`` with the Taylor polynomials of
  cos and sin (checked for the order given), and SymPy's ``(phi J).exp()`` is ``R(phi)``;
* ``(I + phi J / N)^N -> R(phi)``: ``a I + b J`` multiplies like ``a + i b``, so the power is
  the real and imaginary parts of ``(1 + i phi/N)^N``, whose limit ``e^{i phi}`` (and the
  polar pieces: modulus ``-> 1``, argument ``-> phi``) SymPy computes with Gruntz's algorithm;
* a skew-symmetric ``X`` gives an orthogonal ``e^{dX}``:
  ``(e^{dX})^T e^{dX} = e^{dX^T} e^{dX} = e^{-dX} e^{dX} = I``.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.errors import UsageError
from symrope.linalg import J, rotation
from symrope.theorems._exponential_form import EXP_SERIES, exponential_of
from symrope.theorems._group_law import matrix_size

__all__ = ["matrix_exponential"]

TAYLOR_COS_SIN = ("the power series of cos and sin, e.g. W. Rudin, Principles of Mathematical "
                  "Analysis, 3rd ed. (1976), Sec. 8.6-8.7 (cos and sin defined from the "
                  "exponential series)")


def _product(*factors):
    return sp.MatMul(*factors, evaluate=False)


@theorem("matrix_exponential", "e^{phi J} = R(phi): J^2 = -I, the series collects to "
         "cos I + sin J, (I + phi J/N)^N -> R(phi); skew X gives orthogonal e^{dX}",
         title="The exponential of the rotation generator")
def matrix_exponential(order=6, steps=5, n=3) -> Theorem:
    """Build theorem 4.

    Parameters
    ==========

    order : int
        ``N``: the partial sums of the series up to ``(phi J)^{2N+1}`` are compared with the
        Taylor polynomials of cos (degree ``2N``) and sin (degree ``2N + 1``).
    steps : int
        The finite ``N`` at which ``(I + phi J/N)^N`` is matched with ``(1 + i phi/N)^N``.
    n : int or "n"
        Size of the opaque skew generator in the last part.

    Returns
    =======

    Theorem

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> get_theorem("matrix_exponential").build(order=3).prove().verdict
    'proved'

    References
    ==========

    .. [1] B. C. Hall, Lie Groups, Lie Algebras, and Representations, 2nd ed. (2015), Ch. 2.
    """
    for name, value in (("order", order), ("steps", steps)):
        if int(value) != value or value < 1:
            raise UsageError(f"{name} must be a positive integer, got {value!r}")
    order, steps = int(order), int(steps)
    phi, a, b, c, e = sp.symbols("phi a b c e", real=True)
    big_n = sp.Symbol("N", integer=True, positive=True)
    identity = sp.eye(2)
    thm = Theorem(
        "matrix_exponential",
        r"For $J = \begin{pmatrix}0 & -1\\ 1 & 0\end{pmatrix}$ and real $\phi$: $J^2 = -I$ and "
        r"$J^{2m} = (-1)^m I$, $J^{2m+1} = (-1)^m J$ for every $m$; so the "
        r"exponential series of $\phi J$ collects to $\cos(\phi) I + \sin(\phi) J = R(\phi)$, "
        r"and $(I + \phi J/N)^N \to R(\phi)$ as $N \to \infty$; and for every real "
        r"skew-symmetric $X$ and real $\delta$, $e^{\delta X}$ is orthogonal.",
        hypotheses=[r"$\phi$, $\delta$ real", r"$X^\top = -X$"],
        statement_latex=r"J^2 = -I,\quad e^{\phi J} = \sum_j \frac{(\phi J)^j}{j!} = "
                        r"\cos\phi\, I + \sin\phi\, J = \lim_{N\to\infty}\left(I + "
                        r"\frac{\phi J}{N}\right)^N,\quad X^\top = -X \implies "
                        r"(e^{\delta X})^\top e^{\delta X} = I")
    thm.define("J", J, r"the generator of plane rotations, $dR/d\phi$ at $\phi = 0$")
    thm.define("R(phi)", rotation(phi), r"rotation of the plane by the angle $\phi$")
    thm.check(_product(J, J), -identity, "multiply out", claim="J^2 = -I",
              display=("J^2", "-I"))
    k = sp.Symbol("m", integer=True, nonnegative=True)  # k is the key vector
    thm.check(_product((-1) ** k * identity, J, J), (-1) ** (k + 1) * identity,
              "induction on $m$ (base $J^0 = I$): if $J^{2m} = (-1)^m I$, then "
              "$J^{2m+2} = J^{2m} J^2$ with $J^2 = -I$",
              claim="J^{2k} = (-1)^k I implies J^{2k+2} = (-1)^k I J^2 = (-1)^{k+1} I",
              display=(r"J^{2m+2} = (-1)^m I\, J J", r"(-1)^{m+1} I"))
    thm.check(_product((-1) ** k * identity, J), (-1) ** k * J, "$J^{2m+1} = J^{2m} J$",
              claim="J^{2k+1} = (-1)^k J for every k >= 0",
              display=(r"J^{2m+1} = (-1)^m I\, J", r"(-1)^m J"))
    thm.cite(r"$\sum_m (-1)^m \phi^{2m}/(2m)! = \cos(\phi)$ and $\sum_m (-1)^m "
             r"\phi^{2m+1}/(2m+1)! = \sin(\phi)$, absolutely convergent", TAYLOR_COS_SIN,
             r"with $J^{2m} = (-1)^m I$ and $J^{2m+1} = (-1)^m J$ the exponential series of "
             r"$\phi J$ splits into these two series times $I$ and $J$: $e^{\phi J} = \cos(\phi) "
             r"I + \sin(\phi) J$")

    terms = 2 * order + 1
    partial_sum = sp.zeros(2)
    power = sp.eye(2)
    for index in range(terms + 1):
        partial_sum += power * phi ** index / sp.factorial(index)
        power = power * J
    cos_taylor = sp.cos(phi).series(phi, 0, 2 * order + 1).removeO()
    sin_taylor = sp.sin(phi).series(phi, 0, 2 * order + 2).removeO()
    thm.check(sp.ImmutableMatrix(partial_sum), cos_taylor * identity + sin_taylor * J,
              r"even powers $(\phi J)^{2m} = (-1)^m \phi^{2m} I$, odd ones $(-1)^m \phi^{2m+1} "
              rf"J$: the even and odd partial sums are the Taylor polynomials $C_{{{2 * order}}}$ "
              rf"of $\cos$ and $S_{{{terms}}}$ of $\sin$",
              display=(rf"\sum_{{j=0}}^{{{terms}}} \frac{{(\phi J)^j}}{{j!}}",
                       rf"C_{{{2 * order}}}(\phi)\, I + S_{{{terms}}}(\phi)\, J"),
              claim=f"sum_(k=0)^({terms}) (phi J)^k / k! = C_{2 * order}(phi) I + "
                    f"S_{2 * order + 1}(phi) J", instance=f"partial sum of order {terms}")
    thm.check(sp.diff(rotation(phi), phi), _product(J, rotation(phi)),
              r"differentiate the entries; with $R(0) = I$, $R$ solves $Y' = J Y$, $Y(0) = I$, "
              r"whose unique solution is $e^{\phi J}$ (uniqueness for linear ODEs)",
              claim="R'(phi) = J R(phi)", display=(r"R'(\phi)", r"J R(\phi)"))
    thm.check(sp.ImmutableMatrix((phi * J).exp()), rotation(phi),
              r"SymPy's matrix exponential (Jordan form) of $\phi J$, computed while building",
              claim="e^{phi J} = cos(phi) I + sin(phi) J = R(phi)",
              display=(r"e^{\phi J}", r"\cos(\phi)\, I + \sin(\phi)\, J = R(\phi)"),
              instance="SymPy's closed form")

    # The limit of many small steps, through the complex numbers a I + b J <-> a + i b.
    thm.check(_product(a * identity + b * J, c * identity + e * J),
              (a * c - b * e) * identity + (a * e + b * c) * J,
              r"$J^2 = -I$: $aI + bJ$ multiplies like the complex number $a + ib$; this is "
              r"the induction step of $(aI + bJ)^N = \operatorname{Re}((a + ib)^N) I + "
              r"\operatorname{Im}((a + ib)^N) J$ for every $N$",
              claim="(aI + bJ)(cI + eJ) = (ac - be) I + (ae + bc) J",
              display=(r"(aI + bJ)(cI + \varepsilon J)",
                       r"(ac - b\varepsilon) I + (a\varepsilon + bc) J"))
    z_power = sp.expand((1 + sp.I * phi / steps) ** steps)
    real_part, imaginary_part = z_power.as_real_imag()
    thm.check(sp.MatPow(identity + phi * J / steps, steps), real_part * identity + imaginary_part * J,
              "the previous step, applied $N$ times",
              display=(rf"\left(I + \frac{{\phi J}}{{{steps}}}\right)^{{{steps}}}",
                       rf"\operatorname{{Re}}\left(\left(1 + \frac{{i\phi}}{{{steps}}}\right)^{{{steps}}}"
                       rf"\right) I + \operatorname{{Im}}\left(\left(1 + \frac{{i\phi}}{{{steps}}}"
                       rf"\right)^{{{steps}}}\right) J"),
              claim=f"(I + phi J/{steps})^{steps} = Re((1 + i phi/{steps})^{steps}) I + "
                    f"Im((1 + i phi/{steps})^{steps}) J", instance=f"N = {steps}")
    modulus_power = (1 + phi ** 2 / big_n ** 2) ** (big_n / 2)
    thm.check(sp.Limit(modulus_power, big_n, sp.oo), 1,
              r"polar form $1 + i \phi/N = r e^{i \theta}$: the engine evaluates the limit of "
              r"$r^N$",
              claim="lim_(N->oo) (1 + phi^2/N^2)^(N/2) = 1")
    thm.check(sp.Limit(big_n * sp.atan(phi / big_n), big_n, sp.oo), phi,
              r"the limit of the argument $N \theta = N \arctan(\phi/N)$",
              claim="lim_(N->oo) N atan(phi/N) = phi")
    thm.check(sp.Limit((1 + sp.I * phi / big_n) ** big_n, big_n, sp.oo),
              sp.cos(phi) + sp.I * sp.sin(phi),
              r"$r^N e^{i N \theta} \to 1 \cdot e^{i \phi}$ (the two limits above; the engine "
              r"evaluates the limit itself too)",
              display=(r"\lim_{N \to \infty} \left(1 + \frac{i\phi}{N}\right)^N",
                       r"\cos\phi + i \sin\phi"),
              claim="lim_(N->oo) (1 + i phi/N)^N = cos(phi) + i sin(phi), so "
                    "(I + phi J/N)^N -> cos(phi) I + sin(phi) J = R(phi)")

    # Skew generators give orthogonal exponentials.
    size = matrix_size(n)
    d, omega = sp.symbols("delta omega", real=True)
    X = sp.MatrixSymbol("X", size, size)
    E, E_minus = [sp.MatrixSymbol(name, size, size) for name in ("e^{delta X}",
                                                                 "e^{-delta X}")]
    thm.define(r"$e^{\delta X}, e^{-\delta X}$", rf"opaque ${size} \times {size}$ matrices",
               "the exponentials of an opaque skew-symmetric matrix $X$")
    thm.cite(r"$(e^{A})^\top = e^{A^\top}$; $e^{A} e^{B} = e^{A+B}$ when $AB = BA$", EXP_SERIES,
             "transpose the series term by term (its induction step is checked with the "
             "general solution)")
    thm.check((d * X).T, -d * X, r"$(\delta X)^\top = \delta X^\top$ and $X^\top = -X$",
              claim="(dX)^T = -dX",
              assumptions=[sp.Eq(sp.Transpose(X), -X)])
    thm.check(_product(-d * X, d * X), _product(d * X, -d * X), r"both are $-\delta^2 X^2$",
              claim="-dX and dX commute")
    thm.check(_product(E.T, E), _product(E_minus, E),
              r"$(e^{\delta X})^\top = e^{(\delta X)^\top} = e^{-\delta X}$ (the cited "
              r"transpose law and the step above)",
              claim="(e^{dX})^T e^{dX} = e^{-dX} e^{dX}", assumptions=[sp.Eq(E.T, E_minus)])
    thm.cite(r"$e^{-\delta X} e^{\delta X} = e^{0} = I$, so $(e^{\delta X})^\top "
             r"e^{\delta X} = I$: $e^{\delta X}$ is orthogonal",
             EXP_SERIES, r"the cited exponent law, $-\delta X$ and $\delta X$ commuting "
             r"(checked above)")
    block = exponential_of(omega * J, d)
    thm.check(_product(block.T, block), identity,
              r"for the skew generator $X = \omega J$: $\cos^2 + \sin^2 = 1$",
              claim="(e^{d omega J})^T e^{d omega J} = I (the 2x2 skew generator omega J)",
              instance="2x2, X = omega J",
              display=(r"\left(e^{\delta \omega J}\right)^\top e^{\delta \omega J}", "I"))
    return thm
