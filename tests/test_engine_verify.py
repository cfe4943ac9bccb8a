"""The verdict contract of symrope.verify: proved / refuted (with a real counterexample) / undecided."""

import time

import re

import pytest
import sympy as sp

from symrope import InternalError, UsageError, verify
from symrope.engine import UndecidedReason, Verdict
from tests.soundness_helpers import HARD_TRUE_CLAIM

x, y = sp.symbols("x y", real=True)
p = sp.Symbol("p", positive=True)
n = sp.Symbol("n", integer=True)
z = sp.Symbol("z")  # complex: no assumptions


def _falsified(verdict) -> bool:
    """Substitute the counterexample ourselves and evaluate with 50 digits."""
    point = verdict.counterexample
    difference = (sp.sympify(verdict.lhs) - sp.sympify(verdict.rhs))
    if isinstance(difference, sp.MatrixExpr):
        difference = difference.xreplace({k: v for k, v in point.items()
                                          if isinstance(k, sp.MatrixSymbol)}).doit()
        difference = sp.Matrix(difference.as_explicit())
    values = [difference] if not isinstance(difference, sp.MatrixBase) else list(difference)
    scalars = {k: v for k, v in point.items() if isinstance(k, sp.Symbol)}
    return any(abs(sp.N(v.xreplace(scalars), 50)) > 1e-10 for v in values)


@pytest.mark.parametrize("lhs, rhs", [
    (sp.cos(x + y), sp.cos(x) * sp.cos(y) - sp.sin(x) * sp.sin(y)),
    (sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),
    (sp.exp(x) * sp.exp(y), sp.exp(x + y)),
    ((x + y) ** 3, x**3 + 3 * x**2 * y + 3 * x * y**2 + y**3),
    (sp.sqrt(p**2), p),
    (sp.log(sp.exp(x)), x),
    ((-1) ** (2 * n), 1),
    (sp.cos(sp.pi * n), (-1) ** n),
    (1 / (x**2 + 1) - 1 / (x**2 + 2), 1 / ((x**2 + 1) * (x**2 + 2))),
])
def test_true_identities_are_proved(lhs, rhs):
    verdict = verify(lhs, rhs)
    assert verdict.status == "proved", verdict.explain()
    assert verdict.method and verdict.cross_checks >= 1


@pytest.mark.parametrize("lhs, rhs", [
    (sp.sqrt(x**2), x),                 # false for negative x
    (sp.log(sp.exp(z)), z),             # false off the strip |Im z| <= pi
    (sp.cos(x + y), sp.cos(x) * sp.cos(y) + sp.sin(x) * sp.sin(y)),
    (sp.sin(x + y), sp.sin(x) * sp.cos(y) - sp.cos(x) * sp.sin(y)),
    ((-1) ** n, 1),
    (sp.exp(x + y), sp.exp(x) + sp.exp(y)),
    (sp.Integer(1), sp.Integer(2)),
])
def test_false_identities_are_refuted_with_real_counterexamples(lhs, rhs):
    verdict = verify(lhs, rhs)
    assert verdict.status == "refuted"
    assert verdict.counterexample is not None
    assert _falsified(verdict)
    low, high = (float(v) for v in verdict.difference)
    assert low == pytest.approx(high, rel=1e-5) and high > 1e-10


def test_counterexamples_respect_assumptions():
    verdict = verify(sp.Abs(p), -p)  # false everywhere; the point must still be positive
    assert verdict.refuted and verdict.counterexample[p] > 0
    verdict = verify(sp.cos(sp.pi * n), 1)
    assert verdict.refuted and verdict.counterexample[n].is_integer
    assert verdict.counterexample[n] % 2 == 1


def test_matrix_claims_name_the_failing_entry():
    R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])
    assert verify(R(x).T * R(y), R(y - x)).proved
    wrong = verify(R(x) * R(y).T, R(y - x))
    assert wrong.refuted and wrong.entry in {(0, 1), (1, 0)} and _falsified(wrong)


