"""The ``keras-hub`` entry: keras-hub's ``RotaryEmbedding`` layer on the torch backend.

keras-hub is installed without its dependencies (they pull in TensorFlow): ``.ci/run`` installs
its requirement with ``--no-deps``; the ``keras`` it needs is in the ``frameworks`` extra.
"""

from __future__ import annotations

from symrope.audit._real import Library, theta_argument
from symrope.audit._torch import import_library
from symrope.schedules import RopeConfig


FIX_TARGET = ("keras_hub.layers.RotaryEmbedding._compute_cos_sin_embedding: einsum of "
              "float64 positions and inverse_freq, cos/sin in float64, then cast to the "
              "compute dtype")


def linear_factor(config: RopeConfig) -> float:
    """The layer's ``scaling_factor``: the linear schedule's factor, else 1."""
    return float(config.params.get("factor", 1.0)) if config.rope_type == "linear" else 1.0


def keras_summary(version: str, backend: str) -> str:
    """What the audited keras-hub layer computes, on ``backend`` (both entries run one layer)."""
    return (f"keras-hub {version} RotaryEmbedding (the real layer, {backend} backend): float32 "
            f"inverse_freq and einsum angle, cos/sin cast to the compute dtype, x * cos + "
            f"rotate_half(x) * sin in the compute dtype")


def keras_explanation(dtype: str) -> str:
    """Why the keras-hub layer drifts in ``dtype``, on any backend."""
    text = ("The angle is a float32 einsum of float32 positions and float32 inverse "
            "frequencies (rounding grows like p*2^-24); cos/sin are cast to the compute dtype")
    if dtype in ("bf16", "fp16"):
        text += (f" and the rotation x*cos + rotate_half(x)*sin is computed in {dtype} itself, "
                 f"so each product and the sum round to {dtype}")
    return text + "."


class KerasHubImpl(Library):
    """keras-hub ``RotaryEmbedding`` layer on the torch backend, in the layer's compute dtype."""

    name = "keras-hub"
    imports = ("torch", "keras", "keras_hub")
    requirement = "keras-hub>=0.20"
    runs = ("`keras_hub.layers.RotaryEmbedding` in the dtype policy of the audited dtype (torch "
            "backend)")
    table_is = "the layer's output on unit vectors"
    survey_cost = 2
    pairing = "rotate_half"
    rope_types = ("default", "linear")
    partial_rotary = False
    fix_target = FIX_TARGET

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        keras_hub = import_library("keras_hub", self.name)
        self._layer_class = keras_hub.layers.RotaryEmbedding
        self._factor = linear_factor(config)
        self._layers = {}
        self.summary = keras_summary(keras_hub.__version__, "torch")

    def explanation(self, dtype: str) -> str:
        return keras_explanation(dtype)

    def _layer(self, torch_dtype):
        key = str(torch_dtype)
        if key not in self._layers:
            policy = {"torch.bfloat16": "bfloat16", "torch.float16": "float16",
                      "torch.float32": "float32", "torch.float64": "float64"}[key]
            kwargs = {"scaling_factor": self._factor} if self._factor != 1.0 else {}
            self._layers[key] = self._layer_class(max_wavelength=theta_argument(self.rope_config),
                                                  dtype=policy, **kwargs)
        return self._layers[key]

    def _rotate(self, x, positions):
        torch = self.torch
        layer = self._layer(x.dtype)
        out = layer(x[None], positions=torch.from_numpy(positions))
        return torch.as_tensor(out)[0]


LIBRARIES = (KerasHubImpl,)
