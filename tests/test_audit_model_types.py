"""transformers' rotary classes by model type and rope type, built offline; bad input."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit import get_model
from symrope.cli import main

require_library("torch")
require_library("transformers")

from symrope.audit._hf import hf_transformers_impl, rope_model_types  # noqa: E402

POSITIONS = np.array([0, 1, 1000, 5000, 40000, 131071])
ROPE_TYPES = {
    "default": None,
    "linear": {"rope_type": "linear", "factor": 4.0},
    "dynamic": {"rope_type": "dynamic", "factor": 4.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096},
    "longrope": {"rope_type": "longrope", "original_max_position_embeddings": 4096,
                 "short_factor": [1.0] * 64, "long_factor": [1.5] * 64},
    "llama3": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 8192},
}


@pytest.mark.parametrize("rope_type", sorted(ROPE_TYPES))
def test_every_rope_type_of_the_real_class_matches_the_schedule(rope_type):
    # Llama's default config (head_dim 128) with each rope type: the real class's fp32 table
    # agrees with the model of the same code path (float32 omega and angle) to 2 float32 ulps,
    # so the real class computes the schedule symrope's reference is built on.
    impl = hf_transformers_impl(None, "llama", ROPE_TYPES[rope_type])
    config = impl.rope_config
    assert config.rope_type == rope_type
    real, _ = impl.table(POSITIONS, config, "fp32")
    model, _ = get_model("hf").table(POSITIONS, config, "fp32")
    assert np.all(np.abs(real - model) <= 2 * np.spacing(np.abs(model)) + 1e-30)


@pytest.mark.parametrize("model_type, rotary_class", [
    ("qwen2", "Qwen2RotaryEmbedding"), ("mistral", "MistralRotaryEmbedding"),
    ("gemma", "GemmaRotaryEmbedding"), ("phi3", "Phi3RotaryEmbedding"),
    ("gpt_neox", "GPTNeoXRotaryEmbedding"), ("olmo", "OlmoRotaryEmbedding"),
])
def test_model_types_build_offline_from_their_own_config_class(model_type, rotary_class):
    impl = hf_transformers_impl(None, model_type)
    assert rotary_class in impl.summary
    cos, sin = impl.table(POSITIONS, impl.rope_config, "bf16")
    assert cos.shape == (POSITIONS.size, impl.rope_config.rotary_dim // 2)
    # the logit probe goes through the modeling module's own apply_rotary_pos_emb
    x = np.random.default_rng(0).standard_normal((3, 2, impl.rope_config.head_dim))
    rotated = impl.rotate(x, POSITIONS[:3], "fp32")
    assert rotated.shape == x.shape and not np.array_equal(rotated[1], x[1].astype(np.float32))


def test_rope_model_types_are_found_in_the_installed_transformers():
    types = rope_model_types()
    assert {"llama", "qwen2", "gemma", "mistral", "gpt_neox"} <= set(types)
    assert "bert" not in types and "gpt2" not in types
    assert len(types) > 100


def _run(capsys, *argv):
    code = main(["audit", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("config", [
    {"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12, "type_vocab_size": 2,
     "max_position_embeddings": 512, "position_embedding_type": "absolute"},
    {"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_positions": 1024},
])
def test_a_config_without_rope_is_refused(capsys, tmp_path, config):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    for impl in ("hf", "hf-transformers"):
        code, out, err = _run(capsys, "--impl", impl, "--config", str(path), "--max-position", "100")
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "not a RoPE config" in err and config["model_type"] in err


def test_model_type_through_the_cli(capsys):
    code, out, err = _run(capsys, "--impl", "hf-transformers", "--model-type", "qwen2",
                          "--rope-scaling", '{"rope_type": "yarn", "factor": 4, '
                          '"original_max_position_embeddings": 32768}',
                          "--max-position", "2047", "--json", "--no-fix")
    assert code == 0, err
    document = json.loads(out)
    assert "Qwen2RotaryEmbedding" in document["summary"] and document["config"].startswith("yarn RoPE")
    code, out, err = _run(capsys, "--impl", "hf-transformers", "--model-type", "bert")
    assert code == 2 and "not a RoPE config" in err


@pytest.mark.parametrize("impl, module", [("torchtune", "torchtune.modules"),
                                          ("keras-hub", "keras_hub"),
                                          ("hf-transformers", "transformers")])
def test_a_library_that_is_not_installed_is_one_line_naming_the_extra(capsys, monkeypatch, impl, module):
    monkeypatch.setitem(sys.modules, module, None)   # as if it were not installed
    code, out, err = _run(capsys, "--impl", impl, "--head-dim", "64", "--max-position", "100")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "pip install 'symrope[frameworks]'" in err
