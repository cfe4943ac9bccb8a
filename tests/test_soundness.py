"""Issue 8: verdicts depend on the claim only, not on Floats, internal names or sampled points.

Every counterexample here is re-checked by :func:`tests.soundness_helpers.exact_difference`,
which substitutes the point itself and evaluates with mpmath at 120 digits, independently of
the engine's code.
"""

import subprocess
import sys
import textwrap

import pytest
import sympy as sp

from symrope import verify
from symrope.checker import Encoding, check
from symrope.engine._blocks import expression_key, is_instance, template_of
from symrope._exact import exact_rational, read_floats_exactly
from tests.soundness_helpers import assert_sound_refutation

s = sp.Symbol("s", real=True)
x, a, b, y = sp.symbols("x a b y", real=True)


def rotation(angle):
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


# ----------------------------------------------------------------- the reproductions
def test_a_tiny_float_offset_is_refuted_not_proved():
    lhs, rhs = (s + 1.0e-40) * (s + 3), s**2 + 3 * s + 3.0e-40  # false by 1e-40 * s
    verdict = verify(lhs, rhs)
    assert verdict.refuted, verdict.explain()
    assert verdict.details["floats_read_exactly"] == 2
    assert "read as the exact rationals" in verdict.explain()
    assert_sound_refutation(lhs, rhs, verdict)


def _near_zero_matrix(constant):
    def near_zero(k):
        return sp.sin(k) ** 2 + sp.cos(k) ** 2 - 1

    M = sp.Matrix(7, 7, lambda i, j: x * (-constant - sp.Rational(1, 14 + 7 * i + j))
                  * near_zero(sp.Rational(1, 14 + 7 * i + j)))
    k = sp.Rational(1, 27)
    M[0, 1] = x * (-constant - k) * (sp.sin(k) ** 2 + sp.cos(k) ** 2 - sp.Rational(3, 2))
    return M


@pytest.mark.parametrize("name", ["c_0", "c_1", "c_7", "_c_0", "C0", "Dummy_0"])
def test_a_user_symbol_named_like_a_template_constant_is_not_a_template_constant(name):
    constant = sp.Symbol(name, real=True)
    M = _near_zero_matrix(constant)
    verdict = verify(M, sp.zeros(7, 7))
    assert verdict.refuted and verdict.entry == (0, 1), verdict.explain()
    assert_sound_refutation(M, sp.zeros(7, 7), verdict)


def test_huge_float_constants_do_not_refute_a_true_claim():
    lhs, rhs = -1e20 * s + (s + 2) * (s + 1e20) - 2e20, s**2 + 2 * s
    verdict = verify(lhs, rhs)
    assert verdict.status in ("proved", "undecided"), verdict.explain()
    assert verdict.proved  # exactly: the 1e20 terms cancel in rationals


@pytest.mark.parametrize("lhs, rhs", [
    ((b + 2 * y + 0.5) ** 2, (b + 2 * y) ** 2 + (b + 2 * y) + 0.25),
    (sp.cos(0.5 * a) * sp.cos(0.5 * b) + sp.sin(0.5 * a) * sp.sin(0.5 * b), sp.cos(0.5 * (a - b))),
])
def test_true_float_claims_are_proved_not_internal_errors(lhs, rhs):
    verdict = verify(lhs, rhs)
    assert verdict.proved, verdict.explain()
    assert verdict.cross_checks >= 1


def test_template_keys_are_exact():
    """0.5 and 0.5 + 2**-53 print alike at 15 digits; their keys (and templates) differ."""
    near = sp.Float(sp.Rational(1, 2) + sp.Rational(1, 2**53), 30)
    assert str(sp.Float(0.5)) == str(sp.Float(near, 15))
    assert expression_key(sp.Float(0.5) * x, {}, {}) != expression_key(near * x, {}, {})
    # keeps_concrete Floats are atoms of the key: they must not merge either
    first, second = sp.sin(x) + sp.Float(0.5), sp.sin(x) + near
    assert expression_key(first, {}, {}) != expression_key(second, {}, {})
    # A Dummy and a Symbol of the same name and assumptions are different atoms
    assert expression_key(sp.Dummy("x", real=True), {}, {}) != expression_key(x, {}, {})


