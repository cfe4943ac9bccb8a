"""Every registered theorem is proved, states itself, and its false claims are really false.

A theorem is tested by being registered: the generic tests walk the registry
(``builtin_theorems()``), each theorem at its defaults (what ``symrope prove`` runs: small by
the library's convention); the specific ones check what the seed article's theorems 1-4, 6 and
7 prove. The parameter grids run in ``proofs/``.
"""

import ast
import pathlib

import pytest
import sympy as sp
from matrix_helpers import explicit_matrix

from symrope import UsageError
from symrope.engine import CHECKED, CITED, PROVED, REFUTED
from symrope.theorems import builtin_theorems, get_theorem, signature_defaults
from symrope.linalg import J, rotation
from symrope.schedules import rope_frequencies, xpos_scales

# The registry, in library order: a new theorem is in every test below by being registered.
REGISTERED = list(builtin_theorems())
SEED = ["group_law", "exponential_form", "general_solution", "matrix_exponential",
        "rope_relative", "xpos_damped_rotation"]  # the seed article's theorems 1-4, 6 and 7


@pytest.fixture(scope="module")
def reports():
    return {name: get_theorem(name).build().prove() for name in REGISTERED}


def test_the_seed_articles_theorems_are_registered():
    assert set(SEED) <= set(REGISTERED) and len(REGISTERED) >= 16


@pytest.mark.parametrize("name", REGISTERED)
def test_every_theorem_is_proved_with_every_step_as_expected(reports, name):
    report = reports[name]
    assert report.verdict == PROVED, report.explain()
    assert report.checked_steps >= (5 if name in SEED else 2)
    for result in report.results:
        if result.step.kind == CHECKED:
            assert result.verdict.status == result.step.expect
            assert result.step.justification.strip()
        if result.step.kind == CITED:
            assert result.step.reference


@pytest.mark.parametrize("name", REGISTERED)
def test_every_theorem_states_itself_in_text_and_latex(name):
    thm = get_theorem(name).build()
    assert len(thm.statement) > 60
    assert thm.statement_latex and "\\" in thm.statement_latex
    assert thm.hypotheses
    assert thm.built_in and thm.summary and thm.title


def test_exponential_form_cites_mathlib_and_hamel(reports):
    references = [r.step.reference for r in reports["exponential_form"].results
                  if r.step.kind == CITED]
    assert any("OneParameterSubgroup.existsUnique_generator" in ref and
               "Mathlib/Analysis/Normed/Algebra/OneParameterSubgroup.lean" in ref
               for ref in references)
    assert any("Hamel" in ref for ref in references)


def test_group_law_uses_opaque_matrices_not_examples(reports):
    steps = [r for r in reports["group_law"].results
             if r.step.kind == CHECKED and r.step.expect == PROVED]
    assert all(r.step.lhs.atoms(sp.MatrixSymbol) for r in steps)
    assert any(r.verdict.method == "matrix algebra" for r in steps)


def _refuted_steps(report):
    return [r for r in report.results if r.step.kind == CHECKED and r.step.expect == REFUTED]


def _difference_at(step, point):
    """max |lhs - rhs| at ``point``, substituted and evaluated here at 30 digits."""
    matrices = {k: v for k, v in point.items() if isinstance(k, sp.MatrixSymbol)}
    scalars = {k: v for k, v in point.items() if not isinstance(k, sp.MatrixSymbol)}
    sides = []
    for side in (step.lhs, step.rhs):
        value = side.xreplace(scalars).xreplace(matrices)
        if isinstance(value, (sp.MatrixBase, sp.MatrixExpr)):
            value = explicit_matrix(value)
        sides.append(value)
    difference = sides[0] - sides[1]
    entries = list(difference) if isinstance(difference, sp.MatrixBase) else [difference]
    return max(abs(sp.N(e, 30)) for e in entries)


@pytest.mark.parametrize("name", REGISTERED)
def test_refuted_steps_carry_counterexamples_that_really_falsify(reports, name):
    """Each claim a theorem states to be false is false at the engine's counterexample,
    re-evaluated here at 30 digits, independently of the engine."""
    refuted = _refuted_steps(reports[name])
    if not refuted:
        pytest.skip(f"{name} states no false claim")
    for result in refuted:
        assert result.verdict.status == REFUTED
        assert _difference_at(result.step, result.verdict.counterexample) > 1e-6


def test_identical_damping_depends_on_the_sum_of_positions(reports):
    (result,) = [r for r in _refuted_steps(reports["xpos_damped_rotation"])
                 if r.step.claim.startswith("identical damping")]
    point = result.verdict.counterexample
    zeta, u = sp.Symbol("zeta", positive=True), sp.Symbol("u", real=True)
    values = {k.name: v for k, v in point.items()}
    assert {"zeta", "u"} <= set(values), values  # the counterexample names zeta and the shift u
    factor = (zeta ** (2 * u)).xreplace({zeta: values["zeta"], u: values["u"]})
    # the score is multiplied by zeta^(2u) when both positions shift by u: not 1 at the point
    assert abs(sp.N(factor, 30) - 1) > 1e-6


