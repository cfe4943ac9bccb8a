"""A RoPE written in torch, checked as it runs: ``symrope check --impl docs/examples/torch_rope.py:rope``."""

import torch


def _rotate(x, positions):
    half = x.shape[-1] // 2
    inv_freq = 1.0 / (10000 ** (torch.arange(0, half).float() / half))
    angle = positions[:, None].float() * inv_freq  # (seq, half)
    cos, sin = angle.cos(), angle.sin()
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


def rope(q, k, positions):
    """q, k: (..., seq, head_dim); positions: int64 (seq,). Returns the rotated q and k."""
    return _rotate(q, positions), _rotate(k, positions)


def rope_draft(q, k, positions):
    """A slip: the keys are rotated at the transposed angle."""
    return _rotate(q, positions), _rotate(k, -positions)


def rope_interpolated(q, k, positions):
    """Position interpolation by 2, cast back to integers: the cast truncates."""
    scaled = (positions.float() / 2).long()
    return _rotate(q, scaled), _rotate(k, scaled)


def rope_keys_flipped(q, k, positions):
    """A cache slip: the keys are rotated at the positions of the sequence reversed."""
    return _rotate(q, positions), _rotate(k, positions.flip(0))


def rope_bf16_positions(q, k, positions):
    """Positions cast to bfloat16 (exact integers only up to 256) before the angle."""
    return _rotate(q, positions.to(torch.bfloat16)), _rotate(k, positions.to(torch.bfloat16))
