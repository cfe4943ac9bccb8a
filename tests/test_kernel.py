"""Kernel checking with Coq: the translation is the claim, true steps check, false ones do not.

The tests that run ``coqc`` skip without it locally and fail without it under CI. The library
theorems the issue names are checked in one ``coqc`` run (a module fixture), as the CLI does.
"""

from __future__ import annotations

import json
import random
import re

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_support import read_coq_term, require_coqc, require_mathcomp
from test_false_claims import FALSE_CLAIMS

from symrope.cli import main
from symrope.engine import Theorem
from symrope.kernel import (CoqPrinter, Untranslatable, check_exports, export_theorem, sanitise,
                            scalar_lemma)
from symrope.theorems import builtin_theorems, get_theorem

a, b, s, t, x = sp.symbols("a b s t x", real=True)
w = sp.Symbol("w", positive=True)

MUST_SHOW = {  # theorem -> parameters; every checked step must be kernel-checked
    "rope_relative": {},
    "xpos_damped_rotation": {},
    "pairing_permutation": {},
    "alibi_nilpotent": {},
    "skew_blocks_rational": {},
    "group_law": {},  # inverses: unitmx premises
}
# symbolic matrix steps with scalar factors and subtraction (the per-step gaps)
MATRIX_GAPS = ["nd_commuting_generators_relative", "general_solution"]


def _theorem_with(lhs, rhs, name="probe"):
    thm = Theorem(name, "a probe")
    thm.check(lhs, rhs, "for the test")
    return thm


@pytest.fixture(scope="module")
def library_check():
    require_coqc()
    theorems = [get_theorem(n).build(**p) for n, p in MUST_SHOW.items()]
    theorems.append(get_theorem("rope_relative").build(d=8, theta="theta"))
    theorems[-1].name = "rope_relative_symbolic_theta"
    theorems.append(get_theorem("matrix_exponential").build())
    theorems += [get_theorem(name).build() for name in MATRIX_GAPS]
    exports = [export_theorem(t) for t in theorems]
    check_exports(exports, whole=False)  # the whole theorems: tests/test_kernel_whole.py
    return {e.name: e for e in exports}


@pytest.mark.parametrize("name", list(builtin_theorems()))
def test_every_registered_theorem_exports_each_checked_step_or_says_why(name):
    """The registry, not a list: a new theorem is exported (no coqc needed here) by being
    registered; each checked step has its lemmas or the reason it has none, and the whole Coq
    statement goes with exactly the theorems stated whole."""
    from symrope.engine import CHECKED
    from symrope.kernel._whole import WHOLE_THEOREMS

    theorem = get_theorem(name).build()
    export = export_theorem(theorem)
    assert len(export.steps) == sum(1 for step in theorem.steps if step.kind == CHECKED)
    for step in export.steps:
        assert (step.lemmas or step.matrix_lemmas) if step.exported else step.reason.strip()
    assert (export.whole is not None) == (name in WHOLE_THEOREMS)


# --- translation: exact, sanitised, and equal to the SymPy claim ---------------------------

def test_constants_are_exact_ratios_never_decimals():
    printer = CoqPrinter({x: "x"})
    assert printer.doprint(sp.Rational(-3, 7) * x) == "(((IZR (-3)) / (IZR 7)) * x)"
    assert printer.doprint(sp.Integer(10) ** 40) == f"(IZR {10 ** 40})"
    with pytest.raises(Untranslatable, match="decimal"):
        printer.doprint(sp.Float("0.1") * x)


def test_powers_of_bases_not_known_positive_and_complex_symbols_are_refused():
    with pytest.raises(Untranslatable, match="positive"):
        CoqPrinter({x: "x"}).doprint(sp.sqrt(x))
    with pytest.raises(Untranslatable, match="not declared real"):
        scalar_lemma("c", sp.Symbol("z") * 2, sp.Symbol("z") + sp.Symbol("z"))


