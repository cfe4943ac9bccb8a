"""Error metrics and the streaming driver: public figures reproduced, brute force agreement."""

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from hypothesis import given, strategies as st

from symrope.audit import (AuditOptions, Implementation, audit, bits_of_error, exact_schedule, get_model,
                           log_bands, ordinal, phase_error, random_query_key_weights, round_to,
                           rotary_scores, ulps_between, amplitude_error)
from symrope.audit._dtypes import rounded
from symrope.audit._metrics import rounding_floor
from symrope.audit._results import DEFAULT_TOLERANCE
from symrope.schedules import RopeConfig, llama31_8b

BF16 = ml_dtypes.bfloat16


def _nearest_bf16(value: float) -> float:
    """Brute force: the bf16 number nearest to ``value`` (ties to an even bit pattern)."""
    start = int(np.array([value], dtype=np.float32).astype(BF16).view(np.uint16)[0])
    candidates = [start + step for step in range(-2, 3) if 0 <= start + step < 2**16]
    numbers = [(float(np.array([bits], dtype=np.uint16).view(BF16)[0]), bits) for bits in candidates]
    numbers = [(number, bits) for number, bits in numbers if np.isfinite(number)]
    return min(numbers, key=lambda item: (abs(Fraction(item[0]) - Fraction(value)), item[1] & 1))[0]


def test_bf16_rounding_is_correct_at_ties_and_near_them():
    rng = np.random.default_rng(3)
    grid = rng.uniform(0.5, 1, 300).astype(BF16).astype(np.float64)
    values = np.concatenate([rng.uniform(-2, 2, 300), rng.uniform(-1e-3, 1e-3, 100),
                             grid + 2.0**-9, grid + 2.0**-9 + 2.0**-40, -(grid + 2.0**-9 - 2.0**-40)])
    expected = np.array([_nearest_bf16(v) for v in values])
    assert np.array_equal(round_to(values, "bf16").astype(np.float64), expected)
    # (ml_dtypes' own float64 -> bf16 cast may go through float32 and round twice on some CPUs
    # and not on others: round_to does not depend on it, and no test asserts what it does)


@pytest.mark.parametrize("dtype", [BF16, np.float16, np.float32])
def test_ulps_count_the_floats_in_between(dtype):
    rng = np.random.default_rng(5)
    exact = rng.uniform(-1, 1, 200)
    rounded = round_to(exact, np.dtype(dtype))
    shift = rng.integers(-5, 6, 200)
    bits = rounded.view({2: np.int16, 4: np.int32}[np.dtype(dtype).itemsize]).copy()
    # step |shift| floats away from the correctly rounded value, in the direction of shift
    moved = np.where(exact >= 0, bits + shift, bits - shift).astype(bits.dtype).view(dtype)
    same_sign = np.sign(moved.astype(np.float64)) == np.sign(exact)
    assert np.array_equal(ulps_between(moved, exact)[same_sign], np.abs(shift)[same_sign])
    assert np.allclose(bits_of_error(moved, exact)[same_sign], np.log2(1 + np.abs(shift))[same_sign])


def test_ulps_across_zero_count_every_bf16_pattern():
    exact = np.array([3e-6, -3e-6])
    computed = np.array([-3e-6, 0.0], dtype=BF16)
    expected = np.abs(ordinal(computed) - ordinal(round_to(exact, "bf16")))
    assert ulps_between(computed, exact).tolist() == expected.tolist()
    assert expected[0] == 2 * abs(ordinal(round_to(exact[:1], "bf16"))[0])


def test_phase_and_amplitude_decomposition():
    exact = np.linspace(-3, 3, 13)
    table_cos, table_sin = 0.9 * np.cos(exact + 0.01), 0.9 * np.sin(exact + 0.01)
    assert np.allclose(phase_error(table_cos, table_sin, np.cos(exact), np.sin(exact)), 0.01)
    assert np.allclose(amplitude_error(table_cos, table_sin, 1.0), 0.1)


