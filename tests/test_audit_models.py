"""Built-in implementation models: public figures reproduced, and each model's characteristic error."""

from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit._models import MODELS, dtype_name, get_model, validate_positions
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, attention_factor, inv_freq, llama31_8b

NEOX_1003 = RopeConfig.from_options(head_dim=32, theta=10000)  # the issue's dim 32, base 10000
EXPECTED_MODELS = ["hf", "hf-bf16-autocast", "meta", "vllm", "neox-fp16", "llamacpp",
                   "bf16-positions", "recurrence", "fp64-angle"]


def _exact_angles(positions, config, seq_len=None, dps=40):
    """cos and sin of p * omega_i from mpmath at ``dps`` digits, as float64 arrays."""
    with mpmath.workdps(dps):
        omega = inv_freq(config, "mpmath", seq_len)
        factor = attention_factor(config, "mpmath", seq_len)
        cos = np.array([[float(factor * mpmath.cos(int(p) * w)) for w in omega] for p in positions])
        sin = np.array([[float(factor * mpmath.sin(int(p) * w)) for w in omega] for p in positions])
    return cos, sin


def _max_abs_error(model_name, positions, config, dtype):
    cos, sin = get_model(model_name).table(positions, config, dtype)
    omega = inv_freq(config, "float64")
    angle = positions.astype(np.float64)[:, None] * omega[None, :]  # exact to ~1e-13 below 1e4
    return max(np.max(np.abs(cos.astype(np.float64) - np.cos(angle))),
               np.max(np.abs(sin.astype(np.float64) - np.sin(angle))))


def test_registry_and_metadata():
    assert list(MODELS) == EXPECTED_MODELS
    for model in MODELS.values():
        assert model.summary and model.explanation and "\n" not in model.summary
        assert model.default_dtype in ("bf16", "fp16", "fp32", "fp64")
        assert model.fix is None or model.fix in MODELS
    assert get_model("hf").fix == "fp64-angle" and get_model("fp64-angle").fix is None
    with pytest.raises(UsageError, match=r"unknown implementation 'torch' \(one of: hf, "):
        get_model("torch")


def test_gpt_neox_issue_1003_fp16_table_is_off_by_0_78():
    positions = np.arange(2048)
    cos16, _ = get_model("neox-fp16").table(positions, NEOX_1003, "fp16")
    cos32, _ = get_model("neox-fp16").table(positions, NEOX_1003, "fp32")
    assert cos16.dtype == np.float16 and cos32.dtype == np.float32
    difference = np.abs(cos16.astype(np.float64) - cos32.astype(np.float64))
    assert round(float(difference.max()), 2) == 0.78
    assert round(float(difference.max()), 4) == 0.7819  # the issue prints tensor(0.7819)
    position, pair = np.unravel_index(np.argmax(difference), difference.shape)
    assert (position, pair) == (2008, 1)
    # The issue's example: at position 1857, pair 1 the fp32 angle 1044.2678 became 1045.0
    omega32 = inv_freq(NEOX_1003, "float32")
    assert float(np.float32(1857) * omega32[1]) == pytest.approx(1044.2678, abs=5e-5)
    assert float(np.float16(1857) * omega32[1].astype(np.float16)) == 1045.0
    assert cos16[1857, 1] == np.float16(np.cos(1045.0))
    assert cos32[1857, 1] == np.float32(np.cos(np.float64(np.float32(1857) * omega32[1])))


def test_bf16_position_15962_reads_15936():
    config = llama31_8b()
    shifted, _ = get_model("bf16-positions").table(np.array([15962]), config, "fp32")
    honest, _ = get_model("hf").table(np.array([15936, 15962]), config, "fp32")
    assert np.array_equal(shifted[0], honest[0])
    assert not np.array_equal(shifted[0], honest[1])
    assert float(ml_dtypes.bfloat16(15962)) == 15936.0
    # the pre-PR-29285 autocast path rounds the position the same way before its bf16 angle
    autocast, _ = get_model("hf-bf16-autocast").table(np.array([15936, 15962]), config, "bf16")
    assert np.array_equal(autocast[0], autocast[1])


