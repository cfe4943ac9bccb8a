"""Built-in models of real frameworks' RoPE code paths, faithful in operation order and dtype.

Each model returns the per-pair table ``(cos, sin)`` -- shape ``(n, config.pairs)`` -- that the
modelled code produces for integer positions, in the dtype that code returns, including the
attention factor where the code multiplies it in. The transcendental steps are correctly
rounded: ``inv_freq``'s pow (:mod:`symrope.schedules`, exact then rounded once) and the cos/sin of
a float32 angle (evaluated in float64, whose numpy cos/sin do not depend on the SIMD code path,
and rounded once to float32). Torch's own kernels (SLEEF) are within 1 ulp of both; nothing here
goes through numpy's vectorised float32 pow/exp/log, whose last bit differs between AVX-512 and
baseline CPUs. Everything else -- which value is rounded to which dtype, in which order --
follows the modelled code exactly; those roundings are what the audit measures. Numbers that
only exist in bf16 or fp16 use ``ml_dtypes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import ml_dtypes
import numpy as np

from symrope.audit._dtypes import DTYPES, dtype_name, round_to
from symrope.audit._reference import check_positions
from symrope.errors import InternalError, UsageError
from symrope.schedules import RopeConfig, attention_factor, inv_freq

def numpy_dtype(dtype) -> np.dtype:
    """The numpy dtype (``ml_dtypes.bfloat16`` for bf16) of a dtype name."""
    return np.dtype(DTYPES[dtype_name(dtype)])


# One validator for every entry point: the reference's (one limit, bools refused).
validate_positions = check_positions


def pair_channels(pairs: int, pairing: str) -> tuple[np.ndarray, np.ndarray]:
    """The first and second channel of every pair: ``(2i, 2i+1)`` for ``"interleaved"`` (Meta,
    RoFormer), ``(i, i + pairs)`` for ``"rotate_half"`` (GPT-NeoX, transformers).

    Examples
    ========
    >>> [channels.tolist() for channels in pair_channels(3, "interleaved")]
    [[0, 2, 4], [1, 3, 5]]
    >>> [channels.tolist() for channels in pair_channels(3, "rotate_half")]
    [[0, 1, 2], [3, 4, 5]]
    """
    if pairing == "interleaved":
        first = np.arange(pairs) * 2
        return first, first + 1
    first = np.arange(pairs)
    return first, first + pairs


@dataclass
class ImplModel:
    """A model of one framework's RoPE code path.

    Parameters
    ==========

    name : str
        The ``--impl`` name.
    summary : str
        One line: which code it models.
    default_dtype : str
        The model dtype the code is usually run in (``bf16``, ``fp16``, ``fp32``, ``fp64``).
    explanation : str or callable
        Why it drifts: which step rounds what. ``{cast}`` in the text is replaced by what the
        final cast does in the audited dtype; a callable gets the dtype name and returns the text.
    fix : str or None
        The name of the model that is the suggested fix.
    references : tuple of str
        Where the modelled code and its known precision problem are documented.

    Examples
    ========

    >>> import numpy as np
    >>> from symrope.audit._models import get_model
    >>> from symrope.schedules import RopeConfig
    >>> config = RopeConfig.from_options(head_dim=4, theta=10000)
    >>> cos, sin = get_model("hf").table(np.array([0, 1]), config, "fp32")
    >>> cos.shape, cos.dtype, float(cos[1, 0])
    ((2, 2), dtype('float32'), 0.5403022766113281)
    """

    name: str
    summary: str
    default_dtype: str
    explanation: str | Callable[[str], str]
    fix: str | None
    _compute: Callable = field(repr=False)
    references: tuple[str, ...] = ()
    fix_target: str | None = None   # the module and attribute of the modelled code to change
    pure: bool = True    # the table is a function of its arguments (no state: may run on any thread)

    def explain(self, dtype: str | None = None) -> str:
        """Why it drifts, for the dtype audited (the cast step differs per dtype).

        Examples
        ========

        >>> from symrope.audit._models import get_model
        >>> "bf16 adds up to 2^-9" in get_model("hf").explain("bf16")
        True
        >>> "no final cast" in get_model("hf").explain("fp32")
        True
        """
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        if callable(self.explanation):
            return self.explanation(name)
        return self.explanation.replace("{cast}", cast_step(name))

    def table(self, positions: np.ndarray, config: RopeConfig, dtype: str | None = None,
              seq_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The modelled code's ``(cos, sin)`` per pair for ``positions``.

        Parameters
        ==========

        positions : array of int, shape (n,)
        config : RopeConfig
        dtype : str, optional
            The model (activation) dtype; ``None`` means :attr:`default_dtype`. Code that keeps
            its table in float32 whatever the model dtype (Meta's, llama.cpp's) returns float32.
        seq_len : int, optional
            The current sequence length for ``dynamic`` / ``longrope`` schedules, with the
            same meaning as in :func:`symrope.schedules.inv_freq` (``None``: the init-time
            frequencies). Compare against the reference computed with the same ``seq_len``.

        Returns
        =======

        (cos, sin) : two numpy arrays of shape ``(n, config.pairs)``
        """
        if not isinstance(config, RopeConfig):
            raise UsageError(f"expected a RopeConfig, got {type(config).__name__}")
        positions = validate_positions(positions)
        name = dtype_name(self.default_dtype if dtype is None else dtype)
        cos, sin = self._compute(positions, config, name, seq_len)
        expected = (positions.shape[0], config.pairs)
        if cos.shape != expected or sin.shape != expected:  # pragma: no cover - our own bug
            raise InternalError(f"model {self.name} returned {cos.shape}, expected {expected}")
        return cos, sin


