"""Math-mode LaTeX for verdicts, steps, theorems and reports.

Everything here is math-mode LaTeX that pdflatex and MathJax both accept: it is what
:func:`symrope.latex.latex` returns (SymPy's printer protocol, :mod:`symrope.latex._objects`)
and what Jupyter shows for ``Typeset(report)``. The standalone
documents (:mod:`symrope.latex._document`) reuse the step pieces.
"""

from __future__ import annotations

import re

from symrope.engine import ProofReport, Theorem, Verdict
from symrope.latex._escape import check_raw_latex, escape_math_text
from symrope.latex._printer import SafeLatexPrinter, math_latex
from symrope.latex._prose import prose_math

__all__ = ["verdict_latex", "report_latex", "theorem_latex", "step_sides", "counterexample_latex",
           "name_math", "theorem_title", "DEFINES", "EQUALS"]

DEFINES, EQUALS = ":=", "="
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
_PASS_THROUGH = set("()[],+-=/ 0123456789.")


def name_math(text: str) -> str:
    r"""Math-mode LaTeX for a short name written in ASCII, such as ``R_d(p)`` or ``omega_i``.

    Identifiers are typeset as SymPy symbols (``omega_i`` becomes ``\omega_{i}``); anything
    else is shown literally.

    Examples
    ========

    >>> from symrope.latex import name_math
    >>> name_math("R_d(p)")
    'R_{d}(p)'
    >>> name_math("x$")
    'x\\$'
    """
    import sympy as sp

    printer = SafeLatexPrinter()
    out: list[str] = []
    position = 0
    text = str(text)
    while position < len(text):
        match = _IDENTIFIER.match(text, position)
        if match:
            out.append(printer.doprint(sp.Symbol(match.group(0))))
            position = match.end()
            continue
        char = text[position]
        if char == "*":
            out.append(r"\,")
        elif char == "^" and position + 1 < len(text) and text[position + 1] in "T":
            out.append(r"^{\top}")
            position += 1
        elif char in _PASS_THROUGH:
            out.append(char)
        else:
            out.append(escape_math_text(char))
        position += 1
    return "".join(out)


def theorem_title(theorem) -> str:
    """A theorem's title in words: its ``title``, else its name with underscores as spaces.

    Examples
    ========

    >>> from symrope import Theorem
    >>> from symrope.latex._render import theorem_title
    >>> theorem_title(Theorem("double_angle", "sin 2x = 2 sin x cos x"))
    'Double angle'
    >>> theorem_title(Theorem("x", "x = x", title="Reflexivity"))
    'Reflexivity'
    """
    if getattr(theorem, "title", None):
        return theorem.title
    name = str(theorem.name)
    if _IDENTIFIER.fullmatch(name):
        words = name.replace("_", " ")
        return words[:1].upper() + words[1:]
    return name


def step_sides(step) -> tuple[str, str]:
    """The two sides of a definition or checked step, as math-mode LaTeX (``display`` wins)."""
    if step.display is not None:
        left, right = step.display
        return (check_raw_latex(left, f"display of step {step.claim!r}"),
                check_raw_latex(right, f"display of step {step.claim!r}"))
    # A string side is prose (words, formulas between $ signs); a name without $ is an ASCII name.
    if isinstance(step.lhs, str):
        left = prose_math(step.lhs, "a step") if "$" in step.lhs else name_math(step.lhs)
    else:
        left = math_latex(step.lhs)
    right = prose_math(step.rhs, "a step") if isinstance(step.rhs, str) else math_latex(step.rhs)
    return left, right


def counterexample_latex(verdict) -> str:
    r"""Math-mode LaTeX for a refutation's exact point (``s = 1,\ t = 2``) and its gap."""
    point = verdict.counterexample or {}
    parts = [f"{math_latex(key) if not isinstance(key, str) else name_math(key)} = "
             f"{math_latex(value) if not isinstance(value, str) else escape_math_text(value)}"
             for key, value in point.items()]
    text = r",\ ".join(parts) if parts else r"\text{any point}"
    if verdict.entry is not None:
        text += r"\quad" + escape_math_text(f"({entry_words(verdict.entry)})")
    if verdict.difference:
        text += r";\quad \lvert\text{left} - \text{right}\rvert \approx " + \
            escape_math_text(_short_number(verdict.difference[-1]))
    return text


def entry_words(entry) -> str:
    """Where a matrix claim fails, counted from 1 as a reader counts (``g_11`` is row 1):
    ``entry (1, 2)``, or ``block 3, entry (1, 2)`` in a block-diagonal claim.

    Examples
    ========

    >>> from symrope.latex._render import entry_words
    >>> entry_words((0, 1)), entry_words((2, 0, 0))
    ('entry (1, 2)', 'block 3, entry (1, 1)')
    """
    numbers = [int(i) + 1 for i in entry]
    if len(numbers) == 3:
        return f"block {numbers[0]}, entry ({numbers[1]}, {numbers[2]})"
    return "entry (" + ", ".join(map(str, numbers)) + ")"


def _short_number(text: str, digits: int = 12) -> str:
    """A 60-digit decimal string cut to ``digits`` significant digits (it is only a gap size)."""
    try:
        return f"{float(text):.{digits}g}"
    except ValueError:
        return str(text)[:40]


def _relation(status: str | None, expect: str) -> str:
    if status == "refuted":
        return r"\neq"
    if status == "undecided":
        return r"\overset{?}{=}"
    return "="