def test_sanitiser_keeps_user_text_out_of_coq():
    names = ["x", "q_a", "x*)", "Axiom", "admit", "1x", "cos", "θ", "symrope_sc", "a b"]
    taken: set = set()
    for name in names:
        clean = sanitise(name, taken)
        taken.add(clean)
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", clean), clean
        assert clean not in {"Axiom", "admit", "cos"} and not clean.startswith("symrope")
    assert len(taken) == len(names)  # distinct names stay distinct


def _points(symbols, rng, count=3):
    for _ in range(count):
        yield {sym: sp.Rational(rng.randint(1, 40), 1 if sym.is_integer else rng.randint(1, 9)) * (
            1 if sym.is_positive or sym.is_nonnegative or rng.random() < 0.5 else -1)
            for sym in symbols}


def _assert_statement_is_the_claim(lemma, rng, count=3):
    """Read the Coq statement back into SymPy and compare both sides with the SymPy claim at
    random rational points (30 digits)."""
    claim_lhs, claim_rhs, names = lemma.source
    for coq_text, claim_side in ((lemma.lhs, claim_lhs), (lemma.rhs, claim_rhs)):
        coq_side = read_coq_term(coq_text, names)
        for point in _points(names.values(), rng, count):
            mine = sp.N(coq_side.xreplace(point), 30)
            theirs = sp.N(sp.sympify(claim_side).xreplace(point), 30)
            assert abs(mine - theirs) <= sp.Float(10) ** -25 * (1 + abs(theirs)), \
                (lemma.name, coq_text, point)


@pytest.mark.parametrize("name", ["rope_relative", "xpos_damped_rotation", "matrix_exponential",
                                  "alibi_nilpotent", "schedule_keeps_relative",
                                  "pairing_permutation", "skew_blocks_axis"])
def test_printed_statements_read_back_to_the_sympy_claims(name):
    """Every exported scalar lemma of the theorem, read back from its Coq text, equals the
    SymPy claim it was printed from: the translation states the claim."""
    rng = random.Random(7)
    export = export_theorem(get_theorem(name).build())
    lemmas = [lemma for step in export.steps for lemma in step.lemmas]
    assert lemmas
    for lemma in lemmas:
        _assert_statement_is_the_claim(lemma, rng, count=2)


def test_reading_back_catches_a_wrong_translation():
    lemma = scalar_lemma("probe", sp.cos(s * w ** sp.Rational(-1, 4)) * sp.exp(-2 * t)
                         + sp.Rational(3, 5) * x ** 3, w ** s * sp.exp(-x) / 7, force=True)
    _assert_statement_is_the_claim(lemma, random.Random(3), count=5)
    assert "0 < w" in lemma.hypotheses
    lemma.lhs = lemma.lhs.replace("(IZR 3)", "(IZR 4)")  # a translation slip must be caught
    with pytest.raises(AssertionError):
        _assert_statement_is_the_claim(lemma, random.Random(3), count=5)


# --- kernel checks --------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(MUST_SHOW) + ["rope_relative_symbolic_theta"])
def test_every_checked_step_is_kernel_checked(library_check, name):
    export = library_check[name]
    if any(s.matrix_lemmas for s in export.steps):
        require_mathcomp()  # the symbolic matrix (score) steps are MathComp lemmas
    missing = [(s.index, s.claim, s.reason or s.detail) for s in export.steps
               if s.kernel != "checked"]
    expected_refuted = [s for s in export.steps if s.reason and "expects refuted" in s.reason]
    assert [m for m in missing if "expects refuted" not in (m[2] or "")] == []
    assert export.checked == len(export.steps) - len(expected_refuted) > 0


