"""Exact products of integer matrices, fast: float64 BLAS on short limbs, recombined exactly.

An integer matrix with entries of a few hundred bits is split into signed limbs of ``w`` bits
(each a float64 integer). A limb product summed over ``m`` terms stays below ``m 2^(2w)``, and
``w`` is chosen so this is below ``2^52``: every float64 operation of the BLAS product is then
exact (integers below 2^53 are exact whatever order or FMA the BLAS uses). The limb products
are recombined with Python integers. This is the error-free splitting idea of Ozaki, Ogita,
Oishi and Rump (2012), used here for exactness, not approximation.

References
==========

.. [1] K. Ozaki, T. Ogita, S. Oishi, S. M. Rump, "Error-free transformations of matrix
       multiplication by using fast routines of matrix multiplication and its applications",
       Numerical Algorithms 59 (2012) 95-118.
"""

from __future__ import annotations

import numpy as np

__all__ = ["exact_matmul"]


def _limbs(matrix: np.ndarray, width: int) -> list[np.ndarray]:
    """Signed limbs: ``matrix = sum_k limbs[k] * 2^(width k)``, each limb in ``(-2^w, 2^w)``."""
    signs = np.sign(matrix).astype(np.int64) if matrix.size else np.zeros(matrix.shape, np.int64)
    magnitudes = np.abs(matrix)
    top = int(magnitudes.max()).bit_length() if matrix.size else 0
    mask = (1 << width) - 1
    limbs = []
    for k in range(max(1, -(-top // width))):
        limb = ((magnitudes >> (width * k)) & mask).astype(np.int64) * signs
        limbs.append(limb.astype(np.float64))
    return limbs


def exact_matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` for object arrays of Python integers, exactly.

    Examples
    ========

    >>> import numpy as np
    >>> from symrope.linalg._exact import exact_matmul
    >>> A = np.array([[2**200 + 1, -3], [5, 7]], dtype=object)
    >>> B = np.array([[1, 2**150], [-(2**90), 1]], dtype=object)
    >>> bool((exact_matmul(A, B) == A @ B).all())
    True
    """
    A = np.asarray(A, dtype=object)
    B = np.asarray(B, dtype=object)
    inner = A.shape[1]
    if inner != B.shape[0]:
        raise ValueError(f"cannot multiply {A.shape} by {B.shape}")
    width = max(1, (52 - max(1, inner).bit_length()) // 2)
    left, right = _limbs(A, width), _limbs(B, width)
    rows, cols = A.shape[0], B.shape[1]
    # One BLAS call for all limb pairs (many small calls thrash threads on a loaded machine).
    products = (np.vstack(left) @ np.hstack(right)).astype(np.int64)  # exact: |entries| < 2^52
    products = products.reshape(len(left), rows, len(right), cols)
    result = np.zeros((rows, cols), dtype=object)
    for shift in range(len(left) + len(right) - 2, -1, -1):
        # At most min(len(left), len(right)) terms per shift: the int64 sum stays below 2^63.
        total = sum(products[i, :, shift - i, :] for i in range(len(left))
                    if 0 <= shift - i < len(right))
        result = (result << width) + total.astype(object)
    return result