def verdict_latex(verdict: Verdict) -> str:
    r"""Math-mode LaTeX for a :class:`~symrope.engine.Verdict`: the claim and its evidence.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import verify
    >>> from symrope.latex import verdict_latex
    >>> x = sp.Symbol("x", real=True)
    >>> verdict_latex(verify(sp.sin(x)**2 + sp.cos(x)**2, 1))  # doctest: +ELLIPSIS
    '\\sin^{2}{\\left(x \\right)} + \\cos^{2}{\\left(x \\right)} = 1\\qquad\\text{proved (...)}'
    >>> verdict_latex(verify(sp.sin(2*x), 2*sp.sin(x)))  # doctest: +ELLIPSIS
    '\\sin{\\left(2 x \\right)} \\neq 2 \\sin{\\left(x \\right)}\\qquad\\text{refuted at } x = ...'
    """
    left, right = math_latex(verdict.lhs), math_latex(verdict.rhs)
    claim = f"{left} {_relation(verdict.status, 'proved')} {right}"
    if verdict.status == "proved":
        how = escape_math_text(f"proved ({verdict.method})" if verdict.method else "proved")
        return claim + r"\qquad" + how
    if verdict.status == "refuted":
        return claim + r"\qquad\text{refuted at } " + counterexample_latex(verdict)
    return claim + r"\qquad\text{undecided: }" + escape_math_text(verdict.reason or "no reason given")


def _step_row(number: int, step, verdict=None) -> str:
    """One row of the math-mode summary array: ``(3)  lhs = rhs   [mark] justification``."""
    label = rf"\text{{({number})}}"
    if step.kind == "cited":
        body = prose_math(step.claim, "a cited claim")
        note = r"\text{cited: }" + prose_math(step.reference or "", "a reference")
    else:
        left, right = step_sides(step)
        relation = DEFINES if step.kind == "definition" else _relation(
            verdict.status if verdict is not None else None, step.expect)
        body = f"{left} {relation} {right}"
        note = _mark_math(step, verdict) + r"\ " + prose_math(step.justification, "a justification")
    return f"{label} & {body} & {note}"


def _mark_math(step, verdict) -> str:
    if step.kind == "definition":
        return r"\text{[definition]}"
    if verdict is None:
        return r"\text{[to check]}"
    if verdict.status == step.expect:
        mark = r"\checkmark" if verdict.status == "proved" else r"\times"
        return mark + escape_math_text(f" [{verdict.status}, as expected]")
    return escape_math_text(f"[FAILED: {verdict.status}, expected {step.expect}]")


def _statement_math(theorem) -> str:
    if theorem.statement_latex:
        return check_raw_latex(theorem.statement_latex, f"statement_latex of {theorem.name!r}")
    return prose_math(theorem.statement, f"the statement of {theorem.name!r}")


def theorem_latex(theorem: Theorem) -> str:
    r"""Math-mode LaTeX for an (unproved) :class:`~symrope.engine.Theorem`: statement and steps.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import Theorem
    >>> from symrope.latex import theorem_latex
    >>> x = sp.Symbol("x")
    >>> thm = Theorem("double_angle", r"$\sin 2x = 2 \sin x \cos x$")
    >>> thm.check(sp.sin(2*x), 2*sp.sin(x)*sp.cos(x), "expand the sine of a sum")
    >>> print(theorem_latex(thm))  # doctest: +NORMALIZE_WHITESPACE
    \begin{array}{l}\textbf{Theorem }\text{Double angle}\text{: }\sin 2x = 2 \sin x \cos x\\
    \begin{array}{lll}\text{(1)} & \sin{\left(2 x \right)} = 2 \sin{\left(x \right)} \cos{\left(x \right)} & \text{[to check]}\ \text{expand the sine of a sum}\end{array}\end{array}
    """
    header = (r"\textbf{Theorem }" + escape_math_text(theorem_title(theorem)) + r"\text{: }" +
              _statement_math(theorem))
    rows = [_step_row(i, step) for i, step in enumerate(theorem.steps, 1)]
    return _array(header, rows)


def report_latex(report: ProofReport) -> str:
    r"""Math-mode LaTeX for a :class:`~symrope.engine.ProofReport`: verdict, then each step.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import Theorem
    >>> from symrope.latex import report_latex
    >>> x = sp.Symbol("x")
    >>> thm = Theorem("double_angle", "sin(2x) = 2 sin(x) cos(x)")
    >>> thm.check(sp.sin(2*x), 2*sp.sin(x)*sp.cos(x), "expand the sine of a sum")
    >>> text = report_latex(thm.prove())
    >>> text.count(r"\checkmark"), r"\text{proved: 1 checked step" in text
    (1, True)
    """
    theorem = report.theorem
    counts = (f"{report.verdict}: {_plural(report.checked_steps, 'checked step')}, "
              f"{_plural(report.cited_lemmas, 'cited lemma')}")
    header = (r"\textbf{Theorem }" + escape_math_text(theorem_title(theorem)) + r"\text{: }" +
              _statement_math(theorem) + r"\quad" + rf"\text{{{counts}}}")
    rows = [_step_row(i, r.step, r.verdict) for i, r in enumerate(report.results, 1)]
    return _array(header, rows)


def _array(header: str, rows: list[str]) -> str:
    if not rows:
        return r"\begin{array}{l}" + header + r"\end{array}"
    return (r"\begin{array}{l}" + header + "\\\\\n" + r"\begin{array}{lll}" +
            "\\\\\n".join(rows) + r"\end{array}\end{array}")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
