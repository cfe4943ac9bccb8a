"""Issue 13: the theorems prove what their statements say. Each test fails if its gap reopens."""

import pytest
import sympy as sp

from symrope.engine import CHECKED, CITED, PROVED, REFUTED, UNDECIDED, Theorem
from symrope.engine._proof import assumes_its_claim, has_content
from symrope.theorems import get_theorem

A, B = sp.MatrixSymbol("A", 3, 3), sp.MatrixSymbol("B", 3, 3)


def test_engine_refuses_a_step_whose_hypothesis_is_its_claim():
    thm = Theorem("self_assuming", "AB = BA for all A, B (false)")
    thm.check(A * B, B * A, "assume it", assumptions=[sp.Eq(A * B, B * A)])
    report = thm.prove()
    (result,) = report.results
    assert report.verdict == UNDECIDED and result.verdict.status == UNDECIDED
    assert "refused" in result.verdict.reason and result.content is False
    assert report.content_steps == 0


def test_the_refusal_also_catches_the_hypothesis_written_the_other_way_round():
    thm = Theorem("self_assuming", "AB = I")
    thm.check(sp.Identity(3), sp.MatMul(A, B, evaluate=False), "assume it",
              assumptions=[sp.Eq(sp.MatMul(A, B, evaluate=False), sp.Identity(3))])
    assert thm.prove().verdict == UNDECIDED


def test_a_hypothesis_that_is_only_part_of_the_claim_is_not_refused():
    C = sp.MatrixSymbol("C", 3, 3)
    thm = Theorem("substitution", "A B C = A when B C = I")
    thm.check(sp.MatMul(A, sp.MatMul(B, C, evaluate=False), evaluate=False), A, "BC = I",
              assumptions=[sp.Eq(sp.MatMul(B, C, evaluate=False), sp.Identity(3))])
    report = thm.prove()
    assert report.verdict == PROVED and not assumes_its_claim(thm.steps[0])


def test_a_value_computed_while_building_has_no_content():
    x = sp.Symbol("x", real=True)
    thm = Theorem("limits", "sin(x)/x -> 1")
    thm.check(sp.limit(sp.sin(x) / x, x, 0), 1, "computed by sp.limit while building")
    thm.check(sp.Limit(sp.sin(x) / x, x, 0), 1, "the engine evaluates the limit")
    report = thm.prove()
    assert report.verdict == PROVED
    assert [r.content for r in report.results] == [False, True]
    assert report.content_steps == 1 and report.to_dict()["content_steps"] == 1


def test_a_pure_substitution_has_no_content():
    thm = Theorem("rename", "A^T = -A")
    thm.check(A.T, -A, "the hypothesis", assumptions=[sp.Eq(A.T, -A)])
    assert not has_content(thm.steps[0]) and thm.prove().content_steps == 0


@pytest.fixture(scope="module")
def reports():
    names = ["exponential_form", "general_solution", "matrix_exponential",
             "nd_commuting_generators_relative", "xpos_damped_rotation", "skew_blocks_axis",
             "rope_relative", "schedule_keeps_relative"]
    return {name: get_theorem(name).build(**({"d": 8} if name == "rope_relative" else {}))
            .prove() for name in names}


def test_no_builtin_step_assumes_its_claim(reports):
    for report in reports.values():
        assert report.verdict == PROVED, report.explain()
        assert not any(assumes_its_claim(r.step) for r in report.results), report.theorem.name


def _claims(report, kind=CHECKED):
    return [r.step.claim for r in report.results if r.step.kind == kind]


def test_general_solution_derives_that_every_solution_has_the_form(reports):
    report = reports["general_solution"]
    claims = _claims(report)
    assert "G(t) = G(0) H(t) = C e^{tX}" in claims
    assert "F(t) = ((C e^{tX})^{-1})^T = C^{-T} ((e^{tX})^{-1})^T" in claims
    derivation = {r.step.claim: r for r in report.results}
    assert derivation["G(t) = G(0) H(t) = C e^{tX}"].content  # G(0) G(0)^{-1} G(t) cancels
    assert "every solution" in report.theorem.statement


