"""Standalone LaTeX documents: one theorem's derivation, or all of them in one file.

Only packages from Debian's ``texlive-latex-base`` are used (article, amsmath, amssymb,
graphicx, geometry, hyperref). Every equation goes through ``\\fitmath``, which scales a line
down to the text width when it would otherwise run into the margin.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Iterable

from symrope.engine import ProofReport
from symrope.latex._escape import check_raw_latex, escape_name, escape_text, pdf_string
from symrope.latex._prose import method_phrase, prose_text
from symrope.latex._render import (DEFINES, counterexample_latex, parameters_math, step_sides,
                                   theorem_title)

__all__ = ["theorem_document", "combined_document", "PREAMBLE", "versions"]

PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage[utf8]{inputenc}
\usepackage[a4paper,left=2.3cm,right=4.3cm,top=2.4cm,bottom=2.6cm,
            marginparwidth=3.1cm,marginparsep=0.45cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{graphicx}
\usepackage[hidelinks,bookmarksnumbered]{hyperref}
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.45ex plus 0.2ex}
\emergencystretch=3em
% An equation wider than the text is scaled down to fit rather than running into the margin.
\newsavebox{\symropebox}
\newcommand{\fitmath}[1]{\sbox{\symropebox}{$\displaystyle #1$}%
  \ifdim\wd\symropebox>\linewidth\resizebox{\linewidth}{!}{\usebox{\symropebox}}%
  \else\usebox{\symropebox}\fi}
% The margin mark of a step: what kind of evidence stands behind it.
\newcommand{\stepmark}[2]{\marginpar{\raggedright\footnotesize\textbf{#1}\\[-0.2ex]#2}}
% Author-written display math: as written when it fits, else its \quad-separated parts stacked.
\newcommand{\fitorstack}[2]{\sbox{\symropebox}{$\displaystyle #1$}%
  \ifdim\wd\symropebox>\linewidth\begin{gathered}#2\end{gathered}\else\usebox{\symropebox}\fi}
\newcommand{\steplabel}[1]{\par\medskip\noindent\textbf{Step #1.}\ }
% A step's equation: on one line when it fits, else lhs on one line and "= rhs" on the next,
% each scaled down separately only if it is still too wide.
\newcommand{\stepeq}[3]{\sbox{\symropebox}{$\displaystyle #1 #2 #3$}%
  \ifdim\wd\symropebox>\linewidth
    \begin{aligned}&\fitmath{#1}\\ &\fitmath{\quad #2 #3}\end{aligned}%
  \else\fitmath{\begin{aligned}#1 &#2 #3\end{aligned}}\fi}
"""


def versions() -> dict[str, str]:
    """The versions a derivation was checked with (shown in every closing summary)."""
    import sympy

    from symrope._version import __version__

    return {"symrope": __version__, "SymPy": sympy.__version__,
            "Python": platform.python_version()}


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _equation(left: str, relation: str, right: str) -> str:
    """An aligned display (LaTeX itself picks one line or two, and scales what still overflows)."""
    return f"\\[\n\\stepeq{{{left}}}{{{relation}}}{{{right}}}\n\\]\n"


_SEPARATOR = re.compile(r"\\q?quad(?![A-Za-z])")
_OPEN = re.compile(r"\\left(?![A-Za-z])|\\begin\{|\{")
_CLOSE = re.compile(r"\\right(?![A-Za-z])|\\end\{|\}")


def split_top_level(latex: str) -> list[str]:
    r"""Split math at ``\quad`` / ``\qquad`` outside any group, ``\left..\right`` or environment.

    Examples
    ========

    >>> from symrope.latex._document import split_top_level
    >>> split_top_level(r"a = b,\quad \left(c \quad d\right),\qquad e^{x \quad y}")
    ['a = b,', '\\left(c \\quad d\\right),', 'e^{x \\quad y}']
    """
    parts, depth, start, position = [], 0, 0, 0
    while position < len(latex):
        if latex[position] == "\\" and position + 1 < len(latex) and \
                not latex[position + 1].isalpha():
            position += 2  # an escaped character such as \{ opens nothing
            continue
        for pattern, change in ((_OPEN, 1), (_CLOSE, -1)):
            match = pattern.match(latex, position)
            if match:
                depth += change
                position = match.end() - 1
                break
        else:
            match = _SEPARATOR.match(latex, position) if depth == 0 else None
            if match:
                parts.append(latex[start:position].strip())
                start = match.end()
                position = match.end() - 1
        position += 1
    parts.append(latex[start:].strip())
    return [part for part in parts if part]


