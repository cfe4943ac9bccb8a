"""User RoPE functions ``(q, k, positions) -> (q_rot, k_rot)`` for ``symrope diff`` tests.

``llama_rope`` computes what transformers' Llama rotary code computes for the default schedule
(theta 10000, rotate_half, float32 ``inv_freq`` from an int64 ``arange``); ``llama_rope_shifted``
has the off-by-one frequency index ``theta^(-2(i+1)/d)`` that ports get wrong.
"""

import torch

THETA = 10000.0


def _rope(q, k, positions, first: int):
    dim = q.shape[-1]
    exponents = torch.arange(first, dim + first, 2, dtype=torch.int64).float() / dim
    inv_freq = 1.0 / (THETA ** exponents)
    angles = positions[:, None].float() * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    cos, sin = emb.cos(), emb.sin()

    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def llama_rope(q, k, positions):
    return _rope(q, k, positions, 0)


def llama_rope_shifted(q, k, positions):
    return _rope(q, k, positions, 2)