def test_rotary_scores_match_explicit_rotation_matrices():
    pairs, rng = 6, np.random.default_rng(11)
    weights = random_query_key_weights(pairs, 3, seed=2)
    omega = rng.uniform(0, 1, pairs)
    s, t = 17, 40
    tables = [(np.cos(p * omega) + 1j * np.sin(p * omega))[None] for p in (s, t)]
    scores = rotary_scores(tables[0], tables[1], weights)[0]
    # rebuild q, k from the same seed and rotate them with 2x2 blocks
    generator = np.random.default_rng(2)
    queries = generator.standard_normal((3, pairs, 2))
    keys = generator.standard_normal((3, pairs, 2))
    for j in range(3):
        q = queries[j] / np.linalg.norm(queries[j])
        k = keys[j] / np.linalg.norm(keys[j])
        total = 0.0
        for i in range(pairs):
            rotate = [np.array([[np.cos(p * omega[i]), -np.sin(p * omega[i])],
                                [np.sin(p * omega[i]), np.cos(p * omega[i])]]) for p in (s, t)]
            total += (rotate[0] @ q[i]) @ (rotate[1] @ k[i])
        assert scores[j] == pytest.approx(total, abs=1e-14)


def test_bands_are_inclusive_and_cover_every_position():
    bands = log_bands(10**6)
    assert bands[0] == (0, 1023) and bands[-1][1] == 10**6
    assert all(b[0] == a[1] + 1 for a, b in zip(bands, bands[1:]))


def test_gpt_neox_issue_1003_fp16_table():
    # dim 32, base 10000, 2048 positions, everything fp16: max |d cos| = 0.78.
    config = RopeConfig.from_options(head_dim=32, theta=10000)
    result = audit("neox-fp16", config, AuditOptions(max_position=2047, progress=False))
    assert result.dtype == "fp16"
    assert round(result.worst("max_abs_error"), 2) == 0.78
    assert result.bands[-1].max_abs_error > 0.7 > result.bands[0].max_abs_error


def test_bf16_position_ids_read_15936_for_15962():
    config = llama31_8b()
    result = audit("bf16-positions", config, AuditOptions(positions=[15962], dtype="fp32", progress=False))
    schedule = exact_schedule(config)
    shift = -26 * schedule.omegas                      # the table is at 15936: 26 positions early
    expected = np.abs(np.angle(np.exp(1j * shift))).max()
    assert result.worst("max_phase_error") == pytest.approx(expected, abs=2e-3)


def test_every_position_and_pair_counts_and_chunking_does_not_matter():
    config = RopeConfig.from_options(head_dim=16, theta=10000)
    model, top = get_model("hf"), 4095
    coarse = audit(model, config, AuditOptions(max_position=top, dtype="fp32", chunk=4096, progress=False))
    fine = audit(model, config, AuditOptions(max_position=top, dtype="fp32", chunk=100, progress=False))
    positions = np.arange(top + 1)
    cos, sin = model.table(positions, config, "fp32")
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    error = np.maximum(np.abs(cos - exact_cos), np.abs(sin - exact_sin))
    for band_a, band_b in zip(coarse.bands, fine.bands):
        brute = error[band_a.lo:band_a.hi + 1].max()
        assert band_a.max_abs_error == band_b.max_abs_error == brute
        assert band_a.correct_bits == band_b.correct_bits == -np.log2(brute)
        assert band_a.invariance_violation == pytest.approx(band_b.invariance_violation, rel=1e-12)
        assert band_a.phase_noise == pytest.approx(band_b.phase_noise, rel=1e-6)
    assert coarse.positions == top + 1


def test_safe_context_is_the_first_position_over_tolerance():
    config = RopeConfig.from_options(head_dim=16, theta=10000)
    positions = np.arange(3000)
    cos, sin = get_model("hf").table(positions, config, "fp32")
    exact_cos, exact_sin, _ = exact_schedule(config).reference.cos_sin(positions)
    error = np.maximum(np.abs(cos - exact_cos), np.abs(sin - exact_sin)).max(axis=1)
    tolerance = 1e-6
    result = audit("hf", config, AuditOptions(max_position=2999, dtype="fp32", tolerance=tolerance,
                                             progress=False))
    first = int(np.argmax(error > tolerance))
    assert 0 < first and result.safe_context == first and not result.safe_context_is_lower_bound
    assert (error[:first] <= tolerance).all()