def _display_fitted(latex: str) -> str:
    """Author-written display math: one line if it fits, else its parts stacked, each fitted."""
    parts = split_top_level(latex)
    if len(parts) < 2:
        return "\\[\n\\fitmath{" + latex + "}\n\\]\n"
    stacked = " \\\\ ".join("\\fitmath{" + part + "}" for part in parts)
    return "\\[\n\\fitorstack{" + latex + "}{" + stacked + "}\n\\]\n"


def _mark(step, verdict) -> tuple[str, str]:
    """(bold mark, detail) for the margin."""
    if step.kind == "definition":
        return "definition", r"notation, nothing to check"
    if step.kind == "cited":
        return "cited", "lemma from the literature, not machine-checked"
    if verdict.status == step.expect == "proved":
        return r"$\checkmark$ checked", "machine-checked identity"
    if verdict.status == step.expect == "refuted":
        return r"$\times$ refuted", "as stated: counterexample found"
    return f"FAILED: {verdict.status}", f"expected {step.expect}"


def _evidence(step, verdict) -> str:
    """The line under a checked step: how it was decided, or why not."""
    if verdict.status == "proved":
        method = escape_text(method_phrase(verdict.method))
        checks = (f"{_plural(verdict.cross_checks, 'numeric cross-check')} agree"
                  if verdict.cross_checks else "no numeric cross-check was possible")
        return rf"{{\small Proved by {method}; {checks} ({verdict.seconds:.2f}\,s).}}" + "\n"
    if verdict.status == "refuted":
        return (r"{\small Counterexample (exact, re-checked at two precisions: 30 and 60 "
                r"digits, more when the numbers are large):}" + "\n" +
                "\\[\n\\fitmath{" + counterexample_latex(verdict) + "}\n\\]\n")
    return rf"{{\small Undecided: {escape_text(verdict.reason or 'no reason given')}.}}" + "\n"


def _step_tex(number: int, result, references: list[str]) -> str:
    step, verdict = result.step, result.verdict
    mark, detail = _mark(step, verdict)
    if getattr(result, "kernel", None) == "checked":  # set by symrope.kernel.mark_kernel_results
        mark, detail = mark + " + Coq", detail + "; re-checked by Coq's kernel"
    lines = [rf"\steplabel{{{number}}}"]
    if step.kind == "cited":
        references.append(step.reference)
        cite_number = len(references)
        lines.append(rf"\stepmark{{cited [{cite_number}]}}{{not machine-checked}}%")
        lines.append(prose_text(step.justification, "a justification") + "\n")
        lines.append(r"\begin{quote}\itshape " + prose_text(step.claim, "a cited claim") +
                     r"\end{quote}")
        lines.append(rf"{{\small\raggedright Reference [{cite_number}]: "
                     rf"{prose_text(step.reference, 'a reference')}.\par}}")
        return "\n".join(lines) + "\n"
    lines.append(rf"\stepmark{{{mark}}}{{{detail}}}%")
    lines.append(prose_text(step.justification, "a justification") + "\n")
    left, right = step_sides(step)
    if step.kind == "definition":
        relation = DEFINES
    else:
        relation = {"refuted": r"\neq", "undecided": r"\overset{?}{=}"}.get(verdict.status, "=")
    lines.append(_equation(left, relation, right))
    if verdict is not None:
        lines.append(_evidence(step, verdict))
    return "\n".join(lines) + "\n"


def _verdict_sentence(report) -> str:
    checked = [r for r in report.results if r.verdict is not None]
    refuted_as_stated = sum(1 for r in checked if r.ok and r.verdict.status == "refuted")
    tail = (f" ({refuted_as_stated} of them refuted, as the theorem states)"
            if refuted_as_stated else "")
    if report.verdict == "proved":
        steps = _plural(report.checked_steps, "checked step")
        return f"\\textbf{{Proved.}} Every one of the {steps} got its expected verdict{tail}."
    failed = len(report.failures())
    return (f"\\textbf{{{report.verdict.upper()}.}} {failed} of the "
            f"{_plural(report.checked_steps, 'checked step')} did not get the verdict it expects; "
            f"the derivation below marks them FAILED.")


def _parameters(theorem) -> str:
    if not theorem.params:
        return ""
    return "\\[\n\\fitmath{" + parameters_math(theorem.params) + "}\n\\]\n"