def test_matrix_exponential_generator_and_series_are_kernel_checked(library_check):
    steps = {s.claim: s for s in library_check["matrix_exponential"].steps}
    # The induction steps hold (-1)^k for an integer k: symrope_sign k = cos(PI k) in Coq.
    for claim in ["J^{2k} = (-1)^k I implies J^{2k+2} = (-1)^k I J^2 = (-1)^{k+1} I",
                  "J^{2k+1} = (-1)^k J for every k >= 0"]:
        assert steps[claim].kernel == "checked" and not steps[claim].trivial, claim
    # the limits stay SymPy's: no exact Coq statement
    assert "Limit" in steps["lim_(N->oo) N atan(phi/N) = phi"].reason
    for claim in ["J^2 = -I",
                  "sum_(k=0)^(13) (phi J)^k / k! = C_12(phi) I + S_13(phi) J",
                  "(aI + bJ)(cI + eJ) = (ac - be) I + (ae + bc) J",
                  "R'(phi) = J R(phi)", "(dX)^T = -dX", "-dX and dX commute"]:
        assert steps[claim].kernel == "checked", (claim, steps[claim].detail)
    # J J is written out unevaluated, so the kernel checks the multiplication itself (0 * 0 +
    # (-1) * 1 = -1), not -1 = -1; the orthogonality step needs sin^2 + cos^2 = 1.
    assert not steps["J^2 = -I"].trivial
    assert "(IZR 0) * (IZR 0)" in steps["J^2 = -I"].lemmas[0].lhs
    orthogonal = steps["(e^{d omega J})^T e^{d omega J} = I (the 2x2 skew generator omega J)"]
    assert orthogonal.kernel == "checked" and not orthogonal.trivial
    assert any("symrope_sc" in line for lemma in orthogonal.lemmas for line in lemma.proof)
    # SymPy's own closed form compared with itself: a reflexivity, counted apart
    assert steps["e^{phi J} = cos(phi) I + sin(phi) J = R(phi)"].trivial


def test_inverse_steps_are_kernel_checked_with_unit_premises(library_check):
    export = library_check["group_law"]
    inverse_steps = [s for s in export.steps if not s.expects_refuted]
    assert len(inverse_steps) == 8 and all(s.kernel == "checked" for s in inverse_steps)
    lemma = inverse_steps[0].matrix_lemmas[0]
    assert any("\\in unitmx" in premise for premise in lemma.premises)
    assert "invmx" in lemma.text()


@pytest.mark.parametrize("name", MATRIX_GAPS)
def test_scalar_and_distributivity_matrix_steps_are_kernel_checked(library_check, name):
    require_mathcomp()
    export = library_check[name]
    missing = [(s.claim, s.reason or s.detail) for s in export.steps
               if not s.expects_refuted and s.kernel != "checked"]
    # what stays out, and why: a rational coefficient (a ring need not divide by 2), and
    # symbolic entries not declared real
    assert all("rational factor" in why or "not declared real" in why for _, why in missing), \
        missing
    claims = {s.claim: s for s in export.steps}
    if name == "nd_commuting_generators_relative":
        for claim in ["(U + V)(W + Z) = U W + U Z + V W + V Z", "A(s)^T = -A(s)",
                      "[A(s), A(t)] = (s1 t2 - s2 t1) [X1, X2]", "A(t) - A(s) = A(t - s)"]:
            assert claims[claim].kernel == "checked", claim


def test_symbolic_theta_template_is_one_lemma_per_entry_for_every_block(library_check):
    export = library_check["rope_relative_symbolic_theta"]
    relative = next(s for s in export.steps if s.claim.startswith("R_d(s)^T R_d(t)"))
    assert relative.kernel == "checked" and relative.templates >= 1
    text = "\n".join(lemma.text() for lemma in relative.lemmas)
    assert "Rpower theta" in text and "0 < theta" in text


