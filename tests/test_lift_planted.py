"""Planted bugs in the real HF Llama code (wrapped or monkeypatched, never re-typed), and a trap.

Each bug must be refuted on the right assumption, with its counterexample replayed through the
real code in float64; the cos/sin swap is *not* a bug (``sin I + cos J = R(pi/2 - p)``) and must
be proved, with the generator's sign flipped.
"""

from __future__ import annotations

import pytest

from lift_support import require_module, small_llama

require_module("torch")  # symrope.lifting runs torch code: skip (or, under CI, fail) without it

from symrope.lifting import check_lifted, lift, lift_hf  # noqa: E402


@pytest.fixture()
def llama():
    require_module("transformers")
    from transformers.models.llama import modeling_llama

    return modeling_llama


def refuted_with_replay(report, assumption):
    result = report.assumptions[assumption]
    assert result.verdict == "refuted", report.table()
    replay = result.counterexample["float64_replay"]
    assert replay["agrees"], replay  # the real code in float64 shows the exact discrepancy
    return replay


def test_rotate_half_sign_flipped_on_q_only(llama, monkeypatch):
    real, calls = llama.rotate_half, []

    def flipped_on_q(x):  # apply_rotary_pos_emb calls rotate_half(q) first, then rotate_half(k)
        calls.append(None)
        return -real(x) if len(calls) % 2 == 1 else real(x)

    monkeypatch.setattr(llama, "rotate_half", flipped_on_q)
    report = check_lifted(lift_hf(small_llama()))
    replay = refuted_with_replay(report, "translation_invariance")
    assert replay["score_at_s_t"] != pytest.approx(replay["score_at_0_t_minus_s"], abs=1e-3)


def test_k_left_unrotated(llama, monkeypatch):
    real = llama.apply_rotary_pos_emb

    def k_unrotated(q, k, cos, sin, unsqueeze_dim=1):
        q_embed, _ = real(q, k, cos, sin, unsqueeze_dim)
        return q_embed, k

    monkeypatch.setattr(llama, "apply_rotary_pos_emb", k_unrotated)
    report = check_lifted(lift_hf(small_llama()))
    refuted_with_replay(report, "translation_invariance")
    assert report.assumptions["linearity"].verdict == "proved"


def test_key_positions_plus_one(llama):
    from transformers import LlamaConfig

    config = {k: v for k, v in small_llama().items() if k != "model_type"}
    module = llama.LlamaRotaryEmbedding(LlamaConfig(**config))

    def keys_one_ahead(q, k, positions):
        q_cos, q_sin = module(q, positions[None, :])
        k_cos, k_sin = module(k, positions[None, :] + 1)
        return (llama.apply_rotary_pos_emb(q, k, q_cos, q_sin)[0],
                llama.apply_rotary_pos_emb(q, k, k_cos, k_sin)[1])

    report = check_lifted(lift(keys_one_ahead, head_dim=8))
    # R(s)^T R(t + 1) = R(t - s + 1): still relative, but H(0) = R(1) is not I
    assert report.assumptions["translation_invariance"].verdict == "proved"
    replay = refuted_with_replay(report, "identity_at_zero")
    x_dot_y = int(report.assumptions["identity_at_zero"].counterexample["x_dot_y"])
    assert abs(replay["score"] - x_dot_y) > 1e-3


def test_dynamic_ntk_across_two_sequence_lengths(llama):
    import torch
    from transformers import LlamaConfig

    config = {k: v for k, v in small_llama(max_position_embeddings=64, rope_scaling={
        "rope_type": "dynamic", "factor": 4.0}).items() if k != "model_type"}
    short, long = (llama.LlamaRotaryEmbedding(LlamaConfig(**config)) for _ in range(2))
    with torch.no_grad():  # the module's own runtime update, at a length past the context
        long(torch.zeros(1), torch.tensor([[1023]]))
    assert not torch.equal(short.inv_freq, long.inv_freq)
    undecorated = type(short).forward.__wrapped__  # frequencies fixed: no branch on positions

    def cached_keys(q, k, positions):  # keys cached at a short length, queries at a long one
        q_cos, q_sin = undecorated(long, q, positions[None, :])
        k_cos, k_sin = undecorated(short, k, positions[None, :])
        return (llama.apply_rotary_pos_emb(q, k, q_cos, q_sin)[0],
                llama.apply_rotary_pos_emb(q, k, k_cos, k_sin)[1])

    report = check_lifted(lift(cached_keys, head_dim=8))
    refuted_with_replay(report, "translation_invariance")
    # the decorated forward branches on the (symbolic) sequence length: both ways are followed
    # (tests/test_lift_hf_types.py decides that lift across the switch)
    encoding = lift_hf(small_llama(max_position_embeddings=64,
                                   rope_scaling={"rope_type": "dynamic", "factor": 4.0}))
    assert all("modeling_rope_utils.py" in b["location"]
               for b in encoding.lift_info["branches"])
    assert not encoding.per_token  # the frequencies read max(positions): every token's


def test_cos_and_sin_swapped_for_both_is_still_relative(llama, monkeypatch):
    real = llama.apply_rotary_pos_emb
    plain = check_lifted(lift_hf(small_llama()))
    monkeypatch.setattr(llama, "apply_rotary_pos_emb",
                        lambda q, k, cos, sin, unsqueeze_dim=1: real(q, k, sin, cos, unsqueeze_dim))
    swapped = check_lifted(lift_hf(small_llama()))
    assert swapped.verdict == "proved", swapped.table()  # sin I + cos J = R(pi/2 - p)
    plain_blocks = plain.generator["axes"][0]["blocks"]
    swapped_blocks = swapped.generator["axes"][0]["blocks"]
    assert [b["indices"] for b in plain_blocks] == [b["indices"] for b in swapped_blocks]
    assert plain_blocks[0]["matrix"] == "[[0, -1], [1, 0]]"
    assert swapped_blocks[0]["matrix"] == "[[0, 1], [-1, 0]]"  # the generator's sign flipped
    assert [r["frequency"] for r in plain.classification["p"]["rotation"]] == \
        [r["frequency"] for r in swapped.classification["p"]["rotation"]]
