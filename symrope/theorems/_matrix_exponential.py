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

from symrope.engine import Theorem, theorem
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
        r"$J^{2k} = (-1)^k I$, $J^{2k+1} = (-1)^k J$ for every $k$ (induction, checked); so the "
        r"exponential series of $\phi J$ collects to $\cos(\phi) I + \sin(\phi) J = R(\phi)$ "
        r"(the series of $\cos$ and $\sin$ cited; the partial sum of order "
        rf"${2 * order + 1}$ checked as an instance; $R' = J R$ checked); "
        r"$(I + \phi J/N)^N \to R(\phi)$ as $N \to \infty$ (the multiplication rule checked "
        rf"for every $N$, the power at $N = {steps}$ as an instance, the limits evaluated by the "
        r"engine); and for every real skew-symmetric $X$ and real $d$, $e^{dX}$ is orthogonal "
        r"(exponent laws cited).",
        hypotheses=[r"$\phi$, $d$ real", r"$X^\top = -X$"],
        statement_latex=r"J^2 = -I,\quad e^{\phi J} = \sum_k \frac{(\phi J)^k}{k!} = "
                        r"\cos\phi\, I + \sin\phi\, J = \lim_{N\to\infty}\left(I + "
                        r"\frac{\phi J}{N}\right)^N,\quad X^\top = -X \implies "
                        r"(e^{dX})^\top e^{dX} = I")
    thm.define("J", J, r"the generator of plane rotations, $dR/d\phi$ at $\phi = 0$")
    thm.define("R(phi)", rotation(phi), r"rotation of the plane by the angle $\phi$")
    thm.check(_product(J, J), -identity, "multiply out", claim="J^2 = -I")
    k = sp.Symbol("k", integer=True, nonnegative=True)
    thm.check(_product((-1) ** k * identity, J, J), (-1) ** (k + 1) * identity,
              "induction on $k$ (base $J^0 = I$): $J^{2k+2} = J^{2k} J^2$ with $J^2 = -I$",
              claim="J^{2k} = (-1)^k I implies J^{2k+2} = (-1)^k I J^2 = (-1)^{k+1} I")
    thm.check(_product((-1) ** k * identity, J), (-1) ** k * J, "$J^{2k+1} = J^{2k} J$",
              claim="J^{2k+1} = (-1)^k J for every k >= 0")
    thm.cite(r"$\sum_k (-1)^k \phi^{2k}/(2k)! = \cos(\phi)$ and $\sum_k (-1)^k "
             r"\phi^{2k+1}/(2k+1)! = \sin(\phi)$, absolutely convergent", TAYLOR_COS_SIN,
             r"with $J^{2k} = (-1)^k I$ and $J^{2k+1} = (-1)^k J$ the exponential series of "
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
              r"even powers $(\phi J)^{2k} = (-1)^k \phi^{2k} I$, odd ones $(-1)^k \phi^{2k+1} "
              r"J$: the even and odd partial sums are the Taylor polynomials of cos and sin",
              claim=f"sum_(k=0)^({terms}) (phi J)^k / k! = C_{2 * order}(phi) I + "
                    f"S_{2 * order + 1}(phi) J", instance=f"partial sum of order {terms}")
    thm.check(sp.diff(rotation(phi), phi), _product(J, rotation(phi)),
              r"differentiate the entries; with $R(0) = I$, $R$ solves $Y' = J Y$, $Y(0) = I$, "
              r"whose unique solution is $e^{\phi J}$ (cited in skew_blocks: ODE uniqueness)",
              claim="R'(phi) = J R(phi)")
    thm.check(sp.ImmutableMatrix((phi * J).exp()), rotation(phi),
              r"SymPy's matrix exponential (Jordan form) of $\phi J$, computed while building",
              claim="e^{phi J} = cos(phi) I + sin(phi) J = R(phi)",
              instance="SymPy's closed form")

    # The limit of many small steps, through the complex numbers a I + b J <-> a + i b.
    thm.check(_product(a * identity + b * J, c * identity + e * J),
              (a * c - b * e) * identity + (a * e + b * c) * J,
              r"$J^2 = -I$: $aI + bJ$ multiplies like the complex number $a + ib$; this is "
              r"the induction step of $(aI + bJ)^N = \operatorname{Re}((a + ib)^N) I + "
              r"\operatorname{Im}((a + ib)^N) J$ for every $N$",
              claim="(aI + bJ)(cI + eJ) = (ac - be) I + (ae + bc) J")
    z_power = sp.expand((1 + sp.I * phi / steps) ** steps)
    real_part, imaginary_part = z_power.as_real_imag()
    thm.check(sp.MatPow(identity + phi * J / steps, steps), real_part * identity + imaginary_part * J,
              "the previous step, applied $N$ times",
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
              claim="lim_(N->oo) (1 + i phi/N)^N = cos(phi) + i sin(phi), so "
                    "(I + phi J/N)^N -> cos(phi) I + sin(phi) J = R(phi)")

    # Skew generators give orthogonal exponentials.
    size = matrix_size(n)
    d, omega = sp.symbols("d omega", real=True)
    X = sp.MatrixSymbol("X", size, size)
    E, E_minus = [sp.MatrixSymbol(name, size, size) for name in ("e^{dX}", "e^{-dX}")]
    thm.define("$e^{dX}, e^{-dX}$", rf"opaque ${size} \times {size}$ matrices",
               "the exponentials of an opaque skew-symmetric matrix $X$")
    thm.cite(r"$(e^{A})^\top = e^{A^\top}$; $e^{A} e^{B} = e^{A+B}$ when $AB = BA$", EXP_SERIES,
             "transpose the series term by term (induction step checked in general_solution)")
    thm.check((d * X).T, -d * X, r"$(dX)^\top = d X^\top$ and $X^\top = -X$", claim="(dX)^T = -dX",
              assumptions=[sp.Eq(sp.Transpose(X), -X)])
    thm.check(_product(-d * X, d * X), _product(d * X, -d * X), "both are $-d^2 X^2$",
              claim="-dX and dX commute")
    thm.check(_product(E.T, E), _product(E_minus, E),
              r"$(e^{dX})^\top = e^{(dX)^\top} = e^{-dX}$ (cited transpose law and the step "
              r"above)",
              claim="(e^{dX})^T e^{dX} = e^{-dX} e^{dX}", assumptions=[sp.Eq(E.T, E_minus)])
    thm.cite(r"$e^{-dX} e^{dX} = e^{0} = I$, so $(e^{dX})^\top e^{dX} = I$: $e^{dX}$ is "
             r"orthogonal",
             EXP_SERIES, "the cited exponent law, $-dX$ and $dX$ commuting (checked above)")
    block = exponential_of(omega * J, d)
    thm.check(_product(block.T, block), identity, r"$\cos^2 + \sin^2 = 1$",
              claim="(e^{d omega J})^T e^{d omega J} = I (the 2x2 skew generator omega J)",
              instance="2x2, X = omega J")
    return thm