def test_entries_sharing_a_key_are_each_checked_against_the_template():
    """Different symbols that print alike must not be proved by one entry's proof."""
    twin = sp.Dummy("x", real=True)
    lhs = sp.Matrix([[sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.sin(twin) ** 2 + sp.cos(x) ** 2]])
    verdict = verify(lhs, sp.Matrix([[1, 1]]))
    assert verdict.refuted and verdict.entry == (0, 1), verdict.explain()


def test_template_membership_is_structural():
    template, slots = template_of(sp.cos(x / 3) ** 2 + sp.sin(x / 3) ** 2 - 1, {})
    assert all(isinstance(slot, sp.Dummy) for slot in slots)
    assert is_instance(template, slots, sp.cos(x / 5) ** 2 + sp.sin(x / 5) ** 2 - 1, {})
    # equal constants in the template, different ones in the member: not an instance
    assert not is_instance(template, slots, sp.cos(x / 5) ** 2 + sp.sin(x / 7) ** 2 - 1, {})
    # a negative constant in a slot proved for positive constants: not an instance
    positive, positive_slots = template_of(sp.sqrt(x**2 / 4) - sp.Abs(x) / 2, {})
    assert not is_instance(positive, positive_slots, sp.sqrt(x**2 / 4) + sp.Abs(x) / 2, {})


# ----------------------------------------------------------------- Floats read exactly
def test_floats_are_read_as_their_binary_rationals():
    assert exact_rational(sp.Float(0.1)) == sp.Rational(3602879701896397, 2**55)
    wide = sp.Float("0.1", 60)  # more than 53 bits: its own mantissa, not a double's
    assert exact_rational(wide) != exact_rational(sp.Float(0.1))
    assert abs(exact_rational(wide) - sp.Rational(1, 10)) < sp.Rational(1, 10**59)
    assert exact_rational(sp.Float(-2.5)) == sp.Rational(-5, 2)
    assert exact_rational(sp.Float(0)) == 0
    expr, count = read_floats_exactly(sp.sin(0.25 * x) + x**2.0)
    assert count == 2 and expr == sp.sin(x / 4) + x**2 and not expr.atoms(sp.Float)


def test_a_float_claim_is_about_the_binary_values():
    """0.1 + 0.2 is not 0.3 in binary; 0.5 + 0.25 is 0.75 exactly."""
    verdict = verify(sp.Float(0.1) * x + sp.Float(0.2) * x, sp.Float(0.3) * x)
    assert verdict.refuted, verdict.explain()
    assert_sound_refutation(sp.Float(0.1) * x + sp.Float(0.2) * x, sp.Float(0.3) * x, verdict)
    assert verify(sp.Float(0.5) * x + sp.Float(0.25) * x, sp.Float(0.75) * x).proved


def test_float_hypotheses_are_read_exactly_too():
    verdict = verify(x, y + 0.1, assumptions=[sp.Eq(x, y + sp.Rational(1, 10))])
    assert verdict.refuted, verdict.explain()  # 1/10 is not the double 0.1


# ----------------------------------------------------------------- sampled points
def test_points_respect_imaginary_and_extended_assumptions():
    z = sp.Symbol("z", imaginary=True)
    assert verify(sp.re(z), 0).proved                       # sampling z = 1/2 + 4i refuted it
    assert verify(sp.sqrt(z**2), z).refuted                 # z = -i: sqrt(-1) = i
    w = sp.Symbol("w", extended_positive=True)
    assert not verify(sp.sqrt(w**2), w).refuted             # true for every positive w


def test_a_symbol_no_exact_value_satisfies_is_not_a_crash():
    u = sp.Symbol("u", transcendental=True)
    assert verify(u + 1, 1 + u).proved
    assert verify(sp.sin(u) ** 2, 1 - sp.cos(u) ** 2).status in ("proved", "undecided")
    assert verify(u, u + 1).status in ("refuted", "undecided")


def test_counterexamples_satisfy_hypotheses_exactly_not_to_25_digits():
    """x = y + 1e-40 holds to 39 digits at x = y but is no point of the hypothesis."""
    hypothesis = sp.Eq(x**2, y**2 + sp.Rational(1, 10**40))
    verdict = verify(x**2 - y**2, 0, assumptions=[hypothesis])
    assert not verdict.refuted, verdict.explain()


