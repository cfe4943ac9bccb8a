"""The frequency schedules of HF transformers' rope types, each written once against a context.

Each ``_<type>(ctx, config, seq_len)`` returns ``(inv_freq, attention_factor)`` as
transformers' ``ROPE_INIT_FUNCTIONS[<type>]`` does (transformers 5.x,
``src/transformers/modeling_rope_utils.py``), in the same order of operations, so that the
``float32`` context reproduces the framework's buffer and the ``mpmath`` / ``sympy`` contexts
give the exact value of the same formula.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symrope.errors import UsageError
from symrope.schedules._config import RopeConfig
from symrope.schedules._contexts import get_context


def inv_freq(config: RopeConfig, ctx: str = "mpmath",
             seq_len: int | None = None) -> np.ndarray | list[Any]:
    """The :attr:`~RopeConfig.pairs` rotation frequencies ``omega_i`` of a schedule.

    Parameters
    ==========

    config : RopeConfig
    ctx : str
        ``"mpmath"`` (list of ``mpf`` at the current ``mp.prec``), ``"float64"`` (numpy array),
        ``"sympy"`` (list of exact expressions; symbolic parameters allowed) or ``"float32"``
        (numpy float32 array computed with torch's float32 semantics: the buffer HF holds).
    seq_len : int, optional
        The current sequence length. Only ``dynamic`` (the base grows with it beyond
        ``max_position_embeddings``) and ``longrope`` (long factors beyond
        ``original_max_position_embeddings``) use it. ``None`` means what transformers computes
        at initialisation (dynamic: the plain frequencies; longrope: the short factors).

    Returns
    =======

    list or numpy.ndarray

    Examples
    ========

    >>> from symrope.schedules import RopeConfig, inv_freq
    >>> config = RopeConfig.from_options(head_dim=8, theta=10000)
    >>> inv_freq(config, "float64")
    array([1.   , 0.1  , 0.01 , 0.001])
    >>> inv_freq(config, "sympy")
    [1, 1/10, 1/100, 1/1000]
    >>> import sympy
    >>> theta = sympy.Symbol("theta", positive=True)
    >>> inv_freq(RopeConfig.from_options(head_dim=4, theta=theta), "sympy")
    [1, 1/sqrt(theta)]

    References
    ==========

    .. [1] transformers, ``src/transformers/modeling_rope_utils.py`` (``ROPE_INIT_FUNCTIONS``).
    """
    omega, _ = _evaluate(config, ctx, seq_len)
    return omega


def attention_factor(config: RopeConfig, ctx: str = "mpmath", seq_len: int | None = None) -> Any:
    """The factor the framework multiplies cos and sin by (attention logits scale by its square).

    YaRN: ``0.1 ln(factor) + 1`` (or the DeepSeek ``mscale / mscale_all_dim`` ratio, or the
    configured ``attention_factor``); LongRoPE: ``sqrt(1 + ln(factor) / ln(original))``;
    1 for the other types.

    Examples
    ========

    >>> from symrope.schedules import RopeConfig, attention_factor
    >>> yarn = RopeConfig.from_hf({"head_dim": 64, "rope_theta": 10000.0,
    ...     "max_position_embeddings": 32768,
    ...     "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
    ...                      "original_max_position_embeddings": 8192}})
    >>> round(attention_factor(yarn, "float64"), 12)
    1.138629436112
    >>> attention_factor(yarn, "sympy")
    log(4)/10 + 1
    """
    _, factor = _evaluate(config, ctx, seq_len)
    return factor


def _evaluate(config: RopeConfig, ctx_name: str, seq_len: int | None):
    if not isinstance(config, RopeConfig):
        raise UsageError(f"expected a RopeConfig, got {type(config).__name__}")
    if seq_len is not None and (isinstance(seq_len, bool) or not isinstance(seq_len, int) or seq_len < 1):
        raise UsageError(f"seq_len must be a positive integer, got {seq_len!r}")
    ctx = get_context(ctx_name)
    omega, factor = _SCHEDULES[config.rope_type](ctx, config, seq_len)
    return ctx.finish(omega), ctx.finish_scalar(factor)


# --- the schedules ------------------------------------------------------------------------------

def _param(ctx, config: RopeConfig, key: str, default: Any = None):
    value = config.params.get(key)
    return ctx.scalar(default if value is None else value)


def _default_frequencies(ctx, base, dim: int):
    # inv_freq = 1.0 / (base ** (arange(0, dim, 2).float() / dim))
    return ctx.divide_scalar_by(ctx.scalar(1), ctx.power(base, ctx.arange(0, dim, 2) / dim))


def _default(ctx, config: RopeConfig, seq_len):
    return _default_frequencies(ctx, ctx.scalar(config.theta), config.rotary_dim), ctx.scalar(1)


def _linear(ctx, config: RopeConfig, seq_len):
    omega, one = _default(ctx, config, seq_len)
    return omega / _param(ctx, config, "factor"), one


def _dynamic(ctx, config: RopeConfig, seq_len):
    dim = config.rotary_dim
    max_positions = config.max_position_embeddings
    factor = _param(ctx, config, "factor")
    if seq_len is None:
        length = ctx.scalar(max_positions)
    else:
        # the forward's update passes max(position_ids) + 1 as an int64 tensor, so the grown
        # base is float32 tensor arithmetic there (Python floats only at initialisation)
        length = ctx.runtime_tensor(max(seq_len, max_positions))
    grown = factor * length / ctx.scalar(max_positions) - (factor - 1)
    base = ctx.scalar(config.theta) * ctx.scalar_power(grown, ctx.ratio(dim, dim - 2))
    return _default_frequencies(ctx, base, dim), ctx.scalar(1)


def _yarn_factor(ctx, config: RopeConfig):
    factor = config.params.get("factor")
    if factor is None:
        return ctx.scalar(config.max_position_embeddings) / _param(
            ctx, config, "original_max_position_embeddings")
    return ctx.scalar(factor)


def _yarn_mscale(ctx, scale, mscale):
    return ctx.if_else(scale <= 1, ctx.scalar(1), ctx.ratio(1, 10) * mscale * ctx.log(scale) + 1)


def _yarn_attention_factor(ctx, config: RopeConfig, factor):
    configured = config.params.get("attention_factor")
    if configured is not None:
        return ctx.scalar(configured)
    mscale, mscale_all_dim = config.params.get("mscale"), config.params.get("mscale_all_dim")
    if mscale and mscale_all_dim:  # Python truthiness, as transformers tests it
        return (_yarn_mscale(ctx, factor, ctx.scalar(mscale))
                / _yarn_mscale(ctx, factor, ctx.scalar(mscale_all_dim)))
    return _yarn_mscale(ctx, factor, ctx.scalar(1))


def _yarn(ctx, config: RopeConfig, seq_len):
    dim = config.rotary_dim
    base = ctx.scalar(config.theta)
    factor = _yarn_factor(ctx, config)
    original = _param(ctx, config, "original_max_position_embeddings")
    beta_fast = _param(ctx, config, "beta_fast", 32) if config.params.get("beta_fast") else ctx.scalar(32)
    beta_slow = _param(ctx, config, "beta_slow", 1) if config.params.get("beta_slow") else ctx.scalar(1)

    def correction_dim(rotations):
        # the pair index whose wavelength fits `rotations` turns into the original context
        return (dim * ctx.log(original / (rotations * 2 * ctx.pi))) / (2 * ctx.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if config.params.get("truncate", True):
        low, high = ctx.floor(low), ctx.ceil(high)
    low, high = ctx.larger(low, 0), ctx.smaller(high, dim - 1)
    high = ctx.if_else(low == high, high + ctx.ratio(1, 1000), high)  # transformers' singularity guard

    pos_freqs = ctx.power(base, ctx.arange(0, dim, 2) / dim)
    extrapolation = ctx.divide_scalar_by(ctx.scalar(1), pos_freqs)
    interpolation = ctx.divide_scalar_by(ctx.scalar(1), factor * pos_freqs)
    ramp = ctx.clamp((ctx.arange(0, dim // 2) - low) / (high - low), 0, 1)
    extrapolation_weight = 1 - ramp
    omega = interpolation * (1 - extrapolation_weight) + extrapolation * extrapolation_weight
    return omega, _yarn_attention_factor(ctx, config, factor)


def _llama3(ctx, config: RopeConfig, seq_len):
    omega, one = _default(ctx, config, seq_len)
    factor = _param(ctx, config, "factor")
    low_freq_factor = _param(ctx, config, "low_freq_factor")
    high_freq_factor = _param(ctx, config, "high_freq_factor")
    old_context = _param(ctx, config, "original_max_position_embeddings")
    low_freq_wavelen = old_context / low_freq_factor
    high_freq_wavelen = old_context / high_freq_factor

    wavelen = ctx.divide_scalar_by(2 * ctx.pi, omega)
    scaled = ctx.where(ctx.greater(wavelen, low_freq_wavelen), omega / factor, omega)
    smooth = (ctx.divide_scalar_by(old_context, wavelen) - low_freq_factor) / (
        high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    is_medium = ctx.logical_and(ctx.logical_not(ctx.less(wavelen, high_freq_wavelen)),
                                ctx.logical_not(ctx.greater(wavelen, low_freq_wavelen)))
    return ctx.where(is_medium, smoothed, scaled), one


def _longrope(ctx, config: RopeConfig, seq_len):
    dim = config.rotary_dim
    original_int = config.params["original_max_position_embeddings"]
    original = ctx.scalar(original_int)
    factor = config.params.get("factor")
    if factor is None:
        if config.max_position_embeddings is None:
            raise UsageError("longrope needs factor or max_position_embeddings in the config")
        factor = ctx.scalar(config.max_position_embeddings) / original
    else:
        factor = ctx.scalar(factor)
    configured = config.params.get("attention_factor")
    if configured is not None:
        scaling = ctx.scalar(configured)
    else:
        scaling = ctx.if_else(factor <= 1, ctx.scalar(1), ctx.sqrt(1 + ctx.log(factor) / ctx.log(original)))
    use_long = seq_len is not None and seq_len > original_int
    ext_factors = ctx.vector(config.params["long_factor" if use_long else "short_factor"])
    shape = ctx.arange(0, dim, 2) / dim
    omega = ctx.divide_scalar_by(ctx.scalar(1), ext_factors * ctx.power(ctx.scalar(config.theta), shape))
    return omega, scaling


def _proportional(ctx, config: RopeConfig, seq_len):
    # Gemma 4: the first int(partial * head_dim // 2) pairs rotate at base^(-2i/head_dim) (the
    # exponent over the whole head, not over the rotated part), the rest at frequency 0; all / factor
    head_dim = config.head_dim
    rope_angles = int(config.params.get("partial_rotary_factor", 1.0) * head_dim // 2)
    rotated = ctx.divide_scalar_by(ctx.scalar(1), ctx.power(
        ctx.scalar(config.theta), ctx.arange(0, 2 * rope_angles, 2) / head_dim))
    omega = ctx.concatenate(rotated, ctx.vector([0] * (head_dim // 2 - rope_angles)))
    return omega / _param(ctx, config, "factor", 1), ctx.scalar(1)


_SCHEDULES = {
    "default": _default,
    "linear": _linear,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "llama3": _llama3,
    "longrope": _longrope,
    "proportional": _proportional,
}