def test_matrix_exponential_proves_the_powers_of_j_for_every_k(reports):
    report = reports["matrix_exponential"]
    step = next(r for r in report.results if r.step.claim.startswith("J^{2k} = (-1)^k I implies"))
    assert step.verdict.status == PROVED and step.content
    k = next(iter(step.step.rhs.free_symbols))
    assert k.is_integer and not step.step.rhs.subs(k, 3).equals(step.step.rhs.subs(k, 4))
    limits = [r for r in report.results if r.step.claim.startswith("lim_")]
    assert len(limits) == 3 and all(r.content and r.verdict.status == PROVED for r in limits)
    assert all(isinstance(r.step.lhs, sp.Limit) for r in limits)  # evaluated by the engine


def test_nd_theorem_refutes_the_non_skew_one_axis_case(reports):
    report = reports["nd_commuting_generators_relative"]
    (one_axis,) = [r for r in report.results if r.step.expect == REFUTED]
    assert one_axis.verdict.status == REFUTED
    point = one_axis.verdict.counterexample
    s1, t1 = sp.symbols("s1 t1", real=True)
    values = {str(k): v for k, v in point.items()}
    s_val, t_val = values["s1"], values["t1"]
    assert sp.exp(s_val + t_val) != sp.exp(t_val - s_val)  # the score is e^{s+t}
    assert any(h.startswith(r"$X_1^\top = -X_1$") for h in report.theorem.hypotheses)
    necessity = [r for r in report.results if "[X1, X2]/2" in r.step.claim]
    assert necessity and necessity[0].verdict.status == PROVED and necessity[0].content
    assert "if and only if" in report.theorem.statement


def test_exponential_form_cites_the_integral_lemma_and_files_no_claim_as_definition(reports):
    report = reports["exponential_form"]
    references = [r.step.reference for r in report.results if r.step.kind == CITED]
    # the public Mathlib theorem whose proof holds the (private) integral lemma
    assert any("existsUnique_generator" in ref and "invertible" in ref for ref in references)
    assert not any("exists_isUnit_intervalIntegral" in ref for ref in references)
    assert not any("Thm. 2.14" in ref for ref in references)
    definitions = [r.step.lhs for r in report.results if r.step.kind == "definition"]
    assert not any("=" in str(name) for name in definitions)


def test_content_steps_are_in_the_json(reports):
    document = reports["general_solution"].to_dict()
    assert document["content_steps"] == sum(step.get("content", False)
                                            for step in document["steps"])
    assert 0 < document["content_steps"] < document["checked_steps"]
    assert document["instance_steps"] >= 3
    assert all("content" in step for step in document["steps"] if step["kind"] == "checked")


def test_xpos_checks_that_every_pair_decays(reports):
    report = reports["xpos_damped_rotation"]
    (step,) = [r for r in report.results if r.step.claim.startswith("1 - zeta_i")]
    assert step.verdict.status == PROVED and step.content
    assert "lambda > 0" in report.theorem.hypotheses[0]


def test_skew_blocks_cite_the_normal_form_and_check_the_block_product(reports):
    report = reports["skew_blocks_axis"]
    assert any("Cor. 2.5.11" in r.step.reference for r in report.results if r.step.kind == CITED)
    # the statement says which matrices it covers; what is cited is the derivation's business
    assert "for every real axis" in report.theorem.statement


def test_schedules_no_longer_claim_position_independence_from_im_omega(reports):
    claims = _claims(reports["schedule_keeps_relative"])
    assert not any(claim.startswith("Im(") for claim in claims)
    assert "not checked" in reports["schedule_keeps_relative"].theorem.hypotheses[0]


def test_rope_says_for_which_d_and_cites_the_block_lemma(reports):
    report = reports["rope_relative"]
    assert "For $d = 8$" in report.theorem.statement  # each d is its own theorem
    assert any("Higham" in r.step.reference for r in report.results if r.step.kind == CITED)
    assert report.instance_steps >= 1
