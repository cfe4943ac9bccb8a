"""False claims about positional encodings are refuted, with counterexamples we re-check here.

Each claim is a classic slip (wrong sign, swapped transpose, mismatched frequencies, identical
damping, a branch-cut "simplification"...). The engine must answer ``refuted`` -- never
``proved`` -- and the counterexample it returns must falsify the claim when *we* substitute it
and evaluate at 30 digits, independently of the engine's own evaluation.
"""

import pytest
import sympy as sp
from matrix_helpers import explicit_matrix

from symrope import verify
from symrope.theorems._matrix_exponential import J, rotation
from symrope.theorems._rope import rope_blocks, rope_frequencies

a, b, s, t, u, x, phi, omega, lam = sp.symbols("a b s t u x phi omega lambda", real=True)
z, w = sp.symbols("z w")
zeta = sp.Symbol("zeta", positive=True)
n = 3
A, B, C, G_s, G_t = (sp.MatrixSymbol(name, n, n) for name in ("A", "B", "C", "Gs", "Gt"))
I2 = sp.eye(2)
Jm = sp.Matrix(J)


def _exp(matrix):
    return sp.ImmutableMatrix(sp.Matrix(matrix).exp())


def damped(position, rate=lam, frequency=omega):
    return sp.exp(rate * position) * rotation(frequency * position)


def rope(position, d=4, theta=10000):
    return rope_blocks(position, rope_frequencies(d, theta))


