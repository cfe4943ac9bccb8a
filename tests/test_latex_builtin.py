"""Every built-in theorem's derivation compiles with pdflatex and shows its statement.

The theorems are proved once (in worker processes), rendered into the combined document,
which is compiled once; two single-theorem documents are compiled as well.
"""

from __future__ import annotations

import os
import re
import unicodedata
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from symrope.latex import (combined_document, compile_pdf, latex_errors, overfull_boxes,
                           report_markdown, theorem_document)
from symrope.theorems import builtin_theorems, get_theorem
from test_latex_support import pdf_text, require_tool

# The right margin of the documents (geometry: right=4.3cm): a line sticking out further
# than this runs off the page.
PAGE_EDGE_PT = 4.3 / 2.54 * 72.27
_PUNCTUATION = {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "--", "—": "---", "−": "-"}


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
    text = _normalise(pdf_text(pdf))
    for report in builtin_reports:
        assert _normalise(report.theorem.statement) in text, report.theorem.name
        assert _normalise(report.theorem.name) in text
    assert f"{sum(r.proved for r in builtin_reports)}of{len(builtin_reports)}theoremsproved" \
        in text


def test_single_theorem_documents_compile(tmp_path, builtin_reports):
    require_tool("pdflatex")
    chosen = [builtin_reports[0], builtin_reports[-1]]
    paths = []
    for index, report in enumerate(chosen):
        path = tmp_path / f"theorem{index}.tex"
        path.write_text(theorem_document(report), encoding="utf-8")
        paths.append(path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        pdfs = list(pool.map(lambda p: compile_pdf(p, tmp_path), paths))
    for report, pdf in zip(chosen, pdfs):
        _check_log(pdf.with_suffix(".log").read_text(encoding="latin-1"), report.theorem.name)
        text = _normalise(pdf_text(pdf))
        assert _normalise(report.theorem.statement) in text
        assert f"Checkedsteps{report.checked_steps}" in text


def test_every_step_of_every_builtin_theorem_is_rendered(builtin_reports):
    for report in builtin_reports:
        tex = theorem_document(report)
        assert tex.count(r"\steplabel{") == len(report.results), report.theorem.name
        cited = re.findall(r"\\stepmark\{cited \[(\d+)\]\}", tex)
        assert len(cited) == report.cited_lemmas
        page = report_markdown(report)
        assert page.count("**Step ") == len(report.results), report.theorem.name