def _rope_claim(d, theta=10000, wrong_last_block=False):
    s, t = sp.symbols("s t", real=True)
    R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])
    omegas = [sp.Integer(theta) ** sp.Rational(-2 * i, d) for i in range(d // 2)]
    rope = lambda pos: sp.BlockDiagMatrix(*[R(pos * w) for w in omegas])
    rhs = rope(t - s)
    if wrong_last_block:
        rhs = sp.BlockDiagMatrix(*[R((t - s) * w) for w in omegas[:-1]], R((t + s) * omegas[-1]))
    return sp.MatMul(rope(s).T, rope(t), evaluate=False), rhs


def test_block_diagonal_claims_prove_one_template_for_all_frequencies():
    small, large = verify(*_rope_claim(16)), verify(*_rope_claim(32))
    assert small.proved and large.proved, (small.explain(), large.explain())
    # Irrational frequencies share one template per entry; only the 4 rational ones
    # (10**(-k)) are separate, so the symbolic work does not grow with d.
    assert small.details["templates"] == large.details["templates"] <= 15
    assert large.details["entries"] == 4 * 16
    wrong = verify(*_rope_claim(16, wrong_last_block=True))
    assert wrong.refuted and wrong.entry[0] == 7 and _falsified_blocks(wrong)


def _falsified_blocks(verdict):
    block, i, j = verdict.entry
    first, second = verdict.lhs.args  # R(s)^T (a BlockDiagMatrix of transposed blocks), R(t)
    lhs = (first.diag[block].as_explicit() * second.diag[block].as_explicit())[i, j]
    rhs = verdict.rhs.diag[block].as_explicit()[i, j]
    return abs(sp.N((lhs - rhs).xreplace(verdict.counterexample), 50)) > 1e-10


def test_symbolic_matrix_algebra():
    G0, Ga, Gab = (sp.MatrixSymbol(name, 3, 3) for name in ("G0", "Ga", "Gab"))
    assert verify(G0.I * Ga * (Ga.I * Gab), G0.I * Gab).proved
    wrong = verify(Ga * Gab, Gab * Ga)  # matrices do not commute
    assert wrong.refuted and _falsified(wrong)
    wrong = verify((Ga * Gab).T, Ga.T * Gab.T)  # the transpose reverses the order
    assert wrong.refuted and _falsified(wrong)


def test_hypotheses_are_rewrites():
    F, G = sp.MatrixSymbol("F", 3, 3), sp.MatrixSymbol("G", 3, 3)
    assert verify(F.T * G, sp.Identity(3), assumptions=[sp.Eq(F.T, G.I)]).proved
    assert verify(F.T * G, sp.Identity(3)).refuted


def test_exhausted_budget_is_undecided_within_budget_plus_one_second():
    start = time.monotonic()
    verdict = verify(*HARD_TRUE_CLAIM, budget=1.0)
    elapsed = time.monotonic() - start
    assert verdict.status == "undecided" and "budget" in verdict.reason
    assert elapsed <= 2.0


def test_a_wrong_proof_is_an_internal_error_never_a_verdict(monkeypatch):
    """If a rewrite ever "proved" a false claim that slipped past the probe, the cross-check raises."""
    broken = [("always zero", lambda e: sp.Integer(0))]
    monkeypatch.setattr("symrope.engine._verify.STRATEGIES", broken)
    monkeypatch.setattr("symrope.engine._verify.TEMPLATE_STRATEGIES", broken)
    monkeypatch.setattr("symrope.engine._points.probe", lambda *args: None)
    with pytest.raises(InternalError, match="proved"):
        verify(sp.sin(x), sp.cos(x))


def test_bad_input_is_a_usage_error():
    with pytest.raises(UsageError, match="different shapes"):
        verify(sp.eye(2), sp.eye(3))
    with pytest.raises(UsageError, match="budget"):
        verify(x, x, budget=0)
    with pytest.raises(UsageError, match="too large"):
        verify(sp.zeros(100, 100), sp.zeros(100, 100))


def test_tiny_exact_differences_are_refuted_exactly():
    """1e-74 is below any relative threshold, but an exact nonzero rational needs none."""
    assert verify(sp.Rational(1, 10**74), 0).refuted
    verdict = verify(x + sp.Rational(1, 10**74), x)
    assert verdict.refuted and float(verdict.difference[1]) == pytest.approx(1e-74)


def test_a_counterexample_must_satisfy_the_hypotheses():
    """Commuting X1, X2 make (sX1 + X2)(tX1 + X2) symmetric in s, t; random matrices do not
    commute, so they are no counterexample (found by the checker's N-d theorem)."""
    X1, X2 = sp.MatrixSymbol("X1", 3, 3), sp.MatrixSymbol("X2", 3, 3)
    s, t = sp.symbols("s t", real=True)
    lhs, rhs = sp.expand((s * X1 + X2) * (t * X1 + X2)), sp.expand((t * X1 + X2) * (s * X1 + X2))
    assert verify(lhs, rhs, assumptions=[sp.Eq(X1 * X2, X2 * X1)]).proved
    assert verify(lhs, rhs).refuted  # without the hypothesis it is false
    # A hypothesis that defines a symbol: the counterexample carries F consistent with it.
    F, G = sp.MatrixSymbol("F", 3, 3), sp.MatrixSymbol("G", 3, 3)
    wrong = verify(F.T * G * G, G * G, assumptions=[sp.Eq(F.T, G.I)])  # it is G, not G^2
    assert wrong.refuted
    point = wrong.counterexample
    assert point[F].T * point[G] == sp.eye(3) and point[G] * point[G] != point[G]


def test_symbolic_matrix_sizes_are_instantiated_and_entries_are_plain_ints():
    import json

    n = sp.Symbol("n", integer=True, positive=True)
    G = sp.MatrixSymbol("G", n, n)
    assert verify(sp.MatMul(G.I, G, evaluate=False), sp.Identity(n)).proved
    wrong = verify(G.I, G.T)
    assert wrong.refuted and wrong.counterexample[n] == 3
    json.dumps(wrong.to_dict())  # entry indices are ints, not SymPy Integers


def test_fractional_frequencies_share_one_template():
    """omega_i = 10**(-i) and theta**(-2i/d) (symbolic theta): the fractions are template
    constants, so the blocks are proved once however many there are."""
    s, t = sp.symbols("s t", real=True)
    theta = sp.Symbol("theta", positive=True)
    R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])
    for omegas in ([sp.Rational(1, 10**i) for i in range(1, 9)],
                   [theta ** sp.Rational(-2 * i, 16) for i in range(1, 8)]):
        rope = lambda pos: sp.BlockDiagMatrix(*[R(pos * w) for w in omegas])  # noqa: B023
        verdict = verify(sp.MatMul(rope(s).T, rope(t), evaluate=False), rope(t - s))
        assert verdict.proved and verdict.details["templates"] == 1, verdict.details


