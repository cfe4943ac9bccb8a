"""A RoPE written in JAX, lifted through its jaxpr: ``symrope check --impl docs/examples/jax_rope.py:rope``."""

import jax.numpy as jnp


def _rotate(x, positions):
    half = x.shape[-1] // 2
    timescale = 10000.0 ** (jnp.arange(half, dtype=jnp.float32) / half)
    angle = positions[:, None].astype(jnp.float32) / timescale  # (seq, half), as Gemma writes it
    cos, sin = jnp.cos(angle), jnp.sin(angle)
    a, b = x[..., :half], x[..., half:]
    return jnp.concatenate((a * cos - b * sin, b * cos + a * sin), axis=-1)


def rope(q, k, positions):
    """q, k: (..., seq, head_dim); positions: int (seq,). Returns the rotated q and k."""
    return _rotate(q, positions), _rotate(k, positions)


def rope_keys_flipped(q, k, positions):
    """A slip: the keys are rotated at the opposite angle."""
    return _rotate(q, positions), _rotate(k, -positions)
