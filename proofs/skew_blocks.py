"""Theorem 5 as proof items: ``pytest proofs/skew_blocks.py``.

A real skew-symmetric X is Q diag(w_i J, 0) Q^T with Q orthogonal, and e^{pX} follows: exactly
for a symbolic axis and for small rational matrices, with certified error bounds for any n.
"""

from symrope.testing import proof
from symrope.theorems import get_theorem


@proof(explicit=[False, True])
def skew_blocks_of_an_axis(explicit):
    """The cross-product matrix of (a, b, c); ``explicit`` also checks E' = X E entrywise."""
    return get_theorem("skew_blocks_axis").build(explicit=explicit)


@proof(n=[3, 4, 5], kind=["distinct", "repeated", "singular"])
def skew_blocks_of_rational_matrices(n, kind):
    return get_theorem("skew_blocks_rational").build(n=n, kind=kind)


@proof(n=[8, 17], kind=["random", "repeated", "singular"])
def skew_blocks_certified_numerically(n, kind):
    return get_theorem("skew_blocks_certified").build(n=n, kind=kind)


@proof(expect="refuted")
def a_too_strict_tolerance_is_refuted():
    """At 30 digits the residuals (~1e-37) cannot meet the tolerance of 1e-40 stated here."""
    import sympy as sp

    from symrope.engine import Theorem
    from symrope.linalg import certified_skew_blocks, random_skew

    certificate = certified_skew_blocks(random_skew(8, seed=1), dps=30)
    tolerance = sp.Rational(1, 10**40)
    thm = Theorem("too_strict", "||Q^T Q - I||_F <= 1e-40 for a Q refined at 30 digits (false)")
    residual = certificate.orthogonality_squared
    squared = sp.Rational(residual.numerator, residual.denominator)
    thm.check(sp.Max(squared / tolerance**2 - 1, 0), 0,
              "exact rational comparison of the exact squared residual with tol^2",
              claim="max(||Q^T Q - I||_F^2 / tol^2 - 1, 0) = 0")
    return thm