def _theorem_body(report, heading: str, subheading: str) -> str:
    theorem = report.theorem
    title = escape_text(theorem_title(theorem))
    if heading.endswith("*"):  # unnumbered: no optional argument, no bookmark
        out = [rf"\{heading}{{{title}}}"]
    else:
        out = [rf"\{heading}[\texorpdfstring{{{title}}}{{{pdf_string(theorem_title(theorem))}}}]"
               rf"{{{title}}}"]
    # The identifier under the title: what `symrope prove NAME` and the JSON report call it.
    out.append(r"{\small Theorem " + escape_name(theorem.name) + r"\par}" + "\n")
    # The summary is the one line `symrope list` prints (plain text for a terminal); the
    # document states the theorem in full below, with its formulas typeset.
    # Not hyphenated: the statement is quoted exactly as written (and found by pdftotext).
    out.append(r"\paragraph{Statement.} {\hyphenpenalty=10000\exhyphenpenalty=10000 " +
               prose_text(theorem.statement, f"the statement of {theorem.name!r}") + "\\par}\n")
    if theorem.statement_latex:
        latex = check_raw_latex(theorem.statement_latex, f"statement_latex of {theorem.name!r}")
        out.append(_display_fitted(latex))
    params = _parameters(theorem)
    if params:
        out.append(r"\paragraph{Parameters.}" + "\n" + params)
    if theorem.hypotheses:
        items = "\n".join(r"  \item " + prose_text(h, "a hypothesis") for h in theorem.hypotheses)
        out.append(r"\paragraph{Hypotheses.}" + "\n" + r"\begin{itemize}" + "\n" + items + "\n" +
                   r"\end{itemize}" + "\n")
    out.append(r"\paragraph{Verdict.} " + _verdict_sentence(report) + "\n")
    out.append(_kernel_theorem(report))
    out.append(rf"\{subheading}*{{Derivation}}" + "\n")
    references: list[str] = []
    for number, result in enumerate(report.results, 1):
        out.append(_step_tex(number, result, references))
    out.append(_closing_summary(report, references, subheading))
    return "\n".join(out)


def _kernel_theorem(report) -> str:
    """The whole theorem in Coq (``symrope.kernel.mark_kernel_results`` sets it), with the
    named hypotheses it rests on, as Coq statements."""
    kernel = getattr(report, "kernel_theorem", None)
    if not kernel or kernel.get("theorem") == "not stated":
        return ""
    if kernel["theorem"] != "checked":
        return (r"\paragraph{Coq.} The whole theorem is stated in " +
                escape_text(kernel.get("file", "")) + " but was " +
                escape_text(kernel["theorem"]) + ": " + escape_text(kernel.get("detail", "")) +
                ".\n")
    out = [r"\paragraph{Kernel-checked in Coq.} Stated whole and proved in " +
           escape_text(kernel["file"]) + ": " + escape_text(kernel["statement"]) +
           ". Assumptions (Print Assumptions): " +
           escape_text(", ".join(kernel["assumptions"]) or "none") + "."]
    if kernel["hypotheses"]:
        out.append(r" Named hypotheses (" + escape_text(kernel["premises"]) + "):")
        out.append(r"\begin{itemize}")
        out += [r"  \item " + escape_text(f"{h['name']} ({h['kind']})") + r": {\small\ttfamily " +
                escape_text(h["coq"]) + "}" for h in kernel["hypotheses"]]
        out.append(r"\end{itemize}")
    return "\n".join(out) + "\n"


def _closing_summary(report, references: list[str], subheading: str) -> str:
    proved = sum(1 for r in report.results if r.verdict is not None and r.ok)
    rows = [
        ("Verdict", escape_text(report.verdict)),
        ("Checked steps", f"{report.checked_steps} ({proved} with the expected verdict)"),
        ("Definitions", str(report.definitions)),
        ("Cited lemmas", str(report.cited_lemmas)),
        ("Proof time", f"{report.seconds:.2f}\\,s"),
    ] + [(f"{name} version", escape_text(version)) for name, version in versions().items()]
    table = "\n".join(f"  {key} & {value} \\\\" for key, value in rows)
    out = [rf"\{subheading}*{{Summary}}",
           r"\begin{tabular}{@{}ll@{}}", table, r"\end{tabular}", ""]
    if references:
        out.append(r"\paragraph{Cited lemmas.} These steps are taken from the literature and are"
                   r" counted apart from machine-checked steps.")
        out.append(r"\begin{enumerate}")
        out += [rf"  \item[{{[{i}]}}] {{\raggedright {prose_text(ref, 'a reference')}\par}}"
                for i, ref in enumerate(references, 1)]
        out.append(r"\end{enumerate}")
    return "\n".join(out) + "\n"