def test_fp64_angle_fix_brings_phase_noise_below_1e6_at_1m():
    # Setting: Llama 3.1 8B's schedule, fp32 output (bf16 output would bury any angle in its own
    # 2^-9 cast noise), the last 1024 positions of a 1M context. The HF-style fp32 angle is
    # off by up to half an ulp of ~1e6 (0.03 rad): its noise is far above 1e-6; the float64
    # angle leaves only the fp32 rounding of cos/sin (~3e-8).
    config, positions = llama31_8b(), np.arange(2**20 - 1024, 2**20)
    schedule = exact_schedule(config)
    options = AuditOptions(positions=positions, dtype="fp32", progress=False)
    before = audit("hf", config, options, schedule)
    after = audit("fp64-angle", config, options, schedule)
    assert before.worst("phase_noise") > 1e-3
    assert after.worst("phase_noise") < 1e-6
    assert after.worst("max_phase_error") < 1e-6          # the maximum too, not only the RMS
    assert after.worst("invariance_violation") < 1e-6 < before.worst("invariance_violation")


def test_a_rounded_frequency_is_found_as_frequency_error_not_noise():
    # 4a: a table that turns at bf16(omega) exactly (an inv_freq buffer cast to bf16, angle and
    # cos/sin in float64) is a consistent reparametrisation: the fit must return
    # bf16(omega)/omega - 1, and leave no phase noise -- even where the drift passes pi
    # (pair 1 drifts 6.4 rad by position 65535, so the phase has to be unwrapped).
    config = RopeConfig.from_options(head_dim=8, theta=10000)
    schedule = exact_schedule(config)
    rounded = schedule.omegas.astype(BF16).astype(np.float64)

    def table(positions, config, dtype):
        angle = positions.astype(np.float64)[:, None] * rounded[None, :]
        return np.cos(angle), np.sin(angle)

    impl = Implementation(name="bf16-omega", table=table)
    result = audit(impl, config, AuditOptions(max_position=65535, progress=False), schedule)
    expected = rounded / schedule.omegas - 1
    assert abs(expected[1]) * schedule.omegas[1] * 65535 > np.pi
    assert np.array(result.frequency_error_per_pair) == pytest.approx(expected, rel=1e-6, abs=1e-12)
    assert result.frequency_error == pytest.approx(np.abs(expected).max(), rel=1e-6)
    assert result.worst("phase_noise") < 1e-9
    assert result.bands[-1].dominant == "frequency"
    assert result.worst("max_phase_error") > 3                # the raw phase is far off ...
    assert result.worst("invariance_violation") < 0.05       # ... yet scores stay nearly relative


def test_non_finite_tables_of_built_in_models_are_reported_not_hidden():
    config = RopeConfig.from_options(head_dim=32, theta=10000)
    result = audit("neox-fp16", config, AuditOptions(positions=np.arange(65500, 65540), progress=False))
    assert sum(band.nonfinite for band in result.bands) > 0
    assert result.worst("max_abs_error") == float("inf")


def test_phase_error_with_buffers_matches_fresh_arrays():
    # the driver passes scratch, out and dot buffers: the same operations, the same numbers
    from symrope.audit._metrics import phase_error

    rng = np.random.default_rng(3)
    exact = rng.uniform(-np.pi, np.pi, (300, 7))
    table = exact + rng.normal(0, 0.5, exact.shape)
    args = (np.cos(table), np.sin(table), np.cos(exact), np.sin(exact))
    fresh = phase_error(*args)
    buffers = [np.full(exact.shape, np.nan) for _ in range(3)]
    reused = phase_error(*args, scratch=buffers[0], out=buffers[1], dot=buffers[2])
    assert reused is buffers[1]
    assert np.array_equal(fresh, reused)
    wrapped = np.angle(np.exp(1j * (table - exact)))
    assert np.allclose(fresh, wrapped, atol=1e-12)


