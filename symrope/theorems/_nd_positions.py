"""N-dimensional positions: ``R(r) = exp(sum_k r_k X_k)`` is relative iff the generators commute.

Sufficiency, for any size: the commutator of ``A(s) = sum s_k X_k`` and ``A(t)`` is
``sum_{j<k} (s_j t_k - s_k t_j) [X_j, X_k]``, zero when the generators commute; then
``exp(-A(s)) exp(A(t)) = exp(A(t) - A(s)) = exp(A(t - s))`` (the exponential of commuting
matrices, a cited lemma). Necessity is shown on the standard non-commuting pair of so(3)
(LieRE-style learned generators): the score changes when both positions shift by the same
vector, with the exact counterexample.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem, theorem
from symrope.checker._zoo import rotation, so3_exponential

__all__ = ["nd_commuting_generators_relative", "nd_noncommuting_generators_not_relative"]


@theorem("nd_commuting_generators_relative",
         "exp(sum r_k X_k) gives scores depending only on t - s when the X_k commute",
         grid={"n": [2, 3, 4]}, n=3)
def nd_commuting_generators_relative(n=3) -> Theorem:
    """Sufficiency for two position axes and ``n x n`` generators, plus 2D mixed RoPE.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("nd_commuting_generators_relative").build(n=2).prove()
    >>> report.verdict, report.cited_lemmas
    ('proved', 1)

    References
    ==========

    .. [1] ComRoPE, arXiv 2506.03737; "Rethinking RoPE", arXiv 2504.06308.
    .. [2] Mathlib, ``NormedSpace.exp_add_of_commute``.
    """
    n = int(n)
    X1, X2 = sp.MatrixSymbol("X1", n, n), sp.MatrixSymbol("X2", n, n)
    s1, s2, t1, t2 = sp.symbols("s1 s2 t1 t2", real=True)

    def A(a, b):
        return a * X1 + b * X2

    commutator = X1 * X2 - X2 * X1
    thm = Theorem("nd_commuting_generators_relative",
                  "if X1 X2 = X2 X1 then exp(-A(s)) exp(A(t)) = exp(A(t - s)), "
                  "A(r) = r1 X1 + r2 X2",
                  hypotheses=["X1 X2 = X2 X1", "s, t in R^2"],
                  statement_latex=r"[X_1, X_2] = 0 \Rightarrow e^{-A(s)} e^{A(t)} = e^{A(t-s)}")
    thm.check(sp.expand(A(s1, s2) * A(t1, t2) - A(t1, t2) * A(s1, s2)),
              (s1 * t2 - s2 * t1) * commutator,
              "bilinearity: only the cross terms survive",
              claim="[A(s), A(t)] = (s1 t2 - s2 t1) [X1, X2]")
    thm.check((s1 * t2 - s2 * t1) * commutator, sp.ZeroMatrix(n, n),
              "the generators commute (hypothesis used as the rewrite X1 X2 -> X2 X1)",
              assumptions=[sp.Eq(X1 * X2, X2 * X1)], claim="[A(s), A(t)] = 0")
    thm.cite("exp(B) exp(C) = exp(B + C) when B C = C B",
             "Mathlib NormedSpace.exp_add_of_commute (Mathlib/Analysis/Normed/Algebra/Exponential.lean)",
             "the exponential of commuting matrices is the product of their exponentials")
    thm.check(A(t1, t2) - A(s1, s2), A(t1 - s1, t2 - s2), "A is linear in the position",
              claim="A(t) - A(s) = A(t - s)")
    # A concrete commuting family: 2D mixed RoPE, every pair turning with both coordinates.
    a, b, c, e = sp.Rational(1), sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(2, 5)
    J = sp.Matrix([[0, -1], [1, 0]])
    Y1, Y2 = sp.diag(a * J, b * J), sp.diag(c * J, e * J)

    def G(r1, r2):
        return sp.diag(rotation(r1 * a + r2 * c), rotation(r1 * b + r2 * e))

    thm.check(Y1 * Y2, Y2 * Y1, "2D mixed RoPE: both generators are block diagonal in the same "
              "planes", claim="[X_x, X_y] = 0 for 2D mixed RoPE")
    thm.check(G(s1, s2).T * G(t1, t2), G(t1 - s1, t2 - s2),
              "angle addition in each plane: the score sees only t - s",
              claim="G(s)^T G(t) = G(t - s) for 2D mixed RoPE")
    return thm


@theorem("nd_noncommuting_generators_not_relative",
         "LieRE-style exp(r1 L_z + r2 L_x) in so(3): the generators do not commute and the "
         "score is not a function of t - s")
def nd_noncommuting_generators_not_relative() -> Theorem:
    """Necessity shown by counterexample on so(3)'s ``L_z``, ``L_x``.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("nd_noncommuting_generators_not_relative").build().prove()
    >>> report.verdict, [r.verdict.status for r in report.results if r.verdict]
    ('proved', ['refuted', 'refuted'])

    References
    ==========

    .. [1] LieRE: Lie rotational positional encodings, arXiv 2406.10322.
    """
    r1, r2, s1, s2, t1, t2 = sp.symbols("r1 r2 s1 s2 t1 t2", real=True)
    Lz = sp.Matrix([[0, -1, 0], [1, 0, 0], [0, 0, 0]])
    Lx = sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]])
    thm = Theorem("nd_noncommuting_generators_not_relative",
                  "for X1 = L_z, X2 = L_x: G(s)^T G(t) != G(t - s) for some s, t",
                  hypotheses=["G(r) = exp(r1 L_z + r2 L_x)"],
                  statement_latex=r"[L_z, L_x] \neq 0,\quad G(s)^{\mathsf T} G(t) \neq G(t - s)")
    thm.define("G(r)", so3_exponential(r1, r2),
               "Rodrigues: I + sinc(|r|) K + sinc(|r|/2)^2 K^2 / 2 with K = r1 L_z + r2 L_x")
    thm.check(Lz * Lx, Lx * Lz, "so(3) is not abelian: [L_z, L_x] = L_y", expect="refuted",
              claim="L_z L_x = L_x L_z (false)")
    thm.check(so3_exponential(s1, s2).T * so3_exponential(t1, t2),
              so3_exponential(t1 - s1, t2 - s2),
              "shifting both positions by the same vector changes the score", expect="refuted",
              claim="G(s)^T G(t) = G(t - s) (false)")
    return thm
