"""Number-system contexts: the schedule formulas are written once against one of these.

Each context supplies *scalars* (the config's numbers and everything HF computes with Python's
``math``) and *vectors* (one entry per frequency pair: what HF computes as a torch tensor).
Arithmetic uses Python operators on both; the few operations operators cannot express
(``log``, ``where``, ``clamp``, ...) are methods here. This is mpmath's own design (one function
body, several number systems) carried over to numpy-shaped code; :class:`ScheduleContext` is the
written list of what a context provides, and each context below is a subclass of it.

* ``float64`` -- scalars are Python floats, vectors ``numpy.float64`` arrays.
* ``float32`` -- a subclass of the ``float64`` context overriding only what differs: scalars
  stay Python floats (as in HF, whose scalar maths is Python's), vectors are ``numpy.float32``
  arrays with torch's float32 semantics: every vector operation rounds to float32, and ``scalar / vector`` is ``reciprocal(vector) * scalar`` as ``Tensor.__rtruediv__``
  does. This reproduces the ``inv_freq`` buffer a framework actually holds.
* ``mpmath`` -- scalars ``mpf`` at the current ``mp.prec``, vectors object arrays of ``mpf``.
* ``sympy`` -- exact SymPy expressions (config values may be ``Symbol``), vectors object arrays;
  data-dependent branches become ``Piecewise``.
"""

# Over 500 lines: the interface and its four number systems side by side, so a context is read
# against the written list of what every context provides.

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from symrope.errors import UsageError