def test_rational_frequencies_share_a_template_through_the_negated_slot():
    """omega*(t - s) is stored as omega*t + (-omega)*s: -omega must be read as the negation of
    omega's slot, so float32-like rational frequencies (what lifted code has) share one template,
    and a block whose frequency differs on one side is still refuted."""
    s, t = sp.symbols("s t", real=True)
    R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])  # noqa: E731
    omegas = [sp.Rational(5368709, 536870912) ** k for k in range(1, 17)]
    rope = lambda pos: sp.BlockDiagMatrix(*[R(pos * w) for w in omegas])  # noqa: E731
    verdict = verify(sp.MatMul(rope(s).T, rope(t), evaluate=False), rope(t - s), budget=60)
    assert verdict.proved, verdict.details
    assert verdict.details["methods"] == [
        "trigonometric expansion, one template for 16 blocks with symbolic constants"]
    wrong = [R((t - s) * w) for w in omegas]
    wrong[7] = R(t * omegas[7] - s * (omegas[7] + sp.Rational(1, 10**12)))
    verdict = verify(sp.MatMul(rope(s).T, rope(t), evaluate=False), sp.BlockDiagMatrix(*wrong),
                     budget=60)
    assert verdict.refuted, verdict.explain()


def test_unevaluated_frequencies_share_one_template_and_a_wrong_block_is_still_refuted():
    """rope_relative keeps theta^(-2i/d) unevaluated for display; instantiating a template
    evaluates it, so membership compares with the member evaluated too (doit preserves values).
    Without that, every block was decided alone (13 s at d = 64 instead of 0.4 s)."""
    from symrope.theorems import get_theorem

    theorem = get_theorem("rope_relative").build(d=16)
    step = next(st for st in theorem.steps if st.claim.startswith("R_d(s)^T R_d(t) = R_d(t - s)"))
    verdict = verify(step.lhs, step.rhs, budget=60)
    covered = [int(n) for m in verdict.details["methods"]
               for n in re.findall(r"one template for (\d+) blocks", m)]
    assert verdict.proved and sum(covered) == 8, verdict.details
    s, t = sp.symbols("s t", real=True)
    R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])  # noqa: E731
    omegas = [sp.Pow(10000, sp.Rational(-2 * i, 16), evaluate=False) for i in range(1, 8)]
    rope = lambda pos: sp.BlockDiagMatrix(*[R(pos * w) for w in omegas])  # noqa: E731
    wrong = [R((t - s) * w) for w in omegas]
    wrong[3] = R((s - t) * omegas[3])
    verdict = verify(sp.MatMul(rope(s).T, rope(t), evaluate=False), sp.BlockDiagMatrix(*wrong),
                     budget=60)
    assert verdict.refuted, verdict.explain()


