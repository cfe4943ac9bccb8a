"""Issue 18: a refutation only where rigorous arithmetic proves the difference is not zero.

Every reproduction of the issue is here: ``sign`` of a hidden zero is proved or undecided, never
refuted; block products whose partitions do not line up never raise; ``sin(2520*pi*x) = 0``, a
threshold at ``10**6`` and a one-point difference are refuted with a certified counterexample;
counterexamples keep every function of a real claim real-valued. Refutations are re-checked by
``tests/soundness_helpers.py`` (mpmath at 120 and 240 digits, and the real domain), which does
not call symrope.
"""

import random
import time

import pytest
import sympy as sp
from flint import arb

from symrope import verify
from symrope.checker import Encoding, check
from symrope.checker import _check as checker_stages
from symrope.checker._claims import Clock
from symrope.checker._report import AssumptionResult
from symrope.engine._certified import Inconclusive, PointEvaluator
from symrope.engine._judgement import evaluate
from symrope.engine._sampling import sample_point, sweep
from tests.soundness_helpers import assert_sound_refutation, in_real_domain

x, y, u, v = sp.symbols("x y u v", real=True)
Z = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1  # identically zero; no evaluation sees an exact 0
LOG_ZERO = sp.log(6 * x**2 + 6) - sp.log(2 * x**2 + 2) - sp.log(3)
HYPERBOLIC_ZERO = sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1


# ----------------------------------------------------------------- the reproductions
@pytest.mark.parametrize("lhs, rhs", [
    (sp.sign(Z), 0), (sp.sign(Z) * x, 0), (x + sp.sign(LOG_ZERO), x),
    (sp.sign(sp.I * Z), 0), (sp.Abs(sp.sign(Z)), 0), (sp.sign(HYPERBOLIC_ZERO), 0),
    (sp.sign(LOG_ZERO) * x**2 + 1, 1), (sp.floor(Z + sp.Rational(1, 2)), 0),
    (sp.Heaviside(LOG_ZERO), sp.Rational(1, 2)), (sp.Piecewise((1, HYPERBOLIC_ZERO > 0),
                                                               (0, True)), 0),
])
def test_a_jump_at_a_hidden_zero_is_never_refuted(lhs, rhs):
    verdict = verify(lhs, rhs, budget=3)
    assert verdict.status in ("proved", "undecided"), verdict.explain()


def test_sign_of_a_hidden_zero_gives_no_numerical_evidence_either_way():
    """Every point is inconclusive (the enclosure of the argument contains 0): the undecided
    verdict says so instead of counting agreement."""
    verdict = verify(x + sp.sign(LOG_ZERO), x, budget=3)
    assert verdict.undecided, verdict.explain()
    assert verdict.details["agreeing_points"] == 0 and verdict.details["sampled_points"] > 0
    assert "no point could be evaluated" in verdict.reason


def _block_products():
    A2 = sp.Matrix([[x, 1], [0, 2]])
    B3 = sp.Matrix(3, 3, lambda i, j: x + i - j)
    M1 = sp.BlockDiagMatrix(A2, B3)
    M2 = sp.BlockDiagMatrix(sp.eye(3) * y, sp.Matrix([[1, x], [y, 1]]))
    return M1, M2


def test_block_products_with_mismatched_partitions_never_raise():
    M1, M2 = _block_products()
    assert verify(sp.MatMul(M1, M2), sp.MatMul(M1, M2)).proved
    explicit = sp.ImmutableMatrix(M1.as_explicit() * M2.as_explicit())
    assert verify(sp.MatMul(M1, M2), explicit).proved
    assert verify(sp.MatAdd(M1, M2), sp.ImmutableMatrix(M1.as_explicit() + M2.as_explicit())).proved
    swapped = verify(sp.MatMul(M1, M2), sp.MatMul(M2, M1))
    assert swapped.refuted and len(swapped.entry) == 2  # regrouped blocks: (row, column)
    assert_sound_refutation(sp.MatMul(M1, M2), sp.MatMul(M2, M1), swapped)


def test_sin_of_a_multiple_of_2520_pi_x_is_refuted_with_a_certificate():
    claim = (sp.sin(2520 * sp.pi * x), 0)
    verdict = verify(*claim)
    assert verdict.refuted, verdict.explain()
    assert verdict.counterexample[x].q > 9  # off the grid of denominators up to 9
    certificate = verdict.details["certificate"]
    assert certificate["excludes_zero"] and certificate["arithmetic"] == "Arb ball arithmetic"
    assert float(certificate["lower_bound"]) > 0 and certificate["precision_bits"] >= 128
    assert "certified" in verdict.explain() and verdict.to_dict()["certificate"] == certificate
    assert_sound_refutation(*claim, verdict)


@pytest.mark.parametrize("threshold", [10**6, -10**7, sp.Rational(1, 10**9), 10**9])
def test_a_far_threshold_is_refuted(threshold):
    claim = (sp.Piecewise((x, x < threshold), (x + 1, True)), x)
    verdict = verify(*claim)
    assert verdict.refuted, verdict.explain()
    assert verdict.counterexample[x] >= threshold
    assert verdict.details["certificate"]["enclosure"] == "1"  # exact: x + 1 - x
    assert_sound_refutation(*claim, verdict)


