"""What attention sees: logits of seeded q, k rotated by the implementation, per band."""

from __future__ import annotations

import numpy as np

from audit_libraries import require_library
from symrope.audit import AuditOptions, audit, exact_schedule
from symrope.schedules import RopeConfig, llama31_8b

FAR = np.arange(2**20 - 2048, 2**20)


def test_exact_rotation_has_no_logit_error_and_no_shift_violation():
    # only the float64 angle p*omega rounds (~p * 1e-16): ~1e-12 of a logit at 4K
    config = RopeConfig.from_options(head_dim=32, theta=10000)
    result = audit("fp64-angle", config, AuditOptions(max_position=4095, dtype="fp64", progress=False))
    assert all(band.logit_error < 1e-10 for band in result.bands)
    assert all(band.shift_violation < 1e-10 for band in result.bands if band.shift_violation is not None)
    assert result.logits["rotation"].startswith("an exact float64 rotation by the implementation's table")


def test_float32_angle_moves_far_logits_and_the_float64_angle_does_not():
    # Llama 3.1 8B's schedule in fp32, the last 2048 positions of a 1M context: the float32 angle
    # is off by up to ~0.03 rad, which moves logits of standard normal q, k (|q||k| ~ 128) by
    # tenths; the float64 angle leaves only the float32 rounding of cos/sin (~1e-5 of a logit).
    config, schedule = llama31_8b(), exact_schedule(llama31_8b())
    options = AuditOptions(positions=FAR, dtype="fp32", progress=False)
    before = audit("hf", config, options, schedule)
    after = audit("fp64-angle", config, options, schedule)
    assert before.worst("logit_error") > 0.05
    assert after.worst("logit_error") < 1e-4
    assert before.worst("shift_violation") > 100 * after.worst("shift_violation")
    assert len(before.fine["logit_positions"]) == len(before.fine["logit_error"]) > 0


def test_real_library_logits_go_through_its_own_apply():
    require_library("torchtune")
    from symrope.audit import build_library as real_impl

    config = RopeConfig.from_options(head_dim=64, theta=10000)
    impl = real_impl("torchtune", config)
    result = audit(impl, config, AuditOptions(max_position=8191, dtype="bf16", progress=False))
    assert result.logits["rotation"] == "the implementation's own apply function"
    # bf16 output rounding of the rotated vectors: ~2^-9 relative per entry, a few hundredths
    # of a logit of size ~sqrt(64) -- far more than the float32 angle error at 8K
    assert 1e-3 < result.worst("logit_error") < 0.5
    assert result.worst("shift_violation") > 0


def test_the_plot_draws_each_bands_shift_violation():
    from symrope.audit._plot import panel_series

    config = RopeConfig.from_options(head_dim=32, theta=10000)
    result = audit("hf", config, AuditOptions(max_position=70000, dtype="bf16", progress=False))
    measured = [band for band in result.bands if band.shift_violation]
    assert len(measured) >= 2
    xs, ys = panel_series(result, "shift_violation")
    # one step per band from its start (clamped to 1 on the log axis), closed at the last end
    assert xs[:-1] == [max(band.lo, 1) for band in measured]
    assert ys[:-1] == [band.shift_violation for band in measured]
    assert (xs[-1], ys[-1]) == (result.bands[-1].hi, result.bands[-1].shift_violation)
