"""The float formats the audit models, by name: one home for ``bf16``, ``fp16``, ``fp32``, ``fp64``.

Imported by the models and the recurrence model alike (it imports neither), so they do not
import each other.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from symrope.errors import UsageError

__all__ = ["DTYPES", "dtype_name"]

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
