"""Every built-in theorem's derivation compiles with pdflatex, shows its statement, and reads as
mathematics a journal would print.

The theorems are proved once (in worker processes), rendered into the combined document,
which is compiled once; two single-theorem documents are compiled as well. The typesetting
tests (issue 25) run over every theorem's ``.tex`` and document model: no displayed claim with
two identical sides, no word in a PDF smaller than 6 pt, no Python identifier or value in the
mathematics or the prose, one symbol per concept per document, step texts as sentences,
statements without proof metadata.
"""

from __future__ import annotations

import os
import re
import unicodedata
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from symrope.latex import (combined_document, compile_pdf, latex_errors, overfull_boxes,
                           report_markdown, theorem_document)
from symrope.latex._derivation import combined_derivation, theorem_derivation
from symrope.latex._model import WORDS, Step
from symrope.latex._notation import notation_conflicts, python_leaks
from symrope.latex._prose import prose_words
from symrope.latex._render import theorem_title
from symrope.theorems import builtin_theorems, get_theorem
from test_latex_support import pdf_text, require_tool, six_point_height, word_heights

# The right margin of the documents (geometry: right=4.3cm): a line sticking out further
# than this runs off the page.
PAGE_EDGE_PT = 4.3 / 2.54 * 72.27
_PUNCTUATION = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "--", "—": "---", "−": "-"}
# ASCII math that a typeset derivation never shows: a formula printed as text (R_d(s)^T,
# omega_i = theta^(-2i/d)) or a caret that became a wedge.
ASCII_MATH = ["^T", "_d(", "omega_", "theta^(", "∧", "^{", "int_"]
# Matrix symbols whose subscripts or arguments were once glued into one name (R_{t-s} as Rts).
GLUED_NAMES = ["Rts", "Hde", "dHd", "Hdu", "Gab", "Hma", "ETmt", "ETms", "Emt", "Ems"]


def _prove(name: str):
    return get_theorem(name).build().prove(budget=60.0)


@pytest.fixture(scope="module")
def builtin_reports():
    names = list(builtin_theorems())
    assert names, "no built-in theorems are registered"
    workers = max(1, min(len(names), os.cpu_count() or 1, 4))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_prove, names))


def _normalise(text: str) -> str:
    """PDF text and source text compared without whitespace, ligatures or curly quotes."""
    text = unicodedata.normalize("NFKC", text)
    for fancy, plain in _PUNCTUATION.items():
        text = text.replace(fancy, plain)
    return "".join(text.split())


def _statement_words(statement: str) -> list[str]:
    """The statement's words (a formula's superscripts may sit between two of them in the
    PDF's layout text, so words are compared one by one, without adjacent punctuation)."""
    words = [_normalise(word).strip(",.;:()") for piece in prose_words(statement)
             for word in piece.split()]
    return [word for word in words if len(word) > 3]


def _small_words(pdf, six_point: float) -> list:
    """Words (with a letter or digit: delimiters come from the extension font, whose boxes are
    drawn differently) lower than a 6 pt word."""
    return [(round(height, 2), word) for height, word in word_heights(pdf)
            if height < six_point - 0.02 and any(c.isalnum() for c in word)]


def _check_log(log: str, what: str) -> None:
    assert latex_errors(log) == [], f"{what}: {latex_errors(log)}"
    off_page = [amount for amount in overfull_boxes(log) if amount > PAGE_EDGE_PT]
    assert off_page == [], f"{what}: overfull boxes wider than the page: {off_page} pt"


def test_combined_document_of_every_builtin_theorem_compiles(tmp_path, builtin_reports):
    require_tool("pdflatex")
    tex = tmp_path / "all.tex"
    tex.write_text(combined_document(builtin_reports), encoding="utf-8")
    pdf = compile_pdf(tex, tmp_path)
    _check_log((tmp_path / "all.log").read_text(encoding="latin-1"), "combined document")
    assert _small_words(pdf, six_point_height(tmp_path)) == [], "words smaller than 6 pt"
    raw = pdf_text(pdf)
    text = _normalise(raw)
    for report in builtin_reports:
        # The statement's words are quoted exactly; its formulas are typeset (checked below).
        for words in _statement_words(report.theorem.statement):
            assert words in text, (report.theorem.name, words)
        assert _normalise(report.theorem.name) in text
        assert _normalise(theorem_title(report.theorem)) in text
    found = {pattern: raw.count(pattern) for pattern in ASCII_MATH if pattern in raw}
    assert found == {}, f"ASCII math printed as text in the derivations: {found}"
    glued = [name for name in GLUED_NAMES if re.search(rf"\b{name}\b", raw)]
    assert glued == [], f"matrix names lost their subscripts or arguments: {glued}"
    assert f"{sum(r.proved for r in builtin_reports)}of{len(builtin_reports)}theoremsproved" \
        in text