def test_signs_and_square_roots_are_kernel_checked_and_their_slips_rejected():
    require_coqc()
    k = sp.Symbol("k", integer=True)
    p, q = sp.symbols("p q", real=True)
    true = [((-1) ** (k + 1), -(-1) ** k), ((-1) ** (2 * k), sp.Integer(1)),
            ((-1) ** (k - 3) * (-1) ** k, sp.Integer(-1)),
            (p ** 2 / sp.sqrt(p ** 2 + q ** 2) + q ** 2 / sp.sqrt(p ** 2 + q ** 2),
             sp.sqrt(p ** 2 + q ** 2))]
    false = [((-1) ** (k + 1), (-1) ** k),
             (p ** 2 / sp.sqrt(p ** 2 + q ** 2), sp.sqrt(p ** 2 + q ** 2))]
    exports = [export_theorem(_theorem_with(lhs, rhs, f"true_{i}")) for i, (lhs, rhs) in
               enumerate(true)]
    exports += [export_theorem(_theorem_with(lhs, rhs, f"false_{i}"), force=True)
                for i, (lhs, rhs) in enumerate(false)]
    assert all(e.steps[0].exported for e in exports), [e.steps[0].reason for e in exports]
    check_exports(exports, whole=False)
    assert [e.steps[0].kernel for e in exports] == ["checked"] * len(true) + \
        ["rejected"] * len(false)
    # the sign is cos(PI k), equal to (-1)^k at integers only: k is declared an integer
    lemma = exports[0].steps[0].lemmas[0]
    assert "symrope_sign" in lemma.lhs and "exists z : Z, k = IZR z" in lemma.statement
    # sqrt(u) needs u > 0: a premise printed in the statement, reported as a condition
    assert "0 < ((p ^ 2) + (q ^ 2))" in exports[3].steps[0].lemmas[0].statement
    assert exports[3].steps[0].to_dict()["conditions"] == ["0 < ((p ^ 2) + (q ^ 2))"]


FALSE_STEPS = ["cos addition with a wrong sign", "sin addition with a wrong sign",
               "mismatched q/k frequencies", "identical damping is relative",
               "identical damping is translation invariant", "R(s)^T R(t) = R(s + t)",
               "J^2 = I", "H(-a) = H(a)"]


def test_false_steps_exported_on_purpose_are_rejected_by_coqc():
    require_coqc()
    exports = []
    for number, name in enumerate(FALSE_STEPS):
        lhs, rhs = FALSE_CLAIMS[name]
        export = export_theorem(_theorem_with(lhs, rhs, f"false_{number}"), force=True)
        assert export.steps[0].exported, (name, export.steps[0].reason)
        exports.append(export)
    check_exports(exports)
    assert [(e.name, e.steps[0].kernel) for e in exports] == \
        [(f"false_{n}", "rejected") for n in range(len(FALSE_STEPS))]


def test_without_force_false_steps_are_not_exported():
    lhs, rhs = FALSE_CLAIMS["cos addition with a wrong sign"]
    step = export_theorem(_theorem_with(lhs, rhs)).steps[0]
    assert not step.exported and "not in the ideal" in step.reason


def test_a_tampered_statement_with_a_valid_proof_is_rejected():
    require_coqc()
    good = export_theorem(_theorem_with(sp.cos(a - b), sp.cos(a) * sp.cos(b)
                                        + sp.sin(a) * sp.sin(b), "good"))
    bad = export_theorem(_theorem_with(sp.cos(a - b), sp.cos(a) * sp.cos(b)
                                       + sp.sin(a) * sp.sin(b), "bad"))
    lemma = bad.steps[0].lemmas[0]
    lemma.rhs = lemma.rhs.replace(" + ", " + (IZR (-1)) * ", 1)  # flip one sign, keep the proof
    check_exports([good, bad])
    assert good.steps[0].kernel == "checked" and bad.steps[0].kernel == "rejected"


def test_generated_files_hold_no_axiom_admitted_or_admit(tmp_path):
    from symrope.cli._export import export_main

    assert export_main(["coq", "--out", str(tmp_path)]) == 0
    files = list(tmp_path.glob("*.v"))
    assert len(files) >= len(builtin_theorems())
    for path in files:
        text = path.read_text()
        for word in ("Axiom", "Admitted", "admit", "Parameter", "Conjecture", "Abort"):
            assert not re.search(rf"\b{word}\b", text), (path.name, word)


