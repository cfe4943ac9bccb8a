"""LaTeX derivations: escaping, block structure, hooks, standalone documents that compile, check
reports, and the notation and Python-leak detectors (one file over 500 lines: the sections share
the sample reports' fixtures, proved once per module)."""

from __future__ import annotations

import re

import pytest
import sympy as sp

import symrope
from symrope.errors import UsageError
from symrope.latex import (check_raw_latex, check_report_document, combined_document,
                           compile_pdf, escape_math_text, escape_text, latex_errors, math_latex,
                           overfull_boxes, report_latex, report_markdown, theorem_document,
                           theorem_latex, verdict_latex)
from symrope.latex._document import PREAMBLE
from test_latex_support import pdf_text, require_tool, rope_sample, rotation, squeeze

NASTY = r"\input{/etc/passwd} $x$ a_b 50% #1 & {c} ~d ^e \\ \def\x{y}"
SPECIALS = "\\$_%#&{}~^<>|"


@pytest.fixture(scope="module")
def sample_report():
    return rope_sample(d=8).prove()  # 4 blocks: enough to be shown with an ellipsis


@pytest.fixture(scope="module")
def nasty_report():
    return rope_sample(d=4, name=NASTY).prove()


# --- escaping ------------------------------------------------------------------------------

def test_escape_text_leaves_no_active_special_character():
    escaped = escape_text(NASTY)
    # Remove the escapes we emit; nothing TeX treats specially may be left over.
    residue = re.sub(r"\{\\ttfamily\\char\d+\}|\\[%#&]|\\allowbreak\{\}|-\{\}", "", escaped)
    assert not set(residue) & set("\\$%#&~^_{}"), residue
    assert escaped.count(r"{\ttfamily\char92}") == NASTY.count("\\")


def test_math_escaping_of_symbol_names_cannot_inject():
    evil = sp.Symbol(r"\input{/etc/passwd}")
    text = math_latex(evil + sp.Symbol("omega_0"))
    assert r"\input" not in text and r"\backslash{}\text{input}" in text
    assert r"\omega_{0}" in text  # ordinary names are still typeset as mathematics
    assert "input" in math_latex(sp.MatrixSymbol(r"\input{x}", 2, 2))
    assert r"\input" not in math_latex(sp.MatrixSymbol(r"\input{x}", 2, 2))
    assert r"\input" not in math_latex(sp.Function(r"\input{x}")(sp.Symbol("t")))
    assert escape_math_text("$") == r"\$"


@pytest.mark.parametrize("fragment", [r"\input{/etc/passwd}", r"\write18{rm -rf /}",
                                      r"\immediate\openout", r"\catcode`\^=7", r"\def\x{1}",
                                      r"{unbalanced", r"a % comment", r"^^5cinput"])
def test_raw_latex_that_could_do_more_than_typeset_is_rejected(fragment):
    with pytest.raises(UsageError, match="statement_latex"):
        check_raw_latex(fragment, "statement_latex")


def test_statement_latex_is_checked_when_rendering():
    thm = sp.Symbol("x")
    theorem = symrope.Theorem("t", "x = x", statement_latex=r"x = x \input{/etc/passwd}")
    theorem.check(thm, thm, "reflexivity")
    with pytest.raises(UsageError, match=r"\\input"):
        theorem_document(theorem.prove())


# --- big objects by structure ------------------------------------------------------------------

def test_block_diagonal_of_64_rotations_is_shown_as_diag_with_ellipsis():
    p = sp.Symbol("p", real=True)
    rope = sp.BlockDiagMatrix(*[rotation(p * sp.Integer(10000) ** sp.Rational(-i, 64))
                                for i in range(64)])
    text = math_latex(rope)
    assert text.startswith(r"\operatorname{diag}\left(") and r"\ldots" in text
    assert text.count(r"\begin{matrix}") == 3  # first two blocks and the last one


