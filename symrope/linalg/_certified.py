"""Certified numeric block decomposition of a real skew-symmetric matrix, for any size.

Pipeline (see README.md):

1. **float64 start.** ``numpy.linalg.eigh`` of the Hermitian matrix ``iX`` gives eigenvalues
   ``+-omega`` and complex eigenvectors ``v = x + iy``; for ``omega > 0``, ``sqrt(2) (x, y)``
   is an orthonormal pair with ``X x = omega y``, ``X y = -omega x``. The kernel gets the
   orthogonal complement of the planes (a complete QR).
2. **High-precision refinement** in fixed point (integers scaled by ``2^-F``, the number
   representation mpmath itself uses; numpy object arrays make the ``n^3`` products several
   times faster than ``mpmath.matrix``). Each sweep orthogonalises ``Q`` (Newton-Schulz,
   ``Q (3I - Q^T Q)/2``) and applies the Newton correction ``Q <- Q (I + K)``, ``K`` skew,
   solving ``omega_a J K_ab - K_ab omega_b J = -M_ab`` block by block for ``M = Q^T X Q``.
   The error squares each sweep; planes with (nearly) equal ``omega`` are left mixed (any
   orthonormal basis of a repeated plane pair is correct).
3. **Certificate.** ``Q`` and ``omega_i`` are dyadic rationals and ``X`` is read exactly
   (floats, integers, fractions are all rationals), so ``Q^T Q - I`` and ``Q^T X Q - B`` are
   computed *exactly* in integer arithmetic: no rounding at all. Their squared Frobenius
   norms are exact rationals, compared exactly with the tolerance; the reported norms are
   upper ends of mpmath interval square roots. From them, with interval arithmetic again,
   the perturbation bounds of :meth:`SkewCertificate.exp_error_bound`.

A certificate is a proved *error bound* for this ``Q`` -- not an exact factorisation.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from symrope._typing import MatrixLike
from symrope.errors import UsageError
from symrope.linalg._exact import exact_matmul
from symrope.linalg._refine import (float_start, orthogonalise, rounded_ratio, shift_round,
                                    split_kernel, sweep, to_fixed)

_mm = exact_matmul

__all__ = ["SkewCertificate", "certified_skew_blocks", "exact_rational_matrix",
           "random_skew", "DEFAULT_DPS", "DEFAULT_TOLERANCE"]

DEFAULT_DPS = 60
DEFAULT_TOLERANCE = mpmath.mpf(10) ** -40
_GUARD_BITS = 24
_MAX_SWEEPS = 12
_FIRST_SWEEP_BITS = 128  # float64 start (~2^-50) -> ~2^-100 after one sweep


def _entry_fraction(value, where) -> Fraction:
    """One entry as an exact rational (floats and mpf values are dyadic rationals)."""
    if isinstance(value, (bool, np.bool_)):
        raise UsageError(f"X{where} is a boolean, not a number")
    if isinstance(value, (int, np.integer, Fraction)):
        return Fraction(int(value)) if not isinstance(value, Fraction) else value
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise UsageError(f"X{where} = {value} is not finite")
        return Fraction(float(value))
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise UsageError(f"X{where} = {value} is not finite")
        mantissa, exponent = value.man_exp if value else (0, 0)
        return Fraction(mantissa) * Fraction(2) ** exponent
    try:  # SymPy numbers without importing SymPy here
        if getattr(value, "is_Rational", False):
            return Fraction(int(value.p), int(value.q))
        if getattr(value, "is_Float", False):
            return _entry_fraction(mpmath.mpf(value._mpf_), where)
    except (TypeError, ValueError):
        pass
    raise UsageError(f"X{where} = {value!r} is not an exact real number (use ints, floats, "
                     "fractions or mpf; symbolic entries belong to symrope.linalg.skew_blocks_exact)")


def exact_rational_matrix(X: MatrixLike) -> tuple[np.ndarray, int]:
    """``X`` as ``(numerators, D)`` with ``X = numerators / D`` exactly (object array of ints).

    Raises :class:`~symrope.errors.UsageError` unless ``X`` is square and exactly skew-symmetric.

    Examples
    ========

    >>> from fractions import Fraction
    >>> from symrope.linalg import exact_rational_matrix
    >>> numerators, D = exact_rational_matrix([[0, 0.5], [-0.5, 0]])
    >>> numerators.tolist(), D
    ([[0, 1], [-1, 0]], 2)
    >>> exact_rational_matrix([[0, Fraction(1, 3)], [Fraction(-1, 3), 0]])[1]
    3
    """
    if isinstance(X, mpmath.matrix):
        rows = [[X[i, j] for j in range(X.cols)] for i in range(X.rows)]
    elif hasattr(X, "tolist"):
        rows = X.tolist()
    else:
        rows = [list(row) for row in X]
    n = len(rows)
    if n == 0:
        raise UsageError("X is empty: a skew-symmetric matrix needs at least one row")
    lengths = sorted({len(row) for row in rows})
    if lengths != [n]:
        raise UsageError(f"X must be square to be skew-symmetric, got {n} rows of length "
                         f"{' or '.join(map(str, lengths))}")
    fractions = [[_entry_fraction(rows[i][j], [i, j]) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i, n):
            if fractions[i][j] != -fractions[j][i]:
                raise UsageError(f"X is not skew-symmetric: X[{i}, {j}] = {rows[i][j]} but "
                                 f"X[{j}, {i}] = {rows[j][i]} (X^T must equal -X; "
                                 "(X - X.T)/2 is the skew part)")
    denominator = 1
    for row in fractions:
        for value in row:
            denominator = math.lcm(denominator, value.denominator)
    numerators = np.empty((n, n), dtype=object)
    for i in range(n):
        for j in range(n):
            numerators[i, j] = fractions[i][j].numerator * (denominator // fractions[i][j].denominator)
    return numerators, denominator


def random_skew(n: int, seed: int = 0, omegas: Sequence[int | Fraction] | None = None
                ) -> np.ndarray | list[list[Fraction]]:
    """A reproducible skew matrix of size ``n``.

    Without ``omegas``: the float64 matrix ``A - A^T`` for a standard normal ``A`` (exactly
    skew: float subtraction is antisymmetric). With ``omegas`` (at most ``n // 2`` rational
    frequencies; repeats give degenerate planes, fewer than ``n // 2`` give a kernel): the
    *exact* rational matrix ``H diag(omega_i J, 0) H^T`` for a Householder reflection ``H`` with
    a random integer vector, as nested lists of :class:`fractions.Fraction` (a float matrix
    would split repeated frequencies and zero eigenvalues by rounding).

    Examples
    ========

    >>> from symrope.linalg import random_skew
    >>> X = random_skew(3, seed=1, omegas=[2])
    >>> all(X[i][j] == -X[j][i] for i in range(3) for j in range(3))
    True
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise UsageError(f"n must be a positive integer, got {n!r}")
    rng = np.random.default_rng(seed)
    if omegas is None:
        A = rng.standard_normal((n, n))
        return A - A.T
    omegas = [Fraction(w) for w in omegas]
    if 2 * len(omegas) > n:
        raise UsageError(f"{len(omegas)} frequencies do not fit in dimension {n}")
    denominator = 1
    for omega in omegas:
        denominator = math.lcm(denominator, omega.denominator)
    B = np.zeros((n, n), dtype=object)
    for i, omega in enumerate(omegas):
        value = int(omega * denominator)
        B[2 * i + 1, 2 * i], B[2 * i, 2 * i + 1] = value, -value
    v = rng.integers(-3, 4, size=n)
    v[0] = v[0] or 1
    norm_squared = int(v @ v)
    H = np.array([[norm_squared * (i == j) - 2 * int(v[i]) * int(v[j]) for j in range(n)]
                  for i in range(n)], dtype=object)      # H_exact = H / norm_squared
    numerators = exact_matmul(exact_matmul(H, B), H.T)
    scale = denominator * norm_squared ** 2
    return [[Fraction(int(numerators[i, j]), scale) for j in range(n)] for i in range(n)]


@dataclass(frozen=True)
class SkewCertificate:
    """A dyadic ``Q`` and ``omega_i`` with rigorously bounded residuals for an exact ``X``.

    All norms are Frobenius norms. ``orthogonality_squared`` and ``residual_squared`` are the
    *exact* rationals ``||Q^T Q - I||^2`` and ``||Q^T X Q - B||^2``; ``*_bound`` are mpmath
    upper bounds of their square roots. ``certified`` is the exact comparison with
    ``tolerance`` (``||Q^T Q - I|| <= tol`` and ``||Q^T X Q - B|| <= tol ||X||``).
    """

    n: int
    planes: int
    bits: int
    q_numerators: np.ndarray       # Q = q_numerators / 2^bits
    omega_numerators: tuple        # omega_i = omega_numerators[i] / 2^omega_bits
    x_norm_squared: Fraction
    orthogonality_squared: Fraction
    residual_squared: Fraction
    tolerance: object
    sweeps: int
    seconds: float
    omega_bits: int                # resolution of the omega_i: finer than Q's for a small X

    @property
    def kernel_dimension(self) -> int:
        return self.n - 2 * self.planes

    @property
    def omegas(self) -> list:
        """The frequencies as mpmath numbers (exact: they are dyadic)."""
        return [mpmath.ldexp(mpmath.mpf(w), -self.omega_bits) for w in self.omega_numerators]

    @property
    def omega_fractions(self) -> list[Fraction]:
        return [Fraction(w, 1 << self.omega_bits) for w in self.omega_numerators]

    def Q(self) -> mpmath.matrix:
        """``Q`` as an mpmath matrix (exact at the working precision's ``bits``)."""
        with mpmath.workprec(self.bits + 64):
            return mpmath.matrix([[mpmath.ldexp(mpmath.mpf(int(v)), -self.bits) for v in row]
                                  for row in self.q_numerators])

    def q_fractions(self) -> list[list[Fraction]]:
        return [[Fraction(int(v), 1 << self.bits) for v in row] for row in self.q_numerators]

    @property
    def orthogonality_bound(self) -> mpmath.mpf:
        return _sqrt_upper(self.orthogonality_squared)

    @property
    def residual_bound(self) -> mpmath.mpf:
        return _sqrt_upper(self.residual_squared)

    @property
    def x_norm(self) -> mpmath.mpf:
        return _sqrt_upper(self.x_norm_squared)

    @property
    def certified(self) -> bool:
        tol = _entry_fraction(mpmath.mpf(self.tolerance), "")
        return (self.orthogonality_squared <= tol * tol and
                self.residual_squared <= tol * tol * self.x_norm_squared)

    def block_error_bound(self) -> mpmath.mpf:
        """``eta``: an exactly orthogonal ``U`` has ``||U^T X U - B||_2 <= eta``.

        With ``e1 = ||Q^T Q - I||`` (< 1) and ``e2 = ||Q^T X Q - B||``: ``Q = U P`` (polar),
        ``||P - I|| <= e1``, ``||P^-1 - I|| <= d = e1/(1 - e1)``, and
        ``U^T X U - B = E + (P^-1 - I) M P^-1 + M (P^-1 - I)`` with ``M = Q^T X Q``, so
        ``eta = e2 + (max omega + e2) d (2 + d)``. Computed in interval arithmetic (upper end).
        """
        with _interval_precision(self.bits + 64) as iv:
            e1, e2 = iv.mpf(self.orthogonality_bound), iv.mpf(self.residual_bound)
            if e1.b >= 1:
                raise UsageError("Q is too far from orthogonal (||Q^T Q - I|| >= 1) for a bound")
            top = iv.mpf(max(self.omegas, default=mpmath.mpf(0)))
            d = e1 / (1 - e1)
            eta = e2 + (top + e2) * d * (2 + d)
            return _upper_end(eta, self.bits + 64)

    def exp_error_bound(self, p: int | float | Fraction) -> mpmath.mpf:
        """Upper bound of ``||e^{pX} - Q diag(R(p omega_i), 1) Q^T||_2``, for any real ``p``.

        ``e^{pX} = U e^{pB'} U^T`` with ``B' = U^T X U`` skew, ``||e^{pB'} - e^{pB}|| <= |p| eta``
        (both exponentials orthogonal), and ``||U - Q|| <= e1``: the bound is
        ``|p| eta + e1 (2 + e1)``, in interval arithmetic.
        """
        with _interval_precision(self.bits + 64) as iv:
            e1 = iv.mpf(self.orthogonality_bound)
            bound = abs(iv.mpf(str(p))) * iv.mpf(self.block_error_bound()) + e1 * (2 + e1)
            return _upper_end(bound, self.bits + 64)

    def exponential(self, p: int | float | Fraction) -> tuple[mpmath.matrix, mpmath.mpf]:
        """``Q diag(R(p omega_i), 1) Q^T`` as an mpmath matrix, with a bound on its distance to e^{pX}.

        Returns ``(E, bound)`` with ``||E - e^{pX}||_2 <= bound``: :meth:`exp_error_bound` plus
        the rounding of ``cos``, ``sin`` (``2^-bits`` each, so ``||D~ - D||_2 <= 2^(1-bits)``,
        times ``||Q||_2^2 <= (1 + e1)^2``) and of the result's entries (``n 2^-(bits+1)`` in
        Frobenius norm); the products themselves are exact.

        Examples
        ========

        >>> from symrope.linalg import certified_skew_blocks
        >>> cert = certified_skew_blocks([[0, -1], [1, 0]], dps=30)
        >>> E, bound = cert.exponential(3)
        >>> import mpmath
        >>> mpmath.nstr(E[1, 0], 25), mpmath.nstr(E[0, 0], 25)  # sin 3, cos 3
        ('0.1411200080598672221007448', '-0.9899924966004454572715728')
        >>> bound < 1e-35
        True
        """
        bits, one = self.bits, 1 << self.bits
        rotated = self.q_numerators.copy()
        size = int(abs(Fraction(str(p)) if not isinstance(p, Fraction) else p)).bit_length()
        with mpmath.workprec(bits + 64 + size):  # cos(p w) for large p needs p's bits too
            angle_scale = mpmath.mpf(str(p)) if not isinstance(p, Fraction) else \
                mpmath.mpf(p.numerator) / p.denominator
            for a, omega in enumerate(self.omegas):
                c, s = mpmath.cos(angle_scale * omega), mpmath.sin(angle_scale * omega)
                c, s = int(mpmath.nint(mpmath.ldexp(c, bits))), int(mpmath.nint(mpmath.ldexp(s, bits)))
                first = self.q_numerators[:, 2 * a].copy()
                second = self.q_numerators[:, 2 * a + 1].copy()
                rotated[:, 2 * a] = first * c + second * s
                rotated[:, 2 * a + 1] = second * c - first * s
            for z in range(2 * self.planes, self.n):
                rotated[:, z] = self.q_numerators[:, z] * one
        product = shift_round(_mm(rotated, self.q_numerators.T), 2 * bits)
        with mpmath.workprec(bits + 64):
            E = mpmath.matrix([[mpmath.ldexp(mpmath.mpf(int(v)), -bits) for v in row]
                               for row in product])
        with _interval_precision(bits + 64) as iv:
            e1 = iv.mpf(self.orthogonality_bound)
            rounding = (1 + e1) ** 2 * iv.ldexp(iv.mpf(1), 1 - bits) + \
                iv.mpf(self.n) * iv.ldexp(iv.mpf(1), -bits - 1)
            total = iv.mpf(self.exp_error_bound(p)) + rounding
            return E, _upper_end(total, bits + 64)

    def summary(self) -> str:
        state = "certified" if self.certified else "NOT certified"
        return (f"n={self.n}: {self.planes} planes, kernel {self.kernel_dimension}; "
                f"||Q^T Q - I||_F <= {mpmath.nstr(self.orthogonality_bound, 3)}, "
                f"||Q^T X Q - B||_F <= {mpmath.nstr(self.residual_bound, 3)} "
                f"(||X||_F = {mpmath.nstr(self.x_norm, 6)}); {state} at tolerance "
                f"{mpmath.nstr(self.tolerance, 3)}; {self.sweeps} sweeps, {self.seconds:.2f} s")


@contextlib.contextmanager
def _interval_precision(bits: int):
    """mpmath's interval context at ``bits`` bits, restoring its previous precision after."""
    iv = mpmath.iv
    saved = iv.prec
    iv.prec = bits
    try:
        yield iv
    finally:
        iv.prec = saved


def _upper_end(interval, bits: int):
    """The interval's upper end as an mpf, exactly (converting at 53 bits could round it down)."""
    with mpmath.workprec(bits):
        return mpmath.mpf(interval.b)


def _sqrt_upper(value: Fraction):
    """An mpmath upper bound of ``sqrt(value)`` (interval arithmetic on the exact rational)."""
    with _interval_precision(128) as iv:
        interval = iv.mpf(value.numerator) / iv.mpf(value.denominator)
        return _upper_end(iv.sqrt(interval), 128)


def certified_skew_blocks(X: MatrixLike, *, dps: int = DEFAULT_DPS,
                          tolerance: float | mpmath.mpf | None = None,
                          zero_tolerance: float = 1e-9) -> SkewCertificate:
    """Decompose ``Q^T X Q = diag(omega_i J, 0)`` and certify it at ``dps`` digits.

    Parameters
    ==========

    X : square array-like of exact reals (floats, ints, fractions, mpf, SymPy rationals)
        Must be exactly skew-symmetric; it is read exactly, never rounded.
    dps : int
        Working precision in decimal digits (fixed-point bits ``~3.32 dps + 24``).
    tolerance : number, optional
        Certified when ``||Q^T Q - I||_F <= tol`` and ``||Q^T X Q - B||_F <= tol ||X||_F``
        (default ``1e-40``, or ``10^(-2 dps / 3)`` when ``dps`` is given).
    zero_tolerance : float
        Eigenvalues of ``iX`` below ``zero_tolerance * n * max|X_ij|`` in float64 count as zero
        (kernel directions). A genuinely tiny ``omega`` below it shows up as an uncertified
        residual, never as a wrong certificate.

    Returns
    =======

    SkewCertificate
        Check ``.certified``; the bounds are rigorous whatever its value.

    Examples
    ========

    >>> from symrope.linalg import certified_skew_blocks
    >>> cert = certified_skew_blocks([[0, -3, 0], [3, 0, 4], [0, -4, 0]], dps=30)
    >>> cert.certified, cert.planes, cert.kernel_dimension
    (True, 1, 1)
    >>> float(cert.omegas[0])
    5.0
    >>> cert.residual_bound < 1e-25
    True

    References
    ==========

    .. [1] N. J. Higham, Functions of Matrices, SIAM 2008, chapter 8 (polar decomposition).
    """
    start = time.monotonic()
    if not isinstance(dps, int) or dps < 20:
        raise UsageError(f"dps must be an integer of at least 20, got {dps!r}")
    numerators, denominator = exact_rational_matrix(X)
    n = numerators.shape[0]
    if tolerance is None:
        tolerance = DEFAULT_TOLERANCE if dps == DEFAULT_DPS else mpmath.mpf(10) ** (-(2 * dps) // 3)
    tolerance = mpmath.mpf(tolerance)
    if not tolerance > 0:
        raise UsageError(f"tolerance must be positive, got {tolerance}")
    bits = math.ceil(dps * math.log2(10)) + _GUARD_BITS
    one = 1 << bits
    # Work with X scaled by a power of two so its largest entry is in [1/2, 1): exact.
    largest = max((abs(int(v)) for v in numerators.flat), default=0)
    exponent = (largest.bit_length() - denominator.bit_length()) if largest else 0
    floats = np.array([[float(Fraction(int(v), denominator)) for v in row] for row in numerators])
    Q0, planes = float_start(floats, zero_tolerance)
    x_fixed = np.array([[rounded_ratio(int(v) * one, denominator << exponent) if exponent >= 0
                         else rounded_ratio((int(v) * one) << -exponent, denominator)
                         for v in row] for row in numerators], dtype=object)
    # Newton squares the error: stop once the last correction, squared, is far below the tolerance.
    target = max(1, int(mpmath.ldexp(mpmath.sqrt(tolerance / (1000 * n)), bits)))
    sweeps, precision = 0, min(bits, _FIRST_SWEEP_BITS)
    Q = to_fixed(Q0, precision)
    if largest:
        # A kernel block left with entries above this holds tiny planes (e.g. zero frequencies
        # split by float rounding of X): they are split off and refined like the others.
        negligible = max(1, int(mpmath.ldexp(tolerance / 100, bits)))
        while sweeps < _MAX_SWEEPS:
            sweeps += 1
            # Early sweeps only need about twice the accuracy they start from: cheaper limbs.
            Q, K = sweep(Q, x_fixed >> (bits - precision), planes, precision)
            if precision < bits:
                grown = min(bits, 2 * precision)
                Q, precision = Q << (grown - precision), grown
            elif max((abs(v) for v in K.flat), default=0) < target:
                Q, found = split_kernel(Q, x_fixed, planes, bits, negligible, zero_tolerance)
                if not found:
                    break
                planes += found
        Q = orthogonalise(Q, bits)
    else:
        Q = Q << (bits - precision)
    # The omega_i need a resolution relative to the size of X (2^exponent), not absolute.
    return _certify(numerators, denominator, Q, planes, bits, tolerance, sweeps,
                    time.monotonic() - start, omega_bits=bits + max(0, -exponent))


def _certify(numerators, denominator, Q, planes, bits, tolerance, sweeps, seconds,
             omega_bits=None):
    """Exact residuals of the dyadic ``Q`` against the exact ``X`` (no rounding anywhere)."""
    n = Q.shape[0]
    one = 1 << bits
    omega_bits = bits if omega_bits is None else omega_bits
    gram = _mm(Q.T, Q)
    for i in range(n):
        gram[i, i] -= one * one
    orthogonality = Fraction(sum(int(v) * int(v) for v in gram.flat), 1 << (4 * bits))
    M = _mm(Q.T, _mm(numerators, Q)) << omega_bits  # Q^T X Q = M / (D 2^(2 bits + omega_bits))
    scale = denominator * one * one                   # B = omega_int J / 2^omega_bits
    omegas = tuple(rounded_ratio(int(M[2 * a + 1, 2 * a] - M[2 * a, 2 * a + 1]), 2 * scale)
                   for a in range(planes))
    for a, omega in enumerate(omegas):
        M[2 * a + 1, 2 * a] -= omega * scale
        M[2 * a, 2 * a + 1] += omega * scale
    residual = Fraction(sum(int(v) * int(v) for v in M.flat), (scale << omega_bits) ** 2)
    x_norm = Fraction(sum(int(v) * int(v) for v in numerators.flat), denominator ** 2)
    return SkewCertificate(n, planes, bits, Q, omegas, x_norm, orthogonality, residual,
                           tolerance, sweeps, seconds + 0.0, omega_bits)