def test_undecided_reason_counts_the_points_that_agreed():
    # atan(q) + atan(1/q) = pi/2 for q > 0 (true; no rewrite of the engine proves it): the
    # evidence is agreement at every point sampled, and the reason counts them.
    q = sp.Symbol("q", positive=True)
    verdict = verify(sp.atan(q) + sp.atan(1 / q), sp.pi / 2, budget=5)
    assert verdict.undecided
    sampled = verdict.details["sampled_points"]
    assert sampled > 0 and verdict.details["agreeing_points"] == sampled
    assert f"agreed numerically at {sampled} of {sampled} sampled points" in verdict.reason
    assert "evidence, not proof" in verdict.reason
    # the prose has a stable code beside it, in the details and in the JSON
    assert verdict.undecided_reason is UndecidedReason.NO_REWRITE
    assert verdict.to_dict()["reason_code"] == "no_rewrite" == verdict.details["reason_code"]
    assert "reason_code" not in verify(sp.Integer(1), sp.Integer(1)).to_dict()


def test_every_undecided_reason_has_its_own_code_and_prose():
    codes = [reason.value for reason in UndecidedReason]
    assert len(codes) == len(set(codes)) and all(code.islower() for code in codes)
    assert all(reason.template.strip() for reason in UndecidedReason)
    made = Verdict.undecided_because(UndecidedReason.TIME_BUDGET, x, x + 1, budget=2.5,
                                     evidence="it agreed at 3 of 3 points")
    assert made.reason == ("time budget of 2.5 s exhausted before the difference reduced to "
                           "zero or a counterexample was found; it agreed at 3 of 3 points")
    assert made.undecided and made.undecided_reason is UndecidedReason.TIME_BUDGET


def test_a_float_beyond_any_exact_value_is_undecided_with_its_code():
    # written with a fractional mantissa: SymPy reads "1e1000000000" as an exact decimal first,
    # which never ends
    verdict = verify(x * sp.Float("1.29685640608483e+43429448190325182765"), x)
    assert verdict.undecided_reason is UndecidedReason.FLOAT_OUT_OF_RANGE
    assert "its exact value cannot be built" in verdict.reason


def test_undecided_reason_says_when_no_point_could_be_evaluated():
    # floor(x) + ceiling(-x) = 0 for every real x, so the left side is 1/0 at every point: the
    # claim agreed nowhere, and "agreed at every sampled point" would be a false statement.
    verdict = verify(1 / (sp.floor(x) + sp.ceiling(-x)), 1, budget=5)
    assert verdict.undecided
    assert verdict.details["evaluated_points"] == 0 and verdict.details["sampled_points"] > 0
    assert "no point could be evaluated" in verdict.reason
    assert "every sampled point" not in verdict.reason
