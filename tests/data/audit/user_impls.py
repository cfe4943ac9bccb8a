"""User implementations the audit tests load with ``--impl tests/data/audit/user_impls.py:NAME``.

All use head_dim 64, theta 10000 (the tests' config); none is imported by symrope itself.
"""

import numpy as np

DIM = 64
THETA = 10000.0


def _angles32(positions):
    inv_freq = (1.0 / (THETA ** (np.arange(0, DIM, 2, dtype=np.float32) / DIM))).astype(np.float32)
    return positions.astype(np.float32)[:, None] * inv_freq[None, :]


def per_pair_table(positions):
    angle = _angles32(positions)
    return np.cos(angle), np.sin(angle)


def hf_duplicated_table(positions):
    angle = _angles32(positions)
    emb = np.concatenate([angle, angle], axis=-1)
    return np.cos(emb), np.sin(emb)


def complex_table(positions):
    return np.exp(1j * _angles32(positions).astype(np.float64)).astype(np.complex64)


def torch_bf16_table(positions):
    import torch

    inv_freq = 1.0 / (THETA ** (torch.arange(0, DIM, 2, dtype=torch.float) / DIM))
    freqs = torch.as_tensor(positions)[:, None].float() * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(torch.bfloat16)[None], emb.sin().to(torch.bfloat16)[None]


def rotate_half_apply(x, positions):
    angle = _angles32(positions)
    cos = np.concatenate([np.cos(angle), np.cos(angle)], axis=-1)
    sin = np.concatenate([np.sin(angle), np.sin(angle)], axis=-1)
    x = x.astype(np.float32)
    rotated_half = np.concatenate([-x[:, DIM // 2:], x[:, :DIM // 2]], axis=-1)
    return x * cos + rotated_half * sin


def interleaved_torch_apply(x, positions):
    import torch

    freqs = 1.0 / (THETA ** (torch.arange(0, DIM, 2)[: DIM // 2].float() / DIM))
    freqs_cis = torch.polar(torch.ones(len(positions), DIM // 2),
                            torch.outer(positions.float(), freqs))
    x_complex = torch.view_as_complex(x.float().reshape(x.shape[0], -1, 2))
    return torch.view_as_real(x_complex * freqs_cis).flatten(1).type_as(x)


def raises(positions):
    raise RuntimeError("CUDA out of memory\nsecond line")


def wrong_shape(positions):
    return np.zeros((len(positions), 7)), np.zeros((len(positions), 7))


def not_a_pair(positions):
    return np.zeros((len(positions), 32))


def nan_table(positions):
    cos, sin = per_pair_table(positions)
    cos[-1, 3] = np.nan
    return cos, sin


def scrambled_apply(x, positions):
    return x[:, ::-1] * 0.5 + x * 0.5


NOT_CALLABLE = 42