def test_d_4096_is_printed_by_its_block_structure_only(monkeypatch):
    from symrope.latex import SafeLatexPrinter

    # 2048 blocks of 2x2, as RoPE at d = 4096 (integer entries keep building it cheap).
    rope = sp.BlockDiagMatrix(*[sp.ImmutableMatrix([[i, -1], [1, i]]) for i in range(2048)])
    printed = []
    original = SafeLatexPrinter._print_ImmutableDenseMatrix  # what the blocks dispatch to
    monkeypatch.setattr(SafeLatexPrinter, "_print_ImmutableDenseMatrix",
                        lambda self, m: printed.append(m.shape) or original(self, m))
    text = math_latex(rope)
    assert printed == [(2, 2)] * 3  # three blocks are printed, never the 4096 x 4096 matrix
    assert text.count(r"\begin{matrix}") == 3
    assert text.endswith(r"\ldots,\ " + math_latex(rope.diag[-1]) + r"\right)")


def test_no_explicit_matrix_above_8x8_is_printed():
    dense = sp.Matrix(16, 16, lambda i, j: sp.Symbol(f"a_{i}_{j}"))
    text = math_latex(dense)
    assert r"\begin{matrix}" not in text and "16" in text and "not printed" in text
    block_diagonal = sp.diag(*[rotation(sp.Symbol("p") * k) for k in range(1, 9)])  # 16x16
    text = math_latex(block_diagonal)
    assert text.count(r"\begin{matrix}") == 3 and r"\ldots" in text
    eight = sp.Matrix(8, 8, lambda i, j: i + j)
    assert math_latex(eight).count(r"\\") == 7  # 8x8 is still printed entry by entry


# --- SymPy's printer protocol (symrope.latex.latex) and Jupyter (Typeset) -------------------------

def test_printer_protocol_typesets_verdicts_theorems_and_reports(sample_report):
    from symrope.latex import DerivationPrinter, Typeset, latex

    x = sp.Symbol("x", real=True)
    refuted = symrope.verify(sp.sin(2 * x), 2 * sp.sin(x))
    text = latex(refuted)
    assert text == verdict_latex(refuted) and r"\neq" in text and "refuted at" in text
    assert Typeset(refuted)._repr_latex_() == r"$\displaystyle " + text + "$"
    assert latex(sample_report) == report_latex(sample_report)
    assert latex(sample_report.theorem) == theorem_latex(sample_report.theorem)
    # a derivation is never cut to the one-line summary that long expressions get
    assert len(report_latex(sample_report)) > 2500 and "not printed" not in latex(sample_report)
    # SymPy's own dispatch finds them inside containers too: a tuple of verdicts
    pair = DerivationPrinter().doprint((refuted, sp.Symbol("omega_0")))
    assert verdict_latex(refuted) in pair and r"\omega_{0}" in pair
    # the engine carries no LaTeX hook: sympy.latex alone knows nothing of a verdict
    assert not hasattr(refuted, "_latex") and not hasattr(refuted, "_repr_latex_")
    assert report_latex(sample_report).count(r"\checkmark") == 2  # the two proved steps
    assert "as expected" in report_latex(sample_report)


