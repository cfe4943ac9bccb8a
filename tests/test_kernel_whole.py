"""Whole theorems in Coq: stated, proved for every d, resting only on what they name.

One ``coqc`` run per whole-theorem file (a module fixture, side by side); tamper tests change a
statement while keeping its proof, and ``coqc`` must reject each. Skips without ``coqc``
locally, fails without it under CI.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from kernel_support import require_coqc, require_mathcomp

from symrope.kernel._whole import (ALLOWED_AXIOMS, WHOLE_THEOREMS, check_whole, compile_text,
                                   describe, standalone_text)

# The must-show: stated whole and kernel-checked for every d (a subset of the registry
# of whole theorems, every entry of which is checked below as well).
MUST_SHOW = ["rope_relative", "xpos_damped_rotation", "pairing_permutation", "alibi_nilpotent",
             "group_law", "schedule_keeps_relative"]
# Analytic hypotheses (named, in Coq) each theorem rests on; the rest have none.
ANALYTIC = {"rope_relative": {"expm_bdiag", "expm_rotation"},
            "xpos_damped_rotation": {"expm2_damped_rotation"},
            "alibi_nilpotent": {"expm2_nilpotent"},
            "general_solution": {"expm_zero", "expm_transpose", "expm_add_commuting",
                                 "expm_line_injective"},
            "nd_commuting_generators_relative": {"expm_transpose", "expm_add_commuting",
                                                 "expm_product_commutes"}}


def whole_source(whole) -> str:
    """The hand-written source of a whole-theorem file (what check_whole's source replaces)."""
    from symrope.kernel._whole import COQ_SOURCES

    return (COQ_SOURCES / whole.source).read_text()


def _needs_mathcomp(name: str) -> bool:
    return "From mathcomp" in standalone_text(WHOLE_THEOREMS[name])


@pytest.fixture(scope="module")
def whole_results():
    coqc = require_coqc()
    if any(_needs_mathcomp(name) for name in WHOLE_THEOREMS):
        require_mathcomp()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda w: check_whole(coqc, w), WHOLE_THEOREMS.values()))
    return {r.theorem: r for r in results}


def _tampered(name: str, statement_of: str, old: str, new: str) -> str:
    """The file of ``name`` with ``old`` replaced by ``new`` in the statement of the Coq
    theorem ``statement_of`` only (its proof kept)."""
    source = standalone_text(WHOLE_THEOREMS[name])
    start = source.index(f"Theorem {statement_of} ")
    end = source.index("Proof.", start)
    statement = source[start:end]
    assert statement.count(old) == 1, (statement_of, old)
    return source[:start] + statement.replace(old, new) + source[end:]


# (theorem, what is changed): the statement, still with its proof
TAMPERS = {
    "a sign": ("rope_relative", "rope_relative", "(rope omega (t - s))", "(rope omega (s - t))"),
    "a transpose": ("rope_relative", "rope_relative", "(tr (rope omega s))", "(rope omega s)"),
    "a frequency": ("rope_relative", "rope_relative_score", "(rope omega t) k",
                    "(rope (fun j => 2 * omega j) t) k"),
    "an xPos scale sign": ("xpos_damped_rotation", "xpos_relative_blocks",
                           "(xpos_scaled zeta omega B 1 s)", "(xpos_scaled zeta omega B (-1) s)"),
    "a pairing permutation": ("pairing_permutation", "pairing_permutation",
                              "(tr (perm m))", "(perm m)"),
    "an ALiBi slope": ("alibi_nilpotent", "alibi_score", "- m * (s - t)", "- m * (t - s)"),
}


@pytest.fixture(scope="module")
def tamper_results():
    coqc = require_coqc()

    def compile_one(item):
        label, (name, statement, old, new) = item
        return label, compile_text(coqc, _tampered(name, statement, old, new),
                                   name=f"tampered_{name}")
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(compile_one, TAMPERS.items()))


