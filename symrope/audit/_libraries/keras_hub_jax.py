"""The ``keras-hub-jax`` entry: keras-hub's ``RotaryEmbedding`` layer on keras's JAX backend.

The same layer as the ``keras-hub`` entry, in a process whose keras runs on JAX: keras chooses
its backend once per process, when it is first imported, so building this entry sets
``KERAS_BACKEND=jax`` if keras is not imported yet and refuses, in one line, a process whose
keras already runs on another backend (``symrope audit --impl keras-hub-jax`` in a fresh
process always works). Rotate-half pairs; float32 inverse frequencies and einsum angle, cos/sin
cast to the compute dtype, the rotation in the compute dtype.
"""

from __future__ import annotations

import os
import sys

from symrope.audit._arrays import JaxLibrary, import_module
from symrope.audit._libraries.keras_hub import (FIX_TARGET, keras_explanation, keras_summary,
                                                linear_factor)
from symrope.audit._real import theta_argument
from symrope.errors import UsageError
from symrope.schedules import RopeConfig


class KerasHubJaxImpl(JaxLibrary):
    """``keras_hub.layers.RotaryEmbedding`` in the dtype policy of the audited dtype, on JAX."""

    name = "keras-hub-jax"
    imports = ("jax", "keras", "keras_hub")
    requirement = "keras-hub>=0.20"
    install = ("pip install 'symrope[jax,frameworks]'; pip install --no-deps keras-hub "
               "(KERAS_BACKEND=jax)")
    runs = ("`keras_hub.layers.RotaryEmbedding` in the dtype policy of the audited dtype, keras "
            "on the JAX backend")
    pairing = "rotate_half"
    rope_types = ("default", "linear")
    partial_rotary = False
    lift_description = "keras_hub.layers.RotaryEmbedding on JAX (lifted through its jaxpr)"
    fix_target = FIX_TARGET

    @classmethod
    def unavailable_here(cls) -> str | None:
        keras = sys.modules.get("keras")
        backend = (keras.backend.backend() if keras is not None and hasattr(keras, "backend")
                   else os.environ.get("KERAS_BACKEND", "jax"))
        if backend == "jax":
            return None
        return (f"--impl {cls.name} needs keras on the JAX backend, but this process "
                f"{'imported keras' if keras is not None else 'has KERAS_BACKEND'} with "
                f"{backend!r} (keras chooses its backend once per process: run it in a process "
                "with KERAS_BACKEND=jax)")

    def __init__(self, config: RopeConfig) -> None:
        super().__init__(config)
        reason = self.unavailable_here()
        if reason is not None:
            raise UsageError(reason)
        os.environ.setdefault("KERAS_BACKEND", "jax")
        keras_hub = import_module("keras_hub", type(self))
        self._layer_class = keras_hub.layers.RotaryEmbedding
        self._factor = linear_factor(config)
        self._layers = {}
        self.summary = keras_summary(keras_hub.__version__, "JAX")

    def explanation(self, dtype: str) -> str:
        return keras_explanation(dtype)

    def _layer(self, dtype):
        key = str(dtype)
        if key not in self._layers:
            kwargs = {"scaling_factor": self._factor} if self._factor != 1.0 else {}
            self._layers[key] = self._layer_class(max_wavelength=theta_argument(self.rope_config),
                                                  dtype=key, **kwargs)
        return self._layers[key]

    def _rotate(self, x, positions):
        return self._layer(x.dtype)(x[None], positions=positions)[0]


LIBRARIES = (KerasHubJaxImpl,)