def rope_up(position, d=4, theta=10000):
    """RoPE with the wrong sign of the exponent: omega_i = theta^{+2i/d}."""
    return sp.BlockDiagMatrix(*[rotation(position * sp.Integer(theta) ** sp.Rational(2 * i, d))
                                for i in range(d // 2)])


def xpos_pair(position, sign_query, z_value=sp.Rational(9, 14), B=512, w=sp.Rational(1, 10)):
    return z_value ** (sign_query * position / B) * rotation(w * position)


q_vec = sp.Matrix(sp.symbols("q0:4", real=True))
k_vec = sp.Matrix(sp.symbols("k0:4", real=True))

FALSE_CLAIMS = {
    # Angle addition and rotations.
    "sin addition with a wrong sign": (sp.sin(a + b),
                                       sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b)),
    "cos addition with a wrong sign": (sp.cos(a + b),
                                       sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b)),
    "cos^2 - sin^2 = 1": (sp.cos(x) ** 2 - sp.sin(x) ** 2, 1),
    "R(s)^T R(t) = R(s - t)": (rotation(s).T * rotation(t), rotation(s - t)),
    "R(s) R(t)^T = R(t - s)": (rotation(s) * rotation(t).T, rotation(t - s)),
    "R(s)^T R(t) = R(s + t)": (rotation(s).T * rotation(t), rotation(s + t)),
    "R(s)^T = R(s)": (rotation(s).T, rotation(s)),
    # The generator and its exponential.
    "J^2 = I": (Jm * Jm, I2),
    "cos and sin swapped in e^{phi J}": (
        _exp(phi * Jm), sp.Matrix([[sp.sin(phi), -sp.cos(phi)], [sp.cos(phi), sp.sin(phi)]])),
    "wrong sign of the exponent: e^{phi J} = R(-phi)": (_exp(phi * Jm), rotation(-phi)),
    "(I + phi J / 3)^3 = R(phi) at finite N": ((I2 + phi * Jm / 3) ** 3, rotation(phi)),
    "the series truncated after phi^3 is R(phi)": (
        I2 + phi * Jm + (phi * Jm) ** 2 / 2 + (phi * Jm) ** 3 / 6, rotation(phi)),
    "non-skew generator called orthogonal": (
        _exp(x * (lam * I2 + omega * Jm)).T * _exp(x * (lam * I2 + omega * Jm)), I2),
    "e^{A} e^{B} = e^{A+B} for non-commuting A, B": (
        _exp(sp.Matrix([[0, 1], [0, 0]])) * _exp(sp.Matrix([[0, 0], [1, 0]])),
        _exp(sp.Matrix([[0, 1], [1, 0]]))),
    # The group law.
    "H(a + b) = H(a) + H(b)": (damped(a + b), damped(a) + damped(b)),
    "H(-a) = H(a)": (damped(-a), damped(a)),
    "H(0) = 0": (damped(0), sp.zeros(2)),
    # Opaque matrices.
    "F(t)^T = G(t) instead of the inverse (G^{-1} = G^T)": (G_t.I, G_t.T),
    "H(t - s) = G(t)^{-1} G(s) (order swapped)": (G_s.I * G_t, G_t.I * G_s),
    "A B = B A": (A * B, B * A),
    "(A B)^T = A^T B^T": ((A * B).T, A.T * B.T),
    "(A B)^{-1} = A^{-1} B^{-1}": ((A * B).I, A.I * B.I),
    "every invertible C is orthogonal": (C.I.T, C),
    # RoPE.
    "mismatched q/k frequencies": (rotation(s).T * rotation(t / 100), rotation(t - s)),
    "RoPE with theta^{+2i/d}": (rope_up(t), rope(t)),
    "R_d(s) R_d(t)^T = R_d(t - s)": (sp.MatMul(rope(s), rope(t).T, evaluate=False), rope(t - s)),
    "q and k rotated with different bases": (
        sp.MatMul(rope(s).T, rope(t, theta=500000), evaluate=False), rope(t - s)),
    "score sees s - t instead of t - s": (
        ((rope(s).as_explicit() * q_vec).T * (rope(t).as_explicit() * k_vec))[0],
        (q_vec.T * rope(s - t).as_explicit() * k_vec)[0]),
    # Damping.
    "identical damping is relative": (
        (zeta ** s * rotation(s)).T * (zeta ** t * rotation(t)), zeta ** (t - s) * rotation(t - s)),
    "identical damping is translation invariant": (
        (zeta ** s * rotation(s)).T * (zeta ** t * rotation(t)),
        (zeta ** (s + u) * rotation(s + u)).T * (zeta ** (t + u) * rotation(t + u))),
    "xPos with the scales swapped decays over causal lag": (
        xpos_pair(s, -1).T * xpos_pair(t, 1),
        sp.Rational(9, 14) ** ((s - t) / 512) * rotation((t - s) / 10)),
    "damped rotation decays for a negative lag too": (
        damped(a).T * damped(a), sp.exp(-2 * lam * sp.Abs(a)) * I2),
    # Branch cuts: true for positive reals only.
    "sqrt(x**2) = x for real x": (sp.sqrt(x ** 2), x),
    "log(exp(z)) = z for complex z": (sp.log(sp.exp(z)), z),
    # (for real a, b the claim holds wherever every function is real-valued: see
    # test_engine_certified.py; over C it fails at a = b = -1)
    "sqrt(a b) = sqrt(a) sqrt(b) for complex a, b": (sp.sqrt(z * w), sp.sqrt(z) * sp.sqrt(w)),
    "asin(sin(x)) = x": (sp.asin(sp.sin(x)), x),
    "exp(a + b) = exp(a) + exp(b)": (sp.exp(a + b), sp.exp(a) + sp.exp(b)),
}


def independent_difference(lhs, rhs, point) -> float:
    """max |lhs - rhs| at ``point``, substituted and evaluated here, at 30 digits."""
    matrices = {k: v for k, v in point.items() if isinstance(k, sp.MatrixSymbol)}
    scalars = {k: v for k, v in point.items() if not isinstance(k, sp.MatrixSymbol)}
    values = []
    for side in (lhs, rhs):
        side = explicit_matrix(sp.sympify(side).xreplace(scalars).xreplace(matrices))
        values.append(side)
    difference = values[0] - values[1]
    entries = list(difference) if isinstance(difference, sp.MatrixBase) else [difference]
    return max(float(abs(sp.N(entry, 30))) for entry in entries)


def test_there_are_at_least_thirty_false_claims():
    assert len(FALSE_CLAIMS) >= 30


@pytest.mark.parametrize("name", list(FALSE_CLAIMS))
def test_false_claim_is_refuted_with_a_real_counterexample(name):
    lhs, rhs = FALSE_CLAIMS[name]
    verdict = verify(lhs, rhs, budget=20)
    assert verdict.status == "refuted", verdict.explain()
    assert verdict.counterexample is not None
    assert all(v.is_number or isinstance(v, sp.MatrixBase)
               for v in verdict.counterexample.values())  # exact values, not floats
    assert independent_difference(lhs, rhs, verdict.counterexample) > 1e-12


def test_counterexample_check_is_not_vacuous():
    """The independent check reports zero on a true identity, so it can fail a bad refutation."""
    assert independent_difference(rotation(s).T * rotation(t), rotation(t - s),
                                  {s: sp.Rational(3, 2), t: sp.Rational(-5, 7)}) < 1e-25

