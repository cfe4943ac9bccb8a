"""Transformers model types the lift used to crash on or misread, on the real installed classes.

Configs are small (head_dim 8) so each check takes about a second; they are built by
transformers' own config classes, so defaults are the class's (cohere's theta 500000, not the
raw JSON's absence of it).
"""

from __future__ import annotations

import json

import pytest
import sympy as sp

from lift_support import require_module, small_llama

require_module("torch")
require_module("transformers")

from symrope.cli import main as symrope_main  # noqa: E402
from symrope.lifting import LiftUndecided, check_lifted, lift_hf, lift_hf_all  # noqa: E402

SMALL = {"hidden_size": 64, "num_attention_heads": 8}
PROVED = ("proved",) * 4


def verdicts(report) -> tuple:
    return tuple(r.verdict for r in report.assumptions.values())


def test_gemma3_is_checked_per_layer_type_with_its_own_theta():
    lifts = lift_hf_all({"model_type": "gemma3_text", "head_dim": 8, **SMALL})
    assert [label for label, _ in lifts] == ["layer type full_attention",
                                             "layer type sliding_attention"]
    thetas = []
    for _, encoding in lifts:
        report = check_lifted(encoding)
        assert verdicts(report) == PROVED
        thetas.append(encoding.lift_info["frequencies"]["schedule"])
    assert "theta 1000000" in thetas[0] and "theta 10000," in thetas[1]


def test_gptj_table_indexed_by_position_and_partial_split_are_lifted_or_named():
    encoding = lift_hf({"model_type": "gptj", "n_embd": 64, "n_head": 4, "rotary_dim": 8})
    notes = " ".join(encoding.lift_info["notes"])
    assert "indexes a cos/sin table by the position" in notes
    assert "partial rotary" in notes and "modeling_gptj.py:" in notes
    report = check_lifted(encoding)
    assert verdicts(report) == PROVED
    assert encoding.lift_info["layout"]["kind"] == "interleaved"  # rotate_every_two
    assert sum(z["count"] for z in report.classification["p"]["zero"]) == 8


def test_llama4_complex_form_is_lifted():
    encoding = lift_hf({"model_type": "llama4_text", "head_dim": 8, **SMALL})
    assert encoding.lift_info["layout"]["kind"] == "interleaved"
    assert "apply_rotary_emb" in encoding.name
    assert verdicts(check_lifted(encoding)) == PROVED


@pytest.mark.parametrize("model_type, rotated", [("stablelm", 2), ("phi", 4)])
def test_partial_rotary_split_in_the_attention_module_is_named(model_type, rotated):
    encoding = lift_hf({"model_type": model_type, **SMALL})
    notes = " ".join(encoding.lift_info["notes"])
    assert f"takes the first {rotated} of 8 channels" in notes
    assert f"modeling_{model_type}.py:" in notes  # the line of the attention module's split
    report = check_lifted(encoding)
    assert verdicts(report) == PROVED
    assert encoding.lift_info["layout"]["identity"] == list(range(rotated, 8))


def test_qwen2_vl_mrope_has_three_axes_and_reduces_to_1d_rope_on_text_tokens():
    config = {"model_type": "qwen2_vl_text", **SMALL,
              "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                  "mrope_section": [1, 1, 2]}}
    (label_3d, axial), (label_1d, text) = lift_hf_all(config)
    assert axial.position_dims == 3 and text.position_dims == 1
    assert (label_3d, label_1d) == ("all layers, M-RoPE axes", "all layers, text tokens t = h = w")
    report = check_lifted(axial)
    assert verdicts(report) == PROVED and report.generator["commute"]["verdict"] == "proved"
    planes = {axis: len(groups.get("rotation", [])) for axis, groups in
              report.classification.items()}
    assert sorted(planes.values()) == [1, 1, 2]  # mrope_section: t, h, w own 1, 1, 2 planes
    reduced = check_lifted(text)
    assert verdicts(reduced) == PROVED and len(reduced.classification["p"]["rotation"]) == 4


def test_cohere_schedule_comes_from_the_config_class_defaults():
    encoding = lift_hf({"model_type": "cohere", **SMALL})  # no rope_theta in the JSON
    frequencies = encoding.lift_info["frequencies"]
    assert "theta 500000" in frequencies["schedule"]
    assert float(frequencies["max_relative_error"]) < 1e-6  # float32 rounding, not a theta slip


def test_yarn_attention_factor_is_relative_up_to_a_uniform_scale():
    config = small_llama(max_position_embeddings=16384, rope_scaling={
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096})
    report = check_lifted(lift_hf(config))
    assert report.assumptions["identity_at_zero"].verdict == "refuted"
    assert report.scaled and report.exit_code == 0
    c2 = float(sp.sympify(report.uniform_scale["c2"]))
    assert c2 == pytest.approx((0.1 * __import__("math").log(4) + 1) ** 2, rel=1e-6)
    assert report.headline.startswith("relative up to a uniform scale c^2 = 1.29")
    assert "attention factor" in report.table()
    normalised = report.uniform_scale["classification"]["p"]["rotation"]
    assert len(normalised) == 4 and report.generator is None  # the normalised encoding's


def test_longrope_switch_is_refuted_across_it_with_the_pair_named():
    config = {"model_type": "phi3", **SMALL, "max_position_embeddings": 16384,
              "original_max_position_embeddings": 4096,
              "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0] * 4,
                               "long_factor": [2.0] * 4}}
    report = check_lifted(lift_hf(config))
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == "refuted"
    counterexample = translation.counterexample
    positions = [int(sp.sympify(v)) for v in counterexample["positions"]]
    reference = [int(sp.sympify(v)) for v in counterexample["reference_positions"]]
    assert max(positions) + 1 > 4096 >= max(reference) + 1  # the two sides of the switch
    assert counterexample["float64_replay"]["agrees"]
    assert report.uniform_scale["verdict"] == "proved"  # LongRoPE's attention factor, named
    assert report.assumptions["continuity"].verdict == "refuted"


def test_dynamic_ntk_branches_are_followed_both_ways_and_refuted():
    config = small_llama(max_position_embeddings=4096,
                         rope_scaling={"rope_type": "dynamic", "factor": 4.0})
    encoding = lift_hf(config)
    assert any("modeling_rope_utils.py" in b["location"] for b in encoding.lift_info["branches"])
    report = check_lifted(encoding, budget=120)
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == "refuted"
    positions = [int(sp.sympify(v)) for v in translation.counterexample["positions"]]
    assert max(positions) + 1 > 4096


def test_cli_model_type_rope_scaling_and_exit_3_for_an_encoder_config(capsys):
    assert symrope_main(["check", "--model-type", "phi", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "proved" and document["hazards"]
    assert symrope_main(["check", "--model-type", "qwen2_vl_vision"]) == 3
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "encoder" in err and "Traceback" not in err
    assert symrope_main(["check", "--model-type", "phi", "--rope-scaling",
                         '{"rope_type": "linear", "factor": 2}', "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert "linear RoPE" in document["notes"][2]
    assert symrope_main(["check", "--model-type", "no_such_model"]) == 2
    assert symrope_main(["check", "--model-type", "phi", "--rope-scaling", "[1]"]) == 2


def test_an_unknown_apply_convention_is_exit_3_not_a_traceback(monkeypatch):
    from transformers.models.llama import modeling_llama

    monkeypatch.setattr(modeling_llama, "apply_rotary_pos_emb",
                        lambda a, b, c: (a, b), raising=True)
    with pytest.raises(LiftUndecided, match="no apply function"):
        lift_hf(small_llama())
