"""MLX's compiled rope kernel ``mx.fast.rope`` and mlx-lm's rope classes, audited on the CPU.

``mx.fast.rope`` is a compiled kernel (Metal on Apple silicon, C++ on the ``mlx-cpu`` Linux
wheel): it cannot be lifted, so it is audited like any real library (its rotation of unit
vectors is its table) and related to a lifted reference numerically
(:mod:`symrope.audit._mlx_relate`). Positions reach the kernel as per-example offsets: ``x`` is
``(n, heads, 1, head_dim)`` and ``offset`` the array of the n positions, which the kernel adds
to the sequence index 0 (mlx-lm passes a cache offset the same way).

* ``mlx-fast-rope`` (``traditional=False``: rotate_half pairs) and ``mlx-fast-rope-traditional``
  (``traditional=True``: interleaved pairs): ``mx.fast.rope(x, rotary_dim, traditional, base,
  scale, offset)``; a linear factor is ``scale = 1/factor``. ``base`` may be set apart from the
  schedule's theta (``base=``) to relate a wrong base to the reference.
* ``mlx-lm`` / ``mlx-lm-traditional``: ``mlx_lm.models.rope_utils.initialize_rope(...)`` for
  the schedule (``nn.RoPE``, ``Llama3RoPE``, ``YarnRoPE``, ``SuScaledRoPE``,
  ``DynamicNTKScalingRoPE``), called as mlx-lm's attention calls it, ``rope(x, offset)``.

Needs ``mlx`` and, on Linux, ``mlx-cpu`` (the ``mlx`` extra); ``mlx-lm`` for the classes.
"""

from __future__ import annotations

import threading

import numpy as np

from symrope.audit._jax_libs import ArrayLibrary, import_module
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["MlxLibrary", "MlxFastRope", "MlxFastRopeTraditional", "MlxLmRope",
           "MlxLmRopeTraditional", "MLX_LIBRARIES", "mlx_library"]

_MLX_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}
_REQUIREMENT = "pip install 'symrope[mlx]' (mlx, and mlx-cpu on Linux)"


class MlxLibrary(ArrayLibrary):
    """An :class:`ArrayLibrary` whose code is MLX: ``_apply(x, offsets)`` on an mx array ``x``
    (n, heads, 1, head_dim) in the model dtype with int32 ``offsets`` (n,)."""

    requirement = _REQUIREMENT
    imports = ("mlx",)
    traditional = False

    def __init__(self, rope_config: RopeConfig):
        super().__init__(rope_config)
        self.mx = import_module("mlx.core", self.name, self.requirement)
        self.pairing = "interleaved" if self.traditional else "rotate_half"
        self._local = threading.local()

    def _rotate_numpy(self, x, positions, dtype):
        from symrope.audit._dtypes import rounded

        mx = self.mx
        mdtype = getattr(mx, _MLX_DTYPES[dtype])
        # rounded once to the model dtype in float64 (exact in float32 below): no double rounding
        narrow = rounded(x, dtype).astype(np.float64 if dtype == "fp64" else np.float32)
        with mx.stream(self._stream()):
            array = mx.array(narrow, dtype=mx.float64 if dtype == "fp64" else mx.float32)
            array = array.astype(mdtype)[:, :, None, :]
            out = self._apply(array, mx.array(positions.astype(np.int32)))
            wide = np.array(out.astype(mx.float64 if dtype == "fp64" else mx.float32))
        wide = wide[:, :, 0, :]
        if dtype == "bf16":
            import ml_dtypes

            return wide.astype(ml_dtypes.bfloat16)   # exact: the values are bf16 already
        return wide.astype(np.float16) if dtype == "fp16" else wide

    def _stream(self):
        """A CPU stream of this thread (MLX streams are per thread; the audit calls from its
        worker threads)."""
        local = self._local
        if getattr(local, "stream", None) is None:
            local.stream = self.mx.new_stream(self.mx.cpu)
        return local.stream

    def _apply(self, x, offsets):
        raise NotImplementedError


