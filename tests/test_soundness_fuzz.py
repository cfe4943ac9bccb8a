"""Differential soundness fuzzer (issue 8): claims whose truth is known by construction.

No false claim may be proved, no true claim refuted, every counterexample must refute the
claim when substituted and evaluated independently (mpmath, 120 and 240 digits), and nothing
may raise. A fixed-seed slice runs here; ``benchmarks/fuzz_soundness.py N`` runs N claims.
"""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symrope import verify
from tests.soundness_claims import FAMILIES, random_claim
from tests.soundness_helpers import in_real_domain, refutes

_BUDGET = 1.5


def _assert_sound(claim):
    verdict = verify(claim.lhs, claim.rhs, assumptions=claim.assumptions, budget=_BUDGET)
    context = f"{claim.family}: {claim.lhs} = {claim.rhs}: {verdict.explain()}"
    if claim.true:
        assert not verdict.refuted, context
    else:
        assert not verdict.proved, context
    if verdict.refuted:
        assert refutes(claim.lhs, claim.rhs, verdict.counterexample), context
        assert in_real_domain(claim.lhs, claim.rhs, verdict.counterexample), context
    return verdict


@settings(max_examples=45, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=0, max_value=2**32))
def test_random_claims_get_sound_verdicts(seed):
    _assert_sound(random_claim(random.Random(seed)))


def test_every_family_is_exercised_with_both_truths():
    """The generator is not vacuous: each family yields claims, and both truths occur."""
    rng = random.Random(8)
    truths = {}
    for _ in range(400):
        claim = random_claim(rng)
        truths.setdefault(claim.family, set()).add(claim.true)
    assert {True, False} <= set().union(*truths.values())
    assert len({f.__name__ for f in FAMILIES}) == 15
    assert len(truths) >= 40, sorted(truths)
    # issue 18's families: both truths in each kind of adversarial claim
    for true, false in [("hidden_zero_jump", "hidden_nonzero_jump"),
                        ("lcm_grid_integer", "lcm_grid"), ("far_threshold_max", "far_threshold"),
                        ("one_point_agreement", "one_point_difference"),
                        ("mismatched_partitions_same", "mismatched_partitions_bumped"),
                        ("log_product_real_domain", "llama4_temperature")]:
        assert truths[true] == {True} and truths[false] == {False}


def test_the_fuzzer_catches_an_unsound_engine(monkeypatch):
    """A verify that proves everything is caught on a false claim (the check can fail)."""
    rng = random.Random(3)
    claim = next(c for c in (random_claim(rng) for _ in range(100)) if not c.true)
    monkeypatch.setattr("symrope.engine._points.probe", lambda *args: None)
    monkeypatch.setattr("symrope.engine._verify.STRATEGIES", [("zero", lambda e: 0)])
    monkeypatch.setattr("symrope.engine._verify.TEMPLATE_STRATEGIES", [("zero", lambda e: 0)])
    monkeypatch.setattr("symrope.engine._points.cross_check", lambda *args: 0)
    monkeypatch.setattr("symrope.engine._verify._decide_matrix_algebra",
                        lambda run, clock: None)
    try:
        _assert_sound(claim)
    except AssertionError:
        return
    raise AssertionError(f"an engine that proves everything passed on {claim.family}")
