"""A model repository's own test file: its RoPE is relative and precise enough (docs/lift.md).

Run with ``pytest docs/examples/test_model_rope.py``: symrope lifts the real function, decides the
four assumptions on every token pair, and audits the float code against a certified reference.
"""

import torch

from symrope.testing import assert_precise, assert_relative

HEAD_DIM = 8


def apply_rope(q, k, positions, base=10000.0):
    """The model's RoPE: rotate_half pairs, angles formed in float32 (as in HF Llama)."""
    half = q.shape[-1] // 2
    inv_freq = 1.0 / (base ** (torch.arange(0, half, dtype=torch.float32) / half))
    angle = positions[:, None].float() * inv_freq
    cos, sin = angle.cos().to(q.dtype), angle.sin().to(q.dtype)

    def turn(x):
        a, b = x[..., :half], x[..., half:]
        return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
    return turn(q), turn(k)


def test_rope_is_relative():
    assert_relative(apply_rope, head_dim=HEAD_DIM)


def test_rope_is_precise_in_bfloat16_up_to_4k():
    assert_precise(apply_rope, dtype="bf16", context=4096, tolerance=2 ** -7,
                   head_dim=HEAD_DIM, theta=10000)