def cast_step(dtype: str) -> str:
    """What casting a float32 cos/sin table to ``dtype`` adds (a sentence for explanations)."""
    if dtype in ("bf16", "fp16"):
        half_ulp = {"bf16": "2^-9", "fp16": "2^-12"}[dtype]
        return (f"the final cast of cos/sin to {dtype} adds up to {half_ulp} absolute error at "
                f"every position")
    if dtype == "fp32":
        return "in fp32 there is no final cast: the float32 cos/sin are the table"
    return "in fp64 the float32 cos/sin are widened exactly, so the float32 error is all there is"


def _neox_explanation(dtype: str) -> str:
    if dtype == "fp16":
        return ("Everything is fp16: omega keeps 11 bits, positions are exact only to 2048 "
                "(and overflow to inf beyond 65504), and the angle is rounded to fp16 -- at "
                "position 1857 the angle 1044.27 becomes 1045.0 and cos is off by 0.78.")
    if dtype == "bf16":
        return ("Everything is bf16: omega keeps 8 bits, positions are exact only to 256, and "
                "the angle is rounded to bf16, so beyond a few hundred positions the phase is "
                "off by whole radians.")
    return (f"Everything is {dtype}: omega, the positions, the angle and cos/sin are rounded to "
            f"{dtype} once each; the angle's rounding error grows like p times the dtype's "
            f"epsilon.")


def _autocast_explanation(dtype: str) -> str:
    if dtype not in ("bf16", "fp16"):
        return (f"Autocast narrows only to bf16/fp16, so in {dtype} this is today's transformers "
                f"path: the float32 angle's rounding grows like p*2^-24; " + cast_step(dtype) + ".")
    return (f"Under autocast the matmul ran in {dtype}: omega kept "
            f"{8 if dtype == 'bf16' else 11} significant bits (a consistent frequency error), "
            f"position ids above {256 if dtype == 'bf16' else 2048} were rounded, and the angle "
            f"itself was rounded to {dtype}, so at a few thousand positions the phase is off by "
            f"whole radians.")


# --- shared steps ------------------------------------------------------------------------------