def theorem_document(report: ProofReport) -> str:
    r"""A standalone ``.tex`` document: one theorem's derivation, step by step.

    Parameters
    ==========

    report : ProofReport
        What :meth:`~symrope.engine.Theorem.prove` returned.

    Returns
    =======

    str
        A complete LaTeX document (article class, packages from ``texlive-latex-base`` only).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import Theorem
    >>> from symrope.latex import theorem_document
    >>> x = sp.Symbol("x")
    >>> thm = Theorem("double_angle", "sin(2x) = 2 sin(x) cos(x)")
    >>> thm.check(sp.sin(2*x), 2*sp.sin(x)*sp.cos(x), "expand the sine of a sum")
    >>> tex = theorem_document(thm.prove())
    >>> tex.startswith(r"\documentclass[11pt]{article}"), r"\end{document}" in tex
    (True, True)
    """
    name = report.theorem.name
    return (PREAMBLE + rf"\hypersetup{{pdftitle={{symrope: {pdf_string(name)}}}}}" + "\n" +
            "\\begin{document}\n" +
            _theorem_body(report, "section*", "subsection") +
            _colophon() + "\\end{document}\n")


def _colophon() -> str:
    version_text = ", ".join(f"{k} {escape_text(v)}" for k, v in versions().items())
    return ("\n\\vfill\n{\\footnotesize Generated by \\texttt{symrope latex} (" + version_text +
            "). Checked steps were decided by \\texttt{symrope.verify}: proved only when a "
            "rewrite reduced the difference to zero, refuted only with an exact "
            "counterexample.}\n")


def combined_document(reports: Iterable[ProofReport]) -> str:
    r"""One standalone ``.tex`` document with every derivation and a closing table of verdicts.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import Theorem
    >>> from symrope.latex import combined_document
    >>> x = sp.Symbol("x")
    >>> thm = Theorem("double_angle", "sin(2x) = 2 sin(x) cos(x)")
    >>> thm.check(sp.sin(2*x), 2*sp.sin(x)*sp.cos(x), "expand the sine of a sum")
    >>> tex = combined_document([thm.prove()])
    >>> tex.count(r"\section["), r"\tableofcontents" in tex
    (1, True)
    """
    reports = list(reports)
    parts = [PREAMBLE, r"\hypersetup{pdftitle={symrope: machine-checked derivations}}",
             r"\title{symrope: machine-checked derivations}",
             r"\author{generated by \texttt{symrope latex --all}}", r"\date{}",
             r"\begin{document}", r"\maketitle",
             r"\noindent Each theorem below is a sequence of steps. A step marked "
             r"\emph{checked} was decided by the proof engine: proved only when a rewrite "
             r"reduced the difference of its two sides to zero, or refuted with an exact "
             r"counterexample. A step marked \emph{definition} introduces notation; a step marked "
             r"\emph{cited} is an analytic fact taken from the literature, with its reference, "
             r"and is counted apart from the checked steps.", r"\tableofcontents", ""]
    for report in reports:
        parts.append(r"\clearpage")
        parts.append(_theorem_body(report, "section", "subsection"))
    parts.append(r"\clearpage")
    parts.append(_overview_table(reports))
    parts.append(_colophon())
    parts.append("\\end{document}\n")
    return "\n".join(parts)


def _overview_table(reports) -> str:
    rows = "\n".join(
        rf"  \raggedright {escape_text(theorem_title(r.theorem))} & {escape_text(r.verdict)} & "
        rf"{r.checked_steps} & {r.cited_lemmas} & {r.seconds:.2f}\,s \\" for r in reports)
    total = sum(r.seconds for r in reports)
    proved = sum(r.proved for r in reports)
    return "\n".join([
        r"\section{Summary of all theorems}",
        rf"{proved} of {_plural(len(reports), 'theorem')} proved in {total:.2f}\,s.",
        "", r"\begin{tabular}{@{}p{6.2cm}lrrr@{}}",
        r"  theorem & verdict & checked & cited & time \\ \hline", rows, r"\end{tabular}", ""])
