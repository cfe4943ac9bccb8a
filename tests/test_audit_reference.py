"""The audit's exact side: the double-double reference, its interval certificate, and the
float32 angle physics it exposes (docs/design.md, "Precision facts from the field")."""

import mpmath
import numpy as np
import pytest

from symrope.audit import (MAX_POSITION, REFERENCE_TOLERANCE, AuditOptions, Reference, audit,
                           certification_sample, check_positions, exact_schedule, mp_cos_sin)
from symrope.errors import UsageError
from symrope.schedules import inv_freq, llama31_8b

NEAR_2_40 = [2**40 - 7919, 2**40 - 1, 2**40, 2**40 + 1, 2**41 - 1]


@pytest.fixture(scope="module")
def llama():
    return exact_schedule(llama31_8b())


def test_certified_error_holds_near_2_40(llama):
    certificate = llama.reference.certify(NEAR_2_40 + [0, 1, 131071, 10**7])
    assert certificate.points == 9 * 64
    assert certificate.max_position == 2**41 - 1
    assert 0 < certificate.max_error <= REFERENCE_TOLERANCE
    assert certificate.holds()


def test_default_certification_sample_reaches_2_40(llama):
    sample = certification_sample(2**20 - 1, count=12)
    assert {0, 2**20 - 1, 2**40}.issubset(set(sample.tolist()))
    assert llama.certify(2**20 - 1, count=12).max_error <= REFERENCE_TOLERANCE


def test_certificate_catches_a_reference_that_is_off(llama):
    # Turns whose second 64-bit word is off by 2**-29 put the angle off by ~7e-16 rad at
    # p = 2**40 (and by nothing visible at small p): the interval check must see it.
    broken = Reference(llama.reference.omegas)
    broken._turn_next = broken._turn_next + 2.0**-29
    assert broken.certify(NEAR_2_40 + [123456789]).max_error > REFERENCE_TOLERANCE


def test_fast_reference_agrees_with_plain_mpmath():
    rng = np.random.default_rng(7)
    positions = np.concatenate([rng.integers(0, 2**41, 12), rng.integers(0, 2**20, 12), NEAR_2_40,
                                [MAX_POSITION]])
    with mpmath.workprec(256):
        omegas = inv_freq(llama31_8b(), "mpmath")
    cos, sin, angle = Reference(omegas).cos_sin(positions)
    worst = 0.0
    for row, position in enumerate(positions.tolist()):
        for pair in range(0, 64, 7):
            exact_cos, exact_sin = mp_cos_sin(position, omegas[pair])
            worst = max(worst, abs(cos[row, pair] - float(exact_cos)), abs(sin[row, pair] - float(exact_sin)))
            with mpmath.workprec(256):
                exact_angle = position * omegas[pair]
                wrapped = exact_angle - 2 * mpmath.pi * mpmath.nint(exact_angle / (2 * mpmath.pi))
            gap = float(angle[row, pair] - wrapped)
            assert abs(gap - 2 * np.pi * round(gap / (2 * np.pi))) < 1e-15   # same angle mod 2*pi
    assert worst <= REFERENCE_TOLERANCE


def test_plain_float64_is_not_a_reference():
    # Why the double-double is needed: float64 p*omega at p ~ 2^40 is off by ~1e-4 rad.
    omega = 500000.0 ** (-2 / 128)
    position = 2**40 - 1
    with mpmath.workprec(256):
        exact_omega = mpmath.mpf(500000) ** (-mpmath.mpf(2) / 128)
        exact = mpmath.cos(position * exact_omega)
    assert abs(np.cos(position * omega) - float(exact)) > 1e-6
    reference = Reference([exact_omega])
    assert abs(reference.cos_sin(np.array([position]))[0][0, 0] - float(exact)) <= REFERENCE_TOLERANCE


@pytest.mark.parametrize("bad, message", [
    ([1.5], "positions must be integers, got 1.5"),
    ([-3], "positions must be >= 0, got -3"),
    ([MAX_POSITION + 1], r"must be at most 9007199254740991 \(2\^53 - 1\)"),
    ([[1, 2]], "1-D"),
    ([True, False], "got dtype bool"),  # one validator everywhere, and it refuses bools
])
def test_bad_positions_are_usage_errors(bad, message):
    with pytest.raises(UsageError, match=message):
        check_positions(bad)


def _fp32_angle_error(positions, config):
    """|fl32(fl32(p) * fl32(omega)) - p*omega| per position and pair, with exact float64 steps."""
    with mpmath.workprec(256):
        exact = inv_freq(config, "mpmath")
        omega32 = np.array([float(o) for o in exact], dtype=np.float32)
        # omega32 - omega, exactly enough (relative 2^-53 of a 2^-24 difference)
        gap = np.array([float(mpmath.mpf(float(o32)) - o) for o32, o in zip(omega32, exact)])
    angle32 = (positions.astype(np.float32)[:, None] * omega32[None, :]).astype(np.float64)
    product = positions.astype(np.float64)[:, None] * omega32.astype(np.float64)[None, :]  # exact: 24 x 24 bits
    return np.abs((angle32 - product) + positions[:, None] * gap[None, :])


def test_fp32_angle_error_grows_linearly_with_position():
    # docs/design.md: even a perfect fp32 pipeline fl32(p * fl32(omega)) has angle error ~1e-2 rad at
    # 128K and tenths of a radian near 10M (head dim 128).
    config = llama31_8b()
    at_128k = _fp32_angle_error(np.arange(131072 - 256, 131072), config).max()
    at_10m = _fp32_angle_error(np.arange(10_000_000 - 256, 10_000_000), config).max()
    assert 3e-3 < at_128k < 3e-2
    assert 0.1 < at_10m < 1.0
    assert 30 < at_10m / at_128k < 300          # linear in p: 10M / 128K = 76


def test_audit_sees_the_fp32_angle_error(llama):
    # The same physics through the whole audit (reference, phase metric) on Meta's fp32 table.
    near_128k = audit("meta", llama31_8b(), AuditOptions(positions=np.arange(131072 - 256, 131072),
                                                         progress=False), llama)
    near_10m = audit("meta", llama31_8b(), AuditOptions(positions=np.arange(10**7 - 256, 10**7),
                                                        progress=False), llama)
    assert 3e-3 < near_128k.worst("max_phase_error") < 3e-2
    assert 0.1 < near_10m.worst("max_phase_error") < 1.0
