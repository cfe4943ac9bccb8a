"""Error measures of a float rotary table against the reference (DESIGN.md, "Metrics").

Every function here works on one chunk of positions: arrays of shape (positions, pairs). The
streaming driver (``_driver.py``) folds the chunks into per-band summaries.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from symrope.audit._models import numpy_dtype

_UNSIGNED_OF_SIZE = {2: np.uint16, 4: np.uint32, 8: np.uint64}

def machine_epsilon(dtype) -> float:
    """Distance from 1 to the next float of ``dtype`` (bf16: 2**-7, fp32: 2**-23).

    Examples
    ========
    >>> machine_epsilon("bf16"), machine_epsilon("fp16")
    (0.0078125, 0.0009765625)
    """
    return float(ml_dtypes.finfo(numpy_dtype(dtype)).eps)


def round_to(values: np.ndarray, dtype) -> np.ndarray:
    """Correctly round float64 ``values`` to ``dtype`` (round to nearest, ties to even).

    ml_dtypes converts float64 to bfloat16 through float32, which can round twice (a value just
    above a bf16 tie lands on the tie, then goes to even). Rounding to float32 *to odd* first
    keeps the information a second rounding needs, so the result is the correctly rounded one.

    Examples
    ========
    >>> import numpy as np
    >>> value = np.array([1 + 2.0**-8 + 2.0**-30])   # just above the bf16 tie 1 + 2**-8
    >>> float(round_to(value, "bf16")[0]) == 1 + 2.0**-7
    True
    """
    dtype = numpy_dtype(dtype)
    values = np.asarray(values, dtype=np.float64)
    if dtype.itemsize >= 4:
        return values.astype(dtype)
    nearest = values.astype(np.float32)
    bits = nearest.view(np.uint32).copy()
    widened = nearest.astype(np.float64)
    inexact = widened != values
    too_far = inexact & (np.abs(widened) > np.abs(values))
    bits[too_far] -= 1                      # truncate toward zero (sign-magnitude encoding)
    bits[inexact] |= 1                      # ... then make the last bit odd: round to odd
    return bits.view(np.float32).astype(dtype)


def ordinal(values: np.ndarray) -> np.ndarray:
    """Map floats to integers so that neighbouring floats differ by 1 (+0 and -0 both map to 0)."""
    values = np.asarray(values)
    unsigned = values.view(_UNSIGNED_OF_SIZE[values.dtype.itemsize])
    sign_bit = np.array(1, dtype=unsigned.dtype) << (8 * values.dtype.itemsize - 1)
    magnitude = (unsigned & ~sign_bit).astype(np.int64)
    return np.where(unsigned & sign_bit, -magnitude, magnitude)


def ulps_between(computed: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """How many floats of ``computed``'s dtype lie between it and the correctly rounded ``exact``.

    Examples
    ========
    >>> import numpy as np
    >>> computed = np.array([1.0, 0.5, -0.25], dtype=np.float16)
    >>> exact = np.array([1.0, 0.5 + 3 * 2.0**-11, -0.25 - 2.0**-12])
    >>> ulps_between(computed, exact).tolist()
    [0, 3, 1]
    """
    rounded = round_to(exact, computed.dtype)
    return np.abs(ordinal(computed) - ordinal(rounded))


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
                exact_sin: np.ndarray) -> np.ndarray:
    """The table's angle minus the exact angle, in (-pi, pi]: ``atan2`` of the table rotated back.

    Rotating the table entry by the exact angle's inverse and taking its argument gives the
    phase difference directly, without forming (and losing digits of) large angles.

    Examples
    ========
    >>> import numpy as np
    >>> exact = np.array([2.0])
    >>> error = phase_error(np.cos(exact + 1e-3), np.sin(exact + 1e-3), np.cos(exact), np.sin(exact))
    >>> round(float(error[0]), 12)
    0.001
    """
    return np.arctan2(sin * exact_cos - cos * exact_sin, cos * exact_cos + sin * exact_sin)


def amplitude_error(cos: np.ndarray, sin: np.ndarray, amplitude: float = 1.0) -> np.ndarray:
    """``|hypot(cos, sin) - amplitude|``: the cast/scale error, blind to the angle (DESIGN 4c).

    Examples
    ========
    >>> import numpy as np
    >>> float(amplitude_error(np.array([0.6]), np.array([0.8]), 1.0)[0]) < 1e-15
    True
    """
    return np.abs(np.sqrt(cos * cos + sin * sin) - amplitude)


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


def rotary_scores(cos_s: np.ndarray, sin_s: np.ndarray, cos_t: np.ndarray, sin_t: np.ndarray,
                  weights: np.ndarray) -> np.ndarray:
    """Scores ``(R(s) q)^T (R(t) k)`` from two tables (rows matched), shape (rows, count).

    ``conj(C_s) C_t = (cs ct + ss st) + i (cs st - ss ct)``; the score is its real part against
    the weights of :func:`random_query_key_weights`.

    Examples
    ========
    >>> import numpy as np
    >>> w = random_query_key_weights(4, 2, seed=0)
    >>> omega = 10000.0 ** (-np.arange(4) / 4)
    >>> s, t = 5.0, 12.0
    >>> cs, ss, ct, st = (f(p * omega)[None] for p in (s, t) for f in (np.cos, np.sin))
    >>> exact = (w * np.exp(1j * omega * (t - s))[:, None]).sum(axis=0).real
    >>> bool(np.allclose(rotary_scores(cs, ss, ct, st, w)[0], exact))
    True
    """
    real = cos_s * cos_t
    real += sin_s * sin_t
    imag = cos_s * sin_t
    imag -= sin_s * cos_t
    return real @ weights.real - imag @ weights.imag


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
