"""Pairing conventions: interleaved pairs (Meta, RoFormer) vs split halves (HF ``rotate_half``).

The two layouts rotate the same planes, listed in a different order: with the de-interleave
permutation ``P`` (interleaved index ``2i -> i``, ``2i + 1 -> i + d/2``),
``R_half(p) = P R_inter(p) P^T``, and HF's ``q * cos + rotate_half(q) * sin`` is exactly
``R_half(p) q``. A checkpoint trained in one layout therefore runs in the other after permuting
the rows of ``W_q`` and ``W_k`` by ``P``.
"""

from __future__ import annotations

import sympy as sp

from symrope.engine import Theorem
from symrope.theorems._registry import theorem
from symrope.errors import UsageError
from symrope.linalg import rotate_half_layout, rotation
from symrope.schedules import rope_frequencies

__all__ = ["pairing_permutation", "deinterleave_permutation", "rope_interleaved", "rope_half"]


def deinterleave_permutation(d: int) -> sp.Matrix:
    """``P`` with ``(P x)_i = x_{2i}`` and ``(P x)_{i + d/2} = x_{2i+1}``."""
    P = sp.zeros(d, d)
    for i in range(d // 2):
        P[i, 2 * i] = 1
        P[i + d // 2, 2 * i + 1] = 1
    return P


def rope_interleaved(p, omega) -> sp.Matrix:
    """``diag(R(p omega_0), R(p omega_1), ...)``: pairs ``(2i, 2i + 1)``."""
    return sp.diag(*[rotation(p * w) for w in omega])


def rope_half(p, omega) -> sp.Matrix:
    """``[[C, -S], [S, C]]`` with ``C = diag(cos p omega_i)``, ``S = diag(sin p omega_i)``."""
    C = sp.diag(*[sp.cos(p * w) for w in omega])
    S = sp.diag(*[sp.sin(p * w) for w in omega])
    return sp.Matrix(sp.BlockMatrix([[C, -S], [S, C]]))


@theorem("pairing_permutation",
         "at the given d (default 8): R_half(p) = P R_inter(p) P^T for the de-interleave "
         "permutation P, and HF's q*cos + rotate_half(q)*sin = R_half(p) q", title="Interleaved and half-split RoPE differ by a permutation")
def pairing_permutation(d=8, theta=10000) -> Theorem:
    """Build the pairing theorem for head dimension ``d`` and base ``theta``.

    Examples
    ========

    >>> from symrope.theorems import get_theorem
    >>> report = get_theorem("pairing_permutation").build(d=4).prove()
    >>> report.verdict, report.checked_steps
    ('proved', 4)

    References
    ==========

    .. [1] transformers, ``models/llama/modeling_llama.py``: ``rotate_half`` and
       ``apply_rotary_pos_emb``; Meta ``llama/model.py``: ``apply_rotary_emb`` (complex pairs).
    """
    d = int(d)
    if d < 2 or d % 2:
        raise UsageError(f"d must be a positive even integer, got {d}")
    p = sp.Symbol("p", real=True)
    omega = rope_frequencies(d, theta)
    P = deinterleave_permutation(d)
    q = sp.Matrix(sp.symbols(f"q0:{d}", real=True))
    thm = Theorem("pairing_permutation",
                  r"For the de-interleave permutation $P$, $R_{\mathrm{half}}(p) = P "
                  r"R_{\mathrm{inter}}(p) P^\top$, and Hugging Face's "
                  r"$q \odot \cos(p\bar\omega) + \tilde q \odot \sin(p\bar\omega)$ is "
                  r"$R_{\mathrm{half}}(p)\, q$, where $\tilde q$ is $q$ with its halves rotated "
                  rf"($d = {d}$, $\theta = {theta}$)",
                  hypotheses=["$p$ real", r"$\omega_i = \theta^{-2i/d}$"],
                  statement_latex=r"R_{\mathrm{half}}(p) = P\,R_{\mathrm{inter}}(p)\,P^\top")
    thm.define("P", P, "de-interleave: $(Px)_i = x_{2i}$, $(Px)_{i+d/2} = x_{2i+1}$")
    thm.define("R_inter(p)", rope_interleaved(p, omega), r"pairs $(2i, 2i+1)$ turn by $p \omega_i$",
               display=(r"R_{\mathrm{inter}}(p)",
                        r"\operatorname{diag}\left(R(p\,\omega_0), \ldots, "
                        r"R(p\,\omega_{d/2-1})\right)"))
    thm.check(P.T * P, sp.eye(d), "$P$ is a permutation matrix, hence orthogonal",
              display=(r"P^\top P", "I"))
    thm.check(P * q, sp.Matrix([q[2 * i] for i in range(d // 2)] +
                               [q[2 * i + 1] for i in range(d // 2)]),
              "$P$ lists the even coordinates, then the odd ones",
              display=(r"P\, q", r"\left(q_0, q_2, \ldots, q_{d-2}, q_1, q_3, \ldots, "
                                 r"q_{d-1}\right)^\top"))
    thm.check(P * rope_interleaved(p, omega) * P.T, rope_half(p, omega),
              r"conjugating by $P$ reorders the planes: pair $i$ now holds coordinates $i$ and "
              r"$i + d/2$, and $R_{\mathrm{half}}(p) = \begin{pmatrix} C & -S\\ S & C"
              r"\end{pmatrix}$ with $C = \operatorname{diag}(\cos p\,\omega_i)$ and "
              r"$S = \operatorname{diag}(\sin p\,\omega_i)$",
              display=(r"P R_{\mathrm{inter}}(p) P^\top", r"R_{\mathrm{half}}(p)"))
    thm.check(rotate_half_layout(q, [p * w for w in omega]), rope_half(p, omega) * q,
              r"Hugging Face's layout: $\bar\omega = (\omega, \omega)$ repeats the $d/2$ "
              r"frequencies for both halves $q^{(1)}$, $q^{(2)}$ of $q$, and "
              r"$\tilde q = (-q^{(2)}, q^{(1)})$ (its function that rotates the halves)",
              display=(r"q \odot \cos(p\,\bar\omega) + \tilde q \odot \sin(p\,\bar\omega)",
                       r"R_{\mathrm{half}}(p)\, q"))
    return thm
