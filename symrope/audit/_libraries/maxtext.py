"""The ``maxtext`` entry: MaxText's ``RotaryEmbedding`` (a flax nnx module) on a one-device CPU
mesh, run as installed (JAX).

Rotate-half pairs; timescale ``base^(2i/d)`` and ``position / timescale`` in float32 (float64
with ``jax_enable_x64``), sin/cos, the rotation, and the output cast to the fprop dtype.
``maxtext==0.2.5`` says Python >= 3.12 but runs on 3.11 with jax 0.10.2: it is installed with
``--no-deps --ignore-requires-python`` beside ``flax``, ``aqtp`` and ``pathwaysutils`` (``.ci/run``).
"""

from __future__ import annotations

import numpy as np

from symrope.audit._arrays import JaxLibrary, import_module
from symrope.audit._real import theta_argument
from symrope.schedules import RopeConfig


class MaxTextImpl(JaxLibrary):
    """``maxtext.layers.embeddings.RotaryEmbedding`` called on (inputs, position)."""

    name = "maxtext"
    imports = ("jax", "flax", "maxtext")
    requirement = "maxtext==0.2.5"
    install = ("pip install flax aqtp pathwaysutils; pip install --no-deps "
               "--ignore-requires-python maxtext==0.2.5")
    runs = ("`maxtext.layers.embeddings.RotaryEmbedding(1, theta, mesh, head_dim, "
            "cast_as_fprop_dtype=True, fprop_dtype=dtype)` on (inputs, position) (JAX)")
    pairing = "rotate_half"
    separate_environment = True
    rope_types = ("default",)
    partial_rotary = False
    lift_description = "maxtext.layers.embeddings.RotaryEmbedding (JAX, lifted through its jaxpr)"
    fix_target = ("maxtext.layers.embeddings.RotaryEmbedding.__call__: timescale and "
                  "position / timescale in float64, sin/cos in float64, then cast")

    def __init__(self, config: RopeConfig) -> None:
        super().__init__(config)
        self._embeddings = import_module("maxtext.layers.embeddings", type(self))
        from importlib.metadata import version

        self._modules = {}
        self.summary = (f"maxtext {version('maxtext')} RotaryEmbedding (the real nnx module): "
                        f"timescale = base^(2i/d) in float32, angle = position / timescale, "
                        f"sin/cos, the rotation, cast to the fprop dtype")

    def explanation(self, dtype: str) -> str:
        return ("The angle is position / timescale in float32 (rounding grows like p*2^-24); "
                f"the output is cast to the fprop dtype {dtype}.")

    def _rope(self, dtype):
        key = str(dtype)
        if key not in self._modules:
            jax = self.jax
            mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("data",))
            self._modules[key] = self._embeddings.RotaryEmbedding(
                1, theta_argument(self.rope_config), mesh, embedding_dims=self.rope_config.head_dim,
                cast_as_fprop_dtype=True, fprop_dtype=dtype)
        return self._modules[key]

    def _rotate(self, x, positions):
        return self._rope(x.dtype)(x[None], position=positions[None])[0]


LIBRARIES = (MaxTextImpl,)
