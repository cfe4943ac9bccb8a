"""``symrope.lift`` on the real installed libraries: HF transformers and every library of the
registry that declares how it is lifted (``Library.lift``), then each one's own figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from functools import lru_cache

import pytest
import sympy as sp

from lift_support import require_module, small_llama

require_module("torch")  # symrope.lifting runs torch code: skip (or, under CI, fail) without it

from audit_libraries import require_entry  # noqa: E402
from symrope.audit import libraries  # noqa: E402
from symrope.cli._check import main  # noqa: E402
from symrope.errors import UsageError  # noqa: E402
from symrope.lifting import IMPLS, check_lifted, lift_hf, lift_impl  # noqa: E402

LLAMA31 = json.loads((Path(__file__).parent / "data" / "audit" / "llama31_8b_config.json")
                     .read_text())
PROVED = {"linearity": "proved", "translation_invariance": "proved",
          "identity_at_zero": "proved", "continuity": "proved"}


def frequencies(report, axis="p"):
    return [sp.sympify(r["frequency"]) for r in report.classification[axis]["rotation"]]


def test_hf_llama31_head_dim_128_frequencies_are_the_modules_inv_freq_exactly():
    require_module("transformers")
    encoding = lift_hf(LLAMA31)
    assert encoding.dim == 128
    assert encoding.lift_info["layout"]["text"] == "rotate_half pairs (i, i + 64) for i = 0..63"
    report = check_lifted(encoding, budget=600)  # a few s: see benchmarks/bench_lift.py
    assert report.verdicts() == PROVED
    assert report.generator["pure_rotation"]["verdict"] == "proved"
    rotations = report.classification["p"]["rotation"]
    assert len(rotations) == 64
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
    from transformers import LlamaConfig

    config = {k: v for k, v in LLAMA31.items() if k != "model_type"}
    inv_freq = LlamaRotaryEmbedding(LlamaConfig(**config)).inv_freq
    by_plane = {tuple(r["indices"]): sp.sympify(r["frequency"]) for r in rotations}
    assert by_plane == {(i, i + 64): sp.Rational(float(inv_freq[i])) for i in range(64)}
    report_frequencies = encoding.lift_info["frequencies"]
    assert report_frequencies["planes"] == 64
    # float32 rounding, a few ulps after llama3 smoothing: 3.21e-07 at plane 33 with torch 2.13
    assert 2 ** -24 < float(report_frequencies["max_relative_error"]) < 1e-6


@pytest.mark.parametrize("model_type, extra, layout", [
    ("mistral", {}, "rotate_half pairs (i, i + 4) for i = 0..3"),
    ("qwen2", {}, "rotate_half pairs (i, i + 4) for i = 0..3"),
    ("gemma", {"head_dim": 8}, "rotate_half pairs (i, i + 4) for i = 0..3"),
    ("phi3", {"partial_rotary_factor": 0.5, "hidden_size": 128},
     "rotate_half pairs (i, i + 4) for i = 0..3; identity (pass-through) on 8..15"),
    ("gpt_neox", {"partial_rotary_factor": 0.25, "hidden_size": 128},
     "rotate_half pairs (i, i + 2) for i = 0..1; identity (pass-through) on 4..15"),
])
def test_hf_model_types_are_proved(model_type, extra, layout):
    require_module("transformers")
    encoding = lift_hf(small_llama(model_type=model_type, **extra))
    assert encoding.lift_info["layout"]["text"] == layout
    report = check_lifted(encoding)
    assert report.verdicts() == PROVED
    if "identity" in layout:  # GPT-NeoX / Phi-3 partial rotary: pass-through is the identity
        passing = encoding.lift_info["layout"]["identity"]
        x, p = sp.symbols(f"x0:{encoding.dim}", real=True), sp.Symbol("p", real=True)
        query, key = encoding.query(sp.Matrix(x), p), encoding.key(sp.Matrix(x), p)
        assert [query[i] for i in passing] == [key[i] for i in passing] == [x[i] for i in passing]
        assert sum(z["count"] for z in report.classification["p"]["zero"]) == len(passing)


def test_hf_deepseek_v3_interleave_is_a_permuted_rotate_half():
    require_module("transformers")
    encoding = lift_hf(small_llama(model_type="deepseek_v3", qk_rope_head_dim=8,
                                   qk_nope_head_dim=8, kv_lora_rank=16, q_lora_rank=16,
                                   v_head_dim=8))
    assert "input interleaved pairs (2i, 2i+1)" in encoding.lift_info["layout"]["text"]
    assert check_lifted(encoding).verdicts() == PROVED


def test_hf_cli_with_config_file(tmp_path, capsys):
    require_module("transformers")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(small_llama()))
    assert main(["--impl", "hf-transformers", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "LlamaRotaryEmbedding" in out and "casts between float types are identities" in out
    assert "precision hazard: positions cast to float32 at " in out and "modeling_llama.py:" in out
    assert "max relative error" in out


LIFTED_BY_SCHEDULE = [library for library in libraries() if library.lift == "schedule"]


@lru_cache(maxsize=None)
def lifted(spec: str, head_dim: int = 8):
    """``(encoding, report)`` of a library's lift (each lifted and checked once per session)."""
    encoding = lift_impl(spec, head_dim=head_dim)
    return encoding, check_lifted(encoding)


