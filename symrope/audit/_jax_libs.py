"""Real JAX RoPE code audited through its own functions: Gemma, keras-hub (JAX backend),
sglang-jax, MaxText.

Each adapter has the shape of a real-library entry (``symrope.audit._real``): class attributes
that say what it is (``name``, ``imports``, ``requirement``, ``runs``, ``table_is``,
``pairing``, ``rope_types``, ``partial_rotary``, ``fix_target``), and an instance built for
one schedule that rotates vectors with the library's own apply function (``rotate``) in the
model dtype; its table ``(cos, sin)`` is what that function does to each pair's first unit
vector. The library's function runs under ``jax.jit``, as a model runs it; float64 turns
``jax_enable_x64`` on for the call (without it JAX silently computes in float32).

What each needs beyond ``jax[cpu]`` (the ``jax`` extra):

* ``gemma``: ``gemma==3.3.0`` with ``--no-deps``, and what ``gemma.gm.math`` imports:
  ``kauldron==1.4.2`` and ``clu`` with ``--no-deps``, ``tensorflow-cpu``, ``jaxtyping``,
  ``typeguard``, ``etils``, ``lark`` (kauldron's full requirement set does not resolve in
  useful time next to the torch pins);
* ``keras-hub-jax``: keras-hub in a process whose keras runs on JAX (``KERAS_BACKEND=jax``
  before keras is imported: the backend is chosen once per process);
* ``sglang-jax``: ``sglang-jax==0.0.2`` with ``--no-deps --ignore-requires-python`` (it says
  Python >= 3.12; plain pip on 3.11 gets 0.0.1.post1, which predates the code audited here)
  and ``flax``; ``sglang-jax+fix`` is the same module with the phase of the fix of issue #1472;
* ``maxtext``: ``maxtext==0.2.5`` with ``--no-deps --ignore-requires-python``, ``aqtp``,
  ``pathwaysutils``, ``flax``.
"""

from __future__ import annotations

import importlib
import importlib.util
import os

import numpy as np

from symrope.audit._models import dtype_name, validate_positions
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["ArrayLibrary", "JaxLibrary", "GemmaImpl", "KerasHubJaxImpl", "SglangJaxImpl",
           "SglangJaxFixedImpl", "MaxTextImpl", "JAX_LIBRARIES", "jax_library",
           "theta_argument"]

_CHUNK = 1 << 15   # positions per library call: bounded memory


def theta_argument(config: RopeConfig) -> int | float:
    """The base as the libraries' own defaults are typed (``10000``, not ``10000.0``)."""
    theta = float(config.theta)
    return int(theta) if theta.is_integer() else theta


def import_module(module: str, what: str, requirement: str):
    """``importlib.import_module``, or a one-line UsageError naming what to install."""
    try:
        return importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - ImportError, or a broken install
        text = (str(error).strip().splitlines() or [type(error).__name__])[0][:160]
        raise UsageError(f"--impl {what} needs {module.split('.')[0]}, which does not import "
                         f"here ({text}): {requirement}") from None