# --- the dtype's rounding floor: what no implementation in a dtype can beat --------------------
YARN = RopeConfig.from_options(head_dim=16, theta=10000, rope_scaling={
    "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096},
    max_position_embeddings=16384)


def _correctly_rounded_bf16(positions, config, dtype="bf16", seq_len=None):
    """The exact YaRN table (factor 1.1386 times cos, sin), each entry rounded once to bf16."""
    schedule = exact_schedule(config)
    cos, sin, _ = schedule.reference.cos_sin(np.asarray(positions))
    return round_to(cos * schedule.amplitude, "bf16"), round_to(sin * schedule.amplitude, "bf16")


_BITS = {"bf16": (BF16, np.uint16), "fp16": (np.float16, np.uint16), "fp32": (np.float32, np.uint32)}


@given(st.sampled_from(sorted(_BITS)), st.floats(2.0**-10, 4.0), st.floats(0.0, 1.0))
def test_rounding_floor_bounds_correct_rounding_and_is_reached(dtype, magnitude, fraction):
    floor = rounding_floor(dtype, magnitude)
    value = magnitude * fraction
    assert abs(float(rounded([value], dtype)[0]) - value) <= floor
    # brute force over the dtype's numbers next to ``magnitude`` (by bit pattern): the worst
    # value up to ``magnitude`` is a midpoint between two of them, or ``magnitude`` itself
    float_type, bits_type = _BITS[dtype]
    middle = int(round_to(np.array([magnitude]), dtype).view(bits_type)[0])
    numbers = [float(np.array([b], dtype=bits_type).view(float_type)[0]) for b in range(middle - 3, middle + 4)]
    candidates = [magnitude] + [(a + b) / 2 for a, b in zip(numbers, numbers[1:]) if (a + b) / 2 <= magnitude]
    assert max(abs(float(rounded([v], dtype)[0]) - v) for v in candidates) == floor


def test_a_correctly_rounded_bf16_yarn_table_is_safe_and_an_error_above_the_floor_is_not():
    amplitude = exact_schedule(YARN).amplitude
    assert amplitude > 1 and rounding_floor("bf16", amplitude) == 2.0**-8 == DEFAULT_TOLERANCE
    perfect = Implementation(name="bf16-correctly-rounded", table=_correctly_rounded_bf16)
    result = audit(perfect, YARN, AuditOptions(max_position=2047, dtype="bf16", progress=False))
    # correct rounding errs by less than half of bf16's 2**-7 gap at 1.14: never unsafe
    assert result.first_failure is None and result.safe_context == 2048
    assert 0.99 * 2.0**-8 < result.worst("max_abs_error") <= 2.0**-8
    assert result.rounding_floor == 2.0**-8 and not result.tolerance_below_floor
    assert "rounding_floor" not in result.to_dict()

    injected = 700

    def one_step_off(positions, config, dtype="bf16", seq_len=None):
        """The same table with one entry of size >= 1 moved one bf16 step away from exact."""
        cos, sin = _correctly_rounded_bf16(positions, config)
        exact = exact_schedule(config).reference.cos_sin(np.asarray(positions))[0] * amplitude
        for row in np.flatnonzero(np.asarray(positions) == injected):
            pair = int(np.argmax(np.abs(exact[row])))
            assert abs(exact[row, pair]) >= 1
            away = np.sign(float(cos[row, pair]) - exact[row, pair]) or 1.0
            cos[row, pair] = round_to(np.array([float(cos[row, pair]) + away * 2.0**-7]), "bf16")[0]
        return cos, sin

    flawed = audit(Implementation(name="one-step-off", table=one_step_off), YARN,
                   AuditOptions(max_position=2047, dtype="bf16", progress=False))
    assert flawed.first_failure == flawed.safe_context == injected
    assert flawed.worst("max_abs_error") > 2.0**-7 and not flawed.tolerance_below_floor


def test_a_tolerance_below_the_floor_is_reported_as_the_dtype_s_not_the_code_s():
    from symrope.audit._report import floor_lines

    perfect = Implementation(name="bf16-correctly-rounded", table=_correctly_rounded_bf16)
    result = audit(perfect, YARN, AuditOptions(max_position=1023, dtype="bf16", tolerance=2.0**-9,
                                               progress=False))
    # the safe context stands as measured (never loosened), and the report says why it is short
    assert result.first_failure is not None and result.tolerance_below_floor
    assert result.to_dict()["rounding_floor"] == 2.0**-8
    text = " ".join(floor_lines(result))
    assert "below bf16's own rounding" in text and "0.00391" in text
    # plain RoPE in bf16 reaches 1 only at exact 1: its floor is 2**-9, under the default tolerance
    plain = RopeConfig.from_options(head_dim=16, theta=10000)
    assert floor_lines(audit("hf", plain, AuditOptions(max_position=1023, dtype="bf16",
                                                       progress=False))) == []
    assert rounding_floor("bf16", 1.0) == 2.0**-9