@pytest.mark.parametrize("library", LIFTED_BY_SCHEDULE, ids=lambda library: library.name)
def test_every_liftable_library_is_relative_with_the_pairing_it_declares(library):
    require_entry(library)
    encoding, report = lifted(library.name)
    layout = encoding.lift_info["layout"]
    # the pairing the audit reads the table with is the one the lifted code has
    assert layout["kind"] == library.pairing, layout["text"]
    assert report.verdicts() == PROVED
    assert library.name in IMPLS and all(alias in IMPLS for alias in library.lift_aliases)


def test_the_registry_names_every_lift_check_accepts():
    liftable = {name for library in libraries() if library.lift is not None
                for name in (library.name, *library.lift_aliases)}
    assert set(IMPLS) == liftable
    with pytest.raises(UsageError, match="--config applies only to --impl hf-transformers"):
        lift_impl(LIFTED_BY_SCHEDULE[0].name, config={"model_type": "llama"})
    with pytest.raises(UsageError, match="--head-dim must be a positive even integer, got 7"):
        lift_impl(LIFTED_BY_SCHEDULE[0].name, head_dim=7)


def test_torchtune_frequencies_are_its_float32_theta_exactly():
    require_module("torchtune.modules")
    encoding, report = lifted("torchtune")
    assert encoding.lift_info["layout"]["text"] == "interleaved pairs (2i, 2i+1) on 0..7"
    assert report.verdicts() == PROVED
    import torch

    theta = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
    assert sorted(frequencies(report)) == sorted(sp.Rational(float(t)) for t in theta)


@pytest.mark.parametrize("how", ["console script", "python -m"])
def test_torchtune_hazard_names_torchtunes_own_line_however_symrope_is_started(how, tmp_path):
    """The positions' cast happens in torchtune's ``build_rope_cache`` (``torch.arange`` over the
    positions in float32): the hazard names that file and line, not the ``symrope`` console
    script that started the run (it did) nor nothing at all under ``runpy`` (it did)."""
    require_module("torchtune.modules")
    script = Path(sys.executable).parent / "symrope"
    if how == "console script" and not script.exists():  # what pip writes for [project.scripts]
        script = tmp_path / "symrope"
        script.write_text("import sys\nfrom symrope.cli import main\nsys.exit(main())\n")
    start = [sys.executable, str(script)] if how == "console script" else \
        [sys.executable, "-m", "symrope"]
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        root, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([*start, "check", "--impl", "torchtune", "--json"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (hazard,) = json.loads(done.stdout)["hazards"]
    path, _, line = hazard["location"].rpartition(":")
    assert path.endswith(os.path.join("torchtune", "modules", "position_embeddings.py")), hazard
    assert f" at {hazard['location']}:" in hazard["text"]
    assert "torch.arange(" in Path(path).read_text().splitlines()[int(line) - 1], hazard


def test_rotary_embedding_torch_plain_and_xpos():
    library = require_module("rotary_embedding_torch")
    _, plain = lifted("rotary-embedding-torch")
    assert plain.verdicts() == PROVED and plain.generator["pure_rotation"]["verdict"] == "proved"
    xpos = check_lifted(lift_impl("rotary-embedding-torch:xpos", head_dim=8))   # the alias
    assert xpos.verdicts() == PROVED
    assert xpos.generator["pure_rotation"]["verdict"] == "refuted"
    damped = xpos.classification["p"]["damped_rotation"]
    assert len(damped) == 4 and "rotation" not in xpos.classification["p"]
    scale = library.RotaryEmbedding(dim=8, use_xpos=True).scale
    rates = {tuple(d["indices"]): sp.sympify(d["rate"]) for d in damped}
    for i in range(4):  # q scaled by scale^(p/512), k by scale^(-p/512): rate -log(scale)/512
        expected = -sp.log(sp.Rational(float(scale[i]))) / 512
        assert sp.expand_log(rates[(2 * i, 2 * i + 1)] - expected, force=True) == 0


def test_timm_2d_is_relative_with_commuting_generators():
    require_module("timm.layers.pos_embed_sincos")
    encoding, report = lifted("timm")
    assert encoding.position_dims == 2
    assert report.verdicts() == PROVED
    assert report.generator["commute"]["verdict"] == "proved"