def _cos_sin_fp32(angle32: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A correctly rounded float32 cos/sin of a float32 angle (the step a kernel does in fp32)."""
    cos, sin = np.empty(angle32.shape, np.float32), np.empty(angle32.shape, np.float32)
    flat, flat_cos, flat_sin = angle32.reshape(-1), cos.reshape(-1), sin.reshape(-1)
    step = 1 << 15     # elements per block: the float64 buffers stay in cache
    # Two float64 buffers reused for every block (fresh temporaries per block cost page faults
    # and a conversion each); cos and sin are rounded to float32 as they are stored.
    wide, value = np.empty(min(step, flat.size)), np.empty(min(step, flat.size))
    for start in range(0, flat.size, step):
        stop = min(start + step, flat.size)
        block, result = wide[:stop - start], value[:stop - start]
        np.copyto(block, flat[start:stop])
        np.copyto(flat_cos[start:stop], np.cos(block, out=result), casting="same_kind")
        np.copyto(flat_sin[start:stop], np.sin(block, out=result), casting="same_kind")
    return cos, sin


def _scale(values: np.ndarray, factor: float) -> np.ndarray:
    """``values * factor`` in the values' dtype, as ``tensor * python_float`` does."""
    if factor == 1.0:
        return values
    return values * values.dtype.type(factor)


def _cast(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` cast to ``dtype`` with one correct rounding (float64 to bf16 included, which
    ml_dtypes may round twice on some CPUs)."""
    if values.dtype == np.float64:
        return round_to(values, dtype)
    return values.astype(DTYPES[dtype])


# --- the models --------------------------------------------------------------------------------

def _hf(positions, config, dtype, seq_len):
    # transformers 5.x LlamaRotaryEmbedding.forward (autocast disabled, "Force float32"):
    #   freqs = position_ids[..., None].float() * inv_freq.float()
    #   cos = emb.cos() * attention_scaling; return cos.to(x.dtype)
    cos, sin = _cos_sin_fp32(fp32_angle(positions, config, seq_len))
    scaling = attention_factor(config, "float64", seq_len)
    return _cast(_scale(cos, scaling), dtype), _cast(_scale(sin, scaling), dtype)


def fp32_angle(positions, config, seq_len=None) -> np.ndarray:
    """The float32 angle fl32(fl32(p) * fl32(omega)) of transformers, Meta and torchtune, (n, pairs)."""
    omega32 = inv_freq(config, "float32", seq_len)
    return positions.astype(np.float32)[:, None] * omega32[None, :]


def _hf_bf16_autocast(positions, config, dtype, seq_len):
    if dtype not in ("bf16", "fp16"):
        return _hf(positions, config, dtype, seq_len)  # autocast only narrows to bf16/fp16
    low = DTYPES[dtype]
    # Before PR 29285 the matmul inv_freq @ position_ids ran under autocast: both operands cast
    # to the autocast dtype (also issue 25681: model.to(bf16) casts the inv_freq buffer itself),
    # the product (exact in fp32 for two 8- or 11-bit significands) rounded to that dtype.
    omega_low = inv_freq(config, "float32", seq_len).astype(low)
    positions_low = positions.astype(np.float32).astype(low)
    exact_product = positions_low.astype(np.float32)[:, None] * omega_low.astype(np.float32)[None, :]
    angle_low = exact_product.astype(low)
    cos32, sin32 = _cos_sin_fp32(angle_low.astype(np.float32))
    cos, sin = cos32.astype(low), sin32.astype(low)  # emb.cos() of a bf16 tensor is bf16
    scaling = attention_factor(config, "float64", seq_len)
    return _scale(cos, scaling), _scale(sin, scaling)


def _meta(positions, config, dtype, seq_len):
    # llama-models precompute_freqs_cis: freqs fp32 (apply_scaling for llama3 in fp32),
    # t = arange(end, dtype=float32), torch.outer(t, freqs) in fp32, torch.polar -> complex64.
    # The table stays complex64 whatever the model dtype; x is rotated in fp32 and cast after.
    omega32 = inv_freq(config, "float32", seq_len)
    angle = np.outer(positions.astype(np.float32), omega32).astype(np.float32)
    cos, sin = _cos_sin_fp32(angle)
    scaling = attention_factor(config, "float64", seq_len)
    return _scale(cos, scaling), _scale(sin, scaling)


def _vllm(positions, config, dtype, seq_len):
    # vLLM RotaryEmbedding._compute_cos_sin_cache: t = arange(max_pos, dtype=float), freqs =
    # einsum("i,j->ij", t, inv_freq) in fp32, cos = freqs.cos() * mscale, then
    # cos_sin_cache.to(dtype). The same roundings as transformers' path, stored once as a cache.
    return _hf(positions, config, dtype, seq_len)


def _neox(positions, config, dtype, seq_len):
    # GPT-NeoX RotaryEmbedding (issue 1003): after model.half() the inv_freq buffer is fp16,
    # t = arange(seq).type_as(inv_freq) is fp16 (exact only to 2048; inf beyond 65504),
    # einsum in fp16, emb.cos() in fp16. The whole table lives in the model dtype.
    narrow = DTYPES[dtype]
    omega = inv_freq(config, "float32", seq_len).astype(narrow)
    with np.errstate(over="ignore"):   # one correct rounding each (ml_dtypes may round twice)
        t = round_to(positions.astype(np.float64), dtype)
    exact_product = t.astype(np.float64)[:, None] * omega.astype(np.float64)[None, :]
    with np.errstate(invalid="ignore", over="ignore"):
        angle = round_to(exact_product, dtype)
        if dtype == "fp64":
            cos, sin = np.cos(angle), np.sin(angle)
        else:
            cos32, sin32 = _cos_sin_fp32(angle.astype(np.float32))
            cos, sin = cos32.astype(narrow), sin32.astype(narrow)
    scaling = attention_factor(config, "float64", seq_len)
    return _scale(cos, scaling), _scale(sin, scaling)


def _bf16_positions(positions, config, dtype, seq_len):
    # position_ids created in (or cast to) bf16, then the transformers path: integers are exact
    # in bf16 only up to 256, so 15962 becomes 15936.
    rounded = positions.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)
    return _hf(rounded.astype(np.int64), config, dtype, seq_len)


def _fp64_angle(positions, config, dtype, seq_len):
    # The fix: frequency in float64, angle p * omega in float64 (error <= half an ulp of the
    # angle, ~1e-9 rad at 10M), cos/sin in float64 (libm reduces the argument exactly), one
    # rounding to the model dtype at the end.
    omega64 = inv_freq(config, "float64", seq_len)
    angle = positions.astype(np.float64)[:, None] * omega64[None, :]
    scaling = attention_factor(config, "float64", seq_len)
    return _cast(np.cos(angle) * scaling, dtype), _cast(np.sin(angle) * scaling, dtype)


from symrope.audit._models_llamacpp import llamacpp_table  # noqa: E402
from symrope.audit._models_recurrence import RecurrenceTable  # noqa: E402

MODELS: dict[str, ImplModel] = {}


def _register(model: ImplModel) -> None:
    MODELS[model.name] = model


_register(ImplModel(
    name="hf",
    summary="model of HF transformers' rotary embedding today: fp32 inv_freq and angle, cos/sin x "
            "attention factor in fp32, cast to the model dtype. Approximation of the real class "
            "(--impl hf-transformers): inv_freq and cos/sin correctly rounded to float32, where "
            "torch's pow and cos kernels may each differ by 1 ulp (the angle then by p ulps of "
            "omega at most)",
    default_dtype="bf16",
    explanation="The angle p*omega is formed in float32 from a float32 omega and a float32 "
                "position: its rounding error grows like p*2^-24 (about 1e-2 rad at 128K, "
                "tenths of a radian near 10M), which is position-dependent phase noise that "
                "breaks relative invariance; {cast}.",
    fix="fp64-angle",
    fix_target="transformers.models.<model>.modeling_<model>.<Model>RotaryEmbedding.forward: form "
               "position_ids * inv_freq in float64 from a float64 inv_freq "
               "(symrope.audit.fix.patch_rotary(model) does it in place, with undo)",
    _compute=_hf,
    references=("transformers src/transformers/models/llama/modeling_llama.py (LlamaRotaryEmbedding)",
                "https://github.com/huggingface/transformers/pull/29285"),
))
_register(ImplModel(
    name="hf-bf16-autocast",
    summary="model of HF transformers before PR 29285: inv_freq @ position_ids under bf16 "
            "autocast (and issue 25681: the inv_freq buffer cast to bf16). Approximation of "
            "transformers < 4.38, which is not the installed version",
    default_dtype="bf16",
    explanation=_autocast_explanation,
    fix="hf",
    _compute=_hf_bf16_autocast,
    references=("https://github.com/huggingface/transformers/pull/29285",
                "https://github.com/huggingface/transformers/issues/25681"),
))
_register(ImplModel(
    name="meta",
    summary="model of Meta's llama reference: precompute_freqs_cis, torch.polar of outer(t, "
            "freqs) in fp32 (complex64 table, kept in fp32). Approximation: llama-models is not "
            "installed; torchtune's RotaryPositionalEmbeddings (--impl torchtune) forms the same "
            "float32 angle from freqs within 1 ulp of these (torch's pow)",
    default_dtype="bf16",
    explanation="The same float32 angle fl32(fl32(p)*fl32(omega)) as transformers, so the same "
                "phase noise growing like p*2^-24; the table stays complex64, so there is no "
                "cast error on the table itself (the rotated q, k are cast afterwards).",
    fix="fp64-angle",
    fix_target="llama_models precompute_freqs_cis: freqs and torch.outer(t, freqs) in float64, "
               "then torch.polar(...).to(complex64)",
    _compute=_meta,
    references=("https://github.com/meta-llama/llama-models (precompute_freqs_cis, apply_scaling)",),
))
_register(ImplModel(
    name="vllm",
    summary="model of vLLM RotaryEmbedding: cos/sin cache computed in fp32 (x mscale for YaRN), "
            "stored in the model dtype. Approximation: vLLM is not installed here",
    default_dtype="bf16",
    explanation="Numerically the same roundings as transformers' path (fp32 angle, fp32 "
                "cos/sin, one cast to the model dtype), computed once into a cache: phase "
                "noise growing like p*2^-24; {cast}.",
    fix="fp64-angle",
    fix_target="vllm.model_executor.layers.rotary_embedding RotaryEmbedding._compute_cos_sin_cache: "
               "inv_freq and einsum(t, inv_freq) in float64, cos/sin in float64, then .to(dtype)",
    _compute=_vllm,
    references=("https://github.com/vllm-project/vllm vllm/model_executor/layers/rotary_embedding",),
))
_register(ImplModel(
    name="neox-fp16",
    summary="model of GPT-NeoX RotaryEmbedding after model.half() (issue 1003): inv_freq, "
            "positions, angle and cos/sin all in fp16. Approximation: gpt-neox is not installed",
    default_dtype="fp16",
    explanation=_neox_explanation,
    fix="hf",
    fix_target="gpt-neox RotaryEmbedding: keep inv_freq a float32 buffer (exclude it from "
               "model.half()) and build t = arange(seq, dtype=float32)",
    _compute=_neox,
    references=("https://github.com/EleutherAI/gpt-neox/issues/1003",),
))
_register(ImplModel(
    name="llamacpp",
    summary="model of llama.cpp/ggml rope cache: theta = (float) pos, then theta *= theta_scale "
            "along the pair index in fp32 (theta_scale = powf(base, -2/n_dims)), cosf/sinf x "
            "mscale. Approximation of C code that is not installed here",
    default_dtype="fp32",
    explanation="Each pair's angle comes from the previous pair's by one more float32 "
                "multiply, and theta_scale itself is a rounded float32: the relative angle "
                "error accumulates along the frequency index (about i ulps at pair i), on top "
                "of the float32 position; the cache stays float32.",
    fix="fp64-angle",
    fix_target="ggml ggml_rope_cache_init: theta_extrap = pos * powf(freq_base, -2i/n_dims) per "
               "pair in double instead of theta *= theta_scale",
    _compute=llamacpp_table,
    references=("https://github.com/ggml-org/llama.cpp ggml/src/ggml-cpu/ops.cpp (ggml_rope_cache_init)",),
))
_register(ImplModel(
    name="bf16-positions",
    summary="position ids held in bf16 (e.g. created in the model dtype), then the "
            "transformers path",
    default_dtype="bf16",
    explanation="bf16 holds integers exactly only up to 256; beyond that every position is "
                "rounded to 8 significant bits (15962 reads 15936), so whole tokens share a "
                "phase and the error is a large, position-dependent phase offset.",
    fix="hf",
    _compute=_bf16_positions,
    references=("arXiv 2411.13476, When Precision Meets Position",),
))
_register(ImplModel(
    name="recurrence",
    summary="incremental rotation: z(p+1) = z(p) * exp(i omega) by complex64 multiplication "
            "from z(0) = 1, cast to the model dtype",
    default_dtype="fp32",
    explanation="Every step multiplies in another float32 rounding: the phase error of "
                "exp(i fl32(omega)) accumulates linearly with p (a frequency error) and the "
                "per-step roundings random-walk both the phase and the amplitude |z|, which "
                "drifts away from 1.",
    fix="fp64-angle",
    _compute=RecurrenceTable(),
    pure=False,      # it keeps the last state and steps on from it
    references=("RoFormer, arXiv 2104.09864 (R(p+1) = R(p) R(1))",),
))
_register(ImplModel(
    name="fp64-angle",
    summary="the fix: omega and the angle p*omega in float64, cos/sin in float64, one cast to "
            "the model dtype",
    default_dtype="bf16",
    explanation="The float64 angle is off by a few 1e-9 rad at 10M positions, so the "
                "table is the correctly rounded value in bf16/fp16 and within a hair of it in "
                "fp32: what is left is the unavoidable cast error of the dtype.",
    fix=None,
    _compute=_fp64_angle,
    references=("docs/design.md, precision facts from the field: fl32(p * fl32(omega)) grows ~linearly with p",),
))


def get_model(name: str) -> ImplModel:
    """The built-in model called ``name``.

    Examples
    ========

    >>> from symrope.audit._models import get_model
    >>> get_model("hf").fix
    'fp64-angle'
    >>> get_model("nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: unknown implementation 'nope' (one of: hf, hf-bf16-autocast, ...)
    """
    if name not in MODELS:
        raise UsageError(f"unknown implementation {name!r} (one of: {', '.join(MODELS)})")
    return MODELS[name]


__all__ = ["DTYPES", "ImplModel", "MODELS", "dtype_name", "fp32_angle", "get_model", "numpy_dtype",
           "validate_positions"]