class ArrayLibrary:
    """A real library's RoPE run on arrays (JAX, MLX): the table is its rotation of unit vectors.

    Subclasses set the class attributes (see the module docstring) and write ``_rotate_numpy(x,
    positions, dtype)``: ``x`` float64 (n, vectors, head_dim), ``positions`` int64 (n,), the
    dtype name (``bf16``, ``fp16``, ``fp32``, ``fp64``); the rotated array in that dtype.
    """

    name = "?"
    imports: tuple[str, ...] = ()
    requirement = ""
    runs = ""
    table_is = "the library's output on unit vectors"
    fix_target: str | None = None
    pairing = "rotate_half"
    rope_types: tuple[str, ...] | None = None
    partial_rotary = True
    fix = "fp64-angle"
    default_dtype = "bf16"
    user_supplied = False
    scaled_table = False
    summary = ""
    notes: tuple[str, ...] = ()

    def __init__(self, rope_config: RopeConfig):
        reason = self.cannot_express(rope_config)
        if reason is not None:
            raise UsageError(reason)
        self.rope_config = rope_config

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    @classmethod
    def installed(cls) -> bool:
        """Whether every module of ``imports`` can be found (nothing is imported)."""
        try:
            return all(importlib.util.find_spec(m) is not None for m in cls.imports)
        except (ImportError, ValueError):
            return False

    @classmethod
    def cannot_express(cls, config: RopeConfig) -> str | None:
        """Why the library cannot express ``config`` (None: it can)."""
        if cls.rope_types is not None and config.rope_type not in cls.rope_types:
            return f"{cls.name} has {', '.join(cls.rope_types)} RoPE only, not {config.rope_type!r}"
        if not cls.partial_rotary and config.rotary_dim != config.head_dim:
            return (f"{cls.name} rotates the whole head: partial rotary (rotary_dim "
                    f"{config.rotary_dim} of {config.head_dim}) is not expressible")
        return None

    def explanation(self, dtype: str) -> str:
        return ""

    def prepare(self, max_position: int) -> None:
        return None

    def phase_reference(self):
        return None

    def channels(self) -> tuple[np.ndarray, np.ndarray]:
        pairs = self.rope_config.rotary_dim // 2
        first = np.arange(pairs) * 2 if self.pairing == "interleaved" else np.arange(pairs)
        return first, first + (1 if self.pairing == "interleaved" else pairs)

    def rotate(self, x: np.ndarray, positions, dtype: str | None = None) -> np.ndarray:
        """Rotate ``x`` (n, vectors, head_dim) at ``positions`` (n,) with the library's code, in
        ``dtype`` (the model dtype: x is rounded to it first); numpy in that dtype comes back."""
        positions = validate_positions(positions)
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        x = np.asarray(x, dtype=np.float64)
        parts = [self._rotate_numpy(x[start:start + _CHUNK], positions[start:start + _CHUNK],
                                    name) for start in range(0, positions.shape[0], _CHUNK)]
        return np.concatenate(parts) if parts else np.empty(x.shape, dtype=np.float32)

    def table(self, positions, config: RopeConfig | None = None, dtype: str | None = None,
              seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(cos, sin)`` per pair: the library's rotation of each pair's first unit vector."""
        if seq_len is not None:
            raise UsageError(f"--impl {self.name} has no runtime sequence-length update (--seq-len)")
        positions = validate_positions(positions)
        first, second = self.channels()
        x = np.zeros((positions.shape[0], 1, self.rope_config.head_dim))
        x[:, 0, first] = 1.0
        rotated = self.rotate(x, positions, dtype)[:, 0]
        return rotated[:, first], rotated[:, second]

    def _rotate_numpy(self, x, positions, dtype):
        raise NotImplementedError


_JAX_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32", "fp64": "float64"}


class JaxLibrary(ArrayLibrary):
    """An :class:`ArrayLibrary` whose code is JAX: ``_rotate(x, positions)`` on JAX arrays (x in
    the model dtype, (n, heads, head_dim); positions int (n,)), jitted once per dtype."""

    requirement = "pip install 'symrope[jax]'"

    def __init__(self, rope_config: RopeConfig):
        super().__init__(rope_config)
        self.jax = import_module("jax", self.name, self.requirement)
        self._jitted = {}

    def _rotate_numpy(self, x, positions, dtype):
        jax = self.jax
        with jax.enable_x64(dtype == "fp64"):
            jdtype = getattr(jax.numpy, _JAX_DTYPES[dtype])
            if dtype not in self._jitted:
                self._jitted[dtype] = jax.jit(self._rotate)
            out = self._jitted[dtype](jax.numpy.asarray(x, dtype=jdtype),
                                      jax.numpy.asarray(positions, dtype=jax.numpy.int32))
            return np.asarray(out)

    def _rotate(self, x, positions):
        raise NotImplementedError

    def lift_function(self):
        """The library's code as ``(q, k, positions) -> (q_rot, k_rot)`` for the lift, q and k
        shaped ``(1, 1, tokens, head_dim)`` (symrope's contract)."""
        def function(q, k, positions):
            return (self._rotate(q[0, 0][:, None, :], positions)[:, 0][None, None],
                    self._rotate(k[0, 0][:, None, :], positions)[:, 0][None, None])
        function.__symrope_framework__ = "jax"
        function.__qualname__ = self.name
        return function


# --- Gemma ---------------------------------------------------------------------------------------

class GemmaImpl(JaxLibrary):
    """Google DeepMind's ``gemma.gm.math.apply_rope`` (the Gemma reference implementation)."""

    name = "gemma"
    imports = ("jax", "gemma")
    requirement = ("pip install --no-deps gemma==3.3.0 kauldron==1.4.2 clu; pip install "
                   "tensorflow-cpu jaxtyping typeguard etils lark")
    runs = ("`gemma.gm.math.apply_rope(inputs, positions, base_frequency=theta, "
            "scale_factor=factor)` under jax.jit")
    pairing = "rotate_half"
    rope_types = ("default", "linear")
    partial_rotary = False
    fix_target = ("gemma.gm.math._positional_embeddings.apply_rope: timescale and "
                  "positions / timescale in float64 (jax_enable_x64), sin/cos in float64, then "
                  "cast to the input dtype")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        module = import_module("gemma.gm.math", self.name, self.requirement)
        self._apply_rope = module.apply_rope
        self._factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" \
            else 1.0
        gemma = import_module("gemma", self.name, self.requirement)
        self.summary = (f"gemma {gemma.__version__} apply_rope (the real function, JAX "
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


# --- keras-hub on JAX ----------------------------------------------------------------------------

class KerasHubJaxImpl(JaxLibrary):
    """keras-hub ``RotaryEmbedding`` layer on the JAX backend, in the layer's compute dtype."""

    name = "keras-hub-jax"
    imports = ("jax", "keras", "keras_hub")
    requirement = "pip install 'symrope[jax]' keras keras-hub (KERAS_BACKEND=jax)"
    runs = "`keras_hub.layers.RotaryEmbedding` in the dtype policy of the audited dtype (JAX backend)"
    pairing = "rotate_half"
    rope_types = ("default", "linear")
    partial_rotary = False
    fix_target = ("keras_hub.layers.RotaryEmbedding._compute_cos_sin_embedding: einsum of "
                  "float64 positions and inverse_freq, cos/sin in float64, then cast")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        os.environ.setdefault("KERAS_BACKEND", "jax")
        keras = import_module("keras", self.name, self.requirement)
        backend = keras.backend.backend()
        if backend != "jax":
            raise UsageError(f"--impl {self.name} needs keras on the JAX backend, but this "
                             f"process imported keras with {backend!r} (set KERAS_BACKEND=jax "
                             "before keras is imported: the backend is chosen once per process)")
        keras_hub = import_module("keras_hub", self.name, self.requirement)
        self._layer_class = keras_hub.layers.RotaryEmbedding
        self._factor = float(config.params.get("factor", 1.0)) if config.rope_type == "linear" \
            else 1.0
        self._layers = {}
        self.summary = (f"keras-hub {keras_hub.__version__} RotaryEmbedding (the real layer, JAX "
                        f"backend): float32 inverse_freq and einsum angle, cos/sin cast to the "
                        f"compute dtype, x * cos + rotate_half(x) * sin in the compute dtype")

    def explanation(self, dtype: str) -> str:
        text = ("The angle is a float32 einsum of float32 positions and float32 inverse "
                "frequencies (rounding grows like p*2^-24); cos/sin are cast to the compute dtype")
        if dtype in ("bf16", "fp16"):
            text += f" and the rotation itself runs in {dtype}"
        return text + "."

    def _layer(self, dtype):
        key = str(dtype)
        if key not in self._layers:
            kwargs = {"scaling_factor": self._factor} if self._factor != 1.0 else {}
            self._layers[key] = self._layer_class(max_wavelength=theta_argument(self.rope_config),
                                                  dtype=key, **kwargs)
        return self._layers[key]

    def _rotate(self, x, positions):
        return self._layer(x.dtype)(x[None], positions=positions)[0]


# --- sglang-jax ----------------------------------------------------------------------------------

class SglangJaxImpl(JaxLibrary):
    """sglang-jax's ``RotaryEmbedding`` (release 0.0.2: before the fix of its issue #1472)."""

    name = "sglang-jax"
    imports = ("jax", "flax", "sgl_jax")
    requirement = ("pip install flax; pip install --no-deps --ignore-requires-python "
                   "sglang-jax==0.0.2")
    runs = ("`sgl_jax.srt.layers.embeddings.RotaryEmbedding(head_dim, rotary_dim, max_position, "
            "theta, is_neox_style=True, dtype)` called on (positions, q, k), under jax.jit")
    pairing = "rotate_half"
    rope_types = ("default",)
    fix_target = ("sgl_jax.srt.layers.embeddings.RotaryEmbedding.__call__: inv_freq = "
                  "jnp.asarray(self._inv_freq_np, dtype=self.dtype) rounds the frequencies to "
                  "the model dtype; keep them float32 (sglang-jax PR #1473)")
    fixed = False

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        self._module = import_module("sgl_jax.srt.layers.embeddings", self.name,
                                     self.requirement)
        from importlib.metadata import version

        self._version = version("sglang-jax")
        self._modules = {}
        self.summary = (f"sglang-jax {self._version} RotaryEmbedding (the real module): inv_freq "
                        f"cast to the model dtype, angle = einsum(float32 positions, inv_freq) "
                        f"in float32, cos/sin cast to the model dtype, rotation in the model dtype")

    def explanation(self, dtype: str) -> str:
        if dtype in ("bf16", "fp16"):
            return (f"The frequencies are rounded to {dtype} before the angle is formed "
                    f"(relative error up to 2^-{9 if dtype == 'bf16' else 12}), so the angle "
                    f"p*omega drifts by p*omega*2^-{9 if dtype == 'bf16' else 12}: whole "
                    "radians within a few thousand positions (sglang-jax #1472); cos/sin and "
                    f"the rotation are {dtype}.")
        return ("The angle is a float32 einsum of float32 positions and float32 frequencies "
                "(rounding grows like p*2^-24).")

    def rope(self, dtype):
        """The library's module for the model dtype (its ``dtype`` argument)."""
        key = str(dtype)
        if key not in self._modules:
            config = self.rope_config
            self._modules[key] = self._module.RotaryEmbedding(
                config.head_dim, config.rotary_dim, 1 << 20, theta_argument(config), True, dtype)
        return self._modules[key]

    def _rotate(self, x, positions):
        rope = self.rope(x.dtype)
        n = x.shape[0]
        flat = x.reshape(n, -1)
        if not self.fixed:
            q_rot, _ = rope(positions, flat, flat)
            return q_rot.reshape(x.shape)
        return self._fixed_rotate(rope, positions, x)

    def _fixed_rotate(self, rope, positions, x):
        jnp = self.jax.numpy
        # the fix of #1472 (sglang-jax PR #1473, RotaryEmbedding._compute_cos_sin): the
        # frequencies stay float32; everything else is the released module's own code
        inv_freq = jnp.asarray(rope._inv_freq_np, dtype=jnp.float32)
        freqs = positions.astype(jnp.float32)[..., None] * inv_freq
        cos, sin = jnp.cos(freqs).astype(rope.dtype), jnp.sin(freqs).astype(rope.dtype)
        rotary = self.rope_config.rotary_dim
        rotated = self._module._apply_rotary_emb(x[..., :rotary], cos, sin, rope.is_neox_style)
        return jnp.concatenate((rotated, x[..., rotary:]), axis=-1)


class SglangJaxFixedImpl(SglangJaxImpl):
    """The same module with the phase of the fix of #1472 (float32 frequencies)."""

    name = "sglang-jax+fix"
    fix_target = None
    fixed = True

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        self.summary = (f"sglang-jax {self._version} RotaryEmbedding with the phase of PR #1473 "
                        f"(float32 inv_freq * float32 positions, cos/sin cast to the model "
                        f"dtype; the 3 lines of the fix transcribed, the rotation the module's "
                        f"own _apply_rotary_emb)")

    def explanation(self, dtype: str) -> str:
        return ("The angle is the float32 product of float32 positions and float32 frequencies "
                f"(rounding grows like p*2^-24); cos/sin and the rotation are {dtype}.")


# --- MaxText -------------------------------------------------------------------------------------

class MaxTextImpl(JaxLibrary):
    """MaxText's ``RotaryEmbedding`` (flax nnx) on a one-device CPU mesh."""

    name = "maxtext"
    imports = ("jax", "flax", "maxtext")
    requirement = ("pip install flax aqtp pathwaysutils; pip install --no-deps "
                   "--ignore-requires-python maxtext==0.2.5")
    runs = ("`maxtext.layers.embeddings.RotaryEmbedding(1, theta, mesh, head_dim, "
            "cast_as_fprop_dtype=True, fprop_dtype=dtype)` called on (inputs, position)")
    pairing = "rotate_half"
    rope_types = ("default",)
    partial_rotary = False
    fix_target = ("maxtext.layers.embeddings.RotaryEmbedding.__call__: timescale and "
                  "position / timescale in float64, sin/cos in float64, then cast")

    def __init__(self, config: RopeConfig):
        super().__init__(config)
        self._embeddings = import_module("maxtext.layers.embeddings", self.name,
                                         self.requirement)
        from importlib.metadata import version

        self._version = version("maxtext")
        self._modules = {}
        self.summary = (f"maxtext {self._version} RotaryEmbedding (the real nnx module): "
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


JAX_LIBRARIES = {library.name: library for library in (
    GemmaImpl, KerasHubJaxImpl, SglangJaxImpl, SglangJaxFixedImpl, MaxTextImpl)}


def jax_library(name: str, config: RopeConfig) -> JaxLibrary:
    """The JAX library ``name`` built for ``config`` (UsageError for an unknown name)."""
    if name not in JAX_LIBRARIES:
        raise UsageError(f"unknown JAX implementation {name!r} (one of: "
                         f"{', '.join(JAX_LIBRARIES)})")
    return JAX_LIBRARIES[name](config)
