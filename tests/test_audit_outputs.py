"""The field figure of sglang-jax issue 1472, on the real transformers module: a bf16 ``inv_freq``
(``module.to(torch.bfloat16)``) changes about 72 of the 128 rotated q values at position 4095.

The inputs are those of the fix's regression test (sglang-jax PR 1473,
``test_rotary_embedding_computes_phase_in_float32``): head dim 128, theta 1e6, rotate-half
pairing, seeded ``default_rng(42)`` standard normal q (4 tokens x 3 heads) then k (4 x 2) in
float32, rounded to bf16, positions 0, 127, 1023, 4095. The issue's own script is not part of
what could be read, so its inputs -- and so its max |diff| 0.828125 -- are not matched exactly:
how many outputs differ is structural (the pairs whose phase the bf16 frequency moves), how far
they move scales with the inputs and is checked against the bound the phase errors allow.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from audit_libraries import require_library
from symrope.audit._outputs import output_mismatch

HEAD_DIM, THETA, POSITION = 128, 1e6, 4095
CONFIG = {"model_type": "llama", "hidden_size": HEAD_DIM, "num_attention_heads": 1,
          "head_dim": HEAD_DIM, "rope_theta": THETA, "max_position_embeddings": 32768}


def _field_vectors() -> np.ndarray:
    """The five q and k vectors of the regression test's token at position 4095."""
    rng = np.random.default_rng(42)
    query = rng.standard_normal((4, 3, HEAD_DIM), dtype=np.float32)
    key = rng.standard_normal((4, 2, HEAD_DIM), dtype=np.float32)
    vectors = np.concatenate([query[3], key[3]])
    return vectors.astype(ml_dtypes.bfloat16).astype(np.float64)


def _modules():
    require_library("torch")
    require_library("transformers")
    from symrope.audit import hf_transformers_impl

    cast = hf_transformers_impl(CONFIG, cast_module="bf16")
    return cast, cast.phase_reference()


def test_bf16_inv_freq_changes_about_72_of_128_outputs_at_4095():
    cast, reference = _modules()
    assert reference is not None and reference.cast_module is None
    exact = reference.module.inv_freq.double().numpy()
    rounded = cast.module.inv_freq.float().double().numpy()
    assert cast.module.inv_freq.dtype != reference.module.inv_freq.dtype     # the cast happened
    # Phase error of every pair at 4095, wrapped to [0, pi]: what the bf16 frequency does.
    phase = np.abs(np.remainder(POSITION * (rounded - exact) + np.pi, 2 * np.pi) - np.pi)
    changed_pairs = np.flatnonzero(rounded != exact)
    pairs = HEAD_DIM // 2
    vectors = _field_vectors()
    counts, diffs = [], []
    for vector in vectors:
        found = output_mismatch(cast.rotate, reference.rotate, [POSITION], vector[None], "bf16")
        counts.append(found["mismatched"][0])
        diffs.append(found["max_abs_diff"][0])
        # Which outputs differ: only channels of pairs whose frequency the cast changed.
        ours = cast.rotate(vector[None, None], [POSITION], "bf16").astype(np.float32)[0, 0]
        theirs = reference.rotate(vector[None, None], [POSITION], "bf16").astype(np.float32)[0, 0]
        differ = np.flatnonzero(ours != theirs)
        assert set(differ % pairs) <= set(changed_pairs)
        # Every pair whose phase moved by more than 0.05 rad has its outputs changed: the move
        # (>= 0.05 of the pair's norm) is several bf16 steps of either output.
        assert set(np.flatnonzero(phase > 0.05)) <= set(differ % pairs)
        # The largest difference is what the phase errors allow: 2 |sin(phi / 2)| times the
        # pair's norm, plus the bf16 rounding of the outputs (a step of 2^-7 relative).
        norm = np.hypot(vector[:pairs], vector[pairs:])
        bound = np.max(2 * np.abs(np.sin(phase / 2)) * norm) + 2.0**-6 * norm.max()
        assert 0.5 * bound <= found["max_abs_diff"][0] <= bound
    # The field's "72 of 128": here 68 to 72 for the five vectors (72 for the first key head).
    assert all(64 <= count <= 76 for count in counts), counts
    assert 72 in counts
    assert min(diffs) > 1.0     # these inputs are standard normal; the field's 0.83 had smaller ones


def test_the_audit_reports_the_output_mismatch_of_the_cast():
    cast, _ = _modules()
    from symrope.audit import AuditOptions, audit

    result = audit(cast, cast.rope_config, AuditOptions(max_position=POSITION, dtype="bf16",
                                                        progress=False))
    found = result.logits["output_mismatch"]
    assert found["positions"][-1] == POSITION and found["outputs_per_vector"] == HEAD_DIM
    assert 64 <= found["mismatched"][-1] <= 76
    assert found["max_abs_diff"][-1] > 1.0
    # An unknobbed module has nothing to compare with: no entry.
    from symrope.audit import hf_transformers_impl

    plain = hf_transformers_impl(CONFIG)
    assert plain.phase_reference() is None
    result = audit(plain, plain.rope_config, AuditOptions(max_position=2047, dtype="bf16", progress=False))
    assert "output_mismatch" not in result.logits
