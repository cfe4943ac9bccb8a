"""N-dimensional positions: for *skew* generators, ``G(r) = exp(sum_k r_k X_k)`` (F = G) is
relative iff the generators commute.

The score is ``G(s)^T G(t) = exp(A(s))^T exp(A(t)) = exp(A(s)^T) exp(A(t))``. Only when every
generator is skew is ``A(s)^T = -A(s)`` and the score ``exp(-A(s)) exp(A(t))``; without it the
claim fails already on one axis (``X = 1``: the score is ``e^{s + t}``, refuted here).

Sufficiency, for any size: the commutator of ``A(s) = s1 X1 + s2 X2`` and ``A(t)`` is
``(s1 t2 - s2 t1) [X1, X2]``, zero when the generators commute; then
``exp(-A(s)) exp(A(t)) = exp(A(t) - A(s)) = exp(A(t - s))`` (the exponential of commuting
matrices, a cited lemma). Necessity, for any size: relative means
``exp(-A(s)) exp(A(t)) = exp(A(t - s))`` for all s, t; on ``s = (sigma, 0)``, ``t = (0, tau)``
the coefficients of ``sigma tau`` in the two series are ``-X1 X2`` and ``-(X1 X2 + X2 X1)/2``,
equal only if ``[X1, X2] = 0`` (checked on opaque matrices). The standard non-commuting pair of
so(3) (LieRE-style learned generators) is the concrete counterexample of the second theorem.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.linalg import L_X, L_Z, J, rotation, so3_exponential
from symrope.theorems._exponential_form import EXP_SERIES

MATHLIB_EXP_ADD = ("Mathlib NormedSpace.exp_add_of_commute "
                   "(Mathlib/Analysis/Normed/Algebra/Exponential.lean)")

__all__ = ["nd_commuting_generators_relative", "nd_noncommuting_generators_not_relative"]


@theorem("nd_commuting_generators_relative",
         "skew generators: exp(r1 X1 + r2 X2) gives scores depending only on t - s iff "
         "X1 X2 = X2 X1 (both directions, opaque matrices); non-skew one-axis X = 1 refuted",
         title="Several position axes: relative if and only if the generators commute")
def nd_commuting_generators_relative(n=3) -> Theorem:
    """Both directions for two position axes and skew ``n x n`` generators, plus 2D mixed RoPE.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("nd_commuting_generators_relative").build(n=2).prove()
    >>> report.verdict, report.cited_lemmas
    ('proved', 3)

    References
    ==========

    .. [1] ComRoPE, arXiv 2506.03737; "Rethinking RoPE", arXiv 2504.06308.
    .. [2] Mathlib, ``NormedSpace.exp_add_of_commute``.
    """
    n = int(n)
    X1, X2 = sp.MatrixSymbol("X1", n, n), sp.MatrixSymbol("X2", n, n)
    s1, s2, t1, t2, sigma, tau = sp.symbols("s1 s2 t1 t2 sigma tau", real=True)

    def A(a, b):
        return a * X1 + b * X2

    def product(*factors):
        return sp.MatMul(*factors, evaluate=False)

    commutator = X1 * X2 - X2 * X1
    thm = Theorem("nd_commuting_generators_relative",
                  rf"For skew-symmetric $n \times n$ generators $X_1$, $X_2$ ($n = {n}$; the "
                  r"algebra uses no entries) and $G(r) = \exp(A(r))$, $A(r) = r_1 X_1 + r_2 X_2$, "
                  r"$F = G$: the score $G(s)^\top G(t) = \exp(-A(s)) \exp(A(t))$ is a function "
                  r"of $t - s$ for all $s, t \in \mathbb{R}^2$ if and only if $X_1 X_2 = X_2 X_1$, "
                  r"and then it is $\exp(A(t - s))$. Without skewness the claim is false (one axis, "
                  r"$X = 1$: the score is $e^{s+t}$).",
                  hypotheses=[r"$X_1^\top = -X_1$, $X_2^\top = -X_2$",
                              r"$s, t \in \mathbb{R}^2$", "$F = G$"],
                  statement_latex=r"X_j^\top = -X_j:\ G(s)^\top G(t) = e^{-A(s)} e^{A(t)} = "
                                  r"e^{A(t-s)}\ \forall s, t \iff [X_1, X_2] = 0")
    skew = [sp.Eq(X1.T, -X1), sp.Eq(X2.T, -X2)]
    thm.check(A(s1, s2).T, -A(s1, s2), "transpose is linear; each generator is skew",
              claim="A(s)^T = -A(s)", assumptions=skew)
    thm.cite(r"$(e^B)^\top = e^{B^\top}$, so $G(s)^\top = e^{A(s)^\top} = e^{-A(s)}$", EXP_SERIES,
             "transpose the exponential series term by term")
    thm.check(sp.exp(s1) * sp.exp(t1), sp.exp(t1 - s1),
              r"one axis with the non-skew generator $X = 1$ ($1 \times 1$): $G(p) = e^p$, so $G(s)^\top "
              r"G(t) = e^{s+t}$, not $e^{t-s}$", expect="refuted",
              claim="X = 1: G(s)^T G(t) = e^s e^t = e^(t-s) (false: skewness is needed)",
              instance="1x1, X = 1")
    thm.check(sp.expand(A(s1, s2) * A(t1, t2) - A(t1, t2) * A(s1, s2)),
              (s1 * t2 - s2 * t1) * commutator,
              "bilinearity: only the cross terms survive",
              claim="[A(s), A(t)] = (s1 t2 - s2 t1) [X1, X2]")
    thm.check((s1 * t2 - s2 * t1) * commutator, sp.ZeroMatrix(n, n),
              r"the generators commute (hypothesis used as the rewrite $X_1 X_2 \to X_2 X_1$)",
              assumptions=[sp.Eq(X1 * X2, X2 * X1)], claim="[A(s), A(t)] = 0")
    thm.cite(r"$\exp(B) \exp(C) = \exp(B + C)$ when $B C = C B$", MATHLIB_EXP_ADD,
             "the exponential of commuting matrices is the product of their exponentials")
    thm.check(A(t1, t2) - A(s1, s2), A(t1 - s1, t2 - s2), "$A$ is linear in the position",
              claim="A(t) - A(s) = A(t - s)", display=("A(t) - A(s)", "A(t - s)"))

    # Necessity: the sigma tau coefficient at s = (sigma, 0), t = (0, tau).
    thm.cite(r"$e^B = I + B + B^2/2$ + (terms of degree $\ge 3$ in $B$); so the coefficient of "
             r"$\sigma \tau$ in $e^{-\sigma X_1} e^{\tau X_2}$ is $(-X_1) X_2$, and in "
             r"$e^{\tau X_2 - \sigma X_1}$ it is the $\sigma \tau$ part of "
             r"$(\tau X_2 - \sigma X_1)^2 / 2$", EXP_SERIES,
             r"the series converges absolutely, so coefficients of $\sigma^i \tau^j$ may be "
             r"compared")
    U, V, W, Z = [sp.MatrixSymbol(name, n, n) for name in "UVWZ"]
    thm.check(product(U + V, W + Z), U * W + U * Z + V * W + V * Z,
              "distribute; with $W = U$ and $Z = V$: $(U + V)^2 = U^2 + U V + V U + V^2$",
              claim="(U + V)(W + Z) = U W + U Z + V W + V Z")
    thm.check(product(tau * X2, -sigma * X1) + product(-sigma * X1, tau * X2),
              -sigma * tau * (X1 * X2 + X2 * X1),
              r"$U = \tau X_2$ and $V = -\sigma X_1$: $U^2$ and $V^2$ carry $\tau^2$ and "
              r"$\sigma^2$, so the $\sigma \tau$ part of $(\tau X_2 - \sigma X_1)^2$ is $U V + V "
              r"U$",
              claim="sigma tau part of (tau X2 - sigma X1)^2: U V + V U = -sigma tau (X1 X2 + "
                    "X2 X1)")
    thm.check(-X1 * X2 + (X1 * X2 + X2 * X1) / 2, -commutator / 2,
              r"relative at $s = (\sigma, 0)$, $t = (0, \tau)$ equates the two $\sigma \tau$ "
              r"coefficients $-X_1 X_2$ and $-(X_1 X_2 + X_2 X_1)/2$; their difference is "
              r"$-[X_1, X_2]/2$, so a relative score forces $[X_1, X_2] = 0$",
              claim="-X1 X2 - (-(X1 X2 + X2 X1)/2) = -[X1, X2]/2",
              display=(r"-X_1 X_2 + \tfrac{1}{2}(X_1 X_2 + X_2 X_1)", r"-\tfrac{1}{2}[X_1, X_2]"))
    # A concrete commuting family: 2D mixed RoPE, every pair turning with both coordinates.
    a, b, c, e = sp.Rational(1), sp.Rational(1, 3), sp.Rational(1, 2), sp.Rational(2, 5)
    Y1, Y2 = sp.diag(a * J, b * J), sp.diag(c * J, e * J)

    def G(r1, r2):
        return sp.diag(rotation(r1 * a + r2 * c), rotation(r1 * b + r2 * e))

    thm.check(product(Y1, Y2), product(Y2, Y1),
              r"2D mixed RoPE, $X_1 = \operatorname{diag}(J, J/3)$ and "
              r"$X_2 = \operatorname{diag}(J/2, 2J/5)$: both generators are block diagonal in "
              r"the same planes", claim="[X_x, X_y] = 0 for 2D mixed RoPE",
              instance="2D mixed RoPE, 4x4", display=("X_1 X_2", "X_2 X_1"))
    thm.check(G(s1, s2).T * G(t1, t2), G(t1 - s1, t2 - s2),
              r"angle addition in each plane, for $G(r) = \exp(r_1 X_1 + r_2 X_2)$ of 2D mixed "
              r"RoPE: the score sees only $t - s$",
              claim="G(s)^T G(t) = G(t - s) for 2D mixed RoPE", instance="2D mixed RoPE, 4x4",
              display=(r"G(s)^\top G(t)", "G(t - s)"))
    return thm


@theorem("nd_noncommuting_generators_not_relative",
         "LieRE-style exp(r1 L_z + r2 L_x) in so(3): the generators do not commute and the "
         "score is not a function of t - s",
         title="Non-commuting generators are not relative")
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
    Lz, Lx = sp.Matrix(L_Z), sp.Matrix(L_X)
    thm = Theorem("nd_noncommuting_generators_not_relative",
                  r"For the generators $X_1 = L_z$, $X_2 = L_x$ of rotations of space about the "
                  r"$z$- and $x$-axes and $G(r) = \exp(r_1 L_z + r_2 L_x)$: "
                  r"$G(s)^\top G(t) \ne G(t - s)$ for some $s, t \in \mathbb{R}^2$",
                  hypotheses=[r"$G(r) = \exp(r_1 L_z + r_2 L_x)$"],
                  statement_latex=r"[L_z, L_x] \neq 0,\quad G(s)^\top G(t) \neq G(t - s)")
    thm.define("G(r)", so3_exponential(r1, r2),
               r"Rodrigues' formula: $I + \operatorname{sinc}(|r|)\, K + "
               r"\operatorname{sinc}(|r|/2)^2\, K^2 / 2$ with $K = r_1 L_z + r_2 L_x$",
               display=("G(r)", r"\exp(r_1 L_z + r_2 L_x)"))
    thm.check(Lz * Lx, Lx * Lz, r"$\mathfrak{so}(3)$ is not abelian: $[L_z, L_x] = L_y$",
              expect="refuted", claim="L_z L_x = L_x L_z (false)",
              display=("L_z L_x", "L_x L_z"))
    thm.check(so3_exponential(s1, s2).T * so3_exponential(t1, t2),
              so3_exponential(t1 - s1, t2 - s2),
              "shifting both positions by the same vector changes the score", expect="refuted",
              claim="G(s)^T G(t) = G(t - s) (false)",
              display=(r"G(s)^\top G(t)", "G(t - s)"))
    return thm