# ----------------------------------------------------------------- the checker
@pytest.mark.parametrize("name", ["p", "s", "t", "d", "x0", "y1", "a", "b"])
def test_an_encoding_parameter_named_like_a_checker_symbol_stays_itself(name):
    """R(w p) is relative for every w; a parameter called p or s used to be the position."""
    w = sp.Symbol(name, real=True)
    encoding = Encoding.from_matrices(f"named_{name}", lambda p: rotation(w * p),
                                      lambda p: rotation(w * p))
    report = check(encoding, budget=60)
    assert report.verdicts() == {"linearity": "proved", "translation_invariance": "proved",
                                 "identity_at_zero": "proved", "continuity": "proved"}
    assert list(report.classification) == ["p"]


def test_a_nonlinear_encoding_parameter_named_a_or_b_stays_itself():
    """The linearity claim q(a x + b y) uses its own a, b; the user's a is a parameter."""
    user_a = sp.Symbol("a", real=True)

    def query(v, p):
        return sp.Matrix([v[0] + user_a * v[1] ** 2, v[1]])

    report = check(Encoding("quadratic", 2, query, query), budget=60)
    assert report.assumptions["linearity"].verdict == "refuted"


def test_check_of_a_float_rotation_never_crashes(tmp_path):
    """`symrope check` of R(0.5 p): no traceback, never exit 1 (refuted)."""
    module = tmp_path / "half_rotation.py"
    module.write_text(textwrap.dedent("""
        import sympy as sp
        from symrope.checker import Encoding

        def R(angle):
            return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])

        half = Encoding.from_matrices("half", lambda p: R(0.5 * p), lambda p: R(0.5 * p))

        def pairs(x, p):
            return sp.Matrix([sp.cos(0.5*p)*x[0] - sp.sin(0.5*p)*x[1],
                              sp.sin(0.5*p)*x[0] + sp.cos(0.5*p)*x[1],
                              sp.cos(0.1*p)*x[2] - sp.sin(0.1*p)*x[3],
                              sp.sin(0.1*p)*x[2] + sp.cos(0.1*p)*x[3]])

        zoo_like = Encoding("zoo_like", 4, pairs, pairs)
    """))
    for name in ("half", "zoo_like"):
        run = subprocess.run([sys.executable, "-m", "symrope", "check", f"{module}:{name}",
                              "--budget", "60"], capture_output=True, text=True, timeout=240)
        assert "Traceback" not in run.stdout + run.stderr, run.stderr
        assert run.returncode == 0, run.stdout + run.stderr
        assert "translation invariance    proved" in run.stdout


def test_the_checker_reads_an_encodings_floats_before_multiplying_them():
    """0.1 * 10 rounds to 1.0 in doubles, but the binary 0.1 times 10 is not 1: F^T G != I.
    The check multiplies F^T G only after reading the Floats exactly, so it says so."""
    scaled = Encoding.from_matrices("scaled", lambda p: 0.1 * rotation(p),
                                    lambda p: 10 * rotation(p))
    report = check(scaled, budget=60)
    assert report.assumptions["identity_at_zero"].verdict == "refuted"
    assert report.assumptions["translation_invariance"].verdict == "proved"
    exact = Encoding.from_matrices("exact", lambda p: 0.5 * rotation(p),
                                   lambda p: 2 * rotation(p))
    assert check(exact, budget=60).verdicts()["identity_at_zero"] == "proved"


def test_a_float_too_large_to_read_exactly_is_undecided_at_once():
    """exp of a large Float gives 1.3e+43429448190325182765: its exact integer cannot be built,
    and the fuzzer found verify stuck on it past any budget. Now: undecided, with the reason."""
    import time

    c = sp.Symbol("C1", real=True)
    huge = sp.Float("1.29685640608483e+43429448190325182765") * sp.exp(sp.Float(0.3) * c)
    started = time.monotonic()
    verdict = verify(huge, huge, budget=1)
    assert verdict.status == "undecided" and "cannot be built" in verdict.reason
    assert time.monotonic() - started < 5
