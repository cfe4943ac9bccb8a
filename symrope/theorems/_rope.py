"""Theorem 6: RoPE is ``e^{pX}`` and only sees relative position, at a given even ``d``.

``R_d(p) = diag(R(p omega_0), ..., R(p omega_{d/2-1}))`` with ``omega_i = theta^{-2i/d}`` and
``X = diag(omega_0 J, ..., omega_{d/2-1} J)``:

* ``R_d(p) = e^{pX}``: the exponential of a block-diagonal matrix is the block diagonal of the
  exponentials (the power series acts blockwise; checked with full matrices at ``d = 4``), and
  each block is ``e^{p omega_i J} = R(p omega_i)``;
* ``R_d(s)^T R_d(t) = R_d(t - s)``;
* the score ``(R_d(s) q)^T (R_d(t) k) = q^T R_d(t - s) k``, pair by pair with symbolic
  components, and for the whole vectors as a consequence.

Everything of size ``d`` is a ``BlockDiagMatrix`` of 2x2 blocks, so the engine decides it block
by block and proves the one block template (one frequency, as a symbolic constant) once: the
cost is linear in ``d``, and ``d = 4096`` is proved, not sampled. Each ``d`` is its own proof
here; the statement for every ``d`` (and every frequency function) is the Coq theorem
``symrope/kernel/coq/RopeRelative.v`` (``symrope prove --kernel coq``). Entries are built with SymPy's
evaluation switched off (one ``cos(p * omega_i)`` evaluated is ~3 ms, times 3 * d/2 blocks),
which changes nothing mathematically: the engine evaluates and rewrites them.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.linalg import J, rotation
from symrope.schedules import (RopeConfig, inv_freq, parse_base, parse_dimension,
                               rope_frequencies)

__all__ = ["rope_relative", "rope_blocks"]

_SCALE = sp.Dummy("x", real=True)
BLOCK_FUNCTION = ("N. J. Higham, Functions of Matrices: Theory and Computation (SIAM 2008), "
                  "Thm. 1.13: a primary matrix function of a block-diagonal matrix is the block "
                  "diagonal of the functions of the blocks")


def _product(*factors):
    return sp.MatMul(*factors, evaluate=False)


def rope_blocks(position, frequencies) -> sp.BlockDiagMatrix:
    """``R_d(position) = diag(R(position * omega_i))`` as a block-diagonal matrix."""
    with sp.evaluate(False):  # one switch for all blocks: switching clears SymPy's cache
        pieces = [(sp.cos(position * w), sp.sin(position * w)) for w in frequencies]
    return sp.BlockDiagMatrix(*[sp.ImmutableMatrix([[c, -s], [s, c]]) for c, s in pieces])


@theorem("rope_relative", "RoPE at the given even d (default 64): R_d(p) = e^{pX}, "
         "R_d(s)^T R_d(t) = R_d(t-s), and the score (R_d(s)q)^T(R_d(t)k) = q^T R_d(t-s) k "
         "(block-exponential lemma cited)",
         title="RoPE is an exponential and sees only relative position")
def rope_relative(d=64, theta=10000) -> Theorem:
    """Build theorem 6 for head dimension ``d`` and frequency base ``theta``.

    Parameters
    ==========

    d : int
        Even head dimension (4096 is proved in about half a minute on two cores).
    theta : number or "theta"
        Frequency base; ``"theta"`` keeps it a positive symbol (the fractional exponents
        ``-2i/d`` are template constants, so all pairs still share one template).

    Returns
    =======

    Theorem

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("rope_relative").build(d=8).prove()
    >>> report.verdict
    'proved'

    References
    ==========

    .. [1] J. Su et al., "RoFormer: Enhanced Transformer with Rotary Position Embedding",
       arXiv:2104.09864, eq. (14)-(16).
    """
    d = parse_dimension(d)
    base = parse_base(theta)
    s, t, p = sp.symbols("s t p", real=True)
    q_a, q_b, k_a, k_b = sp.symbols("q_a q_b k_a k_b", real=True)
    frequencies = rope_frequencies(d, base, evaluate=False)
    R_s, R_t, R_ts, R_p = (rope_blocks(x, frequencies) for x in (s, t, t - s, p))
    # Blockwise steps cost time linear in d (the template is proved once, every block is still
    # keyed and sampled): scale the per-step budget with d.
    block_budget = 10.0 + d / 32
    thm = Theorem(
        "rope_relative",
        rf"For $d = {d}$ and $\omega_i = \theta^{{-2i/d}}$ with $\theta = {sp.latex(base)}$, let "
        r"$R_d(p) = \operatorname{diag}(R(p \omega_0), \ldots, R(p \omega_{d/2-1}))$ and "
        r"$X = \operatorname{diag}(\omega_0 J, \ldots, \omega_{d/2-1} J)$. Then "
        r"$R_d(p) = e^{pX}$, $R_d(s)^\top R_d(t) = R_d(t - s)$, and "
        r"$(R_d(s) q)^\top (R_d(t) k) = q^\top R_d(t - s) k$ for all real $s$, $t$, $p$ and all "
        r"$q, k \in \mathbb{R}^d$.",
        hypotheses=["$d$ even", r"$\theta > 0$", "$s$, $t$, $p$ real"],
        statement_latex=r"R_d(p) = e^{pX},\quad R_d(s)^\top R_d(t) = R_d(t-s),\quad "
                        r"(R_d(s)q)^\top(R_d(t)k) = q^\top R_d(t-s)k,\quad "
                        rf"\omega_i = \theta^{{-2i/d}},\ d = {d},\ \theta = {sp.latex(base)}")
    blocks_display = r"\operatorname{diag}\left(R(p\,\omega_i)\right)_{i=0}^{d/2-1}"
    thm.define("R_d(p)", R_p, r"block-diagonal: one $2 \times 2$ rotation per pair of coordinates",
               display=("R_d(p)", blocks_display))
    thm.define("X", sp.BlockDiagMatrix(*[w * sp.ImmutableMatrix(J) for w in frequencies]),
               r"block-diagonal skew generator, one block $\omega_i J$ per pair",
               display=("X", r"\operatorname{diag}\left(\omega_i J\right)_{i=0}^{d/2-1}"))

    # The formula proved is the formula audited (docs/design.md, principle 2): the same omega_i as the
    # default schedule that `symrope audit` evaluates in mpmath and floats, for every base.
    generic_base = sp.Symbol("theta", positive=True)
    audited = inv_freq(RopeConfig.from_options(head_dim=d, theta=generic_base), "sympy")
    thm.check(sp.ImmutableMatrix(rope_frequencies(d, "theta")), sp.ImmutableMatrix(audited),
              r"the frequencies $\omega_i^{\mathrm{audit}}$ of the default schedule that the "
              r"audit evaluates (one formula, written once for SymPy, mpmath and floating "
              r"point) are these, for every base $\theta > 0$, so also for this one",
              claim="(theta^(-2i/d))_i = inv_freq(default schedule, head_dim d, theta), theta symbolic",
              display=(r"\left(\theta^{-2i/d}\right)_{i=0}^{d/2-1}",
                       r"\left(\omega_i^{\mathrm{audit}}\right)_{i=0}^{d/2-1}"))

    # R_d(p) = e^{pX}.
    thm.cite(r"$e^{\operatorname{diag}(A_1, \ldots, A_m)} = \operatorname{diag}(e^{A_1}, \ldots, "
             r"e^{A_m})$", BLOCK_FUNCTION,
             r"the power series acts blockwise: $(\operatorname{diag} A_i)^j = "
             r"\operatorname{diag}(A_i^j)$")
    # The instance at d = 4 with its frequencies evaluated (omega_0 = 1, omega_1 = theta^(-1/2)):
    # it shows the lemma on a full 4x4 generator, not this theorem's d.
    small = rope_frequencies(4, base)
    full_generator = sp.diag(*[w * sp.Matrix(J) for w in small])
    thm.check(sp.ImmutableMatrix((p * full_generator).exp()),
              sp.ImmutableMatrix(sp.diag(*[rotation(p * w) for w in small])),
              r"the lemma on an instance, not on this theorem's $d$: at $d = 4$ "
              r"($\omega_0 = 1$, $\omega_1 = \theta^{-1/2}$), SymPy's exponential of the full "
              r"$4 \times 4$ generator is the block diagonal of the two block exponentials",
              claim="e^{p diag(omega_0 J, omega_1 J)} = diag(R(p omega_0), R(p omega_1)) (d = 4, "
                    "full matrices)", instance="d = 4, full 4x4 matrices",
              display=(rf"\exp\left(p \operatorname{{diag}}\left(J,\ {sp.latex(small[1])}\,J"
                       r"\right)\right)",
                       rf"\operatorname{{diag}}\left(R(p),\ R\left({sp.latex(small[1])}\,p"
                       r"\right)\right)"))
    template = sp.ImmutableMatrix((_SCALE * J).exp())
    with sp.evaluate(False):
        exponentials = [template.xreplace({_SCALE: p * w}) for w in frequencies]
    thm.check(sp.BlockDiagMatrix(*exponentials), R_p,
              r"the exponential of $pX$ block by block: each block is $e^{p \omega_i J} = "
              r"\cos(p \omega_i) I + \sin(p \omega_i) J = R(p \omega_i)$, proved once for a "
              r"symbolic frequency", claim="e^{pX} = diag(e^{p omega_i J}) = R_d(p)",
              budget=block_budget,
              display=(r"\operatorname{diag}\left(e^{p\,\omega_i J}\right)_{i=0}^{d/2-1}",
                       "R_d(p)"))

    # Relative position.
    thm.check(_product(R_s.T, R_t), R_ts,
              r"block by block: $R(a)^\top R(b) = R(b - a)$ (angle-addition formulas), with "
              r"$a = s \omega_i$, $b = t \omega_i$",
              claim=f"R_d(s)^T R_d(t) = R_d(t - s) (d = {d})", budget=block_budget,
              display=(r"R_d(s)^\top R_d(t)", r"R_d(t-s)"))
    pair_q = sp.BlockDiagMatrix(*[sp.ImmutableMatrix([q_a, q_b])] * (d // 2))
    pair_k = sp.BlockDiagMatrix(*[sp.ImmutableMatrix([k_a, k_b])] * (d // 2))
    # sp.Transpose, not .T: .T on a product calls doit(), and SymPy's MatMul.doit tries to
    # invert block matrices (seconds per block).
    thm.check(_product(sp.Transpose(_product(R_s, pair_q)), _product(R_t, pair_k)),
              _product(pair_q.T, R_ts, pair_k),
              "the contribution of each pair $i$, with symbolic components $q_i = (q_a, q_b)$ "
              "and $k_i = (k_a, k_b)$", claim="(R(s w_i) q_i)^T (R(t w_i) k_i) = q_i^T R((t-s) w_i) k_i "
                                 "for every pair i", budget=block_budget,
              display=(r"\left((R(s\omega_i)q_i)^\top R(t\omega_i)k_i\right)_i",
                       r"\left(q_i^\top R((t-s)\omega_i)k_i\right)_i"))
    size = sp.Symbol("d", integer=True, positive=True)
    q, k = sp.MatrixSymbol("q", size, 1), sp.MatrixSymbol("k", size, 1)
    Rs, Rt, Rts = (sp.MatrixSymbol(name, size, size) for name in ("R_{d}(s)", "R_{d}(t)", "R_{d}(t-s)"))
    thm.check(_product(sp.Transpose(_product(Rs, q)), _product(Rt, k)),
              _product(q.T, _product(Rs.T, Rt), k),
              r"$(AB)^\top = B^\top A^\top$", claim="(R_d(s) q)^T (R_d(t) k) = q^T (R_d(s)^T R_d(t)) k")
    thm.check(_product(q.T, _product(Rs.T, Rt), k), _product(q.T, Rts, k),
              r"substitute $R_d(s)^\top R_d(t) = R_d(t - s)$, proved above",
              claim="(R_d(s) q)^T (R_d(t) k) = q^T R_d(t - s) k",
              assumptions=[sp.Eq(_product(Rs.T, Rt), Rts)])
    return thm
