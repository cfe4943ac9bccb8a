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
from symrope.theorems._exponential_form import EXP_SERIES, exponential_of
from symrope.theorems._group_law import matrix_size

__all__ = ["J", "rotation", "matrix_exponential"]

J = sp.ImmutableMatrix([[0, -1], [1, 0]])


def rotation(angle) -> sp.ImmutableMatrix:
    """The 2x2 rotation ``R(angle) = cos(angle) I + sin(angle) J``.

    Examples
    ========

    >>> import sympy as sp
    >>> rotation(sp.pi / 2)
    Matrix([
    [0, -1],
    [1,  0]])
    """
    return sp.ImmutableMatrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def _product(*factors):
    return sp.MatMul(*factors, evaluate=False)


@theorem("matrix_exponential", "e^{phi J} = R(phi): J^2 = -I, the series collects to "
         "cos I + sin J, (I + phi J/N)^N -> R(phi); skew X gives orthogonal e^{dX}",
         grid={"order": [4, 12], "steps": [3, 10]}, order=6, steps=5, n=3)
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
        "For J = [[0, -1], [1, 0]] and real phi: J^2 = -I; the exponential series of phi J "
        "collects to cos(phi) I + sin(phi) J = R(phi); (I + phi J/N)^N -> R(phi) as N -> oo; "
        "and for every real skew-symmetric X and real d, e^{dX} is orthogonal.",
        hypotheses=["phi, d real", "X^T = -X"],
        statement_latex=r"J^2 = -I,\quad e^{\phi J} = \sum_k \frac{(\phi J)^k}{k!} = "
                        r"\cos\phi\, I + \sin\phi\, J = \lim_{N\to\infty}\left(I + "
                        r"\frac{\phi J}{N}\right)^N,\quad X^\top = -X \implies "
                        r"(e^{dX})^\top e^{dX} = I")
    thm.define("J", J, "the generator of plane rotations, dR/dphi at phi = 0")
    thm.define("R(phi)", rotation(phi), "rotation of the plane by the angle phi")
    thm.check(J * J, -identity, "multiply out", claim="J^2 = -I")
    thm.check(J ** 4, identity, "(J^2)^2 = (-I)^2", claim="J^4 = I: the powers cycle I, J, -I, -J")

    terms = 2 * order + 1
    partial_sum = sp.zeros(2)
    power = sp.eye(2)
    for k in range(terms + 1):
        partial_sum += power * phi ** k / sp.factorial(k)
        power = power * J
    cos_taylor = sp.cos(phi).series(phi, 0, 2 * order + 1).removeO()
    sin_taylor = sp.sin(phi).series(phi, 0, 2 * order + 2).removeO()
    thm.check(sp.ImmutableMatrix(partial_sum), cos_taylor * identity + sin_taylor * J,
              "even powers (phi J)^{2k} = (-1)^k phi^{2k} I, odd ones (-1)^k phi^{2k+1} J: "
              "the even and odd partial sums are the Taylor polynomials of cos and sin",
              claim=f"sum_(k=0)^({terms}) (phi J)^k / k! = C_{2 * order}(phi) I + "
                    f"S_{2 * order + 1}(phi) J")
    thm.check(sp.ImmutableMatrix((phi * J).exp()), rotation(phi),
              "SymPy's matrix exponential (Jordan form) of phi J",
              claim="e^{phi J} = cos(phi) I + sin(phi) J = R(phi)")

    # The limit of many small steps, through the complex numbers a I + b J <-> a + i b.
    thm.check((a * identity + b * J) * (c * identity + e * J),
              (a * c - b * e) * identity + (a * e + b * c) * J,
              "J^2 = -I: a I + b J multiplies like the complex number a + i b",
              claim="(aI + bJ)(cI + eJ) = (ac - be) I + (ae + bc) J")
    z_power = sp.expand((1 + sp.I * phi / steps) ** steps)
    real_part, imaginary_part = z_power.as_real_imag()
    thm.check((identity + phi * J / steps) ** steps, real_part * identity + imaginary_part * J,
              "the previous step, applied N times",
              claim=f"(I + phi J/{steps})^{steps} = Re((1 + i phi/{steps})^{steps}) I + "
                    f"Im((1 + i phi/{steps})^{steps}) J")
    modulus_power = (1 + phi ** 2 / big_n ** 2) ** (big_n / 2)
    thm.check(sp.limit(modulus_power, big_n, sp.oo), 1,
              "polar form 1 + i phi/N = r e^{i theta}: SymPy's limit (Gruntz) of r^N",
              claim="lim_(N->oo) (1 + phi^2/N^2)^(N/2) = 1")
    thm.check(sp.limit(big_n * sp.atan(phi / big_n), big_n, sp.oo), phi,
              "SymPy's limit (Gruntz) of the argument N theta = N atan(phi/N)",
              claim="lim_(N->oo) N atan(phi/N) = phi")
    thm.check(sp.limit((1 + sp.I * phi / big_n) ** big_n, big_n, sp.oo),
              sp.cos(phi) + sp.I * sp.sin(phi),
              "r^N e^{i N theta} -> 1 * e^{i phi} (the two limits above; SymPy's limit agrees)",
              claim="lim_(N->oo) (1 + i phi/N)^N = cos(phi) + i sin(phi), so "
                    "(I + phi J/N)^N -> cos(phi) I + sin(phi) J = R(phi)")

    # Skew generators give orthogonal exponentials.
    size = matrix_size(n)
    d, omega = sp.symbols("d omega", real=True)
    E, E_minus = [sp.MatrixSymbol(name, size, size) for name in ("E", "Em")]
    thm.define("E, Em", "e^{dX}, e^{-dX}",
               f"exponentials of an opaque skew-symmetric {size} x {size} X")
    thm.cite("(e^{A})^T = e^{A^T}; e^{A} e^{B} = e^{A+B} when AB = BA", EXP_SERIES,
             "transpose the series term by term; -dX commutes with dX")
    thm.check(_product(E.T, E), _product(E_minus, E),
              "(e^{dX})^T = e^{dX^T} and X^T = -X", claim="(e^{dX})^T e^{dX} = e^{-dX} e^{dX}",
              assumptions=[sp.Eq(E.T, E_minus)])
    thm.check(_product(E_minus, E), sp.Identity(size),
              "the cited law: -dX and dX commute, so e^{-dX} e^{dX} = e^{0} = I",
              claim="e^{-dX} e^{dX} = I, so e^{dX} is orthogonal",
              assumptions=[sp.Eq(_product(E_minus, E), sp.Identity(size))])
    block = exponential_of(omega * J, d)
    thm.check(block.T * block, identity, "cos^2 + sin^2 = 1",
              claim="(e^{d omega J})^T e^{d omega J} = I (the 2x2 skew generator omega J)")
    return thm
