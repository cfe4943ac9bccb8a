"""The checker's theorems (pairing, N-d positions, schedules, ALiBi): proved, and honest.

Each at a small size (the proof grid is ``proofs/checker_theorems.py``). Refuted steps are
re-evaluated here, independently of the engine, at the counterexample the engine reports.
"""

import pytest
import sympy as sp

from symrope.engine import CHECKED, PROVED, REFUTED
from symrope.errors import UsageError
from symrope.theorems import get_theorem

CASES = {
    "pairing_permutation": {"d": 4},
    "nd_commuting_generators_relative": {"n": 2},
    "nd_noncommuting_generators_not_relative": {},
    "schedule_keeps_relative": {"rope_type": "yarn", "d": 4},
    "length_dependent_schedule_not_relative": {"rope_type": "dynamic"},
    "yarn_attention_factor_scales_identity": {"d": 4},
    "alibi_nilpotent": {"d": 1},
}


@pytest.fixture(scope="module")
def reports():
    return {name: get_theorem(name).build(**params).prove() for name, params in CASES.items()}


@pytest.mark.parametrize("name", CASES)
def test_proved_with_every_step_as_expected(reports, name):
    report = reports[name]
    assert report.verdict == PROVED, report.explain()
    for result in report.results:
        if result.step.kind == CHECKED:
            assert result.verdict.status == result.step.expect
    theorem = report.theorem
    assert theorem.statement_latex and theorem.hypotheses


def _explicit(value):
    if isinstance(value, sp.BlockDiagMatrix):
        return sp.diag(*[sp.Matrix(block) for block in value.diag])
    return sp.Matrix(value)


@pytest.mark.parametrize("name", ["nd_noncommuting_generators_not_relative",
                                  "length_dependent_schedule_not_relative",
                                  "yarn_attention_factor_scales_identity"])
def test_refuted_steps_really_fail_at_their_counterexample(reports, name):
    refuted = [r for r in reports[name].results if r.verdict and r.verdict.status == REFUTED]
    assert refuted
    for result in refuted:
        point = result.verdict.counterexample
        difference = _explicit(result.step.lhs).xreplace(point) - \
            _explicit(result.step.rhs).xreplace(point)
        assert max(abs(sp.N(entry, 30)) for entry in difference) > 1e-6


def test_dynamic_ntk_frequencies_are_the_audited_ones():
    from symrope.schedules import inv_freq
    from symrope.theorems._schedules import schedule_config

    config = schedule_config("dynamic", 8)
    # at 4096 <= max_position_embeddings the base is untouched; at 8192 it grows
    assert inv_freq(config, "sympy", seq_len=4096) == [1, sp.Rational(1, 10),
                                                        sp.Rational(1, 100), sp.Rational(1, 1000)]
    assert inv_freq(config, "sympy", seq_len=8192)[1] == 3 ** sp.Rational(2, 3) / 30


def test_alibi_score_is_the_linear_bias():
    report = get_theorem("alibi_nilpotent").build(d=1).prove()
    (bias,) = [r for r in report.results if r.step.claim.startswith("(F(s) q')^T")]
    assert bias.verdict.status == PROVED
    s, t, m = sp.Symbol("s", real=True), sp.Symbol("t", real=True), sp.Symbol("m", positive=True)
    q0, k0 = sp.symbols("q0 k0", real=True)
    assert sp.expand(bias.step.rhs[0, 0] - (q0 * k0 - m * (s - t))) == 0


@pytest.mark.parametrize("name, params, message", [
    ("pairing_permutation", {"d": 3}, "positive even integer"),
    ("schedule_keeps_relative", {"rope_type": "dynamic"}, "rope_type must be"),
    ("length_dependent_schedule_not_relative", {"rope_type": "yarn"}, "dynamic or longrope"),
    ("alibi_nilpotent", {"d": 0}, "positive integer"),
])
def test_bad_parameters_are_one_line_usage_errors(name, params, message):
    with pytest.raises(UsageError, match=message):
        get_theorem(name).build(**params)
