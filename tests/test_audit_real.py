"""Real RoPE libraries audited through their own code, against the reference and the models."""

from __future__ import annotations

import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit import AuditOptions, audit, exact_schedule, get_model
from symrope.audit._dtypes import widen
from symrope.audit._models import fp32_angle
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, llama31_8b

CONFIG = RopeConfig.from_options(head_dim=64, theta=10000)
POSITIONS = np.concatenate([np.arange(0, 2048), np.arange(1_000_000, 1_000_512)])


def table_error(cos, sin, config=CONFIG, positions=POSITIONS):
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    wide = [widen(part) for part in (cos, sin)]
    return np.maximum(np.abs(wide[0] - exact_cos), np.abs(wide[1] - exact_sin))


def test_torchtune_is_meta_angle_bit_for_bit_and_its_table_is_float32():
    require_library("torchtune")
    torch = require_library("torch")
    from symrope.audit._real import real_impl

    impl = real_impl("torchtune", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    # the model's float32 angle through torch's own cos kernel is the real cache, bit for bit
    angle = torch.from_numpy(fp32_angle(POSITIONS, CONFIG))
    assert np.array_equal(cos, torch.cos(angle).numpy()) and np.array_equal(sin, torch.sin(angle).numpy())
    # ... and the Meta model (correctly rounded cos) is within one float32 ulp of it
    model_cos, _ = get_model("meta").table(POSITIONS, CONFIG, "bf16")
    assert np.all(np.abs(model_cos - cos) <= np.spacing(np.abs(cos)))
    assert "Approximation" in get_model("meta").summary
    # the rotation runs in float32 and casts back: a bf16 table is the float32 one rounded
    cos16, _ = impl.table(POSITIONS, CONFIG, "bf16")
    assert np.array_equal(cos16.astype(np.float32), cos.astype(cos16.dtype).astype(np.float32))
    # the fp32 angle error at 1M positions: ~2^-24 * 1e6 ~ 0.03-0.06
    assert 0.01 < table_error(cos, sin).max() < 0.1


def test_hf_model_is_the_real_class_angle_bit_for_bit():
    torch = require_library("torch")
    require_library("transformers")
    from symrope.audit._hf import hf_transformers_impl

    config = llama31_8b()
    impl = hf_transformers_impl(dict(config.hf_dict(), model_type="llama"))
    cos, sin = impl.table(POSITIONS, config, "fp32")
    angle = torch.from_numpy(fp32_angle(POSITIONS, config))
    assert np.array_equal(cos, torch.cos(angle).numpy()) and np.array_equal(sin, torch.sin(angle).numpy())
    assert "Approximation of the real class" in get_model("hf").summary


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
    torch = require_library("torch")
    angle = torch.from_numpy(fp32_angle(POSITIONS, CONFIG))
    assert np.mean(cos == torch.cos(angle).numpy()) > 0.99


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
