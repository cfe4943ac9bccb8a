"""x-transformers' rotary embedding through the registry: what its own code computes, audited and
lifted (the tests every registered library passes are in tests/test_audit_real.py and
tests/test_lift_libraries.py, parametrised by the registry)."""

from __future__ import annotations

import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit import AuditOptions, audit, build_library, exact_schedule
from symrope.audit._dtypes import widen
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, inv_freq, llama31_8b

torch = require_library("torch")
xt = require_library("x_transformers.x_transformers")

CONFIG = RopeConfig.from_options(head_dim=64, theta=10000)
POSITIONS = np.concatenate([np.arange(0, 2048), np.arange(1_000_000, 1_000_512)])


def error(cos, sin, config, positions=POSITIONS):
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    amplitude = exact_schedule(config).amplitude
    return np.maximum(np.abs(widen(cos) - amplitude * exact_cos),
                      np.abs(widen(sin) - amplitude * exact_sin))


def test_its_table_is_its_own_float32_angle_and_bf16_rounds_the_float32_rotation():
    impl = build_library("x-transformers", CONFIG)
    cos, sin = impl.table(POSITIONS, CONFIG, "fp32")
    # forward: einsum of t.type_as(inv_freq) and inv_freq, each product rounded once to float32;
    # the same library's cos on this CPU (nothing SIMD-dependent is compared across machines)
    angle = POSITIONS.astype(np.float32)[:, None] * impl.module.inv_freq.numpy()[None, :]
    assert np.array_equal(cos, torch.cos(torch.from_numpy(angle)).numpy())
    assert np.array_equal(sin, torch.sin(torch.from_numpy(angle)).numpy())
    # its inv_freq is its own float32 pow, within one ulp of the correctly rounded schedule
    ours = inv_freq(CONFIG, "float32").view(np.int32).astype(np.int64)
    assert np.abs(impl.module.inv_freq.numpy().view(np.int32) - ours).max() <= 1
    # apply_rotary_pos_emb rotates in float32 and casts: bf16 is the float32 table rounded once
    cos16, _ = impl.table(POSITIONS, CONFIG, "bf16")
    assert cos16.dtype.name == "bfloat16"
    assert np.array_equal(cos16.astype(np.float32), cos.astype(cos16.dtype).astype(np.float32))
    # the float32 angle at a million positions: ~2^-24 * 1e6 ~ 0.03-0.06
    assert 0.01 < error(cos, sin, CONFIG).max() < 0.1


def test_llama31_runs_through_an_overwritten_inv_freq_and_audits_like_the_float32_angle():
    config = llama31_8b()
    impl = build_library("x-transformers", config)
    assert "overwritten with the llama3 schedule" in impl.summary
    assert np.array_equal(impl.module.inv_freq.numpy(), inv_freq(config, "float32"))
    # ... which is the schedule transformers computes, within one float32 ulp
    require_library("transformers")
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    theirs = LlamaRotaryEmbedding(LlamaConfig(**config.hf_dict())).inv_freq.numpy()
    steps = np.abs(theirs.view(np.int32).astype(np.int64) - inv_freq(config, "float32").view(np.int32))
    assert steps.max() <= 1
    result = audit(impl, config, AuditOptions(max_position=131071, dtype="fp32", progress=False))
    # fl32(p * fl32(omega)): ~1e-2 at 128K (docs/design.md), a frequency error, fixed by float64
    assert 5e-3 < result.worst("max_abs_error") < 2e-2
    assert result.bands[-1].dominant == "frequency"
    assert result.first_failure is not None and result.fix == "fp64-angle"
    assert result.fix_target.startswith("x_transformers.x_transformers.RotaryEmbedding.forward")


def test_linear_interpolation_divides_the_float32_angle():
    config = RopeConfig.from_options(head_dim=64, theta=10000,
                                     rope_scaling={"rope_type": "linear", "factor": 4})
    impl = build_library("x-transformers", config)
    cos, sin = impl.table(POSITIONS, config, "fp32")
    angle = POSITIONS.astype(np.float32)[:, None] * impl.module.inv_freq.numpy()[None, :]
    assert np.array_equal(cos, torch.cos(torch.from_numpy(angle / np.float32(4))).numpy())
    assert error(cos, sin, config).max() < 0.1     # the exact schedule is inv_freq / 4
    with pytest.raises(UsageError, match="x-transformers has default, linear, llama3 RoPE only, "
                                         "not 'dynamic'"):
        build_library("x-transformers", RopeConfig.from_options(
            head_dim=64, theta=10000, rope_scaling={"rope_type": "dynamic", "factor": 2},
            max_position_embeddings=4096))


def test_the_lift_reads_its_inv_freq_exactly_and_names_the_float32_cast():
    require_library("sympy")
    import sympy as sp

    from symrope.lifting import check_lifted, lift_impl

    encoding = lift_impl("x-transformers", head_dim=8)
    report = check_lifted(encoding)
    rotations = report.classification["p"]["rotation"]
    module = xt.RotaryEmbedding(dim=8)
    assert sorted(sp.sympify(r["frequency"]) for r in rotations) == \
        sorted(sp.Rational(float(f)) for f in module.inv_freq)
    assert any(h["dtype"] == "float32" and "x_transformers.py:" in h["text"]
               for h in report.hazards)
