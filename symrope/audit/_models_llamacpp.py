"""llama.cpp / ggml's RoPE cache (``ggml_rope_cache_init`` and ``rope_yarn`` in ggml-cpu ops).

ggml builds each position's angles by a chain of float32 multiplies along the pair index:
``theta = (float) pos``; for each pair ``cache = cosf(rope_yarn(theta / ff)) * mscale``, then
``theta *= theta_scale`` with ``theta_scale = powf(freq_base, -2.0f / n_dims)``. Scaling enters
through ``freq_scale`` (linear, YaRN), per-pair ``freq_factors`` (the GGUF ``rope_freqs`` tensor:
llama3 and LongRoPE) and YaRN's ramp; llama.cpp has no dynamic NTK.
"""

from __future__ import annotations

import numpy as np

from symrope.errors import UsageError
from symrope.schedules import attention_factor, inv_freq

_F32 = np.float32


def llamacpp_table(positions, config, dtype, seq_len):
    """(cos, sin) of ggml's float32 cache for ``positions`` (the model dtype does not change it).

    Examples
    ========

    >>> import numpy as np
    >>> from symrope.audit._models_llamacpp import llamacpp_table
    >>> from symrope.schedules import RopeConfig
    >>> config = RopeConfig.from_options(head_dim=128, theta=10000)
    >>> cos, sin = llamacpp_table(np.array([16384]), config, "fp32", None)
    >>> exact = 16384 * 10000.0 ** (-126 / 128)   # the last pair's angle, below pi
    >>> relative = abs(np.arctan2(sin[0, 63], cos[0, 63]) / exact - 1)
    >>> bool(1e-6 < relative < 1e-5)  # 63 chained float32 multiplies, ~3.4e-8 each
    True
    """
    if config.rope_type == "dynamic":
        raise UsageError("the llamacpp model has no 'dynamic' rope type (llama.cpp does not "
                         "implement dynamic NTK scaling)")
    n_dims = config.rotary_dim
    pairs = n_dims // 2
    base = _F32(config.theta)
    theta_scale = np.power(base, _F32(-2.0) / _F32(n_dims))
    freq_scale, ext_factor, mscale = _F32(1.0), _F32(0.0), _F32(1.0)
    corr_low = corr_high = _F32(0.0)
    freq_factors = None
    params = config.params
    if config.rope_type in ("linear", "yarn"):
        factor = params.get("factor") or (config.max_position_embeddings
                                          / params["original_max_position_embeddings"])
        freq_scale = _F32(1.0 / factor)  # llama.cpp's rope_freq_scale = 1 / factor
    if config.rope_type == "yarn":
        ext_factor = _F32(1.0)
        corr_low, corr_high = _yarn_corr_dims(
            n_dims, params["original_max_position_embeddings"], base,
            _F32(params.get("beta_fast") or 32), _F32(params.get("beta_slow") or 1))
        wanted = attention_factor(config, "float64", seq_len)
        attention_scale_factor = 1.0 + 0.1 * np.log(factor)
        if abs(wanted - attention_scale_factor) > 1e-12:
            # A configured attention factor (or DeepSeek's mscale ratio) reaches ggml as
            # attn_factor, which rope_yarn multiplies by its own 1 + 0.1 ln(1/freq_scale).
            mscale = _F32(wanted / attention_scale_factor)
    elif config.rope_type in ("llama3", "longrope"):
        # convert_hf_to_gguf.py stores the per-pair divisor of the frequency as float32.
        plain = inv_freq(_plain(config), "float64")
        freq_factors = (plain / inv_freq(config, "float64", seq_len)).astype(_F32)
        mscale = _F32(attention_factor(config, "float64", seq_len))

    theta = positions.astype(_F32)
    cos = np.empty((positions.shape[0], pairs), dtype=_F32)
    sin = np.empty_like(cos)
    for pair in range(pairs):
        extrapolated = theta / freq_factors[pair] if freq_factors is not None else theta
        interpolated = freq_scale * extrapolated
        scale = mscale
        if ext_factor != 0:
            ramp_mix = _yarn_ramp(corr_low, corr_high, 2 * pair) * ext_factor
            angle = interpolated * (_F32(1) - ramp_mix) + extrapolated * ramp_mix
            scale = mscale * (_F32(1.0) + _F32(0.1) * np.log(_F32(1.0) / freq_scale))
        else:
            angle = interpolated
        wide = angle.astype(np.float64)
        cos[:, pair] = np.cos(wide).astype(_F32) * scale
        sin[:, pair] = np.sin(wide).astype(_F32) * scale
        theta = theta * theta_scale
    return cos, sin


def _plain(config):
    from symrope.schedules import RopeConfig

    return RopeConfig(head_dim=config.head_dim, rotary_dim=config.rotary_dim, theta=config.theta)


def _yarn_corr_dims(n_dims, n_ctx_orig, base, beta_fast, beta_slow):
    def corr_dim(rotations):
        # n_dims * logf(n_ctx_orig / (n_rot * 2 * (float)M_PI)) / (2 * logf(base))
        ratio = _F32(n_ctx_orig) / (rotations * _F32(2) * _F32(np.pi))
        return _F32(n_dims) * np.log(ratio) / (_F32(2) * np.log(base))

    start = np.floor(corr_dim(beta_fast))
    end = np.ceil(corr_dim(beta_slow))
    return max(_F32(0), start), min(_F32(n_dims - 1), end)


def _yarn_ramp(low, high, i0):
    y = (_F32(i0 // 2) - low) / max(_F32(0.001), high - low)
    return _F32(1) - min(_F32(1), max(_F32(0), y))
