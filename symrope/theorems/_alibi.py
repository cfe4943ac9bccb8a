"""ALiBi as a nilpotent generator: the linear bias ``-m (s - t)`` realised exactly.

On two extra coordinates the generator ``N = [[0, 1], [0, 0]]`` gives ``e^{dN} = I + dN`` (a
shear: ``N^2 = 0``). With ``F(s) = diag(I, e^{-sN^T})``, ``G(t) = diag(I, e^{tN})``, the query
padded with ``(1, 0)`` and the key with ``(0, m)``, the score is ``q^T k - m (s - t)``:
ALiBi's bias for a query at ``s`` and a key at ``t <= s``, from a relative encoding.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.errors import UsageError

__all__ = ["alibi_nilpotent"]


@theorem("alibi_nilpotent", "the nilpotent generator on two extra coordinates reproduces "
         "q^T k - m (s - t) exactly", title="ALiBi as a nilpotent generator")
def alibi_nilpotent(d=2) -> Theorem:
    """Build the ALiBi realisation for ``d`` content dimensions and a symbolic slope ``m > 0``.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("alibi_nilpotent").build(d=2).prove()
    >>> report.verdict, report.checked_steps
    ('proved', 6)

    References
    ==========

    .. [1] O. Press, N. A. Smith, M. Lewis, "Train short, test long: attention with linear
       biases enables input length extrapolation", ICLR 2022 (ALiBi).
    """
    d = int(d)
    if d < 1:
        raise UsageError(f"d must be a positive integer, got {d}")
    s, t, p, offset = sp.symbols("s t p d", real=True)
    m = sp.Symbol("m", positive=True)
    N = sp.Matrix([[0, 1], [0, 0]])
    I2 = sp.eye(2)
    q = sp.Matrix(sp.symbols(f"q0:{d}", real=True))
    k = sp.Matrix(sp.symbols(f"k0:{d}", real=True))

    def F(a):
        return sp.diag(sp.eye(d), I2 - a * N.T)

    def G(a):
        return sp.diag(sp.eye(d), I2 + a * N)

    thm = Theorem("alibi_nilpotent",
                  rf"$(F(s) q')^\top (G(t) k') = q^\top k - m (s - t)$ with $q' = (q, 1, 0)$, "
                  rf"$k' = (k, 0, m)$, $d = {d}$",
                  hypotheses=["$s$, $t$ real", "$m > 0$ (the head's slope)"],
                  statement_latex=r"(F(s)q')^\top(G(t)k') = q^\top k - m\,(s - t)")
    thm.define("N", N, "the nilpotent generator on the two extra coordinates")
    thm.check(N * N, sp.zeros(2, 2), "$N$ is nilpotent", claim="N^2 = 0", display=("N^2", "0"))
    thm.check((p * N).exp(), I2 + p * N, "the exponential series stops after the linear term",
              claim="e^{pN} = I + pN", display=("e^{pN}", "I + pN"))
    thm.check(F(s).T * G(t), G(t - s),
              r"the shears compose by adding offsets, with $F(s) = \operatorname{diag}(I, "
              r"e^{-sN^\top})$ and $G(t) = \operatorname{diag}(I, e^{tN})$",
              claim="F(s)^T G(t) = H(t - s) = diag(I, e^{(t-s)N})",
              display=(r"F(s)^\top G(t)", r"\operatorname{diag}\left(I, e^{(t-s)N}\right) = "
                                         r"H(t - s)"))
    thm.check(F(p).T * G(p), sp.eye(d + 2), "identity at zero offset", claim="F(p)^T G(p) = I",
              display=(r"F(p)^\top G(p)", "I"))
    padded_q = sp.Matrix.vstack(q, sp.Matrix([1, 0]))
    padded_k = sp.Matrix.vstack(k, sp.Matrix([0, m]))
    thm.check((F(s) * padded_q).T * (G(t) * padded_k), sp.Matrix([(q.T * k)[0, 0] - m * (s - t)]),
              "the extra coordinates contribute $m (t - s)$",
              claim="(F(s) q')^T (G(t) k') = q^T k - m (s - t)",
              display=(r"(F(s)\,q')^\top (G(t)\,k')", r"q^\top k - m\,(s - t)"))
    thm.check(sp.diff(G(offset), offset).subs(offset, 0), sp.diag(sp.zeros(d), N),
              r"the generator is $X = H'(0) = \operatorname{diag}(0, N)$: zero directions and "
              r"one nilpotent shear",
              claim="H'(0) = diag(0, N)",
              display=("H'(0)", r"\operatorname{diag}(0, N)"))
    return thm
