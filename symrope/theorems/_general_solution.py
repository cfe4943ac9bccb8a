"""Theorem 3: the general solution ``G = C e^{pX}``, ``F = C^{-T} e^{-pX^T}``; F = G iff rotations.

* The pair satisfies the assumptions: ``F(s)^T G(t) = e^{(t-s)X} = H(t - s)`` and ``H(0) = I``.
* ``F = G`` for all ``p`` **iff** ``C`` is orthogonal and ``X`` is skew-symmetric:
  sufficiency is proved; for necessity, ``F(0) = G(0)`` forces ``C^{-T} = C`` and
  differentiating ``F = G`` at 0 forces ``-X^T = X``. Both directions are sharp: a general
  invertible ``C`` and a damped generator ``lambda I + omega J`` are refuted with
  counterexamples.

The matrix algebra runs on opaque ``MatrixSymbol`` s; the three facts about the exponential it
uses (``(e^A)^T = e^{A^T}``, ``e^{A} e^{B} = e^{A+B}`` for commuting ``A, B``,
``d/dp e^{pA}|_0 = A``) are cited and also checked on explicit matrices where SymPy has closed
forms (a damped rotation and a non-normal Jordan block, where transposes matter).
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem, theorem
from symrope.theorems._exponential_form import EXP_SERIES, exponential_of
from symrope.theorems._group_law import matrix_size

__all__ = ["general_solution"]


def _product(*factors):
    return sp.MatMul(*factors, evaluate=False)


@theorem("general_solution", "G(p) = C e^{pX}, F(p) = C^{-T} e^{-pX^T} satisfy the assumptions; "
         "F = G iff C orthogonal and X skew-symmetric", grid={"n": [2, 3, 5]}, n=3)
def general_solution(n=3) -> Theorem:
    """Build theorem 3 for ``n x n`` matrices.

    Parameters
    ==========

    n : int or "n"
        Size of the opaque matrices ``C`` and ``X`` (default 3).

    Returns
    =======

    Theorem

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> get_theorem("general_solution").build().prove().verdict
    'proved'

    References
    ==========

    .. [1] A. Puranik, "Using group theory to explore the space of positional encodings for
       attention", Jane Street tech blog (2025).
    """
    size = matrix_size(n)
    identity = sp.Identity(size)
    s, t, p = sp.symbols("s t p", real=True)
    C, X, E_t, E_ms, E_tms, ET_ms, E_p, ET_mp, dF0, dG0 = [
        sp.MatrixSymbol(name, size, size) for name in
        ("C", "X", "Et", "Ems", "Etms", "ETms", "Ep", "ETmp", "dF0", "dG0")]
    thm = Theorem(
        "general_solution",
        "For an invertible n x n matrix C and any n x n matrix X, G(p) = C e^{pX} and "
        "F(p) = C^{-T} e^{-pX^T} satisfy F(s)^T G(t) = e^{(t-s)X} = H(t - s) with H(0) = I. "
        "Moreover F(p) = G(p) for every real p if and only if C^T C = I and X^T = -X.",
        hypotheses=["C invertible", "X any real square matrix"],
        statement_latex=r"G(p) = Ce^{pX},\ F(p) = C^{-\top}e^{-pX^\top} \implies "
                        r"F(s)^\top G(t) = e^{(t-s)X};\quad F \equiv G \iff C^\top C = I,\ "
                        r"X^\top = -X")
    thm.define("Et, Ems, Etms, ETms", "e^{tX}, e^{-sX}, e^{(t-s)X}, e^{-sX^T}",
               f"exponentials of the opaque {size} x {size} generator, as opaque matrices")
    thm.cite("(e^{A})^T = e^{A^T}; e^{A} e^{B} = e^{A+B} when AB = BA; e^{0} = I; "
             "d/dp e^{pA} at p = 0 is A", EXP_SERIES,
             "transpose and differentiate the exponential series term by term")
    lam, omega = sp.symbols("lambda omega", real=True)
    jordan = sp.Matrix([[lam, 1], [0, lam]])
    thm.check(exponential_of(jordan.T, -s).T, exponential_of(jordan, -s),
              "closed forms of both exponentials (a non-normal example, so the transpose "
              "matters)", claim="(e^{-sX^T})^T = e^{-sX} for X = lambda I + N")
    thm.check(exponential_of(jordan, -s) * exponential_of(jordan, t),
              exponential_of(jordan, t - s), "-sX and tX commute",
              claim="e^{-sX} e^{tX} = e^{(t-s)X} for X = lambda I + N")

    # The pair satisfies the assumptions.
    F_s = _product(C.I.T, ET_ms)
    G_t = _product(C, E_t)
    thm.check(_product(F_s.T, G_t), _product(ET_ms.T, E_t),
              "(AB)^T = B^T A^T and (C^{-T})^T C = C^{-1} C = I",
              claim="F(s)^T G(t) = (e^{-sX^T})^T C^{-1} C e^{tX} = (e^{-sX^T})^T e^{tX}")
    thm.check(_product(ET_ms.T, E_t), _product(E_ms, E_t),
              "(e^{-sX^T})^T = e^{(-sX^T)^T} = e^{-sX} (cited, checked above on an example)",
              claim="(e^{-sX^T})^T e^{tX} = e^{-sX} e^{tX}", assumptions=[sp.Eq(ET_ms.T, E_ms)])
    thm.check(_product(E_ms, E_t), E_tms,
              "-sX and tX commute, so the exponents add (cited, checked above on an example)",
              claim="e^{-sX} e^{tX} = e^{(t-s)X} = H(t - s)",
              assumptions=[sp.Eq(_product(E_ms, E_t), E_tms)])
    thm.check(_product(C.I.T, identity).T * _product(C, identity), identity,
              "at s = t = 0 every exponential is e^{0} = I", claim="H(0) = F(0)^T G(0) = I")

    # Sufficiency: C orthogonal and X skew give F = G.
    thm.check(_product(C.I.T, _product(C.T, C)), C, "C^{-T} C^T = (C C^{-1})^T = I",
              claim="C^{-T} (C^T C) = C")
    thm.check(_product(C.I.T, _product(C.T, C)), C.I.T, "C orthogonal: C^T C = I",
              claim="C^{-T} (C^T C) = C^{-T}, so C^{-T} = C when C is orthogonal",
              assumptions=[sp.Eq(_product(C.T, C), identity)])
    thm.check(-p * X.T, p * X, "X skew-symmetric: X^T = -X", claim="-p X^T = p X",
              assumptions=[sp.Eq(X.T, -X)])
    thm.check(_product(C.I.T, ET_mp), _product(C, E_p),
              "C^{-T} = C, and e^{-pX^T} = e^{pX} because the exponents are equal (two steps "
              "above)", claim="F(p) = C^{-T} e^{-pX^T} = C e^{pX} = G(p)",
              assumptions=[sp.Eq(C.I.T, C), sp.Eq(ET_mp, E_p)])

    # Necessity: F = G forces both conditions.
    thm.check(_product(C.I.T, identity), C.I.T,
              "e^{0} = I, and likewise G(0) = C e^{0} = C: so F(0) = G(0) says C^{-T} = C",
              claim="F(0) = C^{-T} e^{0} = C^{-T}")
    thm.check(_product(C.T, C.I.T), identity,
              "substitute C = C^{-T} in the second factor of C^T C: C^T C^{-T} = (C^{-1} C)^T",
              claim="C^{-T} = C implies C^T C = C^T C^{-T} = I")
    entries = sp.Matrix(2, 2, sp.symbols("c11 c12 c21 c22"))
    thm.check(entries.T * entries.inv().T, sp.eye(2),
              "the same on symbolic entries: C^T (C^{-1})^T = (C^{-1} C)^T",
              claim="C^T C^{-T} = I for a 2x2 C with symbolic entries")
    thm.check(dF0, _product(-1, C.I.T, X.T),
              "d/dp e^{-pX^T} at 0 is -X^T (cited)", claim="F'(0) = -C^{-T} X^T",
              assumptions=[sp.Eq(dF0, -_product(C.I.T, X.T))])
    rotation_example = sp.Matrix([[lam, -omega], [omega, lam]])
    example_G = entries * exponential_of(rotation_example, p)
    thm.check(example_G.diff(p).subs(p, 0), entries * rotation_example,
              "differentiate SymPy's closed form (symbolic entries of C)",
              claim="G'(0) = C X for X = lambda I + omega J and symbolic C")
    thm.check(_product(C.I, _product(C, X.T)), -X,
              "F'(0) = G'(0) with C^{-T} = C reads -C X^T = C X; multiply by C^{-1}",
              claim="-C X^T = C X implies X^T = C^{-1}(C X^T) = -X",
              assumptions=[sp.Eq(_product(C, X.T), -_product(C, X))])

    # Both conditions are needed.
    thm.check(entries.inv().T, entries, "a generic invertible matrix is not orthogonal",
              claim="C^{-T} = C for every invertible C (false)", expect="refuted")
    thm.check(exponential_of(rotation_example.T, -p), exponential_of(rotation_example, p),
              "the decay factor: e^{-lambda p} on one side, e^{lambda p} on the other",
              claim="e^{-pX^T} = e^{pX} for X = lambda I + omega J (false unless lambda = 0)",
              expect="refuted")
    return thm