def test_fp64_angle_is_correctly_rounded_at_large_positions():
    config = llama31_8b()
    positions = np.array([1_000_003, 2_345_677, 5_000_011, 9_999_991, 12_582_917])
    exact_cos, exact_sin = _exact_angles(positions, config)
    for dtype in ("bf16", "fp16"):
        cos, sin = get_model("fp64-angle").table(positions, config, dtype)
        narrow = cos.dtype.type
        assert np.array_equal(cos, exact_cos.astype(narrow)), dtype
        assert np.array_equal(sin, exact_sin.astype(narrow)), dtype
    cos, sin = get_model("fp64-angle").table(positions, config, "fp32")
    # float32: within half an ulp plus the float64 angle's own ~2e-9 rad
    for table, exact in ((cos, exact_cos), (sin, exact_sin)):
        half_ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64) / 2
        assert np.all(np.abs(table.astype(np.float64) - exact) <= half_ulp + 4e-9)
    # whereas the float32-angle path is off by more than a bf16 ulp somewhere at these positions
    hf_cos, _ = get_model("hf").table(positions, config, "bf16")
    assert np.max(np.abs(hf_cos.astype(np.float64) - exact_cos)) > 2**-8


def test_neox_fp16_is_far_worse_than_hf_at_2048_positions():
    positions = np.arange(2048)
    neox = _max_abs_error("neox-fp16", positions, NEOX_1003, "fp16")
    hf = _max_abs_error("hf", positions, NEOX_1003, "fp16")
    assert neox > 0.7
    # the fp16 cast (half an ulp <= 2^-12) plus the fp32 angle's error (< 2^-13 rad at p < 2048)
    assert hf < 2.0**-12 + 2.0**-13
    assert neox > 1000 * hf
    fixed = _max_abs_error("fp64-angle", positions, NEOX_1003, "fp16")
    assert fixed <= 2.0**-12 + 1e-12


def test_neox_fp16_positions_overflow_beyond_65504():
    cos, _ = get_model("neox-fp16").table(np.array([65504, 65520]), NEOX_1003, "fp16")
    assert np.all(np.isfinite(cos[0])) and np.all(np.isnan(cos[1]))


def test_llamacpp_error_grows_along_the_frequency_index():
    config = RopeConfig.from_options(head_dim=128, theta=10000)
    positions = np.arange(2**20, 2**20 + 256)
    omega = np.array([float(w) for w in inv_freq(config, "mpmath")])
    exact = positions.astype(np.float64)[:, None] * omega[None, :]

    def relative_angle_error(name):
        cos, sin = get_model(name).table(positions, config, "fp32")
        phase = np.arctan2(sin.astype(np.float64), cos.astype(np.float64))
        wrapped = np.angle(np.exp(1j * (phase - exact)))
        return np.median(np.abs(wrapped) / exact, axis=0)

    chained = relative_angle_error("llamacpp")
    direct = relative_angle_error("hf")
    slope = np.polyfit(np.arange(1, 64), chained[1:], 1)[0]
    assert slope > 1e-8  # about 3.4e-8 per pair: theta_scale's rounding compounds
    assert chained[48:].mean() > 5 * chained[:16].mean()
    assert chained[63] > 20 * direct[63]
    assert get_model("llamacpp").table(positions[:1], config, "bf16")[0].dtype == np.float32