class ScheduleContext(ABC):
    """What every number-system context provides: the written interface of ``ctx``.

    The schedule formulas (``_formulas.py``) use only what is listed here, plus Python's
    arithmetic operators on the scalars and vectors a context returns. A new number system is a
    subclass that implements every abstract method (einops' ``AbstractBackend`` does the same
    for tensor frameworks).

    Examples
    ========

    >>> from symrope.schedules import ScheduleContext, get_context
    >>> all(isinstance(get_context(name), ScheduleContext)
    ...     for name in ("float64", "float32", "mpmath", "sympy"))
    True
    >>> get_context("float32").divide_scalar_by(1.0, get_context("float32").vector([3]))
    array([0.33333334], dtype=float32)
    """

    #: the name :func:`get_context` knows the context by
    name: str = "abstract"
    #: pi as a scalar of this context
    pi: Any

    def __repr__(self) -> str:
        return f"<schedule context {self.name}>"

    # --- scalars: the config's numbers, and what frameworks compute with Python's math ---------
    @abstractmethod
    def scalar(self, value: Any) -> Any:
        """A config value (int, float, Fraction or, for ``sympy``, an expression) as a scalar."""

    @abstractmethod
    def ratio(self, numerator: int, denominator: int) -> Any:
        """``numerator / denominator`` as a scalar (exact where the context is exact)."""

    @abstractmethod
    def scalar_power(self, base: Any, exponent: Any) -> Any:
        """``base ** exponent`` for a scalar (or run-time 0-d tensor) base."""

    @abstractmethod
    def runtime_tensor(self, value: Any) -> Any:
        """A number the framework holds as a 0-d tensor at run time (not a Python float)."""

    @abstractmethod
    def log(self, x: Any) -> Any:
        """Natural logarithm of a scalar or, elementwise, of a vector."""

    @abstractmethod
    def sqrt(self, x: Any) -> Any:
        """Square root of a scalar or, elementwise, of a vector."""

    @abstractmethod
    def floor(self, x: Any) -> Any:
        """``floor(x)`` of a scalar."""

    @abstractmethod
    def ceil(self, x: Any) -> Any:
        """``ceil(x)`` of a scalar."""

    @abstractmethod
    def smaller(self, a: Any, b: Any) -> Any:
        """``min(a, b)`` of scalars (symbolic ``Min`` where the context is symbolic)."""

    @abstractmethod
    def larger(self, a: Any, b: Any) -> Any:
        """``max(a, b)`` of scalars (symbolic ``Max`` where the context is symbolic)."""

    @abstractmethod
    def if_else(self, condition: Any, if_true: Any, if_false: Any) -> Any:
        """A Python ``if`` on a scalar condition (``Piecewise`` where it is symbolic)."""

    # --- vectors: one entry per frequency pair, what frameworks compute as tensors -------------
    @abstractmethod
    def arange(self, start: int, stop: int, step: int = 1) -> np.ndarray:
        """``arange(start, stop, step)`` as a vector of this context's numbers."""

    @abstractmethod
    def vector(self, values: Iterable[Any]) -> np.ndarray:
        """A vector from config values (LongRoPE's factors)."""

    @abstractmethod
    def power(self, base: Any, exponent: np.ndarray) -> np.ndarray:
        """``base ** exponent`` for a scalar base and a vector of exponents."""

    @abstractmethod
    def divide_scalar_by(self, scalar: Any, vector: np.ndarray) -> np.ndarray:
        """``scalar / vector``, rounded as the framework rounds it."""

    def concatenate(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """``torch.cat((first, second))`` of two vectors of this context."""
        return np.concatenate([first, second])

    @abstractmethod
    def where(self, condition: np.ndarray, if_true: Any, if_false: Any) -> np.ndarray:
        """Elementwise choice, as ``torch.where``."""

    @abstractmethod
    def clamp(self, vector: np.ndarray, low: Any, high: Any) -> np.ndarray:
        """``vector`` clipped to ``[low, high]``, as ``torch.clamp``."""

    @abstractmethod
    def greater(self, a: np.ndarray, b: Any) -> np.ndarray:
        """Elementwise ``a > b`` (symbolic relations kept where the context is symbolic)."""

    @abstractmethod
    def less(self, a: np.ndarray, b: Any) -> np.ndarray:
        """Elementwise ``a < b``."""

    @abstractmethod
    def logical_and(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise ``a and b``."""

    @abstractmethod
    def logical_not(self, a: np.ndarray) -> np.ndarray:
        """Elementwise ``not a``."""

    @abstractmethod
    def finish(self, vector: np.ndarray) -> np.ndarray | list:
        """The vector as :func:`~symrope.schedules.inv_freq` returns it."""

    @abstractmethod
    def finish_scalar(self, value: Any) -> Any:
        """The scalar as :func:`~symrope.schedules.attention_factor` returns it."""


class _FloatContext(ScheduleContext):
    """Python-float scalars, numpy float64 vectors."""

    name = "float64"
    vector_dtype = np.dtype(np.float64)
    pi = math.pi

    # --- scalars -------------------------------------------------------------------------------
    def scalar(self, value: Any) -> float:
        if _is_symbolic(value):
            raise UsageError(f"a symbolic value {value} needs ctx='sympy', not {self.name!r}")
        return float(value)

    def ratio(self, numerator: int, denominator: int) -> float:
        return numerator / denominator

    def scalar_power(self, base, exponent):
        return base ** exponent

    def runtime_tensor(self, value) -> float:
        return float(value)

    def log(self, x):
        return self._elementwise(np.log, math.log, x)

    def sqrt(self, x):
        return self._elementwise(np.sqrt, math.sqrt, x)

    def floor(self, x) -> int:
        return math.floor(x)

    def ceil(self, x) -> int:
        return math.ceil(x)

    def smaller(self, a, b):
        return min(a, b)

    def larger(self, a, b):
        return max(a, b)

    def if_else(self, condition, if_true, if_false):
        return if_true if condition else if_false

    # --- vectors -------------------------------------------------------------------------------
    def arange(self, start: int, stop: int, step: int = 1) -> np.ndarray:
        return np.arange(start, stop, step, dtype=np.int64).astype(self.vector_dtype)

    def vector(self, values) -> np.ndarray:
        return np.asarray([float(v) for v in values], dtype=np.float64).astype(self.vector_dtype)

    def power(self, base, exponent: np.ndarray) -> np.ndarray:
        # The exact power of the two rounded operands, rounded once to the vector dtype: never
        # numpy's vectorised pow, whose last bit depends on the SIMD code path it dispatches to
        # (AVX-512 and baseline differ by an ulp in some pairs), so every CPU computes the same
        # table. A framework's own pow (torch's SLEEF powf) is within an ulp of this value.
        return correctly_rounded(lambda mp, b, e: mp.power(b, e), self.vector_dtype,
                                 self.vector_dtype.type(base), exponent)

    def divide_scalar_by(self, scalar, vector: np.ndarray) -> np.ndarray:
        return scalar / vector

    def where(self, condition, if_true, if_false) -> np.ndarray:
        return np.where(condition, if_true, if_false).astype(self.vector_dtype)

    def clamp(self, vector: np.ndarray, low, high) -> np.ndarray:
        return np.clip(vector, low, high).astype(self.vector_dtype)

    def greater(self, a, b):
        return np.greater(a, b)

    def less(self, a, b):
        return np.less(a, b)

    def logical_and(self, a, b):
        return np.logical_and(a, b)

    def logical_not(self, a):
        return np.logical_not(a)

    def finish(self, vector) -> np.ndarray:
        return np.asarray(vector, dtype=self.vector_dtype)

    def finish_scalar(self, value) -> float:
        return float(value)

    def _elementwise(self, numpy_function, math_function, x):
        if isinstance(x, np.ndarray):
            if numpy_function is np.log:   # rounded once, as power (numpy's log is SIMD-dependent)
                return correctly_rounded(lambda mp, v: mp.log(v), self.vector_dtype, x)
            return numpy_function(x).astype(self.vector_dtype)   # sqrt: IEEE, correctly rounded
        return math_function(x)


_ROUNDING_PREC = 120    # working bits before the one rounding: a double rounding would need the
#                         exact value within 2^-120 of a midpoint of the target format


def correctly_rounded(function: Callable, dtype: np.dtype, *arguments) -> np.ndarray:
    """``function(mpmath.mp, *entries)`` per entry, rounded once to ``dtype`` (float32/float64).

    The arguments (a scalar and/or vectors, broadcast) are read exactly as the binary numbers
    they are. mpmath is pure Python: the result is the same on every CPU.

    Examples
    ========

    >>> import numpy as np
    >>> from symrope.schedules._contexts import correctly_rounded
    >>> exponent = np.arange(0, 128, 2, dtype=np.float32) / np.float32(128)
    >>> omega = correctly_rounded(lambda mp, b, e: mp.power(b, e), np.dtype(np.float32),
    ...                           np.float32(500000.0), exponent)
    >>> omega.dtype, float(omega[2])
    (dtype('float32'), 1.5069290399551392)
    """
    import mpmath

    dtype = np.dtype(dtype)
    bits = {np.dtype(np.float32): 24, np.dtype(np.float64): 53}[dtype]
    columns = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in arguments))
    out = np.empty(columns[0].shape, dtype=dtype)
    with mpmath.workprec(_ROUNDING_PREC):
        values = [function(mpmath.mp, *(mpmath.mpf(float(c)) for c in entry))
                  for entry in zip(*(c.ravel() for c in columns))]
    with mpmath.workprec(bits):   # +x rounds to the current precision, to nearest, ties to even
        rounded = [float(+value) for value in values]
    out.reshape(-1)[:] = rounded
    return out


class _Float32Context(_FloatContext):
    """Python-float scalars (as in HF), float32 vectors with torch's float32 semantics (its pow
    correctly rounded: torch's own is within one float32 ulp)."""

    name = "float32"
    vector_dtype = np.dtype(np.float32)

    def scalar_power(self, base, exponent):
        if isinstance(base, np.float32):
            # torch's pow(Tensor, Scalar) does not round the exponent to float32 (numpy would)
            return np.float32(float(base) ** float(exponent))
        return super().scalar_power(base, exponent)

    def runtime_tensor(self, value) -> np.float32:
        # a 0-d float32 tensor: the arithmetic that follows rounds to float32
        return np.float32(value)

    def divide_scalar_by(self, scalar, vector: np.ndarray) -> np.ndarray:
        # torch's Tensor.__rtruediv__ is reciprocal(self) * other: two roundings.
        return np.reciprocal(vector) * scalar


class _ObjectContext(ScheduleContext):
    """Scalars of some exact or multiprecision number type, vectors as numpy object arrays."""

    # the number type's own functions, applied to scalars and, entry by entry, to vectors
    @abstractmethod
    def _log(self, x: Any) -> Any: ...

    @abstractmethod
    def _sqrt(self, x: Any) -> Any: ...

    @abstractmethod
    def _and(self, x: Any, y: Any) -> Any: ...

    @abstractmethod
    def _not(self, x: Any) -> Any: ...

    def arange(self, start: int, stop: int, step: int = 1) -> np.ndarray:
        return self._array([self.scalar(k) for k in range(start, stop, step)])

    def runtime_tensor(self, value):
        return self.scalar(value)

    def scalar_power(self, base, exponent):
        return base ** exponent

    def vector(self, values) -> np.ndarray:
        return self._array([self.scalar(v) for v in values])

    def power(self, base, exponent: np.ndarray) -> np.ndarray:
        return self._array([base ** e for e in exponent])

    def divide_scalar_by(self, scalar, vector: np.ndarray) -> np.ndarray:
        return self._array([scalar / v for v in vector])

    def log(self, x):
        return self._map(self._log, x)

    def sqrt(self, x):
        return self._map(self._sqrt, x)

    def where(self, condition, if_true, if_false) -> np.ndarray:
        n = len(condition)
        true_values = _broadcast(if_true, n)
        false_values = _broadcast(if_false, n)
        return self._array([self.if_else(c, t, f)
                            for c, t, f in zip(condition, true_values, false_values)])

    def clamp(self, vector: np.ndarray, low, high) -> np.ndarray:
        return self._array([self.smaller(self.larger(v, low), high) for v in vector])

    def greater(self, a, b):
        # elementwise, keeping SymPy relationals (numpy's object comparison would call bool())
        return self._array([x > b for x in a])

    def less(self, a, b):
        return self._array([x < b for x in a])

    def logical_and(self, a, b):
        return self._array([self._and(x, y) for x, y in zip(a, b)])

    def logical_not(self, a):
        return self._array([self._not(x) for x in a])

    def finish(self, vector) -> list:
        return list(vector)

    def finish_scalar(self, value):
        return value

    def _map(self, function, x):
        if isinstance(x, np.ndarray):
            return self._array([function(v) for v in x])
        return function(x)

    @staticmethod
    def _array(items) -> np.ndarray:
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array


class _MpmathContext(_ObjectContext):
    name = "mpmath"

    def __init__(self):
        import mpmath

        self._mp = mpmath.mp

    @property
    def pi(self):
        return self._mp.pi

    def scalar(self, value: Any):
        if _is_symbolic(value):
            raise UsageError(f"a symbolic value {value} needs ctx='sympy', not 'mpmath'")
        return self._mp.mpf(value)

    def ratio(self, numerator: int, denominator: int):
        return self._mp.mpf(numerator) / denominator

    def _log(self, x):
        return self._mp.log(x)

    def _sqrt(self, x):
        return self._mp.sqrt(x)

    def floor(self, x) -> int:
        return int(self._mp.floor(x))

    def ceil(self, x) -> int:
        return int(self._mp.ceil(x))

    def smaller(self, a, b):
        return min(a, b)

    def larger(self, a, b):
        return max(a, b)

    def if_else(self, condition, if_true, if_false):
        return if_true if condition else if_false

    @staticmethod
    def _and(x, y):
        return bool(x) and bool(y)

    @staticmethod
    def _not(x):
        return not bool(x)


class _SympyContext(_ObjectContext):
    name = "sympy"

    def __init__(self):
        import sympy

        self._sp = sympy
        self.pi = sympy.pi

    def scalar(self, value: Any):
        if isinstance(value, self._sp.Basic):
            return value
        # A float is the binary number the config holds: exact, and equal to what mpmath reads
        # (symrope._exact, the one reading of a float; it imports SymPy, so only here)
        from symrope._exact import exact_rational

        return exact_rational(value)

    def ratio(self, numerator: int, denominator: int):
        return self._sp.Rational(numerator, denominator)

    def _log(self, x):
        return self._sp.log(x)

    def _sqrt(self, x):
        return self._sp.sqrt(x)

    def floor(self, x):
        return self._sp.floor(x)

    def ceil(self, x):
        return self._sp.ceiling(x)

    def smaller(self, a, b):
        return self._sp.Min(a, b)

    def larger(self, a, b):
        return self._sp.Max(a, b)

    def if_else(self, condition, if_true, if_false):
        sp = self._sp
        if condition is True or condition is sp.true:
            return if_true
        if condition is False or condition is sp.false:
            return if_false
        return sp.Piecewise((if_true, condition), (if_false, True))

    def _and(self, x, y):
        return self._sp.And(x, y)

    def _not(self, x):
        return self._sp.Not(x)


def _broadcast(value, n: int):
    if isinstance(value, np.ndarray):
        return value
    return [value] * n


def _is_symbolic(value: Any) -> bool:
    return type(value).__module__.startswith("sympy")


_FACTORIES: dict[str, Callable[[], ScheduleContext]] = {
    "float64": _FloatContext,
    "float32": _Float32Context,
    "mpmath": _MpmathContext,
    "sympy": _SympyContext,
}

CONTEXT_NAMES = tuple(_FACTORIES)


def get_context(name: str) -> ScheduleContext:
    """Return the number-system context called ``name`` (one of :data:`CONTEXT_NAMES`).

    Examples
    ========

    >>> from symrope.schedules import get_context
    >>> get_context("mpmath")
    <schedule context mpmath>
    """
    if not isinstance(name, str) or name not in _FACTORIES:
        raise UsageError(f"unknown schedule context {name!r} (one of: {', '.join(CONTEXT_NAMES)})")
    return _FACTORIES[name]()
