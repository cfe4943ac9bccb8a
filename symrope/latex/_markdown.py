"""A derivation as a MyST Markdown page (math for MathJax): the documentation site's pages.

The same content as the LaTeX document -- statement, hypotheses, each step with its mark and
evidence, closing summary -- in the Markdown that Sphinx's ``myst_parser`` reads.
"""

from __future__ import annotations

import re

from symrope.engine import ProofReport
from symrope.latex._escape import check_raw_latex
from symrope.latex._prose import method_phrase, prose_markdown
from symrope.latex._render import (DEFINES, counterexample_latex, parameters_math, step_sides,
                                   theorem_title)

__all__ = ["report_markdown", "markdown_text"]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~^&:\"'@%=])")


def markdown_text(text: str) -> str:
    r"""Markdown that shows ``text`` literally: every ASCII punctuation mark backslash-escaped.

    Examples
    ========

    >>> from symrope.latex._markdown import markdown_text
    >>> markdown_text("rope_relative [$x$]")
    'rope\\_relative \\[\\$x\\$\\]'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _display(body: str) -> str:
    return "$$\n" + body + "\n$$\n"


def _mark(step, verdict) -> str:
    if step.kind == "definition":
        return "definition"
    if step.kind == "cited":
        return "cited lemma (not machine-checked)"
    if verdict.status == step.expect == "proved":
        return "✓ machine-checked"
    if verdict.status == step.expect == "refuted":
        return "✗ refuted, as stated (counterexample found)"
    return f"FAILED: {verdict.status}, expected {step.expect}"


def _step_markdown(number: int, result) -> str:
    step, verdict = result.step, result.verdict
    out = [f"**Step {number}** — *{markdown_text(_mark(step, verdict))}.* "
           f"{prose_markdown(step.justification, 'a justification')}", ""]
    if step.kind == "cited":
        out += [f"> {prose_markdown(step.claim, 'a cited claim')}", "",
                f"Reference: {prose_markdown(step.reference, 'a reference')}", ""]
        return "\n".join(out)
    left, right = step_sides(step)
    if step.kind == "definition":
        relation = DEFINES
    else:
        relation = {"refuted": r"\neq", "undecided": r"\overset{?}{=}"}.get(verdict.status, "=")
    out.append(_display(rf"\begin{{aligned}}{left} &{relation} {right}\end{{aligned}}"))
    if verdict is not None:
        if verdict.status == "proved":
            checks = (f"{verdict.cross_checks} numeric cross-checks agree"
                      if verdict.cross_checks else "no numeric cross-check was possible")
            out.append(f"Proved by {markdown_text(method_phrase(verdict.method))}; "
                       f"{checks} ({verdict.seconds:.2f} s).")
        elif verdict.status == "refuted":
            out += ["Counterexample (exact, re-checked at two precisions: 30 and 60 digits, more "
                    "when the numbers are large):", "",
                    _display(counterexample_latex(verdict))]
        else:
            out.append(f"Undecided: {markdown_text(verdict.reason or 'no reason given')}.")
        out.append("")
    return "\n".join(out)


def report_markdown(report: ProofReport, *, versions: dict | None = None) -> str:
    r"""One theorem's derivation as a MyST Markdown page.

    Parameters
    ==========

    report : ProofReport
        What :meth:`~symrope.engine.Theorem.prove` returned.
    versions : dict, optional
        Software versions for the closing summary (default: :func:`symrope.latex.versions`).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import Theorem
    >>> from symrope.latex import report_markdown
    >>> x = sp.Symbol("x")
    >>> thm = Theorem("double_angle", "sin(2x) = 2 sin(x) cos(x)")
    >>> thm.check(sp.sin(2*x), 2*sp.sin(x)*sp.cos(x), "expand the sine of a sum")
    >>> print(report_markdown(thm.prove()).splitlines()[0])
    # Double angle
    """
    from symrope.latex._document import versions as current_versions

    theorem = report.theorem
    out = [f"# {markdown_text(theorem_title(theorem))}", "",
           f"Theorem {markdown_text(theorem.name)}", ""]
    out += [f"**Statement.** {prose_markdown(theorem.statement, 'a statement')}", ""]
    if theorem.statement_latex:
        out.append(_display(check_raw_latex(theorem.statement_latex,
                                            f"statement_latex of {theorem.name!r}")))
    if theorem.params:
        out += ["**Parameters.**", "", _display(parameters_math(theorem.params))]
    if theorem.hypotheses:
        out += ["**Hypotheses.**", ""] + [f"- {prose_markdown(h, 'a hypothesis')}"
                                          for h in theorem.hypotheses]
        out.append("")
    failures = len(report.failures())
    verdict = (f"**Verdict: {report.verdict}.** " +
               (f"All {report.checked_steps} checked steps got their expected verdict."
                if report.proved else
                f"{failures} of {report.checked_steps} checked steps did not get the verdict "
                f"they expect (marked FAILED below)."))
    out += [verdict, "", "## Derivation", ""]
    references = []
    for number, result in enumerate(report.results, 1):
        out.append(_step_markdown(number, result))
        if result.step.kind == "cited":
            references.append(result.step.reference)
    out += ["## Summary", "", "| | |", "|---|---|",
            f"| Verdict | {report.verdict} |",
            f"| Checked steps | {report.checked_steps} |",
            f"| Definitions | {report.definitions} |",
            f"| Cited lemmas | {report.cited_lemmas} |",
            f"| Proof time | {report.seconds:.2f} s |"]
    for name, version in (versions or current_versions()).items():
        out.append(f"| {markdown_text(name)} version | {markdown_text(version)} |")
    out.append("")
    if references:
        out += ["Cited lemmas (counted apart from machine-checked steps):", ""]
        out += [f"{i}. {prose_markdown(ref, 'a reference')}" for i, ref in enumerate(references, 1)]
        out.append("")
    return "\n".join(out)