def test_llamacpp_refuses_dynamic_ntk():
    dynamic = RopeConfig.from_hf({"head_dim": 64, "max_position_embeddings": 4096,
                                  "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}})
    with pytest.raises(UsageError, match="llama.cpp does not implement dynamic NTK"):
        get_model("llamacpp").table(np.arange(4), dynamic, "fp32")


@pytest.mark.parametrize("config", [llama31_8b(), RopeConfig.from_hf({
    "head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 32768,
    "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}})])
def test_llamacpp_matches_the_schedule_at_small_positions(config):
    positions = np.arange(0, 64)
    cos, sin = get_model("llamacpp").table(positions, config, "fp32")
    exact_cos, exact_sin = _exact_angles(positions, config, dps=20)
    assert np.max(np.abs(cos - exact_cos)) < 1e-5 and np.max(np.abs(sin - exact_sin)) < 1e-5


def test_hf_family_shares_float32_roundings():
    config = llama31_8b()
    positions = np.array([0, 1, 777, 131071, 1_000_000, 16_777_216])
    hf32 = get_model("hf").table(positions, config, "fp32")
    meta = get_model("meta").table(positions, config, "bf16")  # complex64 table: stays fp32
    vllm = get_model("vllm").table(positions, config, "fp32")
    assert meta[0].dtype == np.float32
    for a, b in ((hf32, meta), (hf32, vllm)):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    hf16 = get_model("hf").table(positions, config, "bf16")
    assert hf16[0].dtype == ml_dtypes.bfloat16
    assert np.array_equal(hf16[0], hf32[0].astype(ml_dtypes.bfloat16))


def test_attention_factor_is_multiplied_in():
    yarn = RopeConfig.from_hf({"head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 32768,
                               "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                                "original_max_position_embeddings": 8192}})
    factor = attention_factor(yarn, "float64")
    for name in EXPECTED_MODELS:
        cos, sin = get_model(name).table(np.array([0, 3]), yarn, "fp32")
        assert float(cos[0, 0]) == pytest.approx(factor, rel=1e-6), name
        assert float(np.hypot(cos[1, 5], sin[1, 5])) == pytest.approx(factor, rel=1e-2), name


def test_recurrence_resumes_across_chunks_and_drifts_in_amplitude():
    config = llama31_8b()
    model = get_model("recurrence")
    whole = model.table(np.arange(0, 70_000), config, "fp32")
    pieces = [model.table(np.arange(start, min(start + 25_000, 70_000)), config, "fp32")
              for start in range(0, 70_000, 25_000)]
    assert np.array_equal(np.concatenate([c for c, _ in pieces]), whole[0])
    scattered = model.table(np.array([69_999, 3, 40_000]), config, "fp32")
    assert np.array_equal(scattered[0], whole[0][[69_999, 3, 40_000]])
    amplitude = np.hypot(whole[0].astype(np.float64), whole[1].astype(np.float64))
    early, late = np.abs(amplitude[:100] - 1).max(), np.abs(amplitude[-100:] - 1).max()
    assert late > 10 * early and late > 1e-4
    assert np.array_equal(whole[0][0], np.ones(64, dtype=np.float32))


def test_every_model_returns_the_contract_shape_and_dtype():
    config = RopeConfig.from_hf({"head_dim": 64, "partial_rotary_factor": 0.5, "rope_theta": 10000.0})
    for name in EXPECTED_MODELS:
        for dtype in ("bf16", "fp16", "fp32", "fp64"):
            cos, sin = get_model(name).table(np.arange(5), config, dtype)
            assert cos.shape == sin.shape == (5, 16), (name, dtype)
            assert cos.dtype == sin.dtype


@pytest.mark.parametrize("positions, message", [
    (np.array([-1, 2]), "positions must be >= 0, got -1"),
    (np.array([0.5]), "positions must be integers, got 0.5"),
    (np.array([[1, 2]]), "positions must be a 1-D array"),
    (np.array(["a"]), "positions must be integers, got dtype"),
    (np.array([np.nan]), "positions must be integers, got nan"),
])
def test_bad_positions_get_one_line_errors(positions, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        get_model("hf").table(positions, llama31_8b(), "bf16")


def test_dtype_names():
    assert [dtype_name(d) for d in ("bfloat16", "float16", "fp32", np.float64)] == ["bf16", "fp16", "fp32", "fp64"]
    with pytest.raises(UsageError, match="unknown dtype 'fp8'"):
        get_model("hf").table(np.arange(3), llama31_8b(), "fp8")
    assert validate_positions(np.array([3.0, 4.0])).dtype == np.int64


# --- faithfulness against the modelled code itself (torch on CPU; a C compiler for ggml) --------

FAITHFUL_POSITIONS = np.concatenate([np.arange(0, 3000), np.arange(15_900, 16_000),
                                     np.arange(1_000_000, 1_000_300)])


def test_autocast_model_is_bit_exact_against_torch_cpu_autocast():
    torch = require_library("torch")
    config = llama31_8b()
    inv = torch.from_numpy(inv_freq(config, "float32"))
    # transformers 4.38 LlamaRotaryEmbedding.forward, the code PR 29285 changed
    inv_freq_expanded = inv[None, :, None].float().expand(1, -1, 1)
    position_ids_expanded = torch.from_numpy(FAITHFUL_POSITIONS)[None, None, :].float()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
    assert cos.dtype == torch.bfloat16
    model_cos, model_sin = get_model("hf-bf16-autocast").table(FAITHFUL_POSITIONS, config, "bf16")
    assert np.array_equal(cos[0, :, :64].float().numpy().astype(ml_dtypes.bfloat16), model_cos)
    assert np.array_equal(sin[0, :, :64].float().numpy().astype(ml_dtypes.bfloat16), model_sin)


def test_neox_model_is_bit_exact_against_the_issue_1003_code_on_cpu():
    torch = require_library("torch")
    inv = (1.0 / (10000 ** (torch.arange(0, 32, 2).float() / 32))).half()
    t = torch.arange(2048).type_as(inv)
    emb = torch.einsum("i,j->ij", t, inv)
    model_cos, model_sin = get_model("neox-fp16").table(np.arange(2048), NEOX_1003, "fp16")
    assert np.array_equal(emb.cos().numpy(), model_cos)
    # torch's half sin is its float32 sin (SLEEF, <= 1 ulp) rounded to fp16: rarely one fp16 ulp off
    theirs = emb.sin().numpy()
    assert np.mean(theirs == model_sin) > 0.9999
    assert np.all(np.abs(theirs.astype(np.float64) - model_sin) <= np.spacing(np.abs(model_sin)))


def test_meta_model_matches_torch_polar_within_one_ulp():
    torch = require_library("torch")
    config = llama31_8b()
    freqs = torch.from_numpy(inv_freq(config, "float32"))
    angles = torch.outer(torch.from_numpy(FAITHFUL_POSITIONS).float(), freqs)
    freqs_cis = torch.polar(torch.ones_like(angles), angles)
    model_cos, model_sin = get_model("meta").table(FAITHFUL_POSITIONS, config, "bf16")
    for theirs, ours in ((freqs_cis.real.numpy(), model_cos), (freqs_cis.imag.numpy(), model_sin)):
        assert np.all(np.abs(theirs - ours) <= np.spacing(np.abs(ours)))
        assert np.mean(theirs == ours) > 0.98


GGML_CACHE_LOOP = r"""
#include <math.h>
void rope_cache(const long *pos, long n, int n_dims, float freq_base, float *cos_out) {
    const float theta_scale = powf(freq_base, -2.0f / n_dims);
    for (long row = 0; row < n; row++) {
        float theta = (float) pos[row];
        for (int i0 = 0; i0 < n_dims; i0 += 2) {
            cos_out[row * (n_dims / 2) + i0 / 2] = cosf(theta);
            theta *= theta_scale;
        }
    }
}
"""


def test_llamacpp_chain_is_exact_against_compiled_c(tmp_path):
    import ctypes
    import shutil
    import subprocess

    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    source, library = tmp_path / "rope.c", tmp_path / "rope.so"
    source.write_text(GGML_CACHE_LOOP)
    subprocess.run([compiler, "-O2", "-fno-fast-math", "-shared", "-fPIC", str(source), "-o",
                    str(library), "-lm"], check=True)
    rope = ctypes.CDLL(str(library))
    config = RopeConfig.from_options(head_dim=128, theta=10000)
    positions = np.ascontiguousarray(FAITHFUL_POSITIONS, dtype=np.int64)
    out = np.zeros((len(positions), 64), dtype=np.float32)
    rope.rope_cache(positions.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(len(positions)),
                    ctypes.c_int(128), ctypes.c_float(10000.0), out.ctypes.data_as(ctypes.c_void_p))
    model_cos, _ = get_model("llamacpp").table(positions, config, "fp32")
    # same float32 angle chain; libm's cosf vs a correctly rounded cos: within one ulp
    assert np.all(np.abs(out - model_cos) <= np.spacing(np.abs(model_cos)))
    assert np.mean(out == model_cos) > 0.95


@pytest.mark.parametrize("shape", [(1, 3), (8192, 64), (3000, 17), (70000, 5)])
def test_float32_cos_sin_blocks_match_one_whole_array_pass(shape):
    # _cos_sin_fp32 works through reused float64 block buffers of 2**15 elements; every block
    # boundary (and a ragged last block) must give fl32(cos(float64(angle))) exactly
    from symrope.audit._models import _cos_sin_fp32

    rng = np.random.default_rng(sum(shape))
    angle = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 7, shape)).astype(np.float32)
    cos, sin = _cos_sin_fp32(angle)
    wide = angle.astype(np.float64)
    assert cos.dtype == sin.dtype == np.float32
    assert np.array_equal(cos, np.cos(wide).astype(np.float32))
    assert np.array_equal(sin, np.sin(wide).astype(np.float32))
