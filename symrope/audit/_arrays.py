"""Registry entries whose code is not torch: JAX (jitted) and MLX (a compiled kernel).

:class:`ArrayLibrary` is a :class:`~symrope.audit._real.Library` that never imports torch: it
hands its library numpy arrays in chunks and reads numpy back (``_rotate_numpy``);
:class:`JaxLibrary` and :class:`MlxLibrary` add each framework's way of running code
(``jax.jit`` with ``jax_enable_x64`` for float64; an MLX CPU stream per thread). The entries
themselves are modules of ``_libraries/`` like any other (``gemma.py``, ``keras_hub_jax.py``,
``sglang_jax.py``, ``maxtext.py``, ``mlx_fast_rope.py``, ``mlx_lm.py``); nothing here imports
a framework before an entry is built.

They are not surveyed by default (``surveyed = False``): ``symrope survey`` runs its rows in
worker processes of the torch environment (MLX and a jitted JAX in forked workers, and keras
on two backends in one process, are not what users run); each is audited with ``--impl``.
``separate_environment``: installed beside the extra in an environment of its own, because its
pins or its Python requirement fight torch's (``.ci/run``'s ``.venv-ci-jaxlibs``).
"""

from __future__ import annotations

import importlib
import threading
from typing import ClassVar

import numpy as np

from symrope.audit._models import dtype_name, validate_positions
from symrope.audit._real import Library, LiftTarget
from symrope.audit._torch import first_line, pip_extra
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["ArrayLibrary", "JaxLibrary", "MlxLibrary", "import_module"]

_CHUNK = 1 << 15   # positions per library call: bounded memory
_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}


def import_module(module: str, library: type[Library]):
    """``importlib.import_module``, or a one-line UsageError saying how to install ``library``
    (its ``install`` hint where plain ``pip install 'symrope[extra]'`` is not enough)."""
    hint = getattr(library, "install", "") or f"pip install '{pip_extra(library.extra)}'"
    try:
        return importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - ImportError, or a broken install
        raise UsageError(f"--impl {library.name} needs {module.split('.')[0]}, which does not "
                         f"import here ({first_line(error)}): {hint}") from None


class ArrayLibrary(Library):
    """A real library's RoPE run on arrays of a framework other than torch.

    Subclasses write ``_rotate_numpy(x, positions, dtype)``: ``x`` float64 (n, vectors,
    head_dim), ``positions`` int64 (n,), the dtype name; the rotated array in that dtype.
    ``install`` is how to install the library where the extra alone does not (``--no-deps``).
    """

    install: ClassVar[str] = ""
    separate_environment: ClassVar[bool] = False
    surveyed = False
    table_is = "the library's rotation of each pair's first unit vector"

    def __init__(self, rope_config: RopeConfig) -> None:   # torch is not needed: not imported
        self._check_expressible(rope_config)
        self.rope_config = rope_config

    @classmethod
    def unavailable_here(cls) -> str | None:
        """Why this process cannot run the library although it is installed (None: it can)."""
        return None

    def rotate(self, x: np.ndarray, positions: np.ndarray, dtype: str | None = None) -> np.ndarray:
        positions = validate_positions(positions)
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        x = np.asarray(x, dtype=np.float64)
        parts = [self._rotate_numpy(x[start:start + _CHUNK], positions[start:start + _CHUNK], name)
                 for start in range(0, positions.shape[0], _CHUNK)]
        return np.concatenate(parts) if parts else np.empty(x.shape, dtype=np.float32)

    def _rotate_numpy(self, x, positions, dtype):
        raise NotImplementedError


class JaxLibrary(ArrayLibrary):
    """An :class:`ArrayLibrary` whose code is JAX: ``_rotate(x, positions)`` on JAX arrays (x in
    the model dtype, (n, heads, head_dim); positions int32 (n,)), jitted once per dtype, as a
    model runs it. float64 turns ``jax_enable_x64`` on for the call (without it JAX silently
    computes in float32)."""

    extra = "jax"
    lift = "schedule"

    def __init__(self, rope_config: RopeConfig) -> None:
        super().__init__(rope_config)
        self.jax = import_module("jax", type(self))
        self._jitted = {}

    def _rotate_numpy(self, x, positions, dtype):
        jax = self.jax
        with jax.enable_x64(dtype == "fp64"):
            jdtype = getattr(jax.numpy, _DTYPES[dtype])
            if dtype not in self._jitted:
                self._jitted[dtype] = jax.jit(self._rotate)
            out = self._jitted[dtype](jax.numpy.asarray(x, dtype=jdtype),
                                      jax.numpy.asarray(positions, dtype=jax.numpy.int32))
            return np.asarray(out)

    def lift_function(self):
        """The library's code as ``(q, k, positions) -> (q_rot, k_rot)`` for the lift (JAX
        arrays shaped ``(1, 1, tokens, head_dim)``; the lift reads its jaxpr)."""
        def function(q, k, positions):
            return (self._rotate(q[0, 0][:, None, :], positions)[:, 0][None, None],
                    self._rotate(k[0, 0][:, None, :], positions)[:, 0][None, None])
        function.__symrope_framework__ = "jax"
        function.__qualname__ = self.name
        return function

    @classmethod
    def lift_target(cls, config: RopeConfig) -> LiftTarget:
        """The entry built for the whole of ``config`` (its ``cannot_express`` has refused what
        it cannot build), so the lift stands for that schedule (``symrope diff`` with a config)."""
        impl = cls.build(config)
        return LiftTarget(impl.lift_function(), config.head_dim, cls.name, schedule=config)


class MlxLibrary(ArrayLibrary):
    """An :class:`ArrayLibrary` whose code is MLX: ``_rotate(x, offsets)`` on an mx array ``x``
    (n, heads, 1, head_dim) in the model dtype with int32 ``offsets`` (n,): each position
    reaches the kernel as an example's offset (mlx-lm passes its cache offset the same way)."""

    extra = "mlx"
    install = "pip install 'symrope[mlx]' (mlx, and mlx-cpu on Linux)"
    traditional: ClassVar[bool] = False

    def __init__(self, rope_config: RopeConfig) -> None:
        super().__init__(rope_config)
        self.mx = import_module("mlx.core", type(self))
        self._local = threading.local()

    def _rotate_numpy(self, x, positions, dtype):
        from symrope.audit._dtypes import rounded

        mx = self.mx
        wide = mx.float64 if dtype == "fp64" else mx.float32
        # rounded once to the model dtype in float64 (exact in float32 below): no double rounding
        narrow = rounded(x, dtype).astype(np.float64 if dtype == "fp64" else np.float32)
        with mx.stream(self._stream()):
            array = mx.array(narrow, dtype=wide).astype(getattr(mx, _DTYPES[dtype]))
            out = self._rotate(array[:, :, None, :], mx.array(positions.astype(np.int32)))
            result = np.array(out.astype(wide))[:, :, 0, :]
        if dtype == "bf16":
            import ml_dtypes

            return result.astype(ml_dtypes.bfloat16)   # exact: the values are bf16 already
        return result.astype(np.float16) if dtype == "fp16" else result

    def _stream(self):
        """A CPU stream of this thread (MLX streams are per thread; the audit calls from its
        worker threads)."""
        if getattr(self._local, "stream", None) is None:
            self._local.stream = self.mx.new_stream(self.mx.cpu)
        return self._local.stream
