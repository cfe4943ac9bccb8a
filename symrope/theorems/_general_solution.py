"""Theorem 3: the general solution ``G = C e^{pX}``, ``F = C^{-T} e^{-pX^T}``; F = G iff rotations.

* Every solution has this form: translation invariance at ``s = 0`` gives
  ``G(t) = G(0) H(t) = C e^{tX}``, and ``F(t)^T = G(t)^{-1}`` gives
  ``F(t) = ((C e^{tX})^{-1})^T = C^{-T} e^{-tX^T}``.
* The pair satisfies the assumptions: ``F(s)^T G(t) = e^{(t-s)X} = H(t - s)`` and ``H(0) = I``.
* ``F = G`` for all ``p`` **iff** ``C`` is orthogonal and ``X`` is skew-symmetric:
  sufficiency is proved; for necessity, ``F(0) = G(0)`` forces ``C^{-T} = C`` and
  differentiating ``F = G`` at 0 forces ``-X^T = X``. Both directions are sharp: a general
  invertible ``C`` and a damped generator ``lambda I + omega J`` are refuted with
  counterexamples.

The matrix algebra runs on opaque ``MatrixSymbol`` s; the three facts about the exponential it
uses (``(e^A)^T = e^{A^T}``, ``(e^A)^{-1} = e^{-A}``, ``e^{A} e^{B} = e^{A+B}`` for commuting
``A, B``,
``d/dp e^{pA}|_0 = A``) are cited and also checked on explicit matrices where SymPy has closed
forms (a damped rotation and a non-normal Jordan block, where transposes matter).
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.theorems._exponential_form import EXP_SERIES, exponential_of
from symrope.theorems._group_law import matrix_size

__all__ = ["general_solution"]


def _product(*factors):
    return sp.MatMul(*factors, evaluate=False)


@theorem("general_solution", "every solution is G(p) = C e^{pX}, F(p) = C^{-T} e^{-pX^T} "
         "(C = G(0)), and every such pair is one; F = G iff C orthogonal and X skew-symmetric "
         "(opaque n x n matrices; exponential-series facts cited)", title="The general solution of translation invariance")
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
    C, X, E_t, E_ms, E_mt, ET_ms, ET_mt, E_p, ET_mp, G_0, G_t, H_t, A, P = [
        sp.MatrixSymbol(name, size, size) for name in
        ("C", "X", "e^{tX}", "e^{-sX}", "e^{-tX}", "e^{-sX^T}", "e^{-tX^T}", "e^{pX}",
         "e^{-pX^T}", "G(0)", "G(t)", "H(t)", "A", "P")]
    thm = Theorem(
        "general_solution",
        r"Let $F$, $G$ satisfy translation invariance $F(s)^\top G(t) = H(t - s)$ with $H(t) = "
        r"e^{tX}$ (the group law and the exponential form). Then $G(t) = C e^{tX}$ and $F(t) = "
        r"C^{-\top} e^{-tX^\top}$ with $C = G(0)$: every solution has this form. Conversely, for "
        r"every invertible $C$ and every $X$ (both $n \times n$) this pair satisfies $F(s)^\top G(t) "
        r"= e^{(t-s)X}$ with $H(0) = I$. Moreover $F(p) = G(p)$ for every real $p$ if and only "
        r"if $C^\top C = I$ and $X^\top = -X$.",
        hypotheses=["$C$ invertible", "$X$ any real square matrix",
                    r"for the first direction (every solution has this form): "
                    r"$F(s)^\top G(t) = H(t - s)$ with $H(t) = e^{tX}$"],
        statement_latex=r"F(s)^\top G(t) = e^{(t-s)X} \iff G(p) = Ce^{pX},\ "
                        r"F(p) = C^{-\top}e^{-pX^\top};\quad F \equiv G \iff C^\top C = I,\ "
                        r"X^\top = -X")
    thm.define(r"$e^{tX}, e^{-tX}, e^{-sX}, e^{-tX^\top}, e^{-sX^\top}$",
               rf"opaque ${size} \times {size}$ matrices",
               "the exponentials of the opaque generator, themselves opaque")
    thm.cite(r"$(e^{A})^\top = e^{A^\top}$; $(e^{A})^{-1} = e^{-A}$; $e^{A} e^{B} = e^{A+B}$ "
             r"when $AB = BA$; $e^{0} = I$; $\frac{d}{dp} e^{pA}$ at $p = 0$ is $A$", EXP_SERIES,
             "transpose, multiply and differentiate the exponential series term by term")
    thm.check(sp.Transpose(_product(A, P)), _product(sp.Transpose(P), A.T),
              r"the induction step behind $(e^A)^\top = e^{A^\top}$: with $P = A^m$, "
              r"$(A^{m+1})^\top = (A P)^\top = P^\top A^\top$, which is $(A^\top)^m A^\top = "
              r"(A^\top)^{m+1}$ by the induction hypothesis $(A^m)^\top = (A^\top)^m$; the series "
              r"is then transposed term by term (cited)",
              claim="(A^{k+1})^T = (A P)^T = P^T A^T with P = A^k")
    lam, omega = sp.symbols("lambda omega", real=True)
    jordan = sp.Matrix([[lam, 1], [0, lam]])
    thm.check(exponential_of(jordan.T, -s).T, exponential_of(jordan, -s),
              r"closed forms of both exponentials for the Jordan block $X = \begin{pmatrix}\lambda & 1\\ 0 & \lambda\end{pmatrix}$ (not "
              r"normal, so the transpose matters)",
              claim="(e^{-sX^T})^T = e^{-sX} for X = lambda I + N",
              instance="2x2 Jordan block X = lambda I + N",
              display=(r"\left(e^{-sX^\top}\right)^\top", r"e^{-sX}"))
    thm.check(exponential_of(jordan, t).inv(), exponential_of(jordan, -t),
              "closed forms of both sides, for the same Jordan block",
              claim="(e^{tX})^{-1} = e^{-tX} for X = lambda I + N",
              instance="2x2 Jordan block X = lambda I + N",
              display=(r"\left(e^{tX}\right)^{-1}", r"e^{-tX}"))
    thm.check(exponential_of(jordan, -s) * exponential_of(jordan, t),
              exponential_of(jordan, t - s),
              "for the same Jordan block: $-sX$ and $tX$ commute, so the exponents add",
              claim="e^{-sX} e^{tX} = e^{(t-s)X} for X = lambda I + N",
              instance="2x2 Jordan block X = lambda I + N",
              display=(r"e^{-sX} e^{tX}", r"e^{(t-s)X}"))

    # Every solution has this form.
    thm.define("$G(0), G(t), H(t)$", "opaque matrices, with $H(t) = e^{tX}$",
               "the transforms at two positions, and $H$; write $C := G(0)$")
    thm.check(G_t, _product(G_0, H_t),
              "the group law at $s = 0$: $H(t) = G(0)^{-1} G(t)$; multiply by $G(0) = C$",
              claim="G(t) = G(0) H(t) = C e^{tX}",
              assumptions=[sp.Eq(H_t, _product(G_0.I, G_t))])
    thm.check(sp.Transpose(sp.Inverse(_product(C, E_t))), _product(C.I.T, sp.Transpose(E_t.I)),
              r"the group law gives $F(t)^\top = G(t)^{-1}$, so $F(t) = (G(t)^{-1})^\top$; "
              r"$(AB)^{-1} = B^{-1} A^{-1}$ and $(AB)^\top = B^\top A^\top$",
              claim="F(t) = ((C e^{tX})^{-1})^T = C^{-T} ((e^{tX})^{-1})^T")
    thm.check(_product(C.I.T, sp.Transpose(E_t.I)), _product(C.I.T, ET_mt),
              r"substitute the cited $(e^{tX})^{-1} = e^{-tX}$ and $(e^{-tX})^\top = "
              r"e^{-tX^\top}$",
              claim="C^{-T} ((e^{tX})^{-1})^T = C^{-T} e^{-tX^T}",
              assumptions=[sp.Eq(E_t.I, E_mt), sp.Eq(sp.Transpose(E_mt), ET_mt)])

    # The pair satisfies the assumptions.
    F_s = _product(C.I.T, ET_ms)
    G_of_t = _product(C, E_t)
    thm.check(_product(F_s.T, G_of_t), _product(ET_ms.T, E_t),
              r"$(AB)^\top = B^\top A^\top$ and $(C^{-\top})^\top C = C^{-1} C = I$",
              claim="F(s)^T G(t) = (e^{-sX^T})^T C^{-1} C e^{tX} = (e^{-sX^T})^T e^{tX}")
    thm.check(_product(ET_ms.T, E_t), _product(E_ms, E_t),
              r"$(e^{-sX^\top})^\top = e^{(-sX^\top)^\top} = e^{-sX}$ (cited, checked above on "
              r"an instance)",
              claim="(e^{-sX^T})^T e^{tX} = e^{-sX} e^{tX}", assumptions=[sp.Eq(ET_ms.T, E_ms)])
    thm.cite("$e^{-sX} e^{tX} = e^{(t-s)X} = H(t - s)$", EXP_SERIES,
             "$-sX$ and $tX$ commute, so the exponents add (checked above on an instance)")
    thm.check(_product(sp.Transpose(_product(C.I.T, identity)), _product(C, identity)), identity,
              "at $s = t = 0$ every exponential is $e^{0} = I$", claim="H(0) = F(0)^T G(0) = I")

    # Sufficiency: C orthogonal and X skew give F = G.
    thm.check(_product(C.I.T, _product(C.T, C)), C, r"$C^{-\top} C^\top = (C C^{-1})^\top = I$",
              claim="C^{-T} (C^T C) = C")
    thm.check(_product(C.I.T, _product(C.T, C)), C.I.T, r"$C$ orthogonal: $C^\top C = I$",
              claim="C^{-T} (C^T C) = C^{-T}, so C^{-T} = C when C is orthogonal",
              assumptions=[sp.Eq(_product(C.T, C), identity)])
    thm.check(-p * X.T, p * X, r"$X$ skew-symmetric: $X^\top = -X$", claim="-p X^T = p X",
              assumptions=[sp.Eq(X.T, -X)])
    thm.check(_product(C.I.T, ET_mp), _product(C, E_p),
              r"$C^{-\top} = C$, and $e^{-pX^\top} = e^{pX}$ because the exponents are equal "
              r"(two steps above)", claim="F(p) = C^{-T} e^{-pX^T} = C e^{pX} = G(p)",
              assumptions=[sp.Eq(C.I.T, C), sp.Eq(ET_mp, E_p)])

    # Necessity: F = G forces both conditions.
    thm.check(_product(C.I.T, identity), C.I.T,
              r"$e^{0} = I$, and likewise $G(0) = C e^{0} = C$: so $F(0) = G(0)$ says $C^{-\top} "
              r"= C$",
              claim="F(0) = C^{-T} e^{0} = C^{-T}")
    thm.check(_product(C.T, C.I.T), identity,
              r"substitute $C = C^{-\top}$ in the second factor of $C^\top C$: $C^\top C^{-\top} "
              r"= (C^{-1} C)^\top$",
              claim="C^{-T} = C implies C^T C = C^T C^{-T} = I")
    entries = sp.Matrix(2, 2, sp.symbols("c11 c12 c21 c22"))
    thm.check(entries.T * entries.inv().T, sp.eye(2),
              r"the same on symbolic entries, $C = \begin{pmatrix}c_{11} & c_{12}\\ c_{21} & c_{22}\end{pmatrix}$: $C^\top (C^{-1})^\top = "
              r"(C^{-1} C)^\top$",
              claim="C^T C^{-T} = I for a 2x2 C with symbolic entries",
              instance="2x2 C with symbolic entries",
              display=(r"C^\top C^{-\top}", "I"))
    thm.cite(r"$F'(0) = -C^{-\top} X^\top$ and $G'(0) = C X$", EXP_SERIES,
             r"the cited derivative $\frac{d}{dp} e^{pA}|_0 = A$ with $A = -X^\top$ and $A = X$, "
             r"times the constant factors $C^{-\top}$ and $C$")
    rotation_example = sp.Matrix([[lam, -omega], [omega, lam]])
    example_G = entries * exponential_of(rotation_example, p)
    thm.check(example_G.diff(p).subs(p, 0), entries * rotation_example,
              r"differentiate SymPy's closed form of $G(p) = C e^{pX}$ for $X = \lambda I + "
              r"\omega J$ and the symbolic $C$ above",
              claim="G'(0) = C X for X = lambda I + omega J and symbolic C",
              instance="2x2, X = lambda I + omega J, C with symbolic entries",
              display=("G'(0)", "C X"))
    thm.check(_product(C.I, _product(C, X.T)), -X,
              r"$F'(0) = G'(0)$ with $C^{-\top} = C$ reads $-C X^\top = C X$; multiply by "
              r"$C^{-1}$",
              claim="-C X^T = C X implies X^T = C^{-1}(C X^T) = -X",
              assumptions=[sp.Eq(_product(C, X.T), -_product(C, X))])

    # Both conditions are needed.
    thm.check(entries.inv().T, entries, "a generic invertible matrix is not orthogonal",
              claim="C^{-T} = C for every invertible C (false)", expect="refuted",
              display=(r"C^{-\top}", "C"))
    thm.check(exponential_of(rotation_example.T, -p), exponential_of(rotation_example, p),
              r"the decay factor: $e^{-\lambda p}$ on one side, $e^{\lambda p}$ on the other",
              claim="e^{-pX^T} = e^{pX} for X = lambda I + omega J (false unless lambda = 0)",
              expect="refuted",
              display=(r"e^{-pX^\top}\ \text{for } X = \lambda I + \omega J", r"e^{pX}"))
    return thm
