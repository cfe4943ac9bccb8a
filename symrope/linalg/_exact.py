"""Exact products of integer matrices, fast: float64 BLAS on 16-bit limbs, recombined exactly.

An integer matrix with entries of a few hundred bits is split into signed 16-bit limbs (each
a float64 integer). A limb product summed over ``m <= 2^20`` terms stays below
``2^32 m <= 2^52``, so every float64 operation of the BLAS product is exact (integers below
2^53 are exact whatever order or FMA the BLAS uses). The limb products are summed by shift in
int64, carried into 16-bit digits and read back as Python integers through bytes. This is the
error-free splitting idea of Ozaki, Ogita, Oishi and Rump (2012), used for exactness.

References
==========

.. [1] K. Ozaki, T. Ogita, S. Oishi, S. M. Rump, "Error-free transformations of matrix
       multiplication by using fast routines of matrix multiplication and its applications",
       Numerical Algorithms 59 (2012) 95-118.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exact_matmul"]

_WIDTH = 16                 # bits per limb: byte-aligned, and 2*16 + 20 <= 52
_MAX_INNER = 1 << 20        # longest dot product for which the float64 sums stay exact


def _limbs(matrix: np.ndarray) -> np.ndarray:
    """Signed limbs ``L[k]`` (float64) with ``matrix = sum_k L[k] 2^(16 k)``, ``|L[k]| < 2^16``."""
    magnitudes = np.abs(matrix).ravel()
    top = int(magnitudes.max()).bit_length() if magnitudes.size else 0
    count = max(1, -(-top // _WIDTH))
    size = 2 * count
    raw = b"".join([int(v).to_bytes(size, "little") for v in magnitudes])
    digits = np.frombuffer(raw, dtype="<u2").reshape(magnitudes.size, count).astype(np.int64)
    signs = np.where(matrix.ravel() < 0, -1, 1).astype(np.int64)
    limbs = (digits * signs[:, None]).T.reshape(count, *matrix.shape)
    return limbs.astype(np.float64)


def _from_digit_sums(sums: np.ndarray) -> np.ndarray:
    """Python integers ``sum_s sums[s] 2^(16 s)`` from int64 digit sums (any sign, < 2^62)."""
    count, rows, cols = sums.shape
    extra = 4  # room for the carries out of the top digit (sums are below 2^62)
    digits = np.zeros((count + extra, rows, cols), dtype=np.int64)
    digits[:count] = sums
    for s in range(count + extra - 1):
        carry = digits[s] >> _WIDTH            # floor division: digits become 0 .. 2^16 - 1
        digits[s] -= carry << _WIDTH
        digits[s + 1] += carry
    top = digits[-1]                           # 0 or -1 after the carries: the sign
    payload = np.ascontiguousarray(digits[:-1].transpose(1, 2, 0)).astype("<u2").tobytes()
    size = 2 * (count + extra - 1)
    shift = _WIDTH * (count + extra - 1)
    values = [int.from_bytes(payload[k * size:(k + 1) * size], "little") + (int(t) << shift)
              for k, t in enumerate(top.flat)]
    result = np.empty(rows * cols, dtype=object)
    result[:] = values
    return result.reshape(rows, cols)


def exact_matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` for object arrays of Python integers, exactly.

    Examples
    ========

    >>> import numpy as np
    >>> from symrope.linalg import exact_matmul
    >>> A = np.array([[2**200 + 1, -3], [5, 7]], dtype=object)
    >>> B = np.array([[1, 2**150], [-(2**90), 1]], dtype=object)
    >>> bool((exact_matmul(A, B) == A @ B).all())
    True
    """
    A = np.asarray(A, dtype=object)
    B = np.asarray(B, dtype=object)
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[0]:
        raise ValueError(f"cannot multiply {A.shape} by {B.shape}")
    if A.shape[1] > _MAX_INNER:
        return A @ B
    rows, cols = A.shape[0], B.shape[1]
    if A.size == 0 or B.size == 0:
        return np.zeros((rows, cols), dtype=object) + 0
    left, right = _limbs(A), _limbs(B)
    ka, kb = len(left), len(right)
    # One BLAS call for all limb pairs (many small calls thrash threads on a loaded machine).
    products = left.reshape(ka * rows, -1) @ np.hstack(list(right))
    products = products.astype(np.int64).reshape(ka, rows, kb, cols)
    sums = np.zeros((ka + kb - 1, rows, cols), dtype=np.int64)
    for i in range(ka):  # at most min(ka, kb) <= 2^9 terms of < 2^52 per shift: below 2^62
        sums[i:i + kb] += products[i].transpose(1, 0, 2)
    return _from_digit_sums(sums)
