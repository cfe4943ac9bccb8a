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

from symrope.audit import hf_transformers_impl, rope_model_types  # noqa: E402

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
    assert cos.shape == (POSITIONS.size, impl.rope_config.pairs)
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


# --- configs transformers accepts are audited as transformers builds them ----------------------

def _pairs_and_header(capsys, *argv):
    code, out, err = _run(capsys, *argv, "--max-position", "3000", "--no-fix")
    assert code == 0, err
    pairs = int(out.split(" pairs")[0].rsplit(" x ", 1)[1])
    return pairs, " ".join(out.split())


def test_rope_scaling_keeps_the_models_partial_rotary(capsys):
    # phi rotates 16 of its 32 channels (partial_rotary_factor 0.5) under any --rope-scaling
    pairs, header = _pairs_and_header(capsys, "--model-type", "phi", "--rope-scaling",
                                      '{"rope_type": "linear", "factor": 2}')
    assert pairs == 16 and "rotary_dim 32" in header
    assert dict(hf_transformers_impl(None, "phi", {"rope_type": "linear", "factor": 2.0})
                .module.named_buffers())["inv_freq"].numel() == 16


def test_dynamic_uses_the_config_classs_max_position_embeddings(capsys):
    pairs, header = _pairs_and_header(capsys, "--model-type", "llama", "--rope-scaling",
                                      '{"rope_type": "dynamic", "factor": 2}')
    assert pairs == 64 and "max_position_embeddings 2048" in header


def test_phi3_longrope_takes_one_factor_per_pair_of_its_head(capsys):
    scaling = {"rope_type": "longrope", "short_factor": [1.0] * 48, "long_factor": [2.0] * 48,
               "original_max_position_embeddings": 4096}
    pairs, _ = _pairs_and_header(capsys, "--model-type", "phi3", "--rope-scaling", json.dumps(scaling))
    assert pairs == 48
    code, out, err = _run(capsys, "--model-type", "phi3", "--rope-scaling",
                          json.dumps(dict(scaling, short_factor=[1.0] * 64)))
    assert code == 2 and "short_factor must be a list of 48 numbers" in err
    assert len(err.strip().splitlines()) == 1


def test_an_odd_rotary_dimension_is_audited_with_transformers_pairs(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "phi", "hidden_size": 400, "num_attention_heads": 4,
                                "partial_rotary_factor": 0.33}))    # 100 x 0.33 = 33 channels
    pairs, header = _pairs_and_header(capsys, "--config", str(path))
    assert pairs == 17 and "rotary_dim 33" in header          # arange(0, 33, 2): 17 frequencies
    assert "logits (shift, logit err) not measured: rotary_dim 33 is odd" in header


def test_a_tiny_odd_head_is_audited(capsys):
    pairs, _ = _pairs_and_header(capsys, "--impl", "hf", "--head-dim", "3")
    assert pairs == 2


def test_proportional_rope_of_gemma4_is_audited_with_its_zero_frequencies(capsys):
    impl = hf_transformers_impl(None, "gemma4")
    config = impl.rope_config
    assert config.rope_type == "proportional" and config.pairs == config.head_dim // 2
    rotating = int(config.params["partial_rotary_factor"] * config.head_dim // 2)
    cos, sin = impl.table(POSITIONS, config, "fp32")
    assert np.all(cos[:, rotating:] == 1) and np.all(sin[:, rotating:] == 0)   # frequency 0
    code, out, err = _run(capsys, "--model-type", "gemma4", "--max-position", "3000", "--json",
                          "--no-fix")
    assert code == 0, err
    document = json.loads(out)
    assert document["config"].startswith("proportional RoPE")
    per_pair = document["frequency_error_per_pair"]
    assert per_pair[rotating:] == [None] * (len(per_pair) - rotating)   # no relative error at 0
    assert document["frequency_error_per_pair_nonfinite"] == {
        str(i): "nan" for i in range(rotating, len(per_pair))}      # null + its companion


def test_configs_transformers_cannot_build_are_one_line(capsys):
    code, out, err = _run(capsys, "--impl", "hf", "--head-dim", "64", "--rope-scaling",
                          '{"rope_type": "dynamic", "factor": 2}', "--max-position", "10")
    assert code == 2 and "needs max_position_embeddings" in err
    config = {"head_dim": 64, "partial_rotary_factor": 0.03, "max_position_embeddings": 4096,
              "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    with pytest.raises(Exception, match="needs rotary_dim > 2"):
        from symrope.schedules import RopeConfig

        RopeConfig.from_hf(config)


def test_impl_errors_list_every_implementation(capsys):
    code, out, err = _run(capsys, "--impl", "nope")
    assert code == 2
    for name in ("hf-transformers", "torchtune", "rotary-embedding-torch", "keras-hub", "timm",
                 "hf", "meta", "fp64-angle", "module:function"):
        assert name in err


def test_a_library_that_cannot_express_the_default_schedule_falls_back_and_says_so(capsys):
    require_library("rotary_embedding_torch")
    code, out, err = _run(capsys, "--impl", "rotary-embedding-torch", "--dtype", "bf16",
                          "--max-position", "2047", "--no-fix")
    assert code == 0, err
    text = " ".join(out.split())
    assert "-- default RoPE, head_dim 128, theta 500000" in text
    assert "note: rotary-embedding-torch has default, linear RoPE only, not 'llama3': audited " \
           "with plain RoPE of the same head_dim and theta instead" in text
    # asked for explicitly, a schedule it cannot express stays an error
    code, out, err = _run(capsys, "--impl", "rotary-embedding-torch", "--rope-scaling",
                          '{"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096}',
                          "--max-position", "10")
    assert code == 2 and "not 'yarn'" in err


def test_without_transformers_the_default_audit_is_the_labelled_model():
    import subprocess

    script = ("import sys; sys.modules['transformers'] = None\n"
              "from symrope.cli import main\n"
              "raise SystemExit(main(['audit', '--max-position', '1023', '--no-fix']))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    text = " ".join(result.stdout.split())
    assert text.startswith("symrope audit: hf (bf16)") and "Approximation of the real class" in text
    assert "note: torch and transformers do not both import here, so this is the built-in model" in text