# --- command line ---------------------------------------------------------------------------

def test_prove_kernel_json_reports_coverage(capsys):
    require_coqc()
    assert main(["prove", "rope_relative", "--param", "d=8", "--kernel", "coq", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    kernel = document["theorems"][0]["kernel"]
    assert kernel["system"] == "coq" and kernel["theorem"] == "checked"
    assert {h["name"] for h in kernel["hypotheses"]} == {"expm_bdiag", "expm_rotation"}
    assert all(h["kind"] == "analytic" and h["coq"].startswith("forall") for h in
               kernel["hypotheses"])
    assert kernel["premises"].startswith("satisfiable (Coq witness")
    # trivial steps apart: the frequencies and SymPy's closed forms compared with themselves
    assert kernel["trivial"] == 3 and kernel["nontrivial"] == kernel["nontrivial_checked"] == 4
    steps = {s["step"]: s for s in kernel["steps"]}
    assert steps[2]["trivial"] and steps[2]["kernel"] == "checked"
    assert not steps[6].get("trivial") and steps[6]["kernel"] == "checked"


def test_prove_kernel_table_has_the_coverage_columns(capsys):
    require_coqc()
    assert main(["prove", "pairing_permutation", "exponential_form", "--kernel", "coq"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"coq theorem\s+steps\s+trivial", out), out
    # the pairing steps are products SymPy evaluated while building: all trivial, no coverage
    assert re.search(r"pairing_permutation\s+proved\s+4\s+0\s+\S+s\s+checked\s+0/0\s+4", out), out
    assert re.search(r"exponential_form\s+proved\s+17\s+6\s+\S+s\s+not stated\s+\d+/\d+\s+\d", out)
    assert "whole theorems kernel-checked: 1/2" in out
    assert "trivial steps, not counted (a reflexivity after build-time evaluation): 9" in out


def test_a_theorem_merely_named_like_a_built_in_one_gets_no_whole_theorem():
    thm = _theorem_with(sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b),
                        "rope_relative")
    export = export_theorem(thm)
    assert export.whole is None and export.theorem_status == "not stated"
    assert export.theorem_text() is None
    assert export_theorem(get_theorem("rope_relative").build(d=4)).whole is not None


def test_contradictory_premises_are_refused_and_never_exported():
    A, B = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    thm = Theorem("vacuous", "from I = 0 and AB = 0, AB = I")
    thm.check(A * B, sp.Identity(2), "contradictory premises", claim="AB = I",
              assumptions=[sp.Eq(sp.Identity(2), sp.ZeroMatrix(2, 2)),
                           sp.Eq(A * B, sp.ZeroMatrix(2, 2))])
    report = thm.prove()
    assert report.verdict == "undecided"
    assert "premises not shown satisfiable" in report.results[0].verdict.reason
    step = export_theorem(thm).steps[0]
    assert not step.exported and "premises not shown satisfiable" in step.reason
    # the same step with satisfiable premises: proved, exported, witness in the evidence
    honest = Theorem("honest", "from AB = I, (AB)B^-1 = B^-1")
    honest.check(sp.MatMul(A * B, B.I, evaluate=False), B.I, "cancel", claim="(AB)B^-1 = B^-1",
                 assumptions=[sp.Eq(A * B, sp.Identity(2))])
    report = honest.prove()
    assert report.verdict == "proved"
    assert report.to_dict()["steps"][0]["evidence"]["premises"].startswith("premises satisfiable")
    assert export_theorem(honest).steps[0].exported


@settings(max_examples=10, deadline=None)
@given(c=st.integers(-5, 5).filter(lambda c: c != 1), size=st.integers(1, 3))
def test_contradictory_premises_never_get_a_witness(c, size):
    from symrope.engine._premises import check_premises

    A, B = sp.MatrixSymbol("A", size, size), sp.MatrixSymbol("B", size, size)
    identity = sp.Identity(size)
    for premises in ([sp.Eq(identity, c * identity)],                    # I = cI, c != 1
                     [sp.Eq(A, A + (c - 1) * identity)],                 # 0 = (c-1) I
                     [sp.Eq(A * B, identity), sp.Eq(A, sp.ZeroMatrix(size, size))]):
        assert not check_premises(premises, A, B).satisfiable, premises


@settings(max_examples=10, deadline=None)
@given(c=st.integers(-5, 5), size=st.integers(1, 3))
def test_premises_satisfiable_by_construction_get_a_witness(c, size):
    from symrope.engine._premises import check_premises

    A, B, C = (sp.MatrixSymbol(n, size, size) for n in "ABC")
    for premises in ([sp.Eq(C, sp.MatMul(A, B, evaluate=False))],       # C defined
                     [sp.Eq(A.T, c * A)],                                # A = 0 works
                     [sp.Eq(A * B, B * A), sp.Eq(C.I, A + B)]):          # identities, C := ...
        found = check_premises(premises, A * C, C)
        assert found.satisfiable, (premises, found.reason)


def test_exported_files_compile(tmp_path):
    """``symrope export coq`` writes files that compile on their own: the step lemmas, the
    MathComp steps (nd_commuting's distributivity included) and the whole theorem."""
    coqc = require_coqc()
    require_mathcomp()
    from concurrent.futures import ThreadPoolExecutor

    from symrope.kernel._whole import compile_text

    assert main(["export", "coq", "nd_commuting_generators_relative", "--out",
                 str(tmp_path)]) == 0
    assert main(["export", "coq", "rope_relative", "--param", "d=8", "--out", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.v"))
    assert {f.name for f in files} >= {"nd_commuting_generators_relative_matrices.v",
                                       "nd_commuting_generators_relative_theorem.v",
                                       "rope_relative.v", "rope_relative_theorem.v"}
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda f: (f.name, *compile_text(coqc, f.read_text(),
                                                                   name=f.stem)), files))
    assert [(name, output[-300:]) for name, ok, output in outcomes if not ok] == []


def test_missing_coqc_is_one_line_and_exit_code_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no coqc on PATH
    assert main(["prove", "alibi_nilpotent", "--kernel", "coq"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "apt-get install --no-install-recommends coq" in err


def test_latex_derivation_marks_kernel_checked_steps_in_the_margin():
    require_coqc()
    from symrope.kernel import mark_kernel_results
    from symrope.latex import theorem_document

    thm = Theorem("marked", "angle subtraction, and a refuted slip")
    thm.check(sp.cos(a - b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), "angle subtraction")
    thm.check(sp.cos(a), sp.cos(a), "a value compared with itself")
    thm.check(sp.cos(a - b), sp.cos(a) * sp.cos(b) - sp.sin(a) * sp.sin(b), "a wrong sign",
              expect="refuted")
    report = thm.prove()
    export = export_theorem(thm)
    check_exports([export])
    mark_kernel_results(report, export)
    assert [r.kernel for r in report.results] == ["checked", "trivial", None]
    tex = theorem_document(report)
    # the reflexivity is not marked as kernel-checked
    assert tex.count("checked + Coq") == 1 and "re-checked by Coq's kernel" in tex


def test_latex_derivation_lists_the_whole_theorem_hypotheses():
    require_coqc()
    from symrope.kernel import mark_kernel_results
    from symrope.latex import theorem_document

    thm = get_theorem("rope_relative").build(d=4)
    report = thm.prove()
    export = export_theorem(thm)
    check_exports([export])
    mark_kernel_results(report, export)
    tex = theorem_document(report).replace(r"\allowbreak{}", "")
    assert "kernel-checked under these named hypotheses" in tex and "RopeRelative.v" in tex
    for name in ("expm{\\ttfamily\\char95}bdiag", "expm{\\ttfamily\\char95}rotation"):
        assert name in tex, name
