"""Frequency schedules: hand-checked numbers, the three number systems agree, bad input is refused."""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy

from audit_libraries import require_library
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, attention_factor, inv_freq, llama31_8b

DATA = Path(__file__).parent / "data" / "audit"

# Qwen2.5-style YaRN: theta 1e6, head_dim 128, factor 4 over a 32768 pre-training context.
YARN = {"head_dim": 128, "rope_theta": 1000000.0, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}
LONGROPE = {"head_dim": 16, "rope_theta": 10000.0, "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_scaling": {"rope_type": "longrope",
                             "short_factor": [1.0 + 0.1 * i for i in range(8)],
                             "long_factor": [1.5 + 0.7 * i for i in range(8)]}}
DYNAMIC = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096,
           "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}}
LINEAR = {"head_dim": 64, "rope_theta": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 4.0}}
DEEPSEEK_YARN = {"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 163840,
                 "rope_scaling": {"rope_type": "yarn", "factor": 40.0, "mscale": 0.707,
                                  "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096}}
PARTIAL = {"head_dim": 128, "rope_theta": 10000.0, "partial_rotary_factor": 0.25}

ALL_CONFIGS = {
    "default": RopeConfig.from_options(head_dim=128, theta=10000),
    "llama3": llama31_8b(),
    "yarn": RopeConfig.from_hf(YARN),
    "yarn-deepseek": RopeConfig.from_hf(DEEPSEEK_YARN),
    "longrope": RopeConfig.from_hf(LONGROPE),
    "dynamic": RopeConfig.from_hf(DYNAMIC),
    "linear": RopeConfig.from_hf(LINEAR),
    "partial": RopeConfig.from_hf(PARTIAL),
}


def test_default_schedule_is_theta_to_the_minus_2i_over_d():
    config = RopeConfig.from_options(head_dim=8, theta=10000)
    assert inv_freq(config, "sympy") == [1, sympy.Rational(1, 10), sympy.Rational(1, 100),
                                         sympy.Rational(1, 1000)]
    theta = sympy.Symbol("theta", positive=True)
    symbolic = inv_freq(RopeConfig.from_options(head_dim=6, theta=theta), "sympy")
    assert [sympy.simplify(w - theta ** sympy.Rational(-2 * i, 6)) for i, w in enumerate(symbolic)] == [0, 0, 0]


def test_llama31_8b_llama3_schedule_hand_checked():
    # Independently computed (mpmath, 30 digits) from Meta's apply_scaling: wavelength
    # 2*pi/omega below 8192/4 keeps omega, above 8192/1 divides by 8, between is smoothed.
    expected = {0: "1.0", 28: "0.0032114459947525910185", 29: "0.0021665707635033586093",
                30: "0.0013718935677611381604", 34: "0.00017850781276799641852",
                35: "0.000095562123539646830199", 63: "3.0689259889145110891e-7"}
    with mpmath.workdps(30):
        omega = inv_freq(llama31_8b(), "mpmath")
        for i, value in expected.items():
            assert abs(omega[i] / mpmath.mpf(value) - 1) < mpmath.mpf(10) ** -19, i
    plain = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    ratio = plain / inv_freq(llama31_8b(), "float64")
    # pairs 0..28 untouched, 29..34 smoothed, 35..63 divided by the factor 8
    assert np.allclose(ratio[:29], 1, rtol=1e-14, atol=0)
    assert np.all((ratio[29:35] > 1.01) & (ratio[29:35] < 7.99))
    assert np.allclose(ratio[35:], 8, rtol=1e-14, atol=0)


def test_yarn_schedule_and_attention_factor_hand_checked():
    # correction range: floor(23.596) = 23 .. ceil(39.651) = 40; omega mixes omega/4 and omega
    expected = {0: "1.0", 10: "0.11547819846894581797", 20: "0.013335214321633240257",
                30: "0.0010643609812470018163", 40: "0.000044456985250973070031",
                63: "3.1023444018792989152e-7"}
    config = RopeConfig.from_hf(YARN)
    with mpmath.workdps(30):
        omega = inv_freq(config, "mpmath")
        for i, value in expected.items():
            assert abs(omega[i] / mpmath.mpf(value) - 1) < mpmath.mpf(10) ** -19, i
        assert abs(attention_factor(config, "mpmath") - (mpmath.log(4) / 10 + 1)) < mpmath.mpf(10) ** -28
    assert attention_factor(config, "float64") == pytest.approx(1.1386294361119891, rel=1e-15)
    assert attention_factor(config, "sympy") == sympy.log(4) / 10 + 1


def test_yarn_deepseek_mscale_ratio_and_configured_factor():
    config = RopeConfig.from_hf(DEEPSEEK_YARN)
    mscale = lambda m: 0.1 * m * math.log(40.0) + 1.0  # noqa: E731
    assert attention_factor(config, "float64") == pytest.approx(mscale(0.707) / mscale(1.0), rel=1e-15)
    fixed = dict(YARN, rope_scaling=dict(YARN["rope_scaling"], attention_factor=1.25))
    assert attention_factor(RopeConfig.from_hf(fixed), "float64") == 1.25
    # without truncation the ramp runs between the unrounded correction dims
    loose = dict(YARN, rope_scaling=dict(YARN["rope_scaling"], truncate=False))
    low = 128 * math.log(32768 / (32 * 2 * math.pi)) / (2 * math.log(1e6))
    high = 128 * math.log(32768 / (1 * 2 * math.pi)) / (2 * math.log(1e6))
    ramp = np.clip((np.arange(64) - low) / (high - low), 0, 1)
    plain = 1e6 ** (-np.arange(0, 128, 2) / 128)
    expected = plain / 4 * ramp + plain * (1 - ramp)
    assert np.allclose(inv_freq(RopeConfig.from_hf(loose), "float64"), expected, rtol=1e-14, atol=0)


def test_linear_dynamic_longrope_partial_hand_checked():
    plain64 = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    assert np.allclose(inv_freq(RopeConfig.from_hf(LINEAR), "float64"), plain64 / 4, rtol=1e-15, atol=0)

    dynamic = RopeConfig.from_hf(DYNAMIC)
    assert np.allclose(inv_freq(dynamic, "float64"), plain64, rtol=1e-15, atol=0)  # at init
    assert np.allclose(inv_freq(dynamic, "float64", seq_len=2048), plain64, rtol=1e-15, atol=0)
    grown_base = 10000.0 * (4 * 8192 / 4096 - 3) ** (64 / 62)  # base x 5^(32/31) at twice the context
    assert np.allclose(inv_freq(dynamic, "float64", seq_len=8192),
                       grown_base ** (-np.arange(0, 64, 2) / 64), rtol=1e-14, atol=0)

    longrope = RopeConfig.from_hf(LONGROPE)
    plain16 = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    short = np.array(LONGROPE["rope_scaling"]["short_factor"])
    long = np.array(LONGROPE["rope_scaling"]["long_factor"])
    assert np.allclose(inv_freq(longrope, "float64"), plain16 / short, rtol=1e-15, atol=0)
    assert np.allclose(inv_freq(longrope, "float64", seq_len=4096), plain16 / short, rtol=1e-15, atol=0)
    assert np.allclose(inv_freq(longrope, "float64", seq_len=4097), plain16 / long, rtol=1e-15, atol=0)
    # factor = 131072 / 4096 = 32: sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12)
    assert attention_factor(longrope, "float64") == pytest.approx(math.sqrt(17 / 12), rel=1e-15)

    partial = RopeConfig.from_hf(PARTIAL)
    assert (partial.head_dim, partial.rotary_dim) == (128, 32)
    assert np.allclose(inv_freq(partial, "float64"), 10000.0 ** (-np.arange(0, 32, 2) / 32),
                       rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", sorted(ALL_CONFIGS))
def test_three_contexts_agree(name):
    config = ALL_CONFIGS[name]
    seq_len = 9000 if name in ("dynamic", "longrope") else None
    with mpmath.workdps(60):
        exact = inv_freq(config, "mpmath", seq_len)
        factor = attention_factor(config, "mpmath", seq_len)
        symbolic = inv_freq(config, "sympy", seq_len)
        for mp_value, sym_value in zip(exact, symbolic):
            assert abs(sympy.N(sym_value, 60) - sympy.Float(mp_value, 60)) <= 1e-55 * abs(mp_value)
        assert abs(sympy.N(attention_factor(config, "sympy", seq_len), 60) - sympy.Float(factor, 60)) < 1e-55
    as_float = np.array([float(v) for v in exact])
    float64 = inv_freq(config, "float64", seq_len)
    assert float64.dtype == np.float64 and float64.shape == (config.rotary_dim // 2,)
    assert np.max(np.abs(float64 / as_float - 1)) < 1e-15
    assert attention_factor(config, "float64", seq_len) == pytest.approx(float(factor), rel=1e-15)
    float32 = inv_freq(config, "float32", seq_len)
    assert float32.dtype == np.float32
    # the framework's float32 buffer is within a few float32 rounding steps of the exact value
    assert np.max(np.abs(float32 / as_float - 1)) < 8 * 2.0**-24


def test_symbolic_llama3_schedule_branches_into_piecewise():
    theta = sympy.Symbol("theta", positive=True)
    config = RopeConfig.from_options(head_dim=8, theta=theta, rope_scaling={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192})
    omega = inv_freq(config, "sympy")
    assert omega[0] == 1  # 2*pi < 2048 for every theta
    assert omega[1].has(sympy.Piecewise)
    numeric = inv_freq(RopeConfig.from_options(head_dim=8, theta=500000, rope_scaling=config.params | {
        "rope_type": "llama3"}), "sympy")
    for symbolic_value, value in zip(omega, numeric):
        assert sympy.N(symbolic_value.subs(theta, 500000) - value, 30) == 0


def test_config_readers_agree():
    old_style = {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
                 "max_position_embeddings": 131072,
                 "rope_scaling": {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                  "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
    new_style = {"head_dim": 128, "max_position_embeddings": 131072,
                 "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
                                     "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                     "original_max_position_embeddings": 8192}}
    assert RopeConfig.from_hf(old_style) == RopeConfig.from_hf(new_style) == llama31_8b()
    assert RopeConfig.from_file(DATA / "llama31_8b_config.json") == llama31_8b()
    assert RopeConfig.from_hf(llama31_8b().hf_dict()) == llama31_8b()
    # Phi-3 style: the top-level original context wins, as transformers gives it priority
    assert RopeConfig.from_hf(LONGROPE).params["original_max_position_embeddings"] == 4096
    assert "llama3 RoPE, head_dim 128, theta 500000, factor 8" in llama31_8b().describe()


@pytest.mark.parametrize("config, message", [
    ({"head_dim": 63}, "RoPE needs an even rotary dimension: head_dim 63 rotates whole"),
    ({"head_dim": 0}, "head_dim must be a positive integer, got 0"),
    ({"head_dim": 64, "rope_theta": "1e4"}, "rope_theta must be a number, got '1e4'"),
    ({"head_dim": 64, "rope_theta": 0}, "rope_theta must be a finite number > 0, got 0"),
    ({"head_dim": 64, "rope_theta": -5.0}, "rope_theta must be a finite number > 0, got -5.0"),
    ({"head_dim": 64, "rope_scaling": {"rope_type": "ntk-by-parts"}}, "unknown rope type 'ntk-by-parts'"),
    ({"head_dim": 64, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}},
     "rope type 'llama3' needs low_freq_factor, high_freq_factor, original_max_position_embeddings"),
    ({"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": -2.0}}, "factor must be a finite number > 0"),
    ({"head_dim": 16, "original_max_position_embeddings": 4096, "rope_scaling": {
        "rope_type": "longrope", "short_factor": [1.0] * 3, "long_factor": [1.0] * 8}},
     "longrope's short_factor must be a list of 8 numbers (one per pair of rotary_dim 16), got 3 values"),
    ({"head_dim": 64, "partial_rotary_factor": 1.5}, "partial_rotary_factor must be a number in [0, 1]"),
    ({"head_dim": 64, "partial_rotary_factor": 0.01}, "rotary_dim (head_dim x partial_rotary_factor) must be"),
    ({"head_dim": 64, "max_position_embeddings": 4096, "partial_rotary_factor": 0.04,
      "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, "rope type 'dynamic' needs rotary_dim > 2"),
    ({"rope_theta": 10000.0}, "the config gives neither head_dim nor hidden_size and num_attention_heads"),
    ({"head_dim": 64, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}},
     "rope type 'dynamic' needs max_position_embeddings"),
])
def test_bad_configs_get_one_line_errors(config, message):
    with pytest.raises(UsageError) as info:
        RopeConfig.from_hf(config)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_files_and_contexts(tmp_path):
    with pytest.raises(UsageError, match="cannot read config file"):
        RopeConfig.from_file(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    with pytest.raises(UsageError, match="is not valid JSON"):
        RopeConfig.from_file(broken)
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([1, 2]))
    with pytest.raises(UsageError, match="must be a JSON object"):
        RopeConfig.from_file(listed)
    with pytest.raises(UsageError, match="unknown schedule context 'float16'"):
        inv_freq(llama31_8b(), "float16")
    with pytest.raises(UsageError, match="seq_len must be a positive integer"):
        inv_freq(llama31_8b(), "float64", seq_len=-3)
    theta = sympy.Symbol("theta", positive=True)
    with pytest.raises(UsageError, match="needs ctx='sympy'"):
        inv_freq(RopeConfig.from_options(head_dim=8, theta=theta), "float64")


HF_CASES = {
    "llama3": (dict(hidden_size=4096, num_attention_heads=32, max_position_embeddings=131072,
                    rope_theta=500000.0, rope_scaling=llama31_8b().params | {"rope_type": "llama3"}), None),
    "yarn": (dict(YARN, hidden_size=4096, num_attention_heads=32), None),
    "yarn-deepseek": (dict(DEEPSEEK_YARN, hidden_size=4096, num_attention_heads=64), None),
    "yarn-untruncated": (dict(YARN, hidden_size=4096, num_attention_heads=32, rope_scaling=dict(
        YARN["rope_scaling"], truncate=False)), None),
    "longrope-short": (dict(LONGROPE, hidden_size=256, num_attention_heads=16), None),
    "longrope-long": (dict(LONGROPE, hidden_size=256, num_attention_heads=16), 5000),
    "dynamic-grown": (dict(DYNAMIC, hidden_size=2048, num_attention_heads=32), 20000),
    "linear-partial": (dict(hidden_size=4096, num_attention_heads=32, head_dim=128, rope_theta=10000.0,
                            partial_rotary_factor=0.25, max_position_embeddings=4096,
                            rope_scaling={"rope_type": "linear", "factor": 2.0}), None),
}


@pytest.mark.parametrize("name", sorted(HF_CASES))
def test_against_transformers_rope_init_functions(name):
    require_library("torch")
    transformers = require_library("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    hf_dict, seq_len = HF_CASES[name]
    config = RopeConfig.from_hf(json.loads(json.dumps(hf_dict)))
    hf_config = transformers.LlamaConfig(**json.loads(json.dumps(hf_dict)))
    runtime_seq_len = seq_len
    if config.rope_type == "dynamic" and seq_len is not None:
        import torch  # the module's forward passes max(position_ids) + 1 as a tensor

        runtime_seq_len = torch.tensor(seq_len)
    buffer, hf_factor = ROPE_INIT_FUNCTIONS[config.rope_type](hf_config, None, seq_len=runtime_seq_len)
    buffer = buffer.numpy()
    ours32 = inv_freq(config, "float32", seq_len)
    ulp = np.spacing(buffer)
    # the correctly rounded pow is within 1 ulp of torch's SLEEF powf, which can carry into one
    # more rounding step (_ULPS): never bit-for-bit on every CPU, always within 2 ulps
    assert np.all(np.abs(ours32.astype(np.float64) - buffer) <= 2 * ulp)
    # the float64 schedule is the same formula without the float32 roundings
    assert np.all(np.abs(inv_freq(config, "float64", seq_len) - buffer) <= 4 * ulp)
    assert attention_factor(config, "float64", seq_len) == pytest.approx(hf_factor, rel=1e-15)


def test_every_context_is_a_schedule_context_and_an_incomplete_one_cannot_exist():
    from symrope.schedules import CONTEXT_NAMES, ScheduleContext, get_context

    contexts = {name: get_context(name) for name in CONTEXT_NAMES}
    assert all(isinstance(ctx, ScheduleContext) for ctx in contexts.values())
    # float32 is the float64 context with torch's float32 roundings, not a branch inside it
    assert isinstance(contexts["float32"], type(contexts["float64"]))

    class OnlyScalars(ScheduleContext):
        def scalar(self, value):
            return float(value)

    with pytest.raises(TypeError, match="abstract"):
        OnlyScalars()


def test_float32_overrides_round_as_torch_does():
    torch = require_library("torch")
    from symrope.schedules import get_context

    f32, f64 = get_context("float32"), get_context("float64")
    vector = f32.arange(1, 200) / 7
    # scalar / tensor is reciprocal(tensor) * scalar in torch: two float32 roundings
    ours = f32.divide_scalar_by(3.0, vector)
    theirs = (3.0 / torch.from_numpy(vector)).numpy()
    assert np.array_equal(ours, theirs)
    once = (np.float32(3.0) / vector).astype(np.float32)  # one rounding: not what torch holds
    assert np.count_nonzero(ours != once) > 0
    assert np.array_equal(f64.divide_scalar_by(3.0, vector.astype(np.float64)),
                          3.0 / vector.astype(np.float64))
    # pow(Tensor, Scalar) keeps the double exponent; a run-time 0-d tensor is float32
    base = f32.runtime_tensor(8192) * 4.0 / 4096.0 - 3.0
    assert isinstance(base, np.float32) and isinstance(f64.runtime_tensor(8192), float)
    exponent = 64 / 62
    expected = torch.pow(torch.tensor(8192, dtype=torch.float32) * 4.0 / 4096.0 - 3.0, exponent)
    assert f32.scalar_power(base, exponent) == np.float32(expected.item())


# --- every rope type against transformers' own code, on seeded random configs ------------------

# The most float32 steps symrope's float32 context may lie from transformers' buffer, on any
# CPU: the pow is correctly rounded here and torch's (SLEEF) is within 1 ulp of it; the float32
# steps after it (a reciprocal, a product, a blend) round inputs one ulp apart to results at most
# one more ulp apart. Measured on 280 configs: 1 for default, linear, proportional; 2 for the rest.
_ULPS = {rope_type: 2 for rope_type in ("default", "linear", "dynamic", "yarn", "llama3",
                                        "longrope", "proportional")}
_RANDOM_CONFIGS = 40


def _random_hf_config(rng, rope_type: str) -> dict:
    head_dim = int(rng.choice([3, 4, 16, 32, 64, 80, 96, 100, 128, 256]))
    partial = float(rng.choice([1.0, 1.0, 0.5, 0.25, 0.33, 0.4]))
    if head_dim < 8:             # 3 and 4 rotate whole, as transformers' tiny test models do
        partial = 1.0
    if rope_type == "yarn":      # an odd yarn dimension fails in transformers' own formula
        head_dim, partial = (4 if head_dim == 3 else head_dim), 1.0
    max_positions = int(rng.choice([2048, 4096, 8192, 32768, 131072]))
    config = {"hidden_size": head_dim * 4, "num_attention_heads": 4, "head_dim": head_dim,
              "rope_theta": float(rng.choice([1e4, 5e5, 1e6, 1234567.0, 10000.5, 2.0**20])),
              "max_position_embeddings": max_positions, "partial_rotary_factor": partial}
    dim = int(head_dim * partial)
    factor = float(rng.choice([1.0, 2.0, 4.0, 8.0, 16.0, 3.5]))
    scaling = {"rope_type": rope_type}
    if rope_type in ("linear", "dynamic", "proportional"):
        scaling["factor"] = factor
    if rope_type == "dynamic" and dim <= 2:
        config["partial_rotary_factor"] = 1.0
        config["head_dim"] = head_dim = 16
    if rope_type == "yarn":
        scaling.update(factor=factor, original_max_position_embeddings=max(max_positions // int(factor), 16))
        if rng.random() < 0.3:
            scaling.update(beta_fast=float(rng.choice([16, 32, 64])), beta_slow=float(rng.choice([1, 2])))
        if rng.random() < 0.3:
            scaling.update(mscale=1.0, mscale_all_dim=float(rng.choice([0.5, 1.0])))
        if rng.random() < 0.3:
            scaling["truncate"] = False
    if rope_type == "llama3":
        scaling.update(factor=factor, low_freq_factor=1.0, high_freq_factor=float(rng.choice([2.0, 4.0])),
                       original_max_position_embeddings=max(max_positions // 8, 64))
    if rope_type == "longrope":
        pairs = (int(config["head_dim"] * config["partial_rotary_factor"]) + 1) // 2
        scaling.update(short_factor=rng.uniform(1, 2, pairs).round(3).tolist(),
                       long_factor=rng.uniform(1, 8, pairs).round(3).tolist(),
                       original_max_position_embeddings=max(max_positions // 4, 64))
        if rng.random() < 0.5:
            scaling["factor"] = factor
    if rope_type == "proportional":
        config["partial_rotary_factor"] = float(rng.choice([0.0, 0.25, 0.5, 1.0]))
    if rope_type != "default":
        config["rope_scaling"] = scaling
    return config


@pytest.mark.parametrize("rope_type", sorted(_ULPS))
def test_every_rope_type_matches_transformers_on_random_configs(rope_type):
    torch = require_library("torch")
    transformers = require_library("transformers")
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.phi.modeling_phi import PhiRotaryEmbedding

    # phi's default schedule honours partial_rotary_factor (llama's ignores it: the real-class
    # audit reads that off the module's buffer)
    init = (PhiRotaryEmbedding.compute_default_rope_parameters if rope_type == "default"
            else ROPE_INIT_FUNCTIONS[rope_type])
    rng = np.random.default_rng(sorted(_ULPS).index(rope_type))
    compared = 0
    for _ in range(_RANDOM_CONFIGS):
        document = _random_hf_config(rng, rope_type)
        seq_len = None
        if rope_type in ("dynamic", "longrope") and rng.random() < 0.5:
            seq_len = int(rng.integers(1, 4 * document["max_position_embeddings"]))
        config = RopeConfig.from_hf(json.loads(json.dumps(document)))
        hf_config = transformers.LlamaConfig(**json.loads(json.dumps(document)))
        runtime = torch.tensor(seq_len) if rope_type == "dynamic" and seq_len is not None else seq_len
        buffer, hf_factor = init(hf_config, None, seq_len=runtime)
        buffer = buffer.numpy()
        ours = inv_freq(config, "float32", seq_len)
        assert ours.shape == buffer.shape == (config.pairs,), document
        steps = np.abs(ours.view(np.int32).astype(np.int64) - buffer.view(np.int32).astype(np.int64))
        assert steps.max(initial=0) <= _ULPS[rope_type], document
        # the exact schedule (float64 here) is what the float32 buffer rounds: within 2e-6
        exact = np.asarray(inv_freq(config, "float64", seq_len))
        assert np.all(np.abs(exact - buffer) <= 2e-6 * np.abs(buffer)), document
        assert attention_factor(config, "float64", seq_len) == pytest.approx(hf_factor, rel=1e-12)
        compared += 1
    assert compared == _RANDOM_CONFIGS
