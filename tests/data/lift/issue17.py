"""The torch functions of issue 17's reproductions, as a user would write them.

Each is ``(q, k, positions) -> (q_rot, k_rot)`` with q, k shaped ``(..., seq, head_dim)`` and
positions int64 ``(seq,)``; ``symrope check --impl tests/data/lift/issue17.py:NAME`` checks one,
``benchmarks/bench_lift.py --reproductions`` all of them (before/after tables), and
``tests/test_lift_sequences.py`` asserts each verdict. Nothing here is imported by symrope.
"""

import torch


def _inv_freq(x):
    half = x.shape[-1] // 2
    return 1.0 / (10000 ** (torch.arange(0, half).float() / half))


def _rotate(x, angle):
    """rotate_half RoPE of x (..., seq, d) by angle (seq, d/2)."""
    half = x.shape[-1] // 2
    cos, sin = angle.cos(), angle.sin()
    a, b = x[..., :half], x[..., half:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


def _rope(x, positions):
    return _rotate(x, positions[:, None].float() * _inv_freq(x))


# ----------------------------------------------------------------------------- correct

def rope(q, k, positions):
    """Plain rotate_half RoPE: relative for any position_ids (left-padded, packed, offset)."""
    return _rope(q, positions), _rope(k, positions)


def rope_complex_conj(q, k, positions):
    """Meta's complex form, rotating by the conjugate (angle -p omega) on both sides."""
    dim = q.shape[-1]
    freqs = 1.0 / (10000.0 ** (torch.arange(0, dim, 2).float() / dim))
    freqs_cis = torch.polar(torch.ones(positions.shape[0], dim // 2),
                            torch.outer(positions.float(), freqs)).conj()

    def turn(x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs_cis).flatten(-2).type_as(x)
    return turn(q), turn(k)


# ----------------------------------------------------------------------------- integer casts

def interpolation_long(q, k, positions):
    """Position interpolation by 2 with a float-to-int cast: truncates."""
    scaled = (positions.float() / 2).long()
    return _rope(q, scaled), _rope(k, scaled)


def interpolation_floor_div(q, k, positions):
    """The same interpolation with torch.div(rounding_mode='floor')."""
    scaled = torch.div(positions, 2, rounding_mode="floor")
    return _rope(q, scaled), _rope(k, scaled)


def interpolation_round(q, k, positions):
    """The same interpolation rounded (half to even)."""
    scaled = torch.round(positions.float() / 2)
    return _rope(q, scaled), _rope(k, scaled)


def angle_bucket(q, k, positions):
    """Angles quantised to 1/64 rad by an int cast."""
    angle = positions[:, None].float() * _inv_freq(q)
    bucketed = (angle * 64).int().float() / 64
    return _rotate(q, bucketed), _rotate(k, bucketed)


# ----------------------------------------------------------------------------- sequences

def key_positions_flipped(q, k, positions):
    """Keys rotated at the reversed positions (a cache misalignment)."""
    return _rope(q, positions), _rope(k, positions.flip(0))


def rebased_to_first_token(q, k, positions):
    """Positions re-based to the first token of the call."""
    local = positions - positions[0]
    return _rope(q, local), _rope(k, local)


def cache_offset_on_q_only(q, k, positions):
    """A decode step: the cache offset (first new position) added to the queries only."""
    local = torch.arange(q.shape[-2])
    offset = positions[0]
    return _rope(q, local + offset), _rope(k, local)


def gather_by_wrong_index(q, k, positions):
    """cos/sin per token gathered for the keys with an index shifted by one token."""
    angle = positions[:, None].float() * _inv_freq(q)
    index = torch.arange(positions.shape[0]).roll(1)
    return _rotate(q, angle), _rotate(k, angle[index])


# ----------------------------------------------------------------------------- float casts

def positions_fp16(q, k, positions):
    """Positions cast to float16 before the angle (exact integers only up to 2048)."""
    angle = positions.half()[:, None].float() * _inv_freq(q)
    return _rotate(q, angle), _rotate(k, angle)


def positions_bf16(q, k, positions):
    """Positions cast to bfloat16 (exact integers only up to 256)."""
    angle = positions.to(torch.bfloat16)[:, None].float() * _inv_freq(q)
    return _rotate(q, angle), _rotate(k, angle)
