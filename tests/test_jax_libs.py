"""The real JAX libraries, run as installed: Gemma's apply_rope lifted (and a planted bug refuted
with a replay through it), sglang-jax's #1472 reproduced on its released 0.0.2, MaxText lifted
and audited, keras-hub on the JAX backend audited from the command line.

gemma, sglang-jax 0.0.2 and maxtext install only with ``--no-deps`` /
``--ignore-requires-python`` (and gemma with TensorFlow), so CI installs them in a second
environment chained to the first (``.venv-ci-jaxlibs``, see ``.ci/run``) and runs their tests
there with ``SYMROPE_JAXLIBS=1``; the main CI run skips them, saying where they run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from ci_support import import_or_skip, missing

jax = import_or_skip("jax", "pip install 'symrope[jax]'")
jnp = jax.numpy

from symrope.audit import AuditOptions, audit, build_library  # noqa: E402
from symrope.lifting import check_lifted, lift, lift_impl  # noqa: E402
from symrope.schedules import RopeConfig  # noqa: E402


def jaxlib(module: str):
    """A JAX library of the second CI environment: skipped in the main CI run (it runs in
    .venv-ci-jaxlibs), else imported or skipped (failed under CI)."""
    if os.environ.get("CI") and not os.environ.get("SYMROPE_JAXLIBS"):
        pytest.skip("the real JAX libraries run in .venv-ci-jaxlibs (SYMROPE_JAXLIBS=1, .ci/run)")
    return import_or_skip(module, ".ci/run installs it in .venv-ci-jaxlibs (see "
                                  "symrope/audit/_libraries/ and pyproject's jax extra)")


@pytest.fixture(scope="module")
def gemma():
    jaxlib("gemma.gm.math")
    return build_library("gemma", RopeConfig.from_options(head_dim=128, theta=10000))


def test_gemma_apply_rope_is_proved_with_its_float32_timescales(gemma):
    report = check_lifted(lift(gemma.lift_function(), 128, name="gemma apply_rope"))
    assert report.verdicts() == {k: "proved" for k in report.verdicts()}
    assert report.lift["layout"]["text"] == "rotate_half pairs (i, i + 64) for i = 0..63"
    blocks = report.generator["axes"][0]["blocks"]
    omegas = [sp.parse_expr(block["matrix"])[1][0] for block in blocks]
    timescale = np.asarray(10000 ** ((2.0 / 128) * jnp.arange(0, 64, dtype=jnp.float32)))
    assert timescale.dtype == np.float32
    # the angle is positions / timescale: each frequency is 1/timescale, the float32 constant
    assert omegas == [1 / sp.Rational(float(t)) for t in timescale]
    (hazard,) = report.hazards
    assert hazard["location"].endswith("gemma/gm/math/_positional_embeddings.py:61")


def test_a_sign_flip_on_k_is_refuted_and_replayed_through_gemma_in_float64(gemma):
    rope = gemma.lift_function()

    def flipped(q, k, positions):
        return rope(q, k, positions)[0], rope(q, k, -positions)[1]
    flipped.__symrope_framework__ = "jax"
    report = check_lifted(lift(flipped, 16, name="gemma, k rotated at -p"))
    invariance = report.assumptions["translation_invariance"]
    assert invariance.verdict == "refuted"
    replay = invariance.counterexample["float64_replay"]
    assert replay["agrees"] and "float64 replay through the real code" in \
        invariance.counterexample["summary"]


def test_gemma_audit_per_dtype(gemma):
    config = gemma.rope_config
    safe = {dtype: audit(gemma, config, AuditOptions(max_position=16383, dtype=dtype,
                                                     progress=False)).safe_context
            for dtype in ("bf16", "fp16", "fp32")}
    assert all(value == 16384 for value in safe.values()), safe


def _symrope_json(*arguments: str, code: int) -> dict:
    """``python -m symrope ARGUMENTS --json`` in its own process, its exit status checked."""
    done = subprocess.run([sys.executable, "-m", "symrope", *arguments, "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == code, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_gemma_against_transformers_gemma_differs_only_by_float32_rounding():
    """``symrope diff gemma hf-transformers --model-type gemma``: the same encoding (rotate-half
    pairs (i, i + 128), theta 10000, head_dim 256: no change of basis) whose frequencies differ
    only where each code rounds base^(-2i/d): Gemma divides by its float32 timescale t (an exact
    1/t), transformers multiplies by its float32 inv_freq fl(1/t'), so every plane but the first
    (t = 1) differs, by about half a float32 ulp; run as they are, their float32 scores agree to
    1e-6 up to position 4095. Run as the command in its own process: triton
    (loaded by transformers' Gemma model) crashes when it loads after gemma's TensorFlow, and
    this process may have imported gemma already; the command lifts transformers' side first."""
    jaxlib("gemma.gm.math")
    report = _symrope_json("diff", "gemma", "hf-transformers", "--model-type", "gemma",
                           "--audit", "--max-position", "4095", code=0)
    assert report["verdict"] == "same" and report["basis"] is None
    assert report["differences"] == [] and report["pairing"] is None
    for side in ("a", "b"):
        assert report[side]["layout"] == "rotate_half pairs (i, i + 128) for i = 0..127"
        assert report[side]["settings"] == {"rope_theta": 10000.0, "rope_type": "default",
                                             "partial_rotary_factor": 1.0, "head_dim": 256}
    assert report["a"]["version"] == "3.3.0" and report["b"]["library"] == "transformers"
    rounding = report["rounding"]
    assert rounding["planes"] == list(range(1, 128)) and 0 < rounding["max_ulps"] < 2
    # --audit runs both as they are (gemma's on numpy arrays, transformers' on tensors)
    audit = report["audit"]
    assert audit["first_difference"] is None
    assert max(band["max_score_difference"] for band in audit["bands"]) < 1e-6
    assert audit["a"]["first_failure"] is None and audit["b"]["first_failure"] is None
    # the control (a theta that differs is named, not rounded away): tests/test_diff.py, on
    # tests/data/diff/gemma_jax_gemma_3.3.0.json, saved from this command's left side


def _regression_inputs():
    """sglang-jax's own regression test of the fix (PR #1473): 4 tokens, 3 heads, seed 42."""
    rng = np.random.default_rng(42)
    query = rng.standard_normal((4, 3, 128), dtype=np.float32)
    return jnp.asarray([0, 127, 1023, 4095], dtype=jnp.int32), jnp.asarray(query, jnp.bfloat16)


def issue_1472_figures():
    """Mismatches per head and max |difference| of the released module against the fix, per
    position (the report: 72 of 128, 0.828125 at position 4095, on its own demo inputs)."""
    config = RopeConfig.from_options(head_dim=128, theta=1_000_000)
    released = build_library("sglang-jax", config)
    positions, query = _regression_inputs()
    rope = released.module.RotaryEmbedding(128, 128, 32768, 1_000_000, True, jnp.bfloat16)
    ours, _ = rope(positions, query.reshape(4, -1), query.reshape(4, -1))
    reference = released.fixed_rotate(rope, positions, query)
    ours = np.asarray(ours.reshape(4, 3, 128), dtype=np.float32)
    reference = np.asarray(reference, dtype=np.float32)
    return {int(p): ((ours[i] != reference[i]).sum(axis=-1).tolist(),
                     float(np.abs(ours[i] - reference[i]).max()))
            for i, p in enumerate(np.asarray(positions))}


def test_sglang_jax_0_0_2_reproduces_issue_1472_and_its_fix_is_safe():
    jaxlib("sgl_jax")
    figures = issue_1472_figures()
    assert figures[0] == ([0, 0, 0], 0.0)
    mismatches, largest = figures[4095]
    assert all(60 <= m <= 80 for m in mismatches) and largest > 0.5, figures   # report: 72, 0.83
    config = RopeConfig.from_options(head_dim=128, theta=1_000_000)
    options = AuditOptions(max_position=8191, dtype="bf16", progress=False)
    released = audit(build_library("sglang-jax", config), config, options).safe_context
    fixed = audit(build_library("sglang-jax+fix", config), config, options).safe_context
    assert released < 64 and fixed == 8192, (released, fixed)


def test_maxtext_rotary_embedding_is_lifted_and_audited():
    jaxlib("maxtext.layers.embeddings")
    config = RopeConfig.from_options(head_dim=16, theta=10000)
    impl = build_library("maxtext", config)
    report = check_lifted(lift_impl("maxtext", head_dim=16))   # symrope check --impl maxtext
    assert report.verdict == "proved"
    result = audit(impl, config, AuditOptions(max_position=4095, dtype="bf16", progress=False))
    assert result.safe_context == 4096


def test_keras_hub_on_jax_is_audited_from_the_command_line_in_its_own_process():
    from importlib.util import find_spec

    if find_spec("keras_hub") is None:   # not imported here: keras would choose its backend
        missing("keras_hub is not installed", "pip install --no-deps keras-hub (.ci/run)")
    env = {**os.environ, "KERAS_BACKEND": "jax"}
    command = [sys.executable, "-m", "symrope", "audit", "--impl", "keras-hub-jax", "--head-dim",
               "64", "--theta", "10000", "--max-position", "4095", "--dtype", "fp32", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["impl"] == "keras-hub-jax" and "JAX backend" in report["summary"]
    assert report["safe_context"] == 4096 and report["first_failure"] is None
    assert 0 < report["bands"][0]["max_abs_error"] < 1e-4   # float32 angle below 1024
    # in a process whose keras runs on torch, the same name is refused in one line (exit 2)
    done = subprocess.run([*command[:4], "--impl", "keras-hub-jax"], capture_output=True,
                          text=True, env={**os.environ, "KERAS_BACKEND": "torch"}, timeout=300)
    assert done.returncode == 2 and "needs keras on the JAX backend" in done.stderr
    assert "Traceback" not in done.stderr
