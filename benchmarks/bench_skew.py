"""Certified skew block decomposition vs mpmath's dense eigensolver, side by side.

Usage: ``python benchmarks/bench_skew.py [--sizes 16 32 64 128] [--eig-sizes 16 32 64] [--dps 60]``

For each n: the time of ``certified_skew_blocks`` (float64 eigh start, fixed-point Newton
refinement, exact residual certificate) and, where mpmath can finish, ``mpmath.eig`` of the
same matrix at the same precision (eigenvalues and eigenvectors, no certificate), with the
ratio eig / certified. Also the time of one exact integer product with ``exact_matmul``
against numpy's object-array product, and ``mpmath.matrix`` multiplication.
"""

from __future__ import annotations

import argparse
import time

import mpmath
import numpy as np

from symrope.linalg import certified_skew_blocks, exact_matmul, random_skew


def _timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 32, 64, 128])
    parser.add_argument("--eig-sizes", type=int, nargs="+", default=[16, 32, 64],
                        help="sizes at which mpmath.eig also runs (n=64 takes ~20 s)")
    parser.add_argument("--dps", type=int, default=60)
    args = parser.parse_args()
    print(f"dps = {args.dps}; X = A - A^T, A standard normal (seed 0)")
    print(f"{'n':>5} {'certified s':>12} {'sweeps':>6} {'||Q^TQ-I||_F':>13} "
          f"{'||Q^TXQ-B||_F':>14} {'mp.eig s':>9} {'eig/cert':>9} {'max|w - eig|':>13}")
    for n in args.sizes:
        X = random_skew(n, seed=0)
        certificate, seconds = _timed(lambda: certified_skew_blocks(X, dps=args.dps))  # noqa: B023
        assert certificate.certified, certificate.summary()
        eig_text, ratio_text, agree_text = "-", "-", "-"
        if n in args.eig_sizes:
            with mpmath.workdps(args.dps):
                matrix = mpmath.matrix(X.tolist())
                (values, _), eig_seconds = _timed(lambda: mpmath.eig(matrix))  # noqa: B023
                positive = sorted((v.imag for v in values if v.imag > 0), reverse=True)
                gap = max((abs(a - b) for a, b in zip(positive, certificate.omegas)),
                          default=mpmath.mpf(0))
            eig_text, ratio_text = f"{eig_seconds:9.2f}", f"{eig_seconds / seconds:9.1f}"
            agree_text = mpmath.nstr(gap, 3)
        print(f"{n:>5} {seconds:12.2f} {certificate.sweeps:>6} "
              f"{mpmath.nstr(certificate.orthogonality_bound, 3):>13} "
              f"{mpmath.nstr(certificate.residual_bound, 3):>14} {eig_text:>9} {ratio_text:>9} "
              f"{agree_text:>13}", flush=True)
    n = max(args.sizes)
    rng = np.random.default_rng(1)
    bits = certificate.bits
    A = np.array([[int(v) for v in row] for row in rng.integers(-2**62, 2**62, (n, n))],
                 dtype=object) << (bits - 62)
    _, exact_seconds = _timed(lambda: exact_matmul(A, A))
    _, object_seconds = _timed(lambda: A @ A)
    with mpmath.workdps(args.dps):
        M = mpmath.randmatrix(n)
        _, mp_seconds = _timed(lambda: M * M)
    print(f"\none {n}x{n} product of {bits}-bit integers: exact_matmul {exact_seconds:.3f} s, "
          f"numpy object @ {object_seconds:.3f} s (x{object_seconds / exact_seconds:.1f}), "
          f"mpmath.matrix * at {args.dps} dps {mp_seconds:.3f} s (x{mp_seconds / exact_seconds:.1f})")


if __name__ == "__main__":
    main()
