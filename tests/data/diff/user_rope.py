"""User RoPE functions ``(q, k, positions) -> (q_rot, k_rot)`` for ``symrope diff`` tests.

``llama_rope`` computes what transformers' Llama rotary code computes for the default schedule
(theta 10000, rotate_half, float32 ``inv_freq`` from an int64 ``arange``); ``llama_rope_shifted``
has the off-by-one frequency index ``theta^(-2(i+1)/d)`` that ports get wrong;
``llama_rope_float64_inv_freq`` computes ``inv_freq`` in float64 and casts it to float32.
"""

import torch

THETA = 10000.0


def _rope(q, k, positions, first: int, wide: bool = False):
    dim = q.shape[-1]
    if wide:  # inv_freq computed in float64, then cast (the rounding of another port)
        exponents = torch.arange(first, dim + first, 2, dtype=torch.float64) / dim
        inv_freq = (1.0 / (THETA ** exponents)).float()
    else:
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


def llama_rope_float64_inv_freq(q, k, positions):
    return _rope(q, k, positions, 0, wide=True)


def _bumped(ulps: int):
    """``llama_rope`` with plane 3's float32 frequency moved by ``ulps`` units in the last place."""
    def rope(q, k, positions):
        dim = q.shape[-1]
        exponents = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
        inv_freq = 1.0 / (THETA ** exponents)
        for _ in range(ulps):
            inv_freq[3] = torch.nextafter(inv_freq[3], torch.tensor(1.0))
        angles = positions[:, None].float() * inv_freq[None, :]
        emb = torch.cat((angles, angles), dim=-1)
        half = dim // 2
        turn = lambda x: torch.cat((-x[..., half:], x[..., :half]), dim=-1)  # noqa: E731
        return q * emb.cos() + turn(q) * emb.sin(), k * emb.cos() + turn(k) * emb.sin()
    return rope


llama_rope_one_ulp = _bumped(1)
llama_rope_many_ulps = _bumped(4096)