class MlxFastRope(MlxLibrary):
    """``mx.fast.rope`` (the compiled kernel), ``traditional=False``."""

    name = "mlx-fast-rope"
    runs = "`mx.fast.rope(x, rotary_dim, traditional=False, base, scale, offset)` (compiled)"
    rope_types = ("default", "linear")
    fix_target = ("mx.fast.rope: the kernel forms the angle in float32 whatever the input "
                  "dtype; precompute float64 angles and pass cos/sin, or reduce the angle first")

    def __init__(self, config: RopeConfig, base: float | None = None, scale: float | None = None):
        super().__init__(config)
        self.base = float(config.theta) if base is None else float(base)
        factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" else 1.0
        self.scale = 1.0 / factor if scale is None else float(scale)
        self.summary = (f"mlx {self.mx.__version__} mx.fast.rope (the compiled kernel, CPU): "
                        f"traditional={self.traditional}, base={self.base:g}, "
                        f"scale={self.scale:g}, positions as per-example offsets; angle in "
                        f"float32, output in the input dtype")

    def explanation(self, dtype: str) -> str:
        text = ("The kernel computes inv_freq = base^(-2i/d) and the angle (offset + t) * scale "
                "* inv_freq in float32 (rounding grows like p*2^-24), then cos/sin and the "
                "rotation")
        if dtype in ("bf16", "fp16"):
            text += f", and writes the result in {dtype}"
        if dtype == "fp64":
            text += "; even for float64 input the angle is float32"
        return text + "."

    def _apply(self, x, offsets):
        return self.mx.fast.rope(x, self.rope_config.rotary_dim, traditional=self.traditional,
                                 base=self.base, scale=self.scale, offset=offsets)


class MlxFastRopeTraditional(MlxFastRope):
    """``mx.fast.rope``, ``traditional=True`` (interleaved pairs)."""

    name = "mlx-fast-rope-traditional"
    runs = "`mx.fast.rope(x, rotary_dim, traditional=True, base, scale, offset)` (compiled)"
    traditional = True


def mlx_lm_scaling(config: RopeConfig) -> dict | None:
    """The ``scaling_config`` mlx-lm's ``initialize_rope`` reads for ``config`` (HF's keys)."""
    if config.rope_type == "default":
        return None
    return {"rope_type": config.rope_type, **config.params}


class MlxLmRope(MlxLibrary):
    """mlx-lm's rope class for the schedule (``initialize_rope``), called as its attention does."""

    name = "mlx-lm"
    imports = ("mlx", "mlx_lm")
    runs = ("`mlx_lm.models.rope_utils.initialize_rope(rotary_dim, theta, traditional, "
            "scaling_config, max_position_embeddings)(x, offset)`")
    rope_types = ("default", "linear", "llama3", "yarn", "longrope", "dynamic")
    fix_target = ("mlx_lm.models.rope_utils: the classes hand float32 periods to mx.fast.rope, "
                  "which forms the angle in float32")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        rope_utils = import_module("mlx_lm.models.rope_utils", self.name, self.requirement)
        self.module = rope_utils.initialize_rope(
            config.rotary_dim, float(config.theta), self.traditional, mlx_lm_scaling(config),
            config.max_position_embeddings or 131072)
        # its arrays (``_freqs``) are computed here: evaluated lazily from the audit's worker
        # thread they would need this thread's stream
        self.mx.eval([value for value in (*dict.values(self.module), *vars(self.module).values())
                      if isinstance(value, self.mx.array)])
        from importlib.metadata import version

        self.summary = (f"mlx-lm {version('mlx-lm')} {type(self.module).__name__} (the real "
                        f"class, traditional={self.traditional}) over mx.fast.rope: float32 "
                        f"periods, angle in float32 in the kernel")
        if config.rope_type == "longrope":
            self.notes = ("mlx-lm's SuScaledRoPE always uses long_factor (mlx-lm #707), also "
                          "below original_max_position_embeddings where transformers uses "
                          "short_factor",)

    def explanation(self, dtype: str) -> str:
        return ("mlx-lm computes the schedule's periods in float32 and hands them to "
                "mx.fast.rope, which forms the angle in float32 (rounding grows like p*2^-24)"
                + (f" and writes {dtype}" if dtype in ("bf16", "fp16") else "") + ".")

    def _apply(self, x, offsets):
        return self.module(x, offset=offsets)


class MlxLmRopeTraditional(MlxLmRope):
    """mlx-lm's rope class with ``traditional=True``."""

    name = "mlx-lm-traditional"
    traditional = True


MLX_LIBRARIES = {library.name: library for library in (
    MlxFastRope, MlxFastRopeTraditional, MlxLmRope, MlxLmRopeTraditional)}


def mlx_library(name: str, config: RopeConfig, **options) -> MlxLibrary:
    """The MLX implementation ``name`` built for ``config`` (``base``/``scale`` for the kernel)."""
    if name not in MLX_LIBRARIES:
        raise UsageError(f"unknown MLX implementation {name!r} (one of: "
                         f"{', '.join(MLX_LIBRARIES)})")
    return MLX_LIBRARIES[name](config, **options)
