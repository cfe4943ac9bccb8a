"""The real transformers rotary class, built offline, agrees with the 'hf' model step for step."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit._models import get_model
from symrope.errors import UsageError
from symrope.audit import exact_schedule
from symrope.schedules import RopeConfig, attention_factor, llama31_8b

require_library("torch")
require_library("transformers")

from symrope.audit import hf_transformers_impl  # noqa: E402

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


LLAMA2 = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
          "rope_theta": 10000.0, "max_position_embeddings": 4096}


def test_cast_module_bf16_reproduces_the_field_phase_error():
    # module.to(bfloat16) rounds the inv_freq buffer; on Llama 2's schedule (head_dim 128, theta
    # 1e4) pair 1's frequency is off by 1.4e-3 relative: 0.626 rad at position 512, 5.0 rad
    # (unwrapped; 2.62 wrapped, the largest over pairs) at 4096.
    from symrope.audit import phase_error

    impl = hf_transformers_impl(LLAMA2, cast_module="bf16")
    assert "module.to(torch.bfloat16)" in impl.summary
    config = impl.rope_config
    positions = np.array([512, 4096])
    cos, sin = impl.table(positions, config, "fp32")
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    phase = np.abs(phase_error(cos.astype(np.float64), sin.astype(np.float64), exact_cos, exact_sin))
    assert phase[0].max() == pytest.approx(0.626, abs=2e-3) and phase[0].argmax() == 1
    assert phase[1].max() == pytest.approx(2.62, abs=1e-2)
    omega = exact_schedule(config).omegas
    buffer = impl.module.inv_freq.float().numpy().astype(np.float64)
    assert (4096 * np.abs(buffer - omega)).max() == pytest.approx(5.01, abs=1e-2)
    plain, _ = hf_transformers_impl(LLAMA2).table(positions, config, "fp32")
    assert np.abs(plain.astype(np.float64) - exact_cos).max() < 1e-3   # without the cast: fine


def test_autocast_changes_nothing_in_this_transformers_and_tf32_rounds_positions():
    config = RopeConfig.from_hf(LLAMA2)
    positions = np.array([100, 2048, 2049, 4097, 100_001])
    plain = hf_transformers_impl(LLAMA2).table(positions, config, "bf16")
    under = hf_transformers_impl(LLAMA2, autocast="bf16").table(positions, config, "bf16")
    assert all(np.array_equal(a, b) for a, b in zip(plain, under))   # forward multiplies elementwise
    tf32 = hf_transformers_impl(LLAMA2, tf32=True)
    assert "EMULATED" in tf32.summary
    cos, _ = tf32.table(positions, config, "fp32")
    assert np.array_equal(cos[1], cos[2])                              # 2049 reads 2048
    assert np.array_equal(cos[3], tf32.table(np.array([4096]), config, "fp32")[0][0])


def test_patch_rotary_fixes_a_loaded_model_and_undoes():
    import torch
    from transformers import LlamaConfig, LlamaModel

    from symrope.audit.fix import patch_rotary

    model = LlamaModel(LlamaConfig(hidden_size=64, intermediate_size=64, num_hidden_layers=1,
                                   num_attention_heads=2, num_key_value_heads=2, vocab_size=16,
                                   rope_theta=500000.0, max_position_embeddings=2**20))
    model.to(torch.bfloat16)   # the field's mistake: inv_freq becomes bf16
    rotary = model.rotary_emb
    config = RopeConfig.from_hf(model.config.to_dict())
    positions = np.arange(2**20 - 64, 2**20)
    exact_cos, _, _ = exact_schedule(config).reference.cos_sin(positions)
    x = torch.zeros(1, dtype=torch.float32)
    ids = torch.from_numpy(positions)[None]

    def worst():
        with torch.no_grad():
            cos, _ = rotary(x, ids)
        return np.abs(cos[0, :, :16].double().numpy() - exact_cos).max()

    before = worst()
    with patch_rotary(model) as patch:
        assert patch.modules == [rotary]
        fixed = worst()
    assert before > 1.0 and fixed < 1e-7            # float32 cos/sin of a float64 angle
    assert worst() == before and "forward" not in rotary.__dict__   # undone
    with pytest.raises(UsageError, match="holds no transformers"):
        patch_rotary(torch.nn.Linear(2, 2))


def test_fix_flag_audits_the_patched_class(capsys):
    from symrope.cli import main

    code = main(["audit", "--impl", "hf-transformers", "--fix", "--dtype", "fp32", "--json",
                 "--positions", "1048000..1048575"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["impl"] == "hf-transformers+fix"
    assert document["bands"][-1]["max_abs_error"] < 1e-7
    code = main(["audit", "--impl", "hf-transformers", "--dtype", "fp32", "--json", "--tolerance",
                 "1e-4", "--positions", "1048000..1048575"])
    document = json.loads(capsys.readouterr().out)
    assert document["fix"]["impl"] == "hf-transformers+fix"
    assert "patch_rotary" in document["fix_target"] and "LlamaRotaryEmbedding.forward" in document["fix_target"]
    assert document["fix"]["improvement"]["max_abs_error"]["ratio"] > 1000


def test_patched_bf16_table_is_the_cast_of_the_exact_value():
    # the bf16 path reduces the float64 angle and takes float32 cos/sin: still within half a
    # bf16 ulp (2^-9) of the exact value plus ~2e-7, at the far end of a 1M context
    impl = hf_transformers_impl(dict(llama31_8b().hf_dict(), model_type="llama"), fixed=True)
    positions = np.arange(2**20 - 4096, 2**20)
    cos, sin = impl.table(positions, impl.rope_config, "bf16")
    exact_cos, exact_sin, _ = exact_schedule(impl.rope_config).reference.cos_sin(positions)
    for ours, exact in ((cos, exact_cos), (sin, exact_sin)):
        wide = ours.astype(np.float32).astype(np.float64)
        assert np.abs(wide - exact).max() <= 2.0**-9 + 1e-6
        assert np.mean(wide == exact.astype(ml_dtypes.bfloat16).astype(np.float64)) > 0.999


def _small_llama():
    from transformers import LlamaConfig, LlamaModel

    return LlamaModel(LlamaConfig(hidden_size=64, intermediate_size=64, num_hidden_layers=1,
                                  num_attention_heads=2, num_key_value_heads=2, vocab_size=16,
                                  rope_theta=500000.0, max_position_embeddings=2**20))


def _cos(rotary, position=2**20 - 1):
    import torch

    with torch.no_grad():
        cos, _ = rotary(torch.zeros(1, dtype=torch.float32), torch.tensor([[position]]))
    return cos[0, 0].double().numpy()


def test_patches_nest_and_each_undo_restores_what_it_found():
    from symrope.audit.fix import patch_rotary

    model = _small_llama()
    rotary = model.rotary_emb
    plain = _cos(rotary)
    first = patch_rotary(model)
    patched = _cos(rotary)
    assert not np.array_equal(plain, patched)
    second = patch_rotary(model)
    second.undo()                       # the sequence: m stays patched by the first
    assert np.array_equal(_cos(rotary), patched)
    first.undo()
    assert np.array_equal(_cos(rotary), plain) and "forward" not in rotary.__dict__
    # out of order: undoing the lower patch leaves the upper one, and then nothing
    lower, upper = patch_rotary(model), patch_rotary(model)
    lower.undo()
    assert np.array_equal(_cos(rotary), patched)
    upper.undo()
    assert np.array_equal(_cos(rotary), plain) and "_symrope_rotary_patches" not in rotary.__dict__
    upper.undo()                         # undoing twice changes nothing
    assert np.array_equal(_cos(rotary), plain)


def test_a_patched_model_survives_deepcopy_and_pickle():
    import copy
    import pickle

    from symrope.audit.fix import patch_rotary

    model = _small_llama()
    plain = _cos(model.rotary_emb)
    patch = patch_rotary(model)
    patched = _cos(model.rotary_emb)
    for clone in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        rotary = clone.rotary_emb
        assert np.array_equal(_cos(rotary), patched)
        assert rotary.forward.module is rotary            # bound to the copy, not the original
        rotary.forward.module.attention_scaling = 2.0     # the copy's own state is used
        assert np.allclose(_cos(rotary), 2 * patched)
    patch.undo()                                          # the original only
    assert np.array_equal(_cos(model.rotary_emb), plain)
