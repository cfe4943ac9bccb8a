"""The real transformers rotary class, built offline, agrees with the 'hf' model step for step."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from symrope.audit._models import get_model
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, attention_factor

pytest.importorskip("torch")
pytest.importorskip("transformers")

from symrope.audit._hf import hf_transformers_impl  # noqa: E402

LLAMA = json.loads((Path(__file__).parent / "data" / "audit" / "llama31_8b_config.json").read_text())
POSITIONS = np.concatenate([np.arange(0, 2048), np.arange(1_000_000, 1_002_048), [16_777_219]])


def test_llama31_class_matches_the_hf_model():
    impl = hf_transformers_impl(LLAMA)
    assert "LlamaRotaryEmbedding" in impl.summary and impl.fix == "hf-transformers+fix"
    config = RopeConfig.from_hf(LLAMA)
    cos, sin = impl.table(POSITIONS, config, "bf16")
    assert cos.dtype == ml_dtypes.bfloat16 and cos.shape == (len(POSITIONS), 64)
    model_cos, model_sin = get_model("hf").table(POSITIONS, config, "bf16")
    # torch's float32 cos (SLEEF, <= 1 ulp) differs from a correctly rounded one only rarely,
    # and after the bf16 cast almost never
    for ours, theirs in ((model_cos, cos), (model_sin, sin)):
        assert np.mean(ours == theirs) > 0.9999
        assert np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64))) <= 2.0**-8
    cos32, _ = impl.table(POSITIONS, config, "fp32")
    model32, _ = get_model("hf").table(POSITIONS, config, "fp32")
    assert np.all(np.abs(cos32.astype(np.float64) - model32) <= np.spacing(np.abs(model32)))
    # the float32 position 2^24 + 3 reads 2^24 + 4 in both
    assert np.array_equal(cos32[-1], impl.table(np.array([16_777_220]), config, "fp32")[0][0])


def test_yarn_class_multiplies_the_attention_factor_and_dynamic_follows_seq_len():
    yarn = {"model_type": "qwen2", "hidden_size": 1024, "num_attention_heads": 16,
            "max_position_embeddings": 131072, "rope_theta": 1000000.0,
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}
    impl = hf_transformers_impl(yarn)
    assert "Qwen2RotaryEmbedding" in impl.summary
    config = RopeConfig.from_hf(yarn)
    cos, _ = impl.table(np.array([0, 5]), config, "fp32")
    assert float(cos[0, 0]) == pytest.approx(attention_factor(config, "float64"), rel=1e-7)
    model_cos, _ = get_model("hf").table(np.array([0, 5]), config, "fp32")
    assert np.all(np.abs(cos - model_cos) <= 2 * np.spacing(np.abs(model_cos)))

    dynamic = {"hidden_size": 1024, "num_attention_heads": 16, "max_position_embeddings": 4096,
               "rope_theta": 10000.0, "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}
    impl = hf_transformers_impl(dynamic)
    config = RopeConfig.from_hf(dynamic)
    positions = np.arange(10_000, 10_200)
    grown, _ = impl.table(positions, config, "fp32", seq_len=16384)
    model_grown, _ = get_model("hf").table(positions, config, "fp32", seq_len=16384)
    model_plain, _ = get_model("hf").table(positions, config, "fp32")
    assert np.all(np.abs(grown - model_grown) <= 2 * np.spacing(np.abs(model_grown)))
    assert np.max(np.abs(grown - model_plain)) > 0.1  # the grown base really is a different schedule
    # chunking never re-triggers the update: a lone chunk at the start gives the same rows
    first, _ = impl.table(positions[:10], config, "fp32", seq_len=16384)
    assert np.array_equal(first, grown[:10])


def test_missing_libraries_and_bad_configs_are_usage_errors(monkeypatch):
    with pytest.raises(UsageError, match="does not know model_type 'not-a-model'"):
        hf_transformers_impl(dict(LLAMA, model_type="not-a-model"))
    with pytest.raises(UsageError, match="must be a JSON object"):
        hf_transformers_impl([LLAMA])
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(UsageError, match=r"needs transformers, which does not import here .*pip install 'symrope\[frameworks\]'"):
        hf_transformers_impl(LLAMA)
