"""The ``mlx-fast-rope`` entries: MLX's compiled rope kernel ``mx.fast.rope`` on the CPU.

``mx.fast.rope(x, dims, traditional, base, scale, offset)`` is a compiled kernel (Metal on
Apple silicon, C++ in the ``mlx-cpu`` Linux wheel): it cannot be lifted, so it is audited like
any real library (its rotation of unit vectors is its table) and related to a lifted reference
numerically (:mod:`symrope.audit._mlx_relate`). ``traditional=False`` pairs rotate-half
channels (``mlx-fast-rope``), ``traditional=True`` interleaved ones
(``mlx-fast-rope-traditional``); a linear factor is ``scale = 1/factor``. The build options
``base`` and ``scale`` set the kernel's own parameters apart from the schedule, to relate a
wrong parameter to the reference. The kernel forms the angle in float32 whatever the dtype.
"""

from __future__ import annotations

from typing import ClassVar

from symrope.audit._arrays import MlxLibrary
from symrope.schedules import RopeConfig


class MlxFastRope(MlxLibrary):
    """``mx.fast.rope`` with ``traditional=False`` (rotate-half pairs)."""

    name = "mlx-fast-rope"
    imports = ("mlx",)
    requirement = "mlx>=0.29"
    runs = "`mx.fast.rope(x, rotary_dim, traditional=False, base, scale, offset)` (MLX, compiled)"
    rope_types = ("default", "linear")
    build_options: ClassVar[frozenset[str]] = frozenset({"base", "scale"})
    fix_target = ("mx.fast.rope: the kernel forms the angle in float32 whatever the input "
                  "dtype; precompute float64 angles and pass cos/sin, or reduce the angle first")

    def __init__(self, config: RopeConfig, base: float | None = None,
                 scale: float | None = None) -> None:
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

    def _rotate(self, x, offsets):
        return self.mx.fast.rope(x, self.rope_config.rotary_dim, traditional=self.traditional,
                                 base=self.base, scale=self.scale, offset=offsets)


class MlxFastRopeTraditional(MlxFastRope):
    """``mx.fast.rope`` with ``traditional=True`` (interleaved pairs)."""

    name = "mlx-fast-rope-traditional"
    runs = "`mx.fast.rope(x, rotary_dim, traditional=True, base, scale, offset)` (MLX, compiled)"
    pairing = "interleaved"
    traditional = True


LIBRARIES = (MlxFastRope, MlxFastRopeTraditional)
