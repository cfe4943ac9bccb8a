"""Theorem 5: block decomposition of real skew-symmetric matrices, exact and certified."""

import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from symrope.errors import UsageError
from symrope.linalg import (J, certified_skew_blocks, conjugated_skew, exact_matmul,
                            random_skew, skew_blocks_exact)
from symrope.linalg._certified import _certify
from symrope.theorems import get_theorem


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("matrix, message", [
    ([[0, 2], [3, 0]], "not skew-symmetric: X[0, 1] + X[1, 0] = 5"),
    ([[1, 0], [0, 0]], "X[0, 0] + X[0, 0] = 2"),
    ([[0, 1, 2], [-1, 0, 3]], "must be square"),
])
def test_exact_path_rejects_non_skew_input(matrix, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        skew_blocks_exact(matrix)


def test_certified_path_rejects_non_skew_and_non_finite_input():
    almost = np.array([[0.0, 1.0], [-1.0 + 2**-40, 0.0]])
    with pytest.raises(UsageError, match=r"not skew-symmetric: X\[0, 1\] = 1.0 but X\[1, 0\]"):
        certified_skew_blocks(almost)
    with pytest.raises(UsageError, match="not finite"):
        certified_skew_blocks(np.array([[0.0, np.nan], [np.nan, 0.0]]))
    with pytest.raises(UsageError, match="square"):
        certified_skew_blocks(np.zeros((2, 3)))
    with pytest.raises(UsageError, match="dps"):
        certified_skew_blocks(random_skew(4), dps=5)


def test_symbolic_entries_are_sent_to_the_closed_forms():
    a = sp.Symbol("a", real=True)
    with pytest.raises(UsageError, match="numeric entries"):
        skew_blocks_exact([[0, -a], [a, 0]])


# ----------------------------------------------------------------------------- exact

def test_exact_decomposition_of_a_rank_two_3x3():
    blocks = skew_blocks_exact([[0, -3, 0], [3, 0, 4], [0, -4, 0]])
    assert blocks.omegas == (5,)
    assert blocks.Q.T * blocks.Q == sp.eye(3)
    assert blocks.Q.T * blocks.X * blocks.Q == sp.diag(5 * J, 0)
    # The kernel column is the axis (4, 0, 3)/5 up to sign: X (4, 0, 3) = 0.
    assert [abs(v) for v in blocks.Q[:, 2]] == [sp.Rational(4, 5), 0, sp.Rational(3, 5)]


@pytest.mark.parametrize("omegas, n", [([2, 2], 4), ([3, 1], 5), ([1, 1, 1], 7)])
def test_exact_decomposition_recovers_the_frequencies(omegas, n):
    X = conjugated_skew(omegas, n, [(1, 2, 0, 1, 1, 0, 1)[:n], (1, 0, 1, 2, 0, 1, 1)[:n]])
    blocks = skew_blocks_exact(X)
    assert sorted(blocks.omegas, reverse=True) == sorted(omegas, reverse=True)
    assert list(blocks.omegas) == sorted(blocks.omegas, reverse=True)
    assert (blocks.Q.T * blocks.Q - sp.eye(n)).applyfunc(sp.radsimp).is_zero_matrix
    assert (blocks.Q.T * X * blocks.Q - blocks.B).applyfunc(sp.radsimp).is_zero_matrix


def test_irrational_frequencies_stay_exact():
    # omega^2 = 2 for the axis (1, 1, 0): Q has sqrt(2) entries, still exactly orthogonal.
    blocks = skew_blocks_exact([[0, 0, 1], [0, 0, -1], [-1, 1, 0]])
    assert blocks.omegas == (sp.sqrt(2),)
    assert (blocks.Q.T * blocks.Q - sp.eye(3)).applyfunc(sp.radsimp).is_zero_matrix


# ----------------------------------------------------------------------------- certified

def test_certified_64x64_random_matrix():
    X = random_skew(64, seed=3)
    certificate = certified_skew_blocks(X, dps=60)
    assert certificate.certified
    assert certificate.planes == 32 and certificate.kernel_dimension == 0
    assert certificate.orthogonality_bound < mpmath.mpf(10) ** -60
    assert certificate.residual_bound < mpmath.mpf(10) ** -40 * certificate.x_norm
    # The frequencies agree with float64 eigenvalues of iX (to float accuracy).
    reference = np.sort(np.linalg.eigvalsh(1j * X))[::-1][:32]
    assert np.allclose([float(w) for w in certificate.omegas], reference, rtol=1e-12, atol=1e-12)


def test_certified_repeated_and_zero_frequencies_of_an_exact_matrix():
    X = random_skew(40, seed=5, omegas=[3] * 6 + [2] * 6 + [Fraction(1, 2)])
    certificate = certified_skew_blocks(X)
    assert certificate.certified
    assert certificate.planes == 13 and certificate.kernel_dimension == 14
    expected = [3] * 6 + [2] * 6 + [Fraction(1, 2)]
    for omega, exact in zip(certificate.omega_fractions, expected):
        assert abs(omega - exact) < Fraction(1, 10**50)


def test_odd_dimension_has_a_kernel():
    certificate = certified_skew_blocks(random_skew(9, seed=2))
    assert certificate.certified and certificate.planes == 4 and certificate.kernel_dimension == 1


def test_zero_matrix():
    certificate = certified_skew_blocks(np.zeros((3, 3)))
    assert certificate.certified and certificate.planes == 0
    assert certificate.residual_squared == 0 and certificate.orthogonality_squared == 0


def test_residuals_agree_with_an_independent_mpmath_computation():
    X = random_skew(8, seed=7)
    certificate = certified_skew_blocks(X, dps=40)
    with mpmath.workdps(120):
        Q, Xm = certificate.Q(), mpmath.matrix(X.tolist())
        B = mpmath.zeros(8, 8)
        for a, omega in enumerate(certificate.omegas):
            B[2 * a + 1, 2 * a], B[2 * a, 2 * a + 1] = omega, -omega
        residual = mpmath.mnorm(Q.T * Xm * Q - B, "f")
        orthogonality = mpmath.mnorm(Q.T * Q - mpmath.eye(8), "f")
        slack = 1 + mpmath.mpf(10) ** -30
        # The exact bounds are within rounding of the true norms: never below them.
        assert residual <= certificate.residual_bound <= residual * slack
        assert orthogonality <= certificate.orthogonality_bound <= orthogonality * slack


def test_a_perturbed_q_loses_its_certificate():
    X = random_skew(6, seed=1)
    good = certified_skew_blocks(X)
    numerators = np.array([[int(Fraction(v) * 2**60) for v in row] for row in X.tolist()],
                          dtype=object)
    tampered = good.q_numerators.copy()
    tampered[0, 0] += 1 << (good.bits - 100)       # change one entry by 2^-100
    bad = _certify(numerators, 2**60, tampered, good.planes, good.bits, good.tolerance, 0, 0.0)
    assert good.certified and not bad.certified
    assert bad.orthogonality_bound > mpmath.mpf(2) ** -101


def _float_conjugated(n, frequencies, seed):
    rng = np.random.default_rng(seed)
    H, _ = np.linalg.qr(rng.standard_normal((n, n)))
    B = np.zeros((n, n))
    for i, omega in enumerate(frequencies):
        B[2 * i + 1, 2 * i], B[2 * i, 2 * i + 1] = omega, -omega
    X = H @ B @ H.T
    return (X - X.T) / 2


def test_float_rounding_that_splits_a_repeated_frequency_is_resolved():
    # In float64 a "repeated" frequency is really two frequencies ~1e-16 apart: float64
    # eigenvectors cannot separate them, the cluster step (a small Hermitian eig) does.
    certificate = certified_skew_blocks(_float_conjugated(6, [1.0, 1.0, 2.5], seed=0))
    assert certificate.certified and certificate.planes == 3
    omegas = sorted(float(w) for w in certificate.omegas)
    assert omegas == pytest.approx([1.0, 1.0, 2.5], abs=1e-14)


def test_float_rounding_of_zero_frequencies_gives_tiny_planes_not_a_false_kernel():
    # H diag(J, 2J, 0_5) H^T rounded to float64 is no longer of rank 4: its "zero" frequencies
    # are ~1e-17. They are certified as the tiny planes they are.
    X = _float_conjugated(9, [2.0, 1.0], seed=1)
    certificate = certified_skew_blocks(X)
    assert certificate.certified
    big = sorted(float(w) for w in certificate.omegas if w > 1e-8)
    tiny = [w for w in certificate.omegas if w <= 1e-8]
    assert big == pytest.approx([1.0, 2.0], abs=1e-14)
    # Rounding leaves at least one tiny pair among the three "zero" pairs (n = 9 is odd, so
    # one exact zero always remains), and they are far below float64 resolution of X.
    assert len(big) == 2 and len(tiny) >= 1 and all(0 < w < 1e-14 for w in tiny)
    assert certificate.kernel_dimension >= 1


def test_exponential_bound_holds_against_mpmath_expm():
    X = random_skew(6, seed=4)
    certificate = certified_skew_blocks(X, dps=30)
    p = 1000
    with mpmath.workdps(80):
        Q = certificate.Q()
        D = mpmath.eye(6)
        for a, omega in enumerate(certificate.omegas):
            c, s = mpmath.cos(p * omega), mpmath.sin(p * omega)
            D[2 * a, 2 * a], D[2 * a, 2 * a + 1], D[2 * a + 1, 2 * a], D[2 * a + 1, 2 * a + 1] = \
                c, -s, s, c
        exact = mpmath.expm(p * mpmath.matrix(X.tolist()))
        error = mpmath.mnorm(exact - Q * D * Q.T, "f")
    bound = certificate.exp_error_bound(p)
    assert error <= bound < mpmath.mpf(10) ** -20
    assert bound > certificate.exp_error_bound(1)      # grows with |p|


# ----------------------------------------------------------------------------- exact products

def test_exact_matmul_matches_python_integers():
    rng = np.random.default_rng(0)
    A = np.array([[int(x) * 2**150 + int(y) for x, y in zip(r1, r2)] for r1, r2 in
                  zip(rng.integers(-2**40, 2**40, (70, 70)), rng.integers(-9, 9, (70, 70)))],
                 dtype=object)
    B = np.array([[int(x) for x in row] for row in rng.integers(-2**60, 2**60, (70, 5))],
                 dtype=object)
    assert (exact_matmul(A, B) == A @ B).all()


# ----------------------------------------------------------------------------- theorems

@pytest.mark.parametrize("name", ["skew_blocks_rational", "skew_blocks_certified"])
def test_default_instances_are_proved(name):  # skew_blocks_axis: proofs/skew_blocks.py
    report = get_theorem(name).build().prove()
    assert report.verdict == "proved", report.explain()
    assert report.cited_lemmas >= 1 and report.checked_steps >= 3


def test_certified_theorem_is_refuted_when_the_precision_cannot_meet_the_bound():
    # 30 digits leave residuals near 1e-37: asking for 1e-40 must fail, with evidence.
    report = get_theorem("skew_blocks_certified").build(n=8, dps=30, tolerance=sp.Rational(1, 10**40)).prove()
    assert report.verdict == "refuted"
    failed = [r for r in report.results if r.verdict is not None and not r.ok]
    assert failed and failed[0].step.claim.startswith("||Q^T Q - I||_F^2 <= tol^2")


def test_bad_theorem_parameters_are_usage_errors():
    with pytest.raises(UsageError, match="kind must be one of"):
        get_theorem("skew_blocks_rational").build(kind="sparse")
    with pytest.raises(UsageError, match="1 <= n <= 8"):
        get_theorem("skew_blocks_rational").build(n=40)


def test_certified_exponential_matches_mpmath_expm_within_its_bound():
    X = random_skew(5, seed=6)
    certificate = certified_skew_blocks(X, dps=40)
    for p in (1, -250, Fraction(7, 3)):
        E, bound = certificate.exponential(p)
        with mpmath.workdps(90):
            scale = mpmath.mpf(p.numerator) / p.denominator if isinstance(p, Fraction) else p
            error = mpmath.mnorm(E - mpmath.expm(scale * mpmath.matrix(X.tolist())), "f")
        assert error <= bound < mpmath.mpf(10) ** -30


def test_cli_proves_the_default_instances():
    from symrope.cli._prove import prove_main

    assert prove_main(["skew_blocks_rational", "skew_blocks_certified"]) == 0


def test_block_exponential_agrees_with_sympys_matrix_exponential():
    X = sp.Matrix([[0, -3, 0], [3, 0, 4], [0, -4, 0]])
    blocks = skew_blocks_exact(X)
    t = sp.Rational(2, 7)
    independent = (t * X).exp()     # SymPy's own exp (Jordan form), not our construction
    difference = (blocks.exponential(t) - independent).applyfunc(
        lambda e: sp.simplify(e.rewrite(sp.cos)))
    assert difference.is_zero_matrix


def test_axis_formula_is_undefined_on_the_z_axis_hence_the_separate_case():
    from symrope.linalg import axis_skew_blocks

    a, b, c = sp.symbols("a b c", real=True)
    Q = axis_skew_blocks(a, b, c).Q
    at_pole = Q.subs({a: 0, b: 0, c: 1})
    assert at_pole.has(sp.nan) or at_pole.has(sp.zoo)
    # Anywhere else it is orthogonal, e.g. at the rational point (1, 2, 2) with omega = 3.
    generic = Q.subs({a: 1, b: 2, c: 2})
    assert (generic.T * generic - sp.eye(3)).applyfunc(sp.radsimp).is_zero_matrix


@pytest.mark.parametrize("scale", [2.0**-600, 1e-30, 1e30])
def test_certificate_is_relative_to_the_size_of_x(scale):
    X = random_skew(10, seed=1)
    small_or_large = certified_skew_blocks(X * scale)
    unit = certified_skew_blocks(X)
    assert small_or_large.certified
    # X * 2^-600 is exact; X * 1e-30 is rounded to float64, so its frequencies move by ~1e-16.
    exact = scale == 2.0**-600
    with mpmath.workdps(80):
        for w_scaled, w in zip(small_or_large.omegas, unit.omegas):
            relative = abs(w_scaled / mpmath.mpf(scale) - w) / w
            assert relative < (mpmath.mpf(10) ** -50 if exact else 1e-14)


@pytest.mark.parametrize("gap", [Fraction(1, 10**5), Fraction(1, 10**12), Fraction(1, 10**30)])
def test_close_but_distinct_frequencies_are_separated(gap):
    # Planes 1e-30 apart: float64 sees one repeated frequency; the certificate resolves both.
    X = random_skew(12, seed=4, omegas=[1, 1 + gap, 2, 2, 0])
    certificate = certified_skew_blocks(X)
    assert certificate.certified and certificate.planes == 4
    low, high = sorted(certificate.omega_fractions)[:2]
    assert abs(low - 1) < Fraction(1, 10**55) and abs(high - 1 - gap) < Fraction(1, 10**55)
