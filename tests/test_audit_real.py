"""Real RoPE libraries audited through their own code, against the reference and the models."""

from __future__ import annotations

import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit import AuditOptions, audit, exact_schedule, get_model
from symrope.audit._dtypes import widen
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, inv_freq, llama31_8b

CONFIG = RopeConfig.from_options(head_dim=64, theta=10000)
POSITIONS = np.concatenate([np.arange(0, 2048), np.arange(1_000_000, 1_000_512)])


def table_error(cos, sin, config=CONFIG, positions=POSITIONS):
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    wide = [widen(part) for part in (cos, sin)]
    return np.maximum(np.abs(wide[0] - exact_cos), np.abs(wide[1] - exact_sin))


def ulps_apart(a, b) -> np.ndarray:
    """How many float32 steps apart ``a`` and ``b`` are (same sign assumed)."""
    a, b = (np.asarray(v, dtype=np.float32).view(np.int32).astype(np.int64) for v in (a, b))
    return np.abs(a - b)


def test_torchtune_is_its_own_float32_angle_and_within_an_ulp_of_the_meta_model():
    require_library("torchtune")
    torch = require_library("torch")
    from symrope.audit._models import _cos_sin_fp32
    from symrope.schedules import inv_freq

    from symrope.audit._real import real_impl

    impl = real_impl("torchtune", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    # the module's own float32 theta, times the float32 position, through torch's cos kernel,
    # is the real cache bit for bit (one library, one CPU: nothing SIMD-dependent is compared)
    theta = impl.module.theta.numpy()
    angle = POSITIONS.astype(np.float32)[:, None] * theta[None, :]
    assert np.array_equal(cos, torch.cos(torch.from_numpy(angle)).numpy())
    assert np.array_equal(sin, torch.sin(torch.from_numpy(angle)).numpy())
    # the model's frequencies are the correctly rounded pow; torch's pow is within 1 ulp of it
    model_omega = inv_freq(CONFIG, "float32")
    assert ulps_apart(model_omega, theta).max() <= 1
    # given the same angle, the model's cos is within one float32 ulp of torch's kernel
    model_cos, _ = _cos_sin_fp32(angle)
    assert np.all(np.abs(model_cos - cos) <= np.spacing(np.abs(cos)))
    assert "Approximation" in get_model("meta").summary
    # the rotation runs in float32 and casts back: a bf16 table is the float32 one rounded
    cos16, _ = impl.table(POSITIONS, CONFIG, "bf16")
    assert np.array_equal(cos16.astype(np.float32), cos.astype(cos16.dtype).astype(np.float32))
    # the fp32 angle error at 1M positions: ~2^-24 * 1e6 ~ 0.03-0.06
    assert 0.01 < table_error(cos, sin).max() < 0.1


def test_the_hf_model_is_within_its_stated_ulps_of_the_real_class():
    torch = require_library("torch")
    require_library("transformers")
    from symrope.audit._hf import hf_transformers_impl
    from symrope.audit._models import _cos_sin_fp32
    from symrope.schedules import inv_freq

    for config in (llama31_8b(), CONFIG, RopeConfig.from_options(head_dim=96, theta=1234567.0)):
        impl = hf_transformers_impl(dict(config.hf_dict(), model_type="llama"))
        cos, sin = impl.table(POSITIONS, config, "fp32")
        buffer = impl.module.inv_freq.numpy()
        # the label's claims, on this CPU: inv_freq within 1 ulp (torch's pow vs the exact value
        # rounded once) ...
        assert ulps_apart(inv_freq(config, "float32"), buffer).max() <= 1
        # ... the real forward is fl32(fl32(p) * inv_freq) through torch's cos ...
        angle = POSITIONS.astype(np.float32)[:, None] * buffer[None, :]
        assert np.array_equal(cos, torch.cos(torch.from_numpy(angle)).numpy())
        # ... and the model's cos/sin of that angle within 1 float32 ulp of torch's
        model_cos, model_sin = _cos_sin_fp32(angle)
        assert np.all(np.abs(model_cos - cos) <= np.spacing(np.abs(cos)))
        assert np.all(np.abs(model_sin - sin) <= np.spacing(np.abs(sin)))
    assert "Approximation of the real class" in get_model("hf").summary
    assert "1 ulp" in get_model("hf").summary


def test_rotary_embedding_torch_rounds_positions_to_the_input_dtype():
    require_library("rotary_embedding_torch")
    from symrope.audit._real import real_impl

    impl = real_impl("rotary-embedding-torch", CONFIG)
    cos32, sin32 = impl.table(POSITIONS, CONFIG, "fp32")
    assert table_error(cos32, sin32).max() < 0.1
    # rotate_queries_or_keys builds its positions in t.dtype: in bf16, 1000001 reads 999424 and
    # cos/sin are off by up to 2 (a finding about the real library, not a model of it)
    cos16, sin16 = impl.table(POSITIONS, CONFIG, "bf16")
    error = table_error(cos16, sin16)
    assert error[:257].max() <= 2.0**-8 and error[-512:].max() > 1.9
    rounded = np.float32(POSITIONS[-1]).astype("float32")
    assert rounded == POSITIONS[-1]   # fp32 holds it: the bf16 error is the dtype's, not ours


def test_keras_hub_rotates_in_the_compute_dtype():
    require_library("keras_hub")
    from symrope.audit._real import real_impl

    impl = real_impl("keras-hub", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    assert table_error(cos, sin).max() < 0.1
    cos16, _ = impl.table(POSITIONS[:2048], CONFIG, "bf16")
    assert cos16.dtype.name == "bfloat16"
    with pytest.raises(UsageError, match="keras-hub has default, linear RoPE only"):
        real_impl("keras-hub", llama31_8b())


def test_xpos_table_is_relative_to_the_exact_scale_and_overflows_past_90k():
    require_library("rotary_embedding_torch")
    from symrope.audit._real import real_impl

    short = real_impl("rotary-embedding-torch-xpos", CONFIG)
    result = audit(short, CONFIG, AuditOptions(max_position=4095, dtype="fp32", progress=False))
    assert result.worst("max_abs_error") < 1e-3 and result.dtype == "fp32"
    long = real_impl("rotary-embedding-torch-xpos", CONFIG)
    long.prepare(131071)
    cos, _ = long.table(np.array([0, 65536, 131071]), CONFIG, "fp32")
    assert not np.isfinite(cos[0]).all()   # q scale 0.29^(-65536/512) underflows float32


def test_timm_axial_rope_along_one_axis():
    require_library("timm")
    from symrope.audit._real import real_impl

    impl = real_impl("timm", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    assert cos.shape == (POSITIONS.size, 32)
    assert table_error(cos, sin).max() < 0.1
    # timm's bands are its own float32 pow (within 1 ulp of the correctly rounded schedule): the
    # table is within the angle error those allow of the model's, whatever the CPU
    model_cos, _ = get_model("hf").table(POSITIONS, CONFIG, "fp32")
    bound = POSITIONS[:, None] * np.spacing(inv_freq(CONFIG, "float32"))[None, :] * 2 + 2e-7
    assert np.all(np.abs(widen(cos) - widen(model_cos)) <= bound)


@pytest.mark.parametrize("name", ["torchtune", "rotary-embedding-torch", "keras-hub", "timm"])
def test_unsupported_schedules_are_one_line_usage_errors(name):
    require_library({"torchtune": "torchtune", "rotary-embedding-torch": "rotary_embedding_torch",
                     "keras-hub": "keras_hub", "timm": "timm"}[name])
    from symrope.audit._real import real_impl

    yarn = RopeConfig.from_options(head_dim=64, theta=10000, rope_scaling={
        "rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096})
    with pytest.raises(UsageError, match=f"{name} has .* RoPE only, not 'yarn'"):
        real_impl(name, yarn)


@pytest.mark.parametrize("name, whole_head_only", [("torchtune", True), ("keras-hub", True),
                                                    ("rotary-embedding-torch", False), ("timm", False)])
def test_partial_rotary_is_refused_only_by_libraries_that_rotate_the_whole_head(name, whole_head_only):
    require_library({"torchtune": "torchtune", "rotary-embedding-torch": "rotary_embedding_torch",
                     "keras-hub": "keras_hub", "timm": "timm"}[name])
    from symrope.audit._real import real_impl

    partial = RopeConfig.from_options(head_dim=64, theta=10000, partial_rotary_factor=0.5)
    if whole_head_only:
        with pytest.raises(UsageError, match=f"{name} rotates the whole head: partial rotary "
                                             r"\(rotary_dim 32 of 64\)"):
            real_impl(name, partial)
    else:
        assert real_impl(name, partial).rope_config.rotary_dim == 32
