"""The seed article's derivation (theorems 1-4, 6, 7) over a parameter grid.

Run with ``pytest proofs/seed_theorems.py``.

Each ``@proof`` point is one pytest item that passes only when the theorem is *proved* (every
checked step got its expected verdict: refutation steps included). Head dimensions 2 to 128
with two numeric bases, a symbolic base where SymPy can (small d: every frequency is then its
own template), and RoPE at d = 4096 proved blockwise.
"""

from symrope.testing import proof
from symrope.theorems import get_theorem


@proof(n=[2, 3, 5])
def group_law(n):
    """1. F(t)^T = G(t)^{-1}, H(t-s) = G(s)^{-1}G(t), H(a+b) = H(a)H(b), H(-a) = H(a)^{-1}."""
    return get_theorem("group_law").build(n=n)


@proof(n=[2, 3, 5])
def exponential_form(n):
    """2. Continuity: H(d) = e^{dX} (integral trick, ODE uniqueness; Mathlib lemma cited)."""
    return get_theorem("exponential_form").build(n=n)


@proof(n=[2, 3, 5])
def general_solution(n):
    """3. G = C e^{pX}, F = C^{-T} e^{-pX^T}; F = G iff C orthogonal and X skew."""
    return get_theorem("general_solution").build(n=n)


@proof(order=[2, 6, 12], steps=[3, 10])
def matrix_exponential(order, steps):
    """4. e^{phi J} = R(phi): series to order 2N + 1, (I + phi J/N)^N at finite N and the limit."""
    return get_theorem("matrix_exponential").build(order=order, steps=steps)


@proof(d=[2, 4, 8, 64, 128], theta=[10000, 500000])
def rope_relative(d, theta):
    """6. R_d(p) = e^{pX}, R_d(s)^T R_d(t) = R_d(t - s), the score form."""
    return get_theorem("rope_relative").build(d=d, theta=theta)


@proof(d=[2, 4, 8], theta=["theta"])
def rope_relative_symbolic_base(d, theta):
    """6. with theta a positive symbol."""
    return get_theorem("rope_relative").build(d=d, theta=theta)


@proof(d=[4096], theta=[10000], budget=600)
def rope_relative_long_head(d, theta):
    """6. at d = 4096: 2048 blocks, one template, proved (not sampled)."""
    return get_theorem("rope_relative").build(d=d, theta=theta)


@proof(d=[2, 8, 64, 128], theta=[10000, 500000])
def xpos_damped_rotation(d, theta):
    """7. xPos: relative with opposite damping of q and k; identical damping refuted."""
    return get_theorem("xpos_damped_rotation").build(d=d, theta=theta)


@proof(d=[8], theta=[10000], gamma=[0.4, 0.1], scale_base=[512, 64])
def xpos_other_scales(d, theta, gamma, scale_base):
    """7. with other xPos hyper-parameters (gamma, B)."""
    return get_theorem("xpos_damped_rotation").build(d=d, theta=theta, gamma=gamma,
                                                     scale_base=scale_base)
