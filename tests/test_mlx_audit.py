"""MLX's compiled ``mx.fast.rope`` and mlx-lm's rope classes, run on the CPU and audited; their
relation to transformers' rope lifted to exact semantics decided band by band."""

from __future__ import annotations

import numpy as np
import pytest

from ci_support import import_or_skip

mx = import_or_skip("mlx.core", "pip install 'symrope[mlx]' (mlx and mlx-cpu)")

from symrope.audit import AuditOptions, audit, build_library  # noqa: E402
from symrope.audit._mlx_relate import reference_planes, relate  # noqa: E402
from symrope.schedules import RopeConfig, llama31_8b  # noqa: E402

THETA = 500000
CONFIG = RopeConfig.from_options(head_dim=128, theta=THETA)


def test_fast_rope_is_audited_per_dtype_and_the_float32_angle_bounds_every_dtype():
    safe = {}
    for dtype in ("bf16", "fp16", "fp32"):
        result = audit(build_library("mlx-fast-rope", CONFIG), CONFIG,
                       AuditOptions(max_position=65535, dtype=dtype, progress=False))
        safe[dtype] = result.safe_context
        first = result.bands[0]
        assert first.max_abs_error < {"bf16": 4e-3, "fp16": 6e-4, "fp32": 1e-4}[dtype], first
    # the kernel forms the angle in float32 whatever the dtype: fp32 is not safe to 64K either
    assert 30000 < safe["fp32"] < 65536 and safe["bf16"] <= safe["fp16"] <= safe["fp32"], safe


def test_traditional_layout_gives_the_same_table_in_interleaved_channels():
    positions = np.arange(0, 5000, 7)
    plain = build_library("mlx-fast-rope", CONFIG).table(positions, CONFIG, "fp32")
    traditional = build_library("mlx-fast-rope-traditional", CONFIG).table(positions, CONFIG, "fp32")
    assert np.array_equal(plain[0], traditional[0]) and np.array_equal(plain[1], traditional[1])


@pytest.fixture(scope="module")
def hf_planes():
    """transformers' Llama rope (theta 500000, head_dim 16) lifted and proved: the reference."""
    import_or_skip("transformers", "pip install 'symrope[frameworks]'")
    from symrope.lifting import check_lifted, lift_hf

    encoding = lift_hf({"model_type": "llama", "head_dim": 16, "hidden_size": 128,
                        "num_attention_heads": 8, "rope_theta": float(THETA)})
    return reference_planes(check_lifted(encoding), 16)


def test_relation_to_the_lifted_reference_names_layout_and_base(hf_planes):
    config = RopeConfig.from_options(head_dim=16, theta=THETA)
    same = relate(build_library("mlx-fast-rope", config), hf_planes, "plain", "bf16", 16383)
    assert same.verdict.startswith("same encoding")
    assert all(band["cause"] == "rounding" and band["as_is"] < 4e-3 for band in same.bands)

    swapped = relate(build_library("mlx-fast-rope-traditional", config), hf_planes, "traditional",
                     "fp32", 16383)
    assert swapped.verdict.startswith("same up to basis") and not swapped.permutation_is_identity
    first = swapped.bands[0]
    assert first["as_is"] > 0.5 and first["kernel_basis"] < 1e-4   # O(1) at small positions
    assert first["cause"].startswith("layout")

    wrong = relate(build_library("mlx-fast-rope", config, base=10000.0), hf_planes, "base 1e4",
                   "fp32", 16383)
    assert wrong.verdict.startswith("different encoding (frequencies: base 10000 instead of 500000")
    first = wrong.bands[0]
    assert first["kernel_basis"] > 0.5 and first["kernel_parameters"] < 1e-4
    assert first["cause"].startswith("frequencies: base 10000")


def test_mlx_lm_llama3_is_transformers_llama3_up_to_rounding():
    import_or_skip("mlx_lm", "pip install 'symrope[mlx]'")
    config = llama31_8b()
    result = audit(build_library("mlx-lm", config), config,
                   AuditOptions(max_position=32767, dtype="fp32", progress=False))
    assert result.bands[0].max_abs_error < 1e-4
    assert "Llama3RoPE" in build_library("mlx-lm", config).summary


def test_mlx_lm_longrope_is_long_factor_only_and_says_so():
    import_or_skip("mlx_lm", "pip install 'symrope[mlx]'")
    config = RopeConfig.from_options(head_dim=8, theta=10000, rope_scaling={
        "rope_type": "longrope", "short_factor": [1.0] * 4, "long_factor": [2.0] * 4,
        "original_max_position_embeddings": 4096}, max_position_embeddings=16384)
    impl = build_library("mlx-lm", config)
    assert "long_factor" in impl.notes[0]
    cos, sin = impl.table(np.array([1]), config, "fp32")
    assert cos.shape == (1, 4)
    # below the original context transformers would turn at omega_0 = 1 (short factor 1);
    # mlx-lm turns at 1/2 (long factor 2), whatever its attention factor scales the amplitude by
    assert abs(np.arctan2(sin, cos)[0, 0] - 0.5) < 1e-6


def test_mlx_lm_yarn_bf16_errs_beyond_bf16_rounding_and_the_why_names_the_prescale():
    # The safe context of 1 in bf16 is the code's, not the dtype's: a correctly rounded bf16
    # YaRN table errs by under 2**-8 (tests/test_audit_metrics.py), mlx-lm's by almost 2**-7,
    # from position 1 on: YarnRoPE multiplies x by mscale in bf16 before the kernel rounds again.
    import_or_skip("mlx_lm", "pip install 'symrope[mlx]'")
    config = RopeConfig.from_options(head_dim=128, theta=10000, rope_scaling={
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        max_position_embeddings=131072)
    impl = build_library("mlx-lm", config)
    result = audit(impl, config, AuditOptions(max_position=1023, dtype="bf16", progress=False))
    assert result.rounding_floor == 2.0**-8 == result.tolerance and not result.tolerance_below_floor
    assert result.worst("max_abs_error") > 1.5 * result.rounding_floor
    assert result.first_failure == result.safe_context == 1
    assert result.bands[0].dominant == "amplitude"
    # position 0 (angle 0, exact in any float): the table is bf16(mscale) itself, 1.140625
    cos, _ = impl.table(np.array([0]), config, "bf16")
    assert np.all(cos.astype(np.float64) == 1.140625)
    assert "1.140625" in result.explanation and "more than once" in result.explanation
    assert "YarnRoPE" not in build_library("mlx-lm", config).explanation("fp32")