def test_hooks_compile_as_math_in_pdflatex(tmp_path, sample_report, nasty_report):
    require_tool("pdflatex")
    x = sp.Symbol("x", real=True)
    from symrope.latex import Typeset

    shown = [sample_report, nasty_report, nasty_report.theorem,
             symrope.verify(sp.sin(2 * x), 2 * sp.sin(x)),
             symrope.verify(sp.cos(x) ** 2, 1 - sp.sin(x) ** 2)]
    pieces = [Typeset(obj)._repr_latex_() for obj in shown]
    body = "\n\n".join(r"\resizebox{\linewidth}{!}{" + piece + "}" for piece in pieces)
    tex = tmp_path / "hooks.tex"
    tex.write_text(PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n")
    pdf = compile_pdf(tex, tmp_path)  # raises with the first LaTeX error if a hook is not math
    assert pdf.stat().st_size > 0
    assert not overfull_boxes((tmp_path / "hooks.log").read_text(encoding="latin-1"))


# --- documents -----------------------------------------------------------------------------------

def _compile_and_read(tmp_path, name: str, tex: str):
    path = tmp_path / f"{name}.tex"
    path.write_text(tex, encoding="utf-8")
    pdf = compile_pdf(path, tmp_path)
    log = (tmp_path / f"{name}.log").read_text(encoding="latin-1")
    return pdf, log


def test_document_structure(sample_report):
    tex = theorem_document(sample_report)
    assert r"\documentclass[11pt]{article}" in tex and "standalone" not in tex
    packages = set(re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", tex))
    assert packages == {"inputenc", "geometry", "amsmath,amssymb", "graphicx", "hyperref"}
    assert tex.count(r"\symropestep{") == len(sample_report.results) == 5
    # the definition and the three checked steps; the cited lemma is prose
    assert tex.count(r"\stepeq{") + tex.count(r"\stepeqor{") == 4
    assert r"\stepmark{cited [1]}" in tex and r"\stepmark{$\checkmark$ checked}" in tex
    assert r"\stepmark{$\times$ refuted}" in tex
    assert f"SymPy version & {sp.__version__}" in tex
    assert f"symrope version & {symrope.__version__}" in tex
    # timings are in the summary table only, never beside a step
    assert tex.count(r"\,s") + len(re.findall(r"\d s[)\\]", tex)) <= 1


def test_theorem_document_compiles_and_shows_every_step(tmp_path, sample_report):
    require_tool("pdflatex")
    pdf, log = _compile_and_read(tmp_path, "rope", theorem_document(sample_report))
    assert latex_errors(log) == []
    assert overfull_boxes(log) == []
    text = squeeze(pdf_text(pdf))
    assert squeeze(sample_report.theorem.statement) in text
    for word in ["Step5.", "cited[1]", "checked", "refuted", "Counterexample", "definition",
                 "SymPyversion" + sp.__version__, "symropeversion" + symrope.__version__,
                 "existsUnique_generator", "diag"]:
        assert word in text, word


def test_refuted_step_renders_its_counterexample(tmp_path, sample_report):
    refuted = [r for r in sample_report.results if r.verdict and r.verdict.status == "refuted"]
    assert len(refuted) == 1
    point = refuted[0].verdict.counterexample
    tex = theorem_document(sample_report)
    section = tex[tex.index("A tempting but wrong rearrangement"):]
    for symbol, value in point.items():
        assert f"{sp.latex(symbol)} = {sp.latex(value)}" in section
    # a false claim is stated as a claim, with "=", never as a true-looking "!=" beside it
    assert r"\textbf{Claim (false):}" in section and r"\neq" not in section
    entry = refuted[0].verdict.entry  # counted from 1 in the document, as g_11 is
    assert "entry (" + ", ".join(str(i + 1) for i in entry) + ")" in section


def test_failed_steps_are_marked_failed(tmp_path):
    x = sp.Symbol("x", real=True)
    theorem = symrope.Theorem("wrong_claim", "sin(2x) = 2 sin(x)")
    theorem.check(sp.sin(2 * x), 2 * sp.sin(x), "a false claim, expected to hold")
    report = theorem.prove()
    assert report.verdict == "refuted"
    tex = theorem_document(report)
    assert r"\stepmark{FAILED: refuted}{expected proved}" in tex and "Counterexample" in tex
    assert r"\textbf{REFUTED.}" in tex


def test_user_names_cannot_inject_latex_and_print_literally(tmp_path, nasty_report):
    require_tool("pdflatex")
    check = {"encoding": NASTY, "assumptions": {"linearity": {"verdict": "proved",
                                                              "counterexample": None}}}
    for name, tex in [("nasty", theorem_document(nasty_report)),
                      ("nasty_all", combined_document([nasty_report])),
                      ("nasty_check", check_report_document(check))]:
        assert r"\input{/etc/passwd}" not in tex and r"\def\x" not in tex
        pdf, log = _compile_and_read(tmp_path, name, tex)
        assert latex_errors(log) == [] and "/etc/passwd" not in _files_read(log)
        text = pdf_text(pdf)
        assert squeeze(NASTY) in squeeze(text), name
        assert "root:" not in text  # nothing of /etc/passwd made it in


def _files_read(log: str) -> str:
    return " ".join(re.findall(r"\((/[^\s()]+)", log))


def test_combined_document_has_contents_and_a_table_of_verdicts(tmp_path, sample_report,
                                                                 nasty_report):
    tex = combined_document([sample_report, nasty_report])
    # the notation section, the two theorems, the summary
    assert r"\tableofcontents" in tex and tex.count(r"\section[") == 4
    assert r"\section[\texorpdfstring{Notation}" in tex
    assert r"{Summary of all theorems}" in tex and "2 of 2 theorems proved" in tex
    # one symbol table per document (not one per theorem)
    assert tex.count(r"\section[\texorpdfstring{Notation}") == 1
    assert r"\subsection*{Notation}" not in tex


def test_compile_pdf_reports_the_first_latex_error(tmp_path):
    require_tool("pdflatex")
    broken = tmp_path / "broken.tex"
    broken.write_text("\\documentclass{article}\\begin{document}\\undefinedmacro\\end{document}\n")
    with pytest.raises(UsageError, match=r"Undefined control sequence"):
        compile_pdf(broken, tmp_path)


def test_compile_pdf_without_pdflatex_is_a_clear_error(tmp_path, monkeypatch, sample_report):
    tex = tmp_path / "rope.tex"
    tex.write_text(theorem_document(sample_report))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(UsageError, match="pdflatex is not installed"):
        compile_pdf(tex, tmp_path)


# --- encoding checks -------------------------------------------------------------------------------

def test_check_report_document_typesets_claims_counterexamples_and_generator(tmp_path):
    import sympy as sp

    from symrope.checker._report import show

    class FakeCheckReport:  # the checker's report is read only through to_dict(); its exact
        def to_dict(self):  # values travel with their strings (show), never parsed back
            return {"encoding": "xpos_like", "dim": 2, "position_dims": 1, "verdict": "refuted",
                    "assumptions": {
                        "linearity": {"verdict": "proved", "counterexample": None,
                                      "evidence": "F(p)^T G(p) != I (a terminal sentence)",
                                      "proof": {"route": "matrices", "blocks": 1, "sizes": [2],
                                                "methods": ["identical"]}},
                        "translation_invariance": {
                            "verdict": "refuted",
                            "counterexample": {"s": show(sp.Integer(1)), "t": show(sp.Integer(3)),
                                               "x": "e_0", "y": "e_1",
                                               "score_at_s_t": show(sp.sin(2)),
                                               "score_at_0_t_minus_s": show(sp.cos(2))}},
                        "identity_at_zero": {"verdict": "proved", "counterexample": None},
                        "continuity": {"verdict": "undecided", "counterexample": None}},
                    "generator": {"axes": [{"axis": "p", "blocks": [
                        {"indices": [0, 1], "matrix": show(sp.Matrix([[-sp.Rational(1, 2), -1],
                                                                   [1, -sp.Rational(1, 2)]]))}]}],
                                  "exponential": {"verdict": "proved"},
                                  "pure_rotation": {"verdict": "refuted"}},
                    "classification": {"p": {"damped_rotation": [
                        {"indices": [0, 1], "eigenvalue": show(-sp.Rational(1, 2) + sp.I),
                         "rate": show(-sp.Rational(1, 2)), "frequency": show(sp.Integer(1)),
                         "jordan_chains": [1], "normal": True}]}},
                    "seconds": 0.5}
    tex = check_report_document(FakeCheckReport())
    assert r"\frac{1}{2}" in tex and r"\sin{\left(2 \right)}" in tex   # exact values as math
    # typeset from the structured proof, not the terminal's evidence sentence
    assert "a terminal sentence" not in tex and "same 1 block of size 2" in tex
    assert "q = b_{1}" in tex and "k = b_{2}" in tex   # basis vectors from 1, not e_0
    require_tool("pdflatex")
    pdf, log = _compile_and_read(tmp_path, "check", tex)
    assert latex_errors(log) == []
    text = squeeze(pdf_text(pdf))
    for fragment in ["1.Linearity:proved", "2.Translationinvariance:refuted",
                     "4.Continuity:undecided", "≈0.909297", "≈−0.416147",
                     "Dampedrotationplanes(1)", "oncoordinates1and2",
                     "aone-parametergroup", "symropecheck--latex"]:
        assert fragment in text, fragment
    assert "'" not in text and "**" not in text


def test_a_saved_reports_strings_are_text_never_evaluated(tmp_path):
    # a report read back from JSON holds plain strings: numbers are read by the one parser,
    # anything else is shown as text (sympify of a string would run it)
    marker = tmp_path / "marker"
    payload = f"__import__('os').system('touch {marker}')"
    tex = check_report_document({"encoding": "saved", "verdict": "refuted", "assumptions": {
        "identity_at_zero": {"verdict": "refuted", "counterexample": {
            "p": "37/7", "score": payload, "x_dot_y": "1", "x": "e_0", "y": "e_0"}}}})
    assert not marker.exists()
    assert r"p = \frac{37}{7}" in tex and r"\text{" in tex


def test_check_report_document_survives_missing_and_odd_fields():
    tex = check_report_document({"assumptions": "not checked", "classification": None})
    assert "unnamed encoding" in tex and r"\end{document}" in tex


# --- markdown pages ----------------------------------------------------------------------------

def test_report_markdown_escapes_names_and_keeps_the_math(nasty_report, sample_report):
    page = report_markdown(nasty_report)
    first = page.splitlines()[0]
    assert first.startswith("# ") and "$" not in first.replace(r"\$", "")
    # the name is a code span (literal in Markdown), never markup
    assert page.count("`" + NASTY + "`") == 1
    assert r"\input" not in page.replace(r"\\input", "").replace("`" + NASTY + "`", "")
    page = report_markdown(sample_report)
    # statement, definition, three claims, counterexample: one display each
    assert page.count("$$") == 2 * 6
    assert r"✓ checked: machine\-checked identity" in page and "cited \\[1\\]" in page


def test_markdown_page_shows_a_hostile_name_literally(nasty_report):
    markdown_it = pytest.importorskip("markdown_it")  # comes with myst-parser (docs extra)
    dollarmath = pytest.importorskip("mdit_py_plugins.dollarmath")
    parser = markdown_it.MarkdownIt("commonmark").use(dollarmath.dollarmath_plugin)
    tokens = parser.parse(report_markdown(nasty_report))
    heading = tokens[tokens.index(next(t for t in tokens if t.type == "heading_open")) + 1]
    assert heading.children and all(child.type == "text" for child in heading.children)
    assert "".join(child.content for child in heading.children) == NASTY
    inline_math = [c.content for t in tokens if t.children for c in t.children
                   if "math" in c.type]
    assert "x" not in inline_math  # "$x$" in the name did not become math
    code = [c.content for t in tokens if t.children for c in t.children
            if c.type == "code_inline"]
    assert NASTY in code  # the identifier line shows it literally
    assert sum(t.type == "math_block" for t in tokens) == 6  # the displays are math blocks


def test_a_break_opportunity_never_puts_punctuation_at_the_start_of_a_line():
    from symrope.latex._escape import escape_text

    text = escape_text("the normalised sides (one template for 32 blocks with symbolic "
                       "constants); 8 numeric cross-checks agree", breakable=True)
    assert r"constants);" in text and r"\allowbreak{};" not in text
    long = escape_text("a_very_long_identifier_name_with_parts_and_more/path", breakable=True)
    assert long.count(r"\allowbreak{}") >= 2  # long words still get their break points


def test_a_shifted_translation_counterexample_shows_the_shifted_score():
    # where F(0) is undefined as written, the checker compares the score with both positions
    # shifted by u: the derivation shows that comparison, with u, not a score at 0
    from symrope.latex._check import _counterexample

    point = {"s": "-3", "t": "5/2", "u": "7", "score_at_s_t": "1/2",
             "score_at_s_plus_u_t_plus_u": "1/3"}
    text = _math_of(_counterexample("translation_invariance", point))
    assert r"u = 7" in text and "a(s + u, t + u)" in text
    assert r"\frac{1}{3}" in text and "a(0" not in text
    plain = _math_of(_counterexample("translation_invariance", {
        "s": "1", "t": "2", "score_at_s_t": "0", "score_at_0_t_minus_s": "1"}))
    assert "a(0, t - s)" in plain and "u =" not in plain


def _math_of(blocks) -> str:
    from symrope.latex._model import Display, Paragraph

    return "\n".join(block.layouts[0] if isinstance(block, Display) else
                     "".join(span.value for span in block.text)
                     for block in blocks if isinstance(block, (Display, Paragraph)))


# --- notation and Python leaks: the checks themselves can fail -------------------------------------

@pytest.mark.parametrize("math, rule", [
    (r"H(d) = e^{dX}", "offset written d"),
    (r"\log(x)", r"\ln"),
    (r"\mathbb{I}", "identity is I"),
    (r"A^{\mathsf T}", r"^\top"),
    (r"A^T B", r"^\top"),
    (r"e^{x} = \int_0^e h", "Euler"),
    (r"q^\top H(-l) k", r"\ell"),
    (r"q^\top k + J^{2k}", "k is the key vector"),
    (r"\mathrm{diag}(a, b)", r"\operatorname{diag}"),
])
def test_notation_conflicts_are_found(math, rule):
    from symrope.latex._model import Document, Paragraph, math as math_span
    from symrope.latex._notation import notation_conflicts

    found = notation_conflicts(Document((), [Paragraph(math_span(math))], "t"))
    assert any(rule in conflict for conflict in found), found


def test_notation_accepts_what_it_prescribes():
    from symrope.latex._model import Document, Paragraph, math as math_span, words
    from symrope.latex._notation import notation_conflicts

    document = Document((), [Paragraph(math_span(r"q^\top H(\delta) k = e^{\delta X} q^\top k,"
                                                 r"\ \ln \varepsilon,\ X_j^\top,\ J^{2m}")),
                             Paragraph(words("a 2 by 2 matrix"))], "t")
    assert notation_conflicts(document) == []


@pytest.mark.parametrize("span, kind", [
    (r"\mathrm{inv\_freq}(d)", "math"), (r"\text{tolerance} = \text{None}", "math"),
    ("see exponential_form", "words"), ("symrope.schedules.inv_freq", "words"),
    ("explicit=False", "words")])
def test_python_leaks_are_found(span, kind):
    from symrope.latex._model import Document, Paragraph, math as math_span, words
    from symrope.latex._notation import python_leaks

    text = math_span(span) if kind == "math" else words(span)
    assert python_leaks(Document((), [Paragraph(text)], "t")) != []


def test_a_claim_with_identical_sides_is_never_displayed_as_one():
    # a user theorem whose sides are equal as built: the value is shown once, with its claim
    x = sp.Symbol("x", real=True)
    theorem = symrope.Theorem("trivial", "a limit")
    theorem.check(sp.limit(sp.sin(x) / x, x, 0), 1, "the limit, evaluated while building")
    tex = theorem_document(theorem.prove())
    assert r"\stepeq{1}{=}{1}" not in tex and "evaluates both of its sides to" in tex


def test_displays_are_never_scaled_below_85_percent():
    assert r"\fitmath" not in PREAMBLE and r"\scalebox{0.85}" in PREAMBLE
    assert "resizebox" in PREAMBLE.split(r"\newcommand{\fitlast}")[1].split("\n%")[0]
    # the only other resize: to the line width, and only when 85 % would not fit
    assert PREAMBLE.count("resizebox") == 1


# --- check reports from structured evidence ---------------------------------------------------------

def test_a_two_axis_check_report_states_a_commuting_two_parameter_group(tmp_path):
    from symrope.checker import check
    from symrope.checker._zoo import zoo_encoding

    report = check(zoo_encoding("rope_2d_mixed"))
    data = report.to_dict()
    assert data["assumptions"]["translation_invariance"]["proof"]["route"] == "exponential"
    tex = check_report_document(report)
    assert "two-parameter commuting group" in tex and "one-parameter" not in tex
    assert r"\exp\left(\delta_{1} X_1 + \delta_{2} X_2\right)" in tex
    # no terminal sentence (exp(-s.B), dF/dp_k, "block(s)") reaches the document
    for terminal in ("s.B", "dF/dp", "block(s)", "(identical)"):
        assert terminal not in tex, terminal
    assert r"symrope check -{}-latex" in tex and "symrope latex (" not in tex
    require_tool("pdflatex")
    pdf, log = _compile_and_read(tmp_path, "rope_2d_mixed", tex)
    assert latex_errors(log) == [] and overfull_boxes(log) == []


def test_kernel_data_and_certificates_are_rendered_when_present(sample_report):
    # coq's whole-theorem statement with its hypotheses, and certify's enclosure of a
    # refutation's difference: shown when the data is there, through documented keys only
    import dataclasses

    from symrope.engine._proof import ProofReport, StepResult

    # the shape of symrope.kernel.kernel_summary (tests/test_kernel_whole.py checks the real one)
    kernel = {"system": "coq", "nontrivial_checked": 2, "nontrivial": 3, "trivial": 1,
              "checked_steps": 4, "theorem": "checked", "file": "symrope/kernel/coq/Demo.v",
              "assumptions": ["Classical_Prop.classic"],
              "hypotheses": [{"name": "theta_pos", "kind": "premise", "coq": "0 < theta"},
                             {"name": "expm_rot", "kind": "analytic",
                              "coq": "forall s t : R, True"}]}
    results = []
    for result in sample_report.results:
        if result.verdict is not None and result.verdict.status == "refuted":
            details = {"certificate": {"enclosure": ["0.25", "0.5"], "precision": 212}}
            result = StepResult(result.step, dataclasses.replace(result.verdict,
                                                                 details=details), True)
        results.append(result)
    report = ProofReport(sample_report.theorem, results, sample_report.seconds)
    tex = theorem_document(report, kernel)
    assert "kernel-checked under these named hypotheses" in tex
    assert r"\texttt{0 {\ttfamily\char60} theta}" in tex  # "<" from the typewriter font
    assert ("Coq kernel & 2 of 3 non-trivial steps kernel-checked; 1 trivial (not counted); "
            "whole theorem checked") in tex
    assert r"\in [0.25,\ 0.5]" in tex and "ball arithmetic at 212 bits" in tex
    markdown = report_markdown(report, kernel=kernel)
    assert "`0 < theta`" in markdown and "212 bits" in markdown


@pytest.mark.parametrize("name", ["identical_damping", "absolute_sinusoidal", "floor_bucketed"])
def test_check_reports_are_mathematics_without_python(name):
    # a refuted linear encoding, one decided on the score, one with a jump: the document model
    # has no Python in it and one symbol per concept (q, k contents; b_i basis vectors; a(s, t))
    from symrope.checker import check
    from symrope.checker._zoo import zoo_encoding
    from symrope.latex._check import check_derivation
    from symrope.latex._notation import notation_conflicts, python_leaks

    document = check_derivation(check(zoo_encoding(name)))
    assert python_leaks(document) == [] and notation_conflicts(document) == []
    tex = check_report_document(check(zoo_encoding(name)))
    assert "e_{0}" not in tex and "x^{" not in tex   # neither e_0 nor x as a content vector


def test_lift_hazards_and_attention_factor_are_typeset_when_reported(tmp_path):
    # a real lift's report: a position cast to bfloat16 (a hazard with its file:line), and a
    # YaRN-like attention factor read as a uniform scale c^2
    torch = pytest.importorskip("torch")
    from symrope.lifting import check_lifted, lift

    def scaled_bf16(q, k, positions):
        angle = positions.to(torch.bfloat16).float()[:, None]
        c, s = angle.cos() * 1.25, angle.sin() * 1.25
        turn = lambda v: torch.cat((v[..., :1] * c - v[..., 1:] * s,
                                    v[..., :1] * s + v[..., 1:] * c), -1)
        return turn(q), turn(k)

    report = check_lifted(lift(scaled_bf16, head_dim=2))
    data = report.to_dict()
    assert data["hazards"] and data["uniform_scale"]["c2"] == "25/16"
    tex = check_report_document(report)
    where = data["hazards"][0]["location"]          # this file, the line of the cast
    assert r"\subsection*{Precision hazards}" in tex and ":" + where.rsplit(":", 1)[1] in tex
    assert "exact integers only up to 256" in tex and r"\textbf{Attention factor.}" in tex
    assert r"c^2 = \frac{25}{16}" in tex
    require_tool("pdflatex")
    pdf, log = _compile_and_read(tmp_path, "lifted", tex)
    text = " ".join(pdf_text(pdf).split())
    assert latex_errors(log) == [] and "exact integers only up to 256" in text
    assert "test_latex.py:" + where.rsplit(":", 1)[1] in text.replace(" ", "")


def test_the_latex_package_has_no_import_cycle():
    # _document -> _prose -> _markdown -> _document was one; every module now imports downward
    from pathlib import Path

    import symrope.latex as package

    graph = {}
    for path in Path(package.__file__).parent.glob("_*.py"):
        code = "\n".join(line for line in path.read_text().splitlines()
                         if not line.strip().startswith(">>>"))
        graph[path.stem] = set(re.findall(r"from symrope\.latex\.(_\w+) import", code)) - \
            {path.stem}

    def reaches(start, target, seen=()):
        return any(n == target or (n not in seen and reaches(n, target, (*seen, n)))
                   for n in graph.get(start, ()))

    assert [name for name in graph if reaches(name, name)] == []
