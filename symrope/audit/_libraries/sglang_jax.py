"""The ``sglang-jax`` entry: sglang-jax's ``RotaryEmbedding`` (``sgl_jax.srt.layers.embeddings``),
release 0.0.2, run as installed (JAX); its survey variant ``sglang-jax+fix`` has the phase of
the fix of sglang-jax issue #1472.

0.0.2 predates the fix: ``inv_freq = jnp.asarray(self._inv_freq_np, dtype=self.dtype)`` rounds
the frequencies to the model dtype before the angle is formed (bf16: whole radians wrong within
a few thousand positions). The fix (PR #1473) keeps them float32; ``fixed=True`` computes the
phase that way (three lines of the fix, transcribed) and rotates with the module's own
``_apply_rotary_emb``. 0.0.2 says Python >= 3.12 (plain pip on 3.11 gets 0.0.1.post1, which
predates the bug): it is installed with ``--no-deps --ignore-requires-python`` beside flax.
"""

from __future__ import annotations

from typing import ClassVar

from symrope.audit._arrays import JaxLibrary, import_module
from symrope.audit._real import theta_argument
from symrope.schedules import RopeConfig

_FIX = "sglang-jax+fix"


class SglangJaxImpl(JaxLibrary):
    """``RotaryEmbedding(head_dim, rotary_dim, max_position, theta, is_neox_style=True, dtype)``
    called on (positions, q, k); ``fixed``: the phase of the fix of #1472."""

    name = "sglang-jax"
    imports = ("jax", "flax", "sgl_jax")
    requirement = "sglang-jax==0.0.2"
    install = "pip install flax; pip install --no-deps --ignore-requires-python sglang-jax==0.0.2"
    runs = ("`sgl_jax.srt.layers.embeddings.RotaryEmbedding(head_dim, rotary_dim, max_position, "
            "theta, is_neox_style=True, dtype)` on (positions, q, k) under jax.jit (JAX)")
    pairing = "rotate_half"
    separate_environment = True
    rope_types = ("default",)
    build_options: ClassVar[frozenset[str]] = frozenset({"fixed"})
    variants: ClassVar[dict[str, dict]] = {_FIX: {"fixed": True}}
    lift_description = ("sgl_jax.srt.layers.embeddings.RotaryEmbedding (JAX, lifted through its "
                        "jaxpr)")
    fix_target = ("sgl_jax.srt.layers.embeddings.RotaryEmbedding.__call__: inv_freq = "
                  "jnp.asarray(self._inv_freq_np, dtype=self.dtype) rounds the frequencies to "
                  "the model dtype; keep them float32 (sglang-jax PR #1473)")

    def __init__(self, config: RopeConfig, fixed: bool = False) -> None:
        super().__init__(config)
        self.module = import_module("sgl_jax.srt.layers.embeddings", type(self))
        from importlib.metadata import version

        self.version = version("sglang-jax")
        self.fixed = fixed
        self._modules = {}
        self.summary = (f"sglang-jax {self.version} RotaryEmbedding (the real module): inv_freq "
                        f"cast to the model dtype, angle = einsum(float32 positions, inv_freq) "
                        f"in float32, cos/sin cast to the model dtype, rotation in the model dtype")
        self.fix = _FIX
        if fixed:
            self.name, self.fix, self.fix_target = _FIX, "fp64-angle", None
            self.summary = (f"sglang-jax {self.version} RotaryEmbedding with the phase of PR "
                            f"#1473 (float32 inv_freq * float32 positions, cos/sin cast to the "
                            f"model dtype; the 3 lines of the fix transcribed, the rotation the "
                            f"module's own _apply_rotary_emb)")

    def explanation(self, dtype: str) -> str:
        if dtype in ("bf16", "fp16") and not self.fixed:
            bits = 9 if dtype == "bf16" else 12
            return (f"The frequencies are rounded to {dtype} before the angle is formed "
                    f"(relative error up to 2^-{bits}), so the angle p*omega drifts by "
                    f"p*omega*2^-{bits}: whole radians within a few thousand positions "
                    f"(sglang-jax #1472); cos/sin and the rotation are {dtype}.")
        return ("The angle is a float32 product of float32 positions and float32 frequencies "
                f"(rounding grows like p*2^-24); cos/sin and the rotation are {dtype}.")

    def rope(self, dtype):
        """The library's module for the model dtype (its ``dtype`` argument)."""
        key = str(dtype)
        if key not in self._modules:
            config = self.rope_config
            self._modules[key] = self.module.RotaryEmbedding(
                config.head_dim, config.rotary_dim, 1 << 20, theta_argument(config), True, dtype)
        return self._modules[key]

    def _rotate(self, x, positions):
        rope = self.rope(x.dtype)
        if self.fixed:
            return self.fixed_rotate(rope, positions, x)
        flat = x.reshape(x.shape[0], -1)
        q_rot, _ = rope(positions, flat, flat)
        return q_rot.reshape(x.shape)

    def fixed_rotate(self, rope, positions, x):
        """``x`` (tokens, heads, head_dim) rotated by ``rope`` with the phase of the fix."""
        jnp = self.jax.numpy
        # the fix of #1472 (PR #1473, RotaryEmbedding._compute_cos_sin): the frequencies stay
        # float32; everything else is the released module's own code
        inv_freq = jnp.asarray(rope._inv_freq_np, dtype=jnp.float32)
        freqs = positions.astype(jnp.float32)[..., None] * inv_freq
        cos, sin = jnp.cos(freqs).astype(rope.dtype), jnp.sin(freqs).astype(rope.dtype)
        rotary = self.rope_config.rotary_dim
        rotated = self.module._apply_rotary_emb(x[..., :rotary], cos, sin, rope.is_neox_style)
        return jnp.concatenate((rotated, x[..., rotary:]), axis=-1)


LIBRARIES = (SglangJaxImpl,)
