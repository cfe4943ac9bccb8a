"""The float formats the audit models, by name: one home for ``bf16``, ``fp16``, ``fp32``, ``fp64``.

Imported by the models and the recurrence model alike (it imports neither), so they do not
import each other.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from symrope.errors import UsageError

__all__ = ["DTYPES", "dtype_name", "round_to", "rounded", "widen"]

DTYPES = {"bf16": ml_dtypes.bfloat16, "fp16": np.float16, "fp32": np.float32, "fp64": np.float64}
_DTYPE_ALIASES = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32",
                  "float": "fp32", "float64": "fp64", "double": "fp64"}

def dtype_name(dtype) -> str:
    """Normalise a dtype given as ``"bf16"``, ``"bfloat16"``, a numpy dtype, ... to ``"bf16"`` etc.

    Examples
    ========

    >>> from symrope.audit._dtypes import dtype_name
    >>> dtype_name("bfloat16"), dtype_name("fp32")
    ('bf16', 'fp32')
    """
    if isinstance(dtype, str):
        name = _DTYPE_ALIASES.get(dtype.lower(), dtype.lower())
        if name in DTYPES:
            return name
        raise UsageError(f"unknown dtype {dtype!r} (one of: {', '.join(DTYPES)})")
    try:
        numpy_dtype = np.dtype(dtype)
    except TypeError:
        raise UsageError(f"unknown dtype {dtype!r} (one of: {', '.join(DTYPES)})") from None
    for name, candidate in DTYPES.items():
        if numpy_dtype == np.dtype(candidate):
            return name
    raise UsageError(f"unsupported dtype {numpy_dtype} (one of: {', '.join(DTYPES)})")


def widen(narrow, out: np.ndarray | None = None, middle: np.ndarray | None = None) -> np.ndarray:
    """``narrow`` (any float dtype, bf16 included) converted exactly to float64.

    bf16 and fp16 go through float32: ml_dtypes' bf16 -> float64 is slow, through float32 it is
    exact and fast. ``out``, a float64 array of the same shape, receives the result (returned);
    ``middle``, a float32 array of that shape, holds the float32 step (saves an allocation).

    Examples
    ========

    >>> import ml_dtypes, numpy as np
    >>> wide = widen(np.array([1.5, -2.0 ** -9], dtype=ml_dtypes.bfloat16))
    >>> wide.dtype, wide.tolist()
    (dtype('float64'), [1.5, -0.001953125])
    """
    narrow = np.asarray(narrow)
    if narrow.dtype.itemsize < 4:
        if middle is None:
            narrow = narrow.astype(np.float32)
        else:
            np.copyto(middle, narrow, casting="unsafe")
            narrow = middle
    if out is None:
        return narrow.astype(np.float64)
    np.copyto(out, narrow, casting="unsafe")
    return out


_BF16_DROPPED_BITS = 52 - 7       # float64 fraction bits that bf16 does not keep
_BF16_EXPONENT_SHIFT = np.int64((1023 - 127) << 7)   # float64 vs bf16 exponent bias, in bf16 ulps
_MAGNITUDE = np.int64(0x7FFF_FFFF_FFFF_FFFF)
_BF16_NORMAL = (2.0**-126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max))


def _bf16_rounded_magnitude(wide: np.ndarray) -> np.ndarray:
    """|wide| rounded to bf16's 8 significant bits (ties to even), as float64 bits >> 45."""
    magnitude = wide.view(np.int64) & _MAGNITUDE
    lowest_kept = (magnitude >> _BF16_DROPPED_BITS) & 1
    magnitude += lowest_kept + (np.int64(1) << (_BF16_DROPPED_BITS - 1)) - 1
    magnitude >>= _BF16_DROPPED_BITS
    return magnitude


def round_to(values: np.ndarray, dtype: str | np.dtype | type) -> np.ndarray:
    """Correctly round float64 ``values`` to ``dtype`` (round to nearest, ties to even).

    ml_dtypes converts float64 to bfloat16 through float32, which can round twice (a value just
    above a bf16 tie lands on the tie, then goes to even) -- on some CPUs and not on others. bf16
    is therefore rounded here on the float64 bit pattern (add half an ulp minus one, plus the
    kept last bit, then truncate), which is exact for every bf16 normal number (zeros, tiny,
    huge and non-finite values go through ml_dtypes); numpy's own float16/float32 casts of
    float64 are correct on every CPU.

    Examples
    ========
    >>> import numpy as np
    >>> value = np.array([1 + 2.0**-8 + 2.0**-30])   # just above the bf16 tie 1 + 2**-8
    >>> float(round_to(value, "bf16")[0]) == 1 + 2.0**-7
    True
    """
    dtype = np.dtype(DTYPES[dtype_name(dtype)])
    values = np.ascontiguousarray(values, dtype=np.float64)
    if dtype.name != "bfloat16":
        return values.astype(dtype)
    bits = _bf16_rounded_magnitude(values) << _BF16_DROPPED_BITS
    result = np.copysign(bits.view(np.float64), values).astype(dtype)
    magnitude = np.abs(values)
    odd = ~((magnitude >= _BF16_NORMAL[0]) & (magnitude <= _BF16_NORMAL[1]))
    if odd.any():
        result[odd] = values[odd].astype(dtype)
    return result


def rounded(values, dtype) -> np.ndarray:
    """``values`` rounded to ``dtype`` (``"bf16"``, ...), returned in float64.

    Examples
    ========

    >>> rounded([1 + 2.0 ** -10], "bf16").tolist(), rounded([1 + 2.0 ** -10], "fp16").tolist()
    ([1.0], [1.0009765625])
    """
    return widen(round_to(values, dtype))