@pytest.mark.parametrize("name", sorted(WHOLE_THEOREMS))
def test_every_whole_theorem_is_kernel_checked(whole_results, name):
    assert set(MUST_SHOW) <= set(WHOLE_THEOREMS)
    result = whole_results[name]
    assert result.status == "checked", result.detail
    assert result.statements and set(result.axioms) <= ALLOWED_AXIOMS


@pytest.mark.parametrize("name", sorted(WHOLE_THEOREMS))
def test_print_assumptions_lists_only_reals_axioms_and_excluded_middle(whole_results, name):
    result = whole_results[name]
    assert result.status == "checked", result.detail
    assert set(result.axioms) <= ALLOWED_AXIOMS, result.axioms
    # the named hypotheses are the trusted part: exactly those of the file, as Coq text
    assert {h.name for h in result.analytic} == ANALYTIC.get(name, set())
    for hypothesis in result.hypotheses:
        assert hypothesis.coq and not hypothesis.coq.endswith(".")


def test_plain_reals_theorems_rest_on_the_reals_axioms(whole_results):
    # Coq 8.16's reals: a classical Dedekind construction; the MathComp algebra needs none
    assert "ClassicalDedekindReals.sig_forall_dec" in whole_results["rope_relative"].axioms
    assert whole_results["group_law"].axioms == []


def test_an_axiom_smuggled_into_a_whole_theorem_is_rejected():
    coqc = require_coqc()
    whole = WHOLE_THEOREMS["schedule_keeps_relative"]
    source = (whole_source(whole)
              .replace("Theorem schedule_orthogonal", "Axiom symrope_cheat : forall x : R, x = 0."
                       "\nTheorem schedule_orthogonal", 1)
              .replace("intros m omega p. eapply meq_trans; [apply rope_tr_mul|].",
                       "intros m omega p. pose proof (symrope_cheat 0). "
                       "eapply meq_trans; [apply rope_tr_mul|].", 1))
    result = check_whole(coqc, whole, source=source)
    assert result.status == "rejected" and "symrope_cheat" in result.detail


@pytest.mark.parametrize("label", list(TAMPERS))
def test_tampered_statements_are_rejected_by_coqc(tamper_results, label):
    if _needs_mathcomp(TAMPERS[label][0]):
        require_mathcomp()
    accepted, output = tamper_results[label]
    assert not accepted, f"coqc accepted the statement with {label} changed"
    assert "Error" in output and "Syntax error" not in output  # the proof fails, not the parse


@pytest.mark.parametrize("name, hypothesis", [("group_law", "identity_at_zero"),
                                              ("rope_relative", "expm_rotation"),
                                              ("xpos_damped_rotation", "expm2_damped_rotation")])
def test_a_dropped_premise_is_rejected_by_coqc(name, hypothesis):
    coqc = require_coqc()
    if _needs_mathcomp(name):
        require_mathcomp()
    source = standalone_text(WHOLE_THEOREMS[name])
    dropped = re.sub(rf"Hypothesis {hypothesis} :[^.]*\.", "", source)
    assert dropped != source
    accepted, output = compile_text(coqc, dropped, name=f"dropped_{name}")
    assert not accepted and hypothesis in output


def test_hypotheses_have_a_coq_witness_where_one_is_cheap():
    for name in ("rope_relative", "xpos_damped_rotation", "alibi_nilpotent", "group_law"):
        assert describe(WHOLE_THEOREMS[name]).witness, name
    # and the exported file says what it is and compiles without the symrope library
    text = standalone_text(WHOLE_THEOREMS["rope_relative"])
    assert "From Symrope" not in text and "Definition rope " in text
    for word in ("Admitted", "admit", "Parameter", "Conjecture", "Abort"):
        assert not re.search(rf"\b{word}\b", text), word
    assert not re.search(r"^\s*Axiom\b", text, re.MULTILINE)


def test_every_whole_theorem_file_names_its_symrope_theorem():
    from symrope.theorems import builtin_theorems

    assert set(WHOLE_THEOREMS) <= set(builtin_theorems())
