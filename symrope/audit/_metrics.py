"""Error measures of a float rotary table against the reference (docs/design.md, "Metrics of the audit").

Every function here works on one chunk of positions: arrays of shape (positions, pairs). The
streaming driver (``_driver.py``) folds the chunks into per-band summaries.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from symrope.audit._dtypes import (_BF16_DROPPED_BITS, _BF16_EXPONENT_SHIFT, _MAGNITUDE,
                                   _bf16_rounded_magnitude, round_to, widen)
from symrope.audit._models import numpy_dtype
from symrope.audit._reference import BLOCK_ROWS, row_blocks


def machine_epsilon(dtype: str | np.dtype | type) -> float:
    """Distance from 1 to the next float of ``dtype`` (bf16: 2**-7, fp32: 2**-23).

    Examples
    ========
    >>> machine_epsilon("bf16"), machine_epsilon("fp16")
    (0.0078125, 0.0009765625)
    """
    return float(ml_dtypes.finfo(numpy_dtype(dtype)).eps)


def rounding_floor(dtype: str | np.dtype | type, magnitude: float) -> float:
    """The largest error that correct rounding to ``dtype`` makes on values of size up to ``magnitude``.

    A table whose entries reach ``magnitude`` (cos at position 0 times the attention factor)
    cannot be more accurate than this in ``dtype``, however perfect its code: a tolerance below
    it measures the dtype, not the implementation. It is half the gap between the dtype's
    numbers around the largest values (YaRN's factor 1.1386 puts cos into bf16's [1, 2), where
    the gap is 2**-7), or less where ``magnitude`` stops short of that gap's midpoint.

    Examples
    ========
    >>> rounding_floor("bf16", 1.0), rounding_floor("bf16", 1.1386), rounding_floor("fp16", 1.1386)
    (0.001953125, 0.00390625, 0.00048828125)
    >>> rounding_floor("bf16", 1.001) == 2.0**-9     # [1, 1.001] is within 2**-9 of 1
    True
    """
    info = ml_dtypes.finfo(numpy_dtype(dtype))
    eps, tiny = float(info.eps), float(info.smallest_normal)
    magnitude = abs(float(magnitude))
    if magnitude < tiny:          # subnormal or zero: the fixed gap of the subnormals
        return min(magnitude, tiny * eps / 2)
    # the gap above the largest number of the dtype at most ``magnitude`` (``low``), and below it
    binade = 2.0 ** (math.frexp(magnitude)[1] - 1)            # the power of two at or below
    gap = binade * eps
    low = math.floor(magnitude / gap) * gap                    # exact: a power-of-two spacing
    gap_below = gap / 2 if low == binade and binade > tiny else gap
    return max(gap_below / 2, min(magnitude - low, gap / 2))


_SIGNED_OF_SIZE = {2: np.int16, 4: np.int32, 8: np.int64}


def ordinal(values: np.ndarray) -> np.ndarray:
    """Map floats to integers so that neighbouring floats differ by 1 (+0 and -0 both map to 0).

    Examples
    ========
    >>> import numpy as np
    >>> ordinal(np.array([-2**-24, -0.0, 0.0, 2**-24], dtype=np.float16)).tolist()  # smallest subnormals
    [-1, 0, 0, 1]
    """
    values = np.ascontiguousarray(values)
    signed = values.view(_SIGNED_OF_SIZE[values.dtype.itemsize])
    lowest = np.iinfo(signed.dtype).min
    # A negative float's pattern is lowest + magnitude, so lowest - pattern = -magnitude.
    return np.where(signed < 0, lowest - signed, signed).astype(np.int64)


def ulps_between(computed: np.ndarray, exact: np.ndarray, computed_wide: np.ndarray | None = None) -> np.ndarray:
    """How many floats of ``computed``'s dtype lie between it and the correctly rounded ``exact``.

    Parameters
    ==========
    computed : ndarray
        Values in the audited dtype (``ml_dtypes.bfloat16``, float16, float32, float64).
    exact : ndarray
        float64 values to round correctly to that dtype.
    computed_wide : ndarray, optional
        ``computed`` already converted to float64 (saves a conversion for bf16).

    Examples
    ========
    >>> import numpy as np, ml_dtypes
    >>> computed = np.array([1.0, 0.5, -0.25], dtype=np.float16)
    >>> exact = np.array([1.0, 0.5 + 3 * 2.0**-11, -0.25 - 2.0**-12])
    >>> ulps_between(computed, exact).tolist()
    [0, 3, 1]
    >>> ulps_between(np.array([0.5, 1.0], dtype=ml_dtypes.bfloat16), np.array([0.5 - 2.0**-9, 1.0])).tolist()
    [1, 0]
    >>> tiny = np.array([1e-10, -1e-10])       # agrees with counting bf16 bit patterns
    >>> zero = np.zeros(2, dtype=ml_dtypes.bfloat16)
    >>> ulps_between(zero, tiny).tolist() == np.abs(ordinal(tiny.astype(ml_dtypes.bfloat16))).tolist()
    True
    """
    computed = np.asarray(computed)
    if computed.dtype.name != "bfloat16":
        return np.abs(ordinal(computed) - ordinal(round_to(exact, computed.dtype)))
    if computed_wide is None:
        computed_wide = widen(computed)
    # Both sides as float64 magnitudes in units of a bf16 ulp: consecutive bf16 numbers differ by 1.
    # The float64 exponent range is wider than bf16's: shift so that bf16's smallest normal
    # number sits next to zero, as in bf16's own encoding (smaller values do not occur here).
    rounded = _bf16_rounded_magnitude(np.ascontiguousarray(exact, dtype=np.float64))
    rounded = np.maximum(rounded - _BF16_EXPONENT_SHIFT, 0, out=rounded)
    rounded = np.where(exact < 0, -rounded, rounded)
    mine = (np.ascontiguousarray(computed_wide).view(np.int64) & _MAGNITUDE) >> _BF16_DROPPED_BITS
    mine = np.maximum(mine - _BF16_EXPONENT_SHIFT, 0, out=mine)
    mine = np.where(computed_wide < 0, -mine, mine)
    mine -= rounded
    return np.abs(mine, out=mine)


def bits_of_error(computed: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """Herbie's bits of error: ``log2(1 + ulps)`` between ``computed`` and correctly rounded ``exact``.

    References
    ==========
    .. [1] P. Panchekha et al., "Automatically improving accuracy for floating point
       expressions", PLDI 2015 (Herbie).

    Examples
    ========
    >>> import numpy as np
    >>> computed = np.array([0.5, 0.5], dtype=np.float32)
    >>> bits_of_error(computed, np.array([0.5, 0.5 + 7 * 2.0**-24])).tolist()
    [0.0, 3.0]
    """
    return np.log2(1.0 + ulps_between(computed, exact))


def phase_error(cos: np.ndarray, sin: np.ndarray, exact_cos: np.ndarray,
                exact_sin: np.ndarray, scratch: np.ndarray | None = None,
                out: np.ndarray | None = None, dot: np.ndarray | None = None) -> np.ndarray:
    """The table's angle minus the exact angle, in (-pi, pi]: ``atan2`` of the table rotated back.

    Rotating the table entry by the exact angle's inverse and taking its argument gives the
    phase difference directly, without forming (and losing digits of) large angles.
    ``scratch`` and ``dot`` (same shape, float64) save allocations; ``out`` receives the result.

    Examples
    ========
    >>> import numpy as np
    >>> exact = np.array([2.0])
    >>> error = phase_error(np.cos(exact + 1e-3), np.sin(exact + 1e-3), np.cos(exact), np.sin(exact))
    >>> round(float(error[0]), 12)
    0.001
    """
    cross = np.multiply(sin, exact_cos, out=out)
    cross -= np.multiply(cos, exact_sin, out=scratch)
    dot = np.multiply(cos, exact_cos, out=dot)
    dot += np.multiply(sin, exact_sin, out=scratch)
    return np.arctan2(cross, dot, out=cross)


def amplitude_error(cos: np.ndarray, sin: np.ndarray, amplitude: float = 1.0,
                    scratch: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """``|sqrt(cos**2 + sin**2) - amplitude|``: the cast/scale error, blind to the angle (docs/design.md, principle 4c).

    ``scratch`` (same shape, float64) saves an allocation; ``out`` receives the result.

    Examples
    ========
    >>> import numpy as np
    >>> float(amplitude_error(np.array([0.6]), np.array([0.8]), 1.0)[0]) < 1e-15
    True
    """
    # in place, the same operations as np.abs(np.sqrt(cos * cos + sin * sin) - amplitude)
    result = np.multiply(cos, cos, out=out)
    result += np.multiply(sin, sin, out=scratch)
    np.sqrt(result, out=result)
    result -= amplitude
    return np.abs(result, out=result)


def random_query_key_weights(pairs: int, count: int, seed: int) -> np.ndarray:
    """Seeded unit queries and keys folded into per-pair weights ``conj(q_i) k_i``, shape (pairs, count).

    With pair ``i`` of a vector written as the complex number ``z_i``, the RoPE score is
    ``q^T R(t - s) k = Re sum_i conj(zq_i) zk_i e^{i omega_i (t - s)}``: the weights carry all
    that q and k contribute.
    """
    rng = np.random.default_rng(seed)
    queries = rng.standard_normal((count, pairs, 2))
    keys = rng.standard_normal((count, pairs, 2))
    queries /= np.linalg.norm(queries.reshape(count, -1), axis=1)[:, None, None]
    keys /= np.linalg.norm(keys.reshape(count, -1), axis=1)[:, None, None]
    zq = queries[..., 0] + 1j * queries[..., 1]
    zk = keys[..., 0] + 1j * keys[..., 1]
    return (np.conj(zq) * zk).T


def rotary_scores(first: np.ndarray, second: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Scores ``(R(s) q)^T (R(t) k)`` from two tables ``cos + i sin`` (rows matched), shape (rows, count).

    Per pair the score is ``Re(w_i conj(C_s) C_t)`` with the weights of
    :func:`random_query_key_weights`; one complex product and one complex matmul.

    Examples
    ========
    >>> import numpy as np
    >>> w = random_query_key_weights(4, 2, seed=0)
    >>> omega = 10000.0 ** (-np.arange(4) / 4)
    >>> s, t = 5.0, 12.0
    >>> first, second = np.exp(1j * s * omega)[None], np.exp(1j * t * omega)[None]
    >>> exact = (w * np.exp(1j * omega * (t - s))[:, None]).sum(axis=0).real
    >>> bool(np.allclose(rotary_scores(first, second, w)[0], exact))
    True
    """
    rows, pairs = np.broadcast_shapes(first.shape, second.shape)
    first, second = np.broadcast_to(first, (rows, pairs)), np.broadcast_to(second, (rows, pairs))
    scores = np.empty((rows, weights.shape[1]))
    product = np.empty((min(rows, BLOCK_ROWS), pairs), dtype=np.complex128)
    # Rows are independent: blocks of rows keep the product in cache (the same numbers).
    for block_rows in row_blocks(rows):
        block = product[:block_rows.stop - block_rows.start]
        np.conjugate(first[block_rows], out=block)      # into one buffer: no temporary per step
        block *= second[block_rows]
        # Re(product @ weights) as two real contractions in numpy's own loops: a BLAS zgemm of
        # this skinny shape costs twice the CPU (OpenBLAS threads spin against the audit's own
        # threads), and einsum sums over the pairs in order (the audit's numbers depend on it).
        real = np.einsum("ij,jk->ik", block.real, weights.real, optimize=False, out=scores[block_rows])
        real -= np.einsum("ij,jk->ik", block.imag, weights.imag, optimize=False)
    return scores


def log_bands(max_position: int, first: int = 1024) -> list[tuple[int, int]]:
    """Inclusive position bands ``[0, first-1], [first, 2 first - 1], ...`` doubling up to ``max_position``.

    Examples
    ========
    >>> log_bands(5000)
    [(0, 1023), (1024, 2047), (2048, 4095), (4096, 5000)]
    >>> log_bands(100)
    [(0, 100)]
    """
    bands, low, high = [], 0, first - 1
    while True:
        if high >= max_position:
            bands.append((low, int(max_position)))
            return bands
        bands.append((low, high))
        low, high = high + 1, 2 * high + 1
