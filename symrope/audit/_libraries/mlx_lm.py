"""The ``mlx-lm`` entries: mlx-lm's rope class for the schedule
(``mlx_lm.models.rope_utils.initialize_rope``), called as mlx-lm's attention calls it.

``initialize_rope`` builds ``nn.RoPE``, ``Llama3RoPE``, ``YarnRoPE``, ``SuScaledRoPE`` or
``DynamicNTKScalingRoPE``; each hands float32 periods (``freqs``) to the compiled
``mx.fast.rope``, which forms the angle in float32. ``SuScaledRoPE`` (longrope) always uses
``long_factor`` (mlx-lm #707), also below ``original_max_position_embeddings`` where
transformers uses ``short_factor``: the entry's note says so. ``mlx-lm-traditional`` is the
same with ``traditional=True`` (interleaved pairs).
"""

from __future__ import annotations

from symrope.audit._arrays import MlxLibrary, import_module
from symrope.audit._dtypes import rounded
from symrope.schedules import RopeConfig


def mlx_lm_scaling(config: RopeConfig) -> dict | None:
    """The ``scaling_config`` mlx-lm's ``initialize_rope`` reads for ``config`` (HF's keys)."""
    if config.rope_type == "default":
        return None
    return {"rope_type": config.rope_type, **config.params}


class MlxLmRope(MlxLibrary):
    """mlx-lm's rope class for the schedule, called on (x, offset)."""

    name = "mlx-lm"
    imports = ("mlx", "mlx_lm")
    requirement = "mlx-lm>=0.28"
    runs = ("`mlx_lm.models.rope_utils.initialize_rope(rotary_dim, theta, traditional=False, "
            "scaling_config, max_position_embeddings)(x, offset)` (MLX)")
    rope_types = ("default", "linear", "llama3", "yarn", "longrope", "dynamic")
    fix_target = ("mlx_lm.models.rope_utils: the classes hand float32 periods to mx.fast.rope, "
                  "which forms the angle in float32")

    def __init__(self, config: RopeConfig) -> None:
        super().__init__(config)
        rope_utils = import_module("mlx_lm.models.rope_utils", type(self))
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
        text = ("mlx-lm computes the schedule's periods in float32 and hands them to "
                "mx.fast.rope, which forms the angle in float32 (rounding grows like p*2^-24)"
                + (f" and writes {dtype}" if dtype in ("bf16", "fp16") else "") + ".")
        mscale = float(getattr(self.module, "mscale", 1.0))
        if mscale != 1.0 and dtype in ("bf16", "fp16"):
            # YarnRoPE scales x itself before the kernel: in the model dtype, so the attention
            # factor is rounded before the rotation is rounded again (not a float32 angle error:
            # it is there from position 0)
            scaled = float(rounded([mscale], dtype)[0])
            text += (f" YarnRoPE first multiplies x by its attention factor {mscale:.6g} in "
                     f"{dtype} ({scaled:.7g}, off by {abs(scaled - mscale):.2g}), and the kernel "
                     f"rounds its output again: the table is rounded more than once, from "
                     f"position 0 on.")
        return text

    def _rotate(self, x, offsets):
        return self.module(x, offset=offsets)


class MlxLmRopeTraditional(MlxLmRope):
    """mlx-lm's rope class with ``traditional=True`` (interleaved pairs)."""

    name = "mlx-lm-traditional"
    runs = ("`mlx_lm.models.rope_utils.initialize_rope(rotary_dim, theta, traditional=True, "
            "scaling_config, max_position_embeddings)(x, offset)` (MLX)")
    pairing = "interleaved"
    traditional = True


LIBRARIES = (MlxLmRope, MlxLmRopeTraditional)