def test_an_astronomically_small_difference_is_certified_and_printed_at_once():
    """Beyond -10**7 the two sides differ by exp(-x**2), about 10**-(4.3e13): Arb encloses it
    away from zero, and its bounds are printed without building the exact rational (which took
    the whole budget: the fuzzer's one undecided far threshold)."""
    claim = (sp.Piecewise((sp.exp(-x**2), x > -10**7), (2 * sp.exp(-x**2), True)),
             sp.exp(-x**2))
    started = time.monotonic()
    verdict = verify(*claim, budget=20)
    assert verdict.refuted and time.monotonic() - started < 5, verdict.explain()
    low, high = verdict.difference
    assert "e-" in low and float(low) == 0.0  # far below the smallest double, yet certified
    assert verdict.details["certificate"]["excludes_zero"]


@pytest.mark.parametrize("point", [sp.Rational(3, 7), sp.Rational(-1000001, 10007)])
def test_a_one_point_difference_is_refuted_at_that_point(point):
    claim = (sp.Piecewise((x**2 + 1, sp.Eq(x, point)), (x**2, True)), x**2)
    verdict = verify(*claim)
    assert verdict.refuted and verdict.counterexample == {x: point}, verdict.explain()
    assert_sound_refutation(*claim, verdict)
    agreeing = sp.Piecewise((point**2, sp.Eq(x, point)), (x**2, True))
    assert not verify(agreeing, x**2, budget=3).refuted


def test_a_symbolic_matrix_size_is_sampled_at_several_values():
    n = sp.Symbol("n", integer=True, positive=True)
    A = sp.MatrixSymbol("A", n, n)
    sizes = {sample_point(random.Random(0), A, attempt=k)[n] for k in range(5)}
    assert sizes == {1, 2, 3, 4, 5}


# ----------------------------------------------------------------- the claim's domain
def _temperature(p):
    """Llama 4's NoPE-layer temperature: q scaled by 1 + 0.1 log(floor((p + 1)/8192) + 1)."""
    return 1 + sp.Rational(1, 10) * sp.log(sp.floor((p + 1) / 8192) + 1)


def test_the_llama4_temperature_is_refuted_inside_its_real_domain():
    p = sp.Symbol("p", real=True)
    claim = (_temperature(p) * y, y)
    verdict = verify(*claim)
    assert verdict.refuted, verdict.explain()
    assert verdict.counterexample[p] >= 8191  # where the log's argument is at least 2
    assert_sound_refutation(*claim, verdict)


def test_the_checker_refutes_the_llama4_encoding_with_a_real_score():
    def query(content, p):
        return sp.Matrix(content) * _temperature(p)

    report = check(Encoding("llama4_nope", 2, query, lambda content, p: sp.Matrix(content)),
                   budget=60)
    found = report.assumptions["translation_invariance"]
    assert found.verdict == "refuted"
    score = sp.sympify(found.counterexample["score_at_s_t"])
    assert score.is_real and sp.sympify(found.counterexample["s"]) >= -1  # log(>= 1): real
    assert found.counterexample["certificate"]["excludes_zero"]


@pytest.mark.parametrize("lhs, rhs", [
    (sp.log(u * v), sp.log(u) + sp.log(v)),        # real-valued only for u, v > 0: true there
    (sp.sqrt(u * v), sp.sqrt(u) * sp.sqrt(v)),     # real-valued only for u, v >= 0: true there
    (sp.log(-u**2 - 1) + u, u + sp.log(u**2 + 1) + sp.pi * sp.I),  # no real point at all
])
def test_a_claim_true_on_its_real_domain_is_never_refuted(lhs, rhs):
    verdict = verify(lhs, rhs, budget=3)
    assert not verdict.refuted, verdict.explain()


def test_complex_symbols_have_no_real_domain_to_keep():
    z, w = sp.symbols("z w")
    verdict = verify(sp.sqrt(z * w), sp.sqrt(z) * sp.sqrt(w))
    assert verdict.refuted, verdict.explain()
    assert_sound_refutation(sp.sqrt(z * w), sp.sqrt(z) * sp.sqrt(w), verdict)


def test_the_domain_recheck_can_fail():
    """The independent re-check is not vacuous: log(x) at x = -1 is outside the real domain."""
    assert not in_real_domain(sp.log(x), 0, {x: sp.Integer(-1)})
    assert in_real_domain(sp.log(x), 0, {x: sp.Integer(2)})


