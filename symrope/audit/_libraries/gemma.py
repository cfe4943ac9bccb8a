"""The ``gemma`` entry: Google DeepMind's ``gemma.gm.math.apply_rope``, the Gemma reference
implementation (JAX), run under ``jax.jit`` as installed.

Rotate-half pairs; the timescale is ``base^(2i/d)`` from a float32 ``arange`` and the angle the
float32 quotient ``positions / timescale`` (a division, not a product with inverse frequencies),
so even with ``jax_enable_x64`` the phase stays float32. ``scale_factor`` is linear position
interpolation. Installed beside jax as ``gemma==3.3.0 --no-deps`` with ``kauldron`` (which
``gemma.gm.math`` imports, and which pulls in TensorFlow): ``.ci/run`` gives it a second
environment.
"""

from __future__ import annotations

from symrope.audit._arrays import JaxLibrary, import_module
from symrope.audit._real import theta_argument
from symrope.schedules import RopeConfig


class GemmaImpl(JaxLibrary):
    """``gemma.gm.math.apply_rope(inputs, positions, base_frequency, scale_factor)``."""

    name = "gemma"
    imports = ("jax", "gemma")
    requirement = "gemma==3.3.0"
    install = "pip install --no-deps gemma==3.3.0; pip install kauldron (see .ci/run)"
    runs = ("`gemma.gm.math.apply_rope(inputs, positions, base_frequency=theta, "
            "scale_factor=factor)` under jax.jit (JAX)")
    pairing = "rotate_half"
    separate_environment = True
    rope_types = ("default", "linear")
    partial_rotary = False
    lift_description = "gemma.gm.math.apply_rope (JAX, lifted through its jaxpr)"
    fix_target = ("gemma.gm.math._positional_embeddings.apply_rope: timescale and "
                  "positions / timescale in float64 (jax_enable_x64), sin/cos in float64, then "
                  "cast to the input dtype")

    def __init__(self, config: RopeConfig) -> None:
        super().__init__(config)
        self._apply_rope = import_module("gemma.gm.math", type(self)).apply_rope
        self._factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" \
            else 1.0
        from importlib.metadata import version

        self.summary = (f"gemma {version('gemma')} apply_rope (the real function, JAX "
                        f"{self.jax.__version__}): timescale = base^(2i/d) from a float32 "
                        f"arange, angle = positions / timescale in float32, sin/cos float32, the "
                        f"rotation in float32, cast to the input dtype")

    def explanation(self, dtype: str) -> str:
        text = ("The angle is the float32 quotient of the position (cast to float32) and the "
                "float32 timescale base^(2i/d): its rounding grows like p*2^-24")
        if dtype in ("bf16", "fp16"):
            text += (f"; the rotation runs in float32 (bf16 x float32 promotes) and is cast to "
                     f"{dtype} at the end, which adds up to half a {dtype} ulp")
        if dtype == "fp64":
            text += "; even with jax_enable_x64 the arange is float32, so the angle stays float32"
        return text + "."

    def _rotate(self, x, positions):
        out = self._apply_rope(x[None], positions[None], base_frequency=theta_argument(
            self.rope_config), scale_factor=self._factor)
        return out[0]


LIBRARIES = (GemmaImpl,)