def test_single_theorem_documents_compile(tmp_path, builtin_reports):
    require_tool("pdflatex")
    # the first and last theorems, and the two whose displays used to shrink most
    by_name = {report.theorem.name: report for report in builtin_reports}
    chosen = [builtin_reports[0], builtin_reports[-1], by_name["skew_blocks_axis"],
              by_name["nd_noncommuting_generators_not_relative"]]
    paths = []
    for index, report in enumerate(chosen):
        path = tmp_path / f"theorem{index}.tex"
        path.write_text(theorem_document(report), encoding="utf-8")
        paths.append(path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        pdfs = list(pool.map(lambda p: compile_pdf(p, tmp_path), paths))
    assert all(_check_log(p.with_suffix(".log").read_text(encoding="latin-1"), p.stem) is None
               and not overfull_boxes(p.with_suffix(".log").read_text(encoding="latin-1"))
               for p in pdfs), "a display runs past the text"
    six_point = six_point_height(tmp_path)
    for report, pdf in zip(chosen, pdfs):
        _check_log(pdf.with_suffix(".log").read_text(encoding="latin-1"), report.theorem.name)
        assert _small_words(pdf, six_point) == [], report.theorem.name
        text = _normalise(pdf_text(pdf))
        assert all(words in text for words in _statement_words(report.theorem.statement))
        assert f"Checkedsteps{report.checked_steps}" in text


def test_every_step_of_every_builtin_theorem_is_rendered(builtin_reports):
    for report in builtin_reports:
        tex = theorem_document(report)
        assert tex.count(r"\symropestep{") == len(report.results), report.theorem.name
        cited = re.findall(r"\\stepmark\{cited \[(\d+)\]\}", tex)
        assert len(cited) == report.cited_lemmas
        page = report_markdown(report)
        assert page.count("**Step ") == len(report.results), report.theorem.name


def test_matrix_symbols_keep_their_subscripts_and_arguments(builtin_reports):
    by_name = {report.theorem.name: report for report in builtin_reports}
    rope = theorem_document(by_name["rope_relative"])
    assert r"R_{d}(t-s)" in rope and r"q^{\top} R_{d}(t-s) k" in rope
    assert "Rts" not in rope
    exponential = theorem_document(by_name["exponential_form"])
    assert r"H'(\delta)" in exponential and r"H(\delta+\varepsilon)" in exponential
    assert "dHd" not in exponential and "Hde" not in exponential


def test_rope_relative_shows_its_d_4_instance_with_evaluated_frequencies(builtin_reports):
    (report,) = [r for r in builtin_reports if r.theorem.name == "rope_relative"]
    (instance,) = [r.step for r in report.results if r.step.instance]
    assert "d = 4" in instance.instance and "d = 4" in instance.justification
    tex = theorem_document(report)
    assert "10000^{0}" not in tex and "10000^0" not in tex  # omega_0 = 1, evaluated
    assert report.theorem.params["d"] == 64 and "$d = 64$" in report.theorem.statement


def test_the_engine_method_is_said_once_per_step(builtin_reports):
    for report in builtin_reports:
        for line in re.findall(r"Proved by ([^;]*);", theorem_document(report)):
            rewrites = re.split(r", | and ", re.sub(r"\(.*\)", "", line))
            assert len(rewrites) == len(set(rewrites)), (report.theorem.name, line)


# --- typesetting (issue 25) -----------------------------------------------------------------------

def _arguments(tex: str, start: int, count: int) -> list[str]:
    """The ``count`` brace arguments of a macro whose first ``{`` is at ``start``."""
    arguments, index = [], start
    for _ in range(count):
        depth, end = 0, index
        while True:
            if tex[end] == "\\":
                end += 2
                continue
            depth += {"{": 1, "}": -1}.get(tex[end], 0)
            if depth == 0:
                break
            end += 1
        arguments.append(tex[index + 1:end])
        index = end + 1
    return arguments


def displayed_claims(tex: str) -> list[tuple[str, str, str]]:
    """Every ``\\stepeq{lhs}{relation}{rhs}`` (and ``\\stepeqor``) of a derivation."""
    return [tuple(_arguments(tex, match.end() - 1, 3))
            for match in re.finditer(r"\\stepeq(?:or)?\{", tex)]


def test_the_identical_sides_finder_finds_them():
    tex = r"\stepeq{\left[1\right]}{=}{\left[1\right]} \stepeqor{a^{2}}{=}{b}{c}"
    assert displayed_claims(tex) == [(r"\left[1\right]", "=", r"\left[1\right]"),
                                     ("a^{2}", "=", "b")]


def test_no_displayed_claim_has_two_identical_sides(builtin_reports):
    # a claim printed after SymPy computed both sides (H(0) = I shown as [[1,0],[0,1]] twice)
    # says nothing: every step shows its claim as its author states it
    found = []
    for report in builtin_reports:
        tex = theorem_document(report)
        claims = displayed_claims(tex)
        # one display per definition and checked step (what SymPy gives is \sympygives)
        assert len(claims) == sum(r.step.kind != "cited" for r in report.results), \
            report.theorem.name
        assert "SymPy evaluates both of its sides" not in tex, report.theorem.name
        found += [(report.theorem.name, left) for left, _, right in claims
                  if "".join(left.split()) == "".join(right.split())]
    assert found == []


def test_no_python_identifier_or_value_in_the_mathematics_or_the_prose(builtin_reports):
    found = {report.theorem.name: python_leaks(theorem_derivation(report))
             for report in builtin_reports}
    assert {name: leaks for name, leaks in found.items() if leaks} == {}
    assert python_leaks(combined_derivation(builtin_reports)) == []


def test_one_symbol_per_concept_in_every_document(builtin_reports):
    found = {report.theorem.name: notation_conflicts(theorem_derivation(report))
             for report in builtin_reports}
    assert {name: conflicts for name, conflicts in found.items() if conflicts} == {}
    combined = combined_derivation(builtin_reports)
    assert notation_conflicts(combined) == []  # across all theorems at once, too
    headings = [b for b in combined.blocks if getattr(b, "text", None) and
                "".join(span.value for span in b.text) == "Notation"]
    assert len(headings) == 1  # one symbol table, with R(phi), J, omega_i, H, X, q, k, s, t
    table = combined.blocks[combined.blocks.index(headings[0]) + 1]
    symbols = " ".join(row[0][0].value for row in table.rows)
    for symbol in (r"R(\phi)", "J", r"\omega_i", "H", "X", "q", "k", "s", "t"):
        assert symbol in symbols, symbol


def test_step_texts_are_sentences_and_timings_stay_in_the_summary(builtin_reports):
    for report in builtin_reports:
        document = theorem_derivation(report)
        for step in (b for b in document.blocks if isinstance(b, Step)):
            first, last = step.text[0], step.text[-1]
            assert first.kind != WORDS or not first.value.lstrip()[:1].islower(), step.text
            assert last.kind == WORDS and last.value.rstrip()[-1:] in ".!?:", step.text
        tex = theorem_document(report)
        body = tex[tex.index("Derivation"):tex.index("{Summary}")]
        assert not re.search(r"\d\.\d\d\\?,? ?s\b", body), report.theorem.name


_METADATA = re.compile(r"\b(proved here|checked|cited|instances?|seconds?|not machine)\b", re.I)


def test_statements_carry_no_proof_metadata(builtin_reports):
    # what was checked, cited or instantiated is the derivation's business, not the statement's
    found = {report.theorem.name: _METADATA.findall(" ".join(prose_words(
        report.theorem.statement))) for report in builtin_reports}
    assert {name: words for name, words in found.items() if words} == {}