# ----------------------------------------------------------------- the certified evaluator
def test_jumps_are_evaluated_only_off_their_jump():
    evaluator = PointEvaluator({x: sp.Rational(37, 7)}, bits=128)
    for jump in (sp.sign(Z), sp.floor(Z), sp.Heaviside(Z), sp.Piecewise((1, Z < 0), (0, True)),
                 sp.Mod(Z, 1), sp.arg(Z - 1 + sp.I * Z), sp.Piecewise((0, sp.Eq(Z, 0)), (1, True))):
        with pytest.raises(Inconclusive):
            evaluator.value(jump)
    exact = PointEvaluator({x: sp.Integer(0)}, bits=128)  # an exact zero decides a jump
    assert exact.value(sp.sign(sp.sin(x))) == 0
    assert exact.value(sp.Heaviside(x)) == sp.Rational(1, 2)


def test_values_are_exact_while_the_arithmetic_is_rational():
    z = sp.Symbol("z")
    evaluator = PointEvaluator({x: sp.Rational(-5, 7), z: sp.Rational(1, 3) + 2 * sp.I}, 128)
    assert evaluator.value(sp.sqrt(x**2) - x) == sp.Rational(10, 7)
    assert evaluator.value((x + 1) ** 40 - (x + 1) ** 40) == 0
    assert evaluator.value(sp.floor(10**6 * x)) == -714286
    assert evaluator.value(sp.re(z**2)) == sp.Rational(1, 9) - 4


def test_a_real_argument_outside_its_real_domain_is_inconclusive():
    evaluator = PointEvaluator({x: sp.Integer(-2)}, bits=128)
    for outside in (sp.log(x), sp.sqrt(x), x ** sp.Rational(1, 3), sp.asin(x), sp.acosh(x)):
        with pytest.raises(Inconclusive, match="real domain"):
            evaluator.value(outside)
    constant = evaluator.value(sp.log(-2, evaluate=False))  # a number: its principal value
    assert (constant.imag - arb.pi()).contains(0) and constant.imag.rad() < 1e-30


def test_a_complex_argument_at_a_branch_cut_is_inconclusive():
    z = sp.Symbol("z")
    with pytest.raises(Inconclusive, match="branch cut"):
        PointEvaluator({z: sp.Integer(3)}, bits=128).value(sp.asin(z))  # complex-typed 3


def test_an_unknown_function_is_never_evaluated_in_rounded_arithmetic():
    f = sp.Function("f")
    (found,) = evaluate(f(x) + 1, f(x), {x: sp.Integer(1)})
    assert not found.conclusive and "no rigorous enclosure" in found.reason


def test_tiny_differences_need_and_get_more_precision():
    claim = (sp.sin(x + sp.Rational(1, 10**40)), sp.sin(x))
    (found,) = evaluate(*claim, {x: sp.Rational(1, 3)})
    assert found.clearly_nonzero and found.bits > 256
    assert float(found.certificate()["lower_bound"]) == pytest.approx(9.45e-41, rel=1e-2)


# ----------------------------------------------------------------- the shared sampler
def test_the_sampler_reaches_wide_denominators_scales_and_breakpoints():
    claim = sp.Piecewise((x, x > sp.Rational(12345, 7)), (0, True)) + y
    rng = random.Random(1)
    draws = [sample_point(rng, claim, attempt=k) for k in range(40)]
    values = [d[x] for d in draws] + [d[y] for d in draws]
    assert any(value.q > 1000 for value in values)
    assert any(abs(value) >= 10**6 for value in values) and any(
        0 < abs(value) <= sp.Rational(1, 10**6) for value in values)
    swept = [point[x] for point in sweep(random.Random(1), claim, symbols=[x])]
    assert sp.Rational(12345, 7) in swept and sp.Rational(12345, 7) + sp.Rational(1, 10007) in swept


# ----------------------------------------------------------------- the checker's budget
class _SlowStages:
    """A stand-in for the checker's run: translation needs 1.2 s of its share to be proved."""

    def __init__(self):
        self.clock = None
        self.tries = 0

    def linearity(self):
        return AssumptionResult("linearity", "proved", "", seconds=0.0)

    def linear_translation(self):
        self.tries += 1
        start, needed = time.monotonic(), 1.2
        limit = min(needed, self.clock.left())  # what this try may spend
        while time.monotonic() - start < limit:
            time.sleep(0.01)
        seconds = time.monotonic() - start
        return AssumptionResult("translation_invariance",
                                "proved" if seconds >= needed else "undecided", "",
                                seconds=seconds)

    def linear_identity(self):
        return AssumptionResult("identity_at_zero", "proved", "", seconds=0.0)

    def linear_continuity(self):
        return AssumptionResult("continuity", "proved", "", seconds=0.0)

    def structure_proved(self):
        return False

    def forget_structure(self):
        pass


def test_time_a_stage_leaves_unused_goes_to_a_stage_cut_short():
    """Budget 4: translation's fair share (1 s) is too short, the other stages use nothing;
    the time they leave decides translation on a second try."""
    run, clock = _SlowStages(), Clock(4.0)
    run.clock = clock
    results = checker_stages._decide_assumptions(run, clock)
    assert [r.verdict for r in results] == ["proved"] * 4
    assert run.tries == 2 and clock.elapsed() < 4.0