def test_rope_proves_one_template_for_all_pairs(reports):
    """d = 128 and 4096 run in proofs/seed_theorems.py; here the default d = 64."""
    relative = [r for r in reports["rope_relative"].results
                if r.step.claim.startswith("R_d(s)^T R_d(t)")][0]
    assert relative.verdict.details["blocks"] == 32
    assert relative.verdict.details["templates"] == 1


def test_rope_with_a_symbolic_base():
    assert get_theorem("rope_relative").build(d=4, theta="theta").prove().verdict == PROVED


def test_frequencies_and_xpos_scales_are_the_published_formulas():
    assert [float(w) for w in rope_frequencies(8, 10000)] == pytest.approx(
        [1.0, 0.1, 0.01, 0.001])
    # (2i/8 + 2/5) / (7/5) for i = 0..3, by hand: 2/7, 13/28, 9/14, 23/28.
    assert xpos_scales(8) == [sp.Rational(2, 7), sp.Rational(13, 28), sp.Rational(9, 14),
                              sp.Rational(23, 28)]
    assert all(0 < z < 1 for z in xpos_scales(128))  # so e^{-lambda_i l} decays over lag


def test_rotation_and_generator():
    phi = sp.Symbol("phi", real=True)
    assert J * J == -sp.eye(2)
    assert rotation(phi).diff(phi).subs(phi, 0) == J


@pytest.mark.parametrize("name, params, message", [
    ("rope_relative", {"d": 7}, "even"),
    ("rope_relative", {"theta": 1}, "theta"),
    ("rope_relative", {"theta": -5}, "theta"),
    ("xpos_damped_rotation", {"gamma": -1}, "gamma"),
    ("xpos_damped_rotation", {"scale_base": 0}, "scale base"),
    ("group_law", {"n": 0}, "matrix size"),
    ("matrix_exponential", {"order": 0}, "order"),
    ("general_solution", {"dimension": 3}, "no parameter"),
])
def test_bad_parameters_get_one_line_errors(name, params, message):
    with pytest.raises(UsageError, match=message) as error:
        get_theorem(name).build(**params)
    assert "\n" not in str(error.value)


def test_cli_proves_a_theorem_as_json(capsys):
    """Also guards the JSON of a refutation (its entry index must be plain ints)."""
    from symrope.cli import main

    assert main(["prove", "group_law", "--json"]) == 0
    document = __import__("json").loads(capsys.readouterr().out)
    (entry,) = document["theorems"]
    assert entry["name"] == "group_law" and entry["verdict"] == "proved"
    assert entry["checked_steps"] == 8 + 1  # eight proved steps and one expected refutation


def test_cli_rejects_an_odd_head_dimension_in_one_line(capsys):
    from symrope.cli import main

    assert main(["prove", "rope_relative", "--param", "d=7"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "even" in error


# The parameters `symrope prove` used when the defaults were written twice (decorator and
# signature, which disagreed for two schedule theorems): the decorator's, kept.
PROVE_DEFAULTS = {
    "group_law": {"n": 3}, "exponential_form": {"n": 3}, "general_solution": {"n": 3},
    "matrix_exponential": {"order": 6, "steps": 5, "n": 3},
    "skew_blocks_axis": {"explicit": False},
    "skew_blocks_rational": {"n": 4, "kind": "distinct"},
    "rope_relative": {"d": 64, "theta": 10000},
    "xpos_damped_rotation": {"d": 8, "theta": 10000, "gamma": sp.Rational(2, 5),
                             "scale_base": 512},
    "pairing_permutation": {"d": 8, "theta": 10000},
    "nd_commuting_generators_relative": {"n": 3},
    "nd_noncommuting_generators_not_relative": {},
    "schedule_keeps_relative": {"rope_type": "llama3", "d": 8},
    "length_dependent_schedule_not_relative": {"rope_type": "dynamic", "d": 8},
    "yarn_attention_factor_scales_identity": {"d": 4},
    "alibi_nilpotent": {"d": 2},
}


def test_prove_defaults_are_unchanged():
    theorems = builtin_theorems()
    for name, expected in PROVE_DEFAULTS.items():
        assert theorems[name].defaults == expected, name
    assert not hasattr(theorems["rope_relative"], "grid")


@pytest.mark.parametrize("name", REGISTERED)
def test_prove_defaults_are_the_signature_defaults(name):
    builder = get_theorem(name)
    assert builder.defaults == signature_defaults(builder.build_function)
    assert builder.build().params == builder.defaults


def test_theorems_import_no_private_checker_module():
    folder = pathlib.Path(__file__).resolve().parents[1] / "symrope" / "theorems"
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("symrope.checker"), path.name


def test_rotations_and_frequencies_have_one_home():
    from symrope.checker import _zoo
    from symrope.linalg import _skew
    from symrope.theorems import _matrix_exponential, _rope, _xpos

    assert _zoo.rotation is _skew.rotation is _matrix_exponential.rotation is rotation
    assert _skew.J is _matrix_exponential.J is J
    assert _zoo.rope_frequencies is _rope.rope_frequencies is rope_frequencies
    assert _zoo.xpos_scales is _xpos.xpos_scales is xpos_scales
