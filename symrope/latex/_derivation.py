r"""A proof report as a derivation: the one walk of a :class:`ProofReport` that every output
shares (the LaTeX document, the Markdown page of the docs site).

Each step is a sentence (its justification), then the claim *as its author states it* -- the
step's ``display``, or its two sides printed unevaluated -- and then, where it says more, what
SymPy computed (``SymPy gives ...``). A claim whose two printed sides are identical says
nothing: such a step shows the claim once, as SymPy evaluated both sides, and the tests
insist that no built-in step does. A claim the theorem states to be false is shown as
``Claim (false): lhs = rhs`` with its counterexample, never as ``lhs != rhs`` beside a true
sentence. Timings live in the closing summary only.
"""

from __future__ import annotations

import platform
import re

from symrope.engine import CITED, DEFINITION, ProofReport
from symrope.latex._escape import check_raw_latex
from symrope.latex._layout import LINE_EM, display_layouts, math_width
from symrope.latex._model import (Claim, Display, Document, Heading, ItemList, Paragraph, Quote,
                                  Step, Table, code, emph, join, math, prose, sentence, strong,
                                  words)
from symrope.latex._notation import NOTATION, document_pieces, notation_used
from symrope.latex._printer import math_latex
from symrope.latex._prose import method_phrase
from symrope.latex._render import DEFINES, counterexample_latex, step_sides, theorem_title

__all__ = ["versions", "theorem_derivation", "combined_derivation", "notation_blocks",
           "plural", "REFUTED_LEAD"]

REFUTED_LEAD = "Claim (false):"
_SUMMARY = "not printed"         # the printer's summary of an object too large to show


def versions() -> dict[str, str]:
    """The versions a derivation was checked with (shown in every closing summary)."""
    import sympy

    from symrope._version import __version__

    return {"symrope": __version__, "SymPy": sympy.__version__,
            "Python": platform.python_version()}


def plural(count: int, noun: str) -> str:
    """``1 cited lemma``, ``2 cited lemmas``."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _same(left: str, right: str) -> bool:
    return "".join(left.split()) == "".join(right.split())


def _explicit_matrix(value) -> bool:
    import sympy as sp

    return isinstance(value, sp.MatrixBase) and value.shape[0] * value.shape[1] <= 64


def _entrywise(lhs, rhs) -> str | None:
    """Each entry of a matrix equation on its own line: the layout of last resort."""
    if not (_explicit_matrix(lhs) and _explicit_matrix(rhs)) or lhs.shape != rhs.shape:
        return None
    rows = []
    for i in range(lhs.shape[0]):
        for j in range(lhs.shape[1]):
            left, right = math_latex(lhs[i, j]), math_latex(rhs[i, j])
            rows.append(rf"({i + 1}, {j + 1})\colon\quad {left} &= {right}")
    return r"\begin{aligned}" + r"\\ ".join(rows) + r"\end{aligned}"


def _computed(step, shown_left: str, shown_right: str) -> list:
    """What SymPy computed, when the step displays its author's own form and this says more."""
    import sympy as sp

    explicit = [isinstance(side, sp.MatrixBase) or
                (isinstance(side, sp.Expr) and not isinstance(side, sp.MatrixExpr))
                for side in (step.lhs, step.rhs)]
    if step.display is None or step.expect == "refuted" or not all(explicit):
        # Opaque matrix algebra and block matrices are what the display shows, and a false
        # claim's counterexample says why it is false.
        return []
    left, right = math_latex(step.lhs), math_latex(step.rhs)
    if _SUMMARY in left or _SUMMARY in right:
        return []
    if _same(left, right):
        if _same(left, shown_left) or math_width(left) > LINE_EM - 2:
            return []
        return [Paragraph(words("SymPy evaluates both sides to")), Display((left,))]
    if not isinstance(step.lhs, sp.MatrixBase):
        return []   # two computed scalars say no more than the display
    if {"".join(left.split()), "".join(right.split())} <= \
            {"".join(shown_left.split()), "".join(shown_right.split())}:
        return []
    if max(math_width(left), math_width(right)) > LINE_EM - 2:
        return []   # a matrix cannot be broken across lines
    return [Paragraph(words("SymPy gives")), Claim(left, "=", right,
                                                    _entrywise(step.lhs, step.rhs), True)]


def _evidence(step, verdict) -> list:
    """How the claim was decided (no timings: they are in the summary table)."""
    if verdict is None:
        return []
    if verdict.status == "proved":
        checks = (f"{plural(verdict.cross_checks, 'numeric cross-check')} agree"
                  if verdict.cross_checks else "no numeric cross-check was possible")
        return [Paragraph(words(f"Proved by {method_phrase(verdict.method)}; {checks}."),
                          small=True)]
    if verdict.status == "refuted":
        out = [Paragraph(words("Counterexample (exact; the difference is confirmed at 30 and at "
                               "60 significant digits, more when the numbers are large):"),
                         small=True),
               Display((counterexample_latex(verdict),))]
        certificate = (verdict.details or {}).get("certificate")
        if certificate:
            out.append(_certificate(certificate))
        return out
    return [Paragraph(join("Undecided: ", words(verdict.reason or "no reason given"), "."),
                      small=True)]


def _certificate(certificate) -> Paragraph:
    """The rigorous enclosure of a refutation's difference (``certify``'s certificate)."""
    if not isinstance(certificate, dict):
        return Paragraph(join("Certificate: ", code(str(certificate)), "."), small=True)
    low = certificate.get("lower", certificate.get("low"))
    high = certificate.get("upper", certificate.get("high"))
    enclosure = certificate.get("enclosure") or certificate.get("interval")
    if isinstance(enclosure, (list, tuple)) and len(enclosure) == 2:
        low, high = enclosure
    parts: list = ["Certified: "]
    if low is not None and high is not None:
        parts += [math(rf"\lvert\text{{left}} - \text{{right}}\rvert \in "
                       rf"[{_number(low)},\ {_number(high)}]")]
    else:
        parts += [code(", ".join(f"{k}={v}" for k, v in certificate.items()))]
    precision = next((certificate[k] for k in ("precision", "bits", "prec", "digits", "dps")
                      if k in certificate), None)
    if precision is not None:
        unit = "digits" if "digits" in certificate or "dps" in certificate else "bits"
        parts += [f", ball arithmetic at {precision} {unit}"]
    return Paragraph(join(*parts, "."), small=True)


def _number(value) -> str:
    try:
        return f"{float(value):.6g}".replace("e", r"\cdot 10^{") + \
            ("}" if "e" in f"{float(value):.6g}" else "")
    except (TypeError, ValueError):
        return r"\text{" + re.sub(r"[^0-9.+\-]", "", str(value)) + "}"


def _mark(result) -> tuple[str, str, str | None]:
    """(bold mark, detail, symbol) for the margin."""
    step, verdict = result.step, result.verdict
    if step.kind == DEFINITION:
        return "definition", "notation, nothing to check", None
    if verdict.status == step.expect == "proved":
        mark, detail, symbol = "checked", "machine-checked identity", "check"
    elif verdict.status == step.expect == "refuted":
        mark, detail, symbol = "refuted", "counterexample found, as claimed", "cross"
    else:
        return f"FAILED: {verdict.status}", f"expected {step.expect}", None
    if getattr(result, "kernel", None) == "checked":  # symrope.kernel.mark_kernel_results
        mark, detail = mark + " + Coq", detail + "; re-checked by Coq's kernel"
    return mark, detail, symbol


def _cited_step(number: int, result, references: list) -> Step:
    step = result.step
    references.append(step.reference)
    cite = len(references)
    body = [Quote(prose(step.claim, "a cited claim")),
            Paragraph(join(f"Reference [{cite}]: ", sentence(prose(step.reference, "a reference"))),
                      small=True, role="reference")]
    return Step(number, f"cited [{cite}]", "not machine-checked",
                sentence(prose(step.justification, "a justification")), body)


def _step(number: int, result, references: list) -> Step:
    step, verdict = result.step, result.verdict
    if step.kind == CITED:
        return _cited_step(number, result, references)
    mark, detail, symbol = _mark(result)
    text = sentence(prose(step.justification, "a justification"))
    left, right = step_sides(step)
    body: list = []
    if step.kind == DEFINITION:
        body.append(Claim(left, DEFINES, right))
        return Step(number, mark, detail, text, body, symbol)
    if _same(left, right):
        # The sides were equal when the theorem was built: say so, and show the value once.
        body += [Paragraph(join("The claim ", code(step.claim),
                                ": SymPy evaluates both of its sides to")), Display((left,))]
    else:
        relation = r"\overset{?}{=}" if verdict.status == "undecided" else "="
        if step.expect == "refuted":
            body.append(Paragraph(strong(REFUTED_LEAD)))
        body.append(Claim(left, relation, right, _entrywise(step.lhs, step.rhs)
                          if step.display is None else None))
        body += _computed(step, left, right)
    body += _evidence(step, verdict)
    return Step(number, mark, detail, text, body, symbol)


def _verdict_sentence(report) -> Paragraph:
    checked = [r for r in report.results if r.verdict is not None]
    refuted = sum(1 for r in checked if r.ok and r.verdict.status == "refuted")
    tail = f" ({refuted} of them refuted, as the theorem states)" if refuted else ""
    if report.verdict == "proved":
        steps = plural(report.checked_steps, "checked step")
        return Paragraph(join(strong("Proved."),
                              f" Every one of the {steps} got its expected verdict{tail}."),
                         lead="Verdict.")
    failed = len(report.failures())
    return Paragraph(join(strong(f"{report.verdict.upper()}."),
                          f" {failed} of the {plural(report.checked_steps, 'checked step')} did "
                          f"not get the verdict it expects; the derivation below marks them "
                          f"FAILED."), lead="Verdict.")


def _parameters(params: dict) -> Paragraph | None:
    """The parameters as they are given on the command line (``--param NAME=VALUE``)."""
    if not params:
        return None
    items: list = []
    for index, (key, value) in enumerate(params.items()):
        items += [", "] if index else []
        items.append(code(f"{key}={value}"))
    return Paragraph(join(*items, " (", code("--param NAME=VALUE"), ")."), lead="Parameters.")


def _kernel_blocks(kernel: dict | None) -> list:
    """What Coq's kernel checked of the whole theorem (``symrope latex --kernel coq``).

    ``kernel`` is the theorem's ``--kernel coq`` summary (:func:`symrope.kernel.kernel_summary`):
    ``"theorem"`` is ``"checked"``, ``"rejected"`` or ``"not stated"``, and ``"hypotheses"``
    the named Coq hypotheses the whole theorem rests on.
    """
    whole = (kernel or {}).get("theorem")
    if whole not in ("checked", "rejected"):
        return []
    hypotheses = kernel.get("hypotheses") or []
    where = code(kernel.get("file", ""))
    if whole == "rejected":
        text = join(words("The whole theorem is stated in Coq in "), where,
                    words(" but Coq's kernel rejected it: "),
                    words(kernel.get("detail", "no detail")), ".")
        return [Paragraph(text, lead="Kernel.")]
    text = join(words("The whole theorem is stated in Coq in "), where,
                words(" and kernel-checked"),
                words(" under these named hypotheses:" if hypotheses else
                      ", on no hypothesis beyond Coq's axioms of the reals."))
    out = [Paragraph(text, lead="Kernel.")]
    if hypotheses:
        out.append(ItemList([join(words(f"{h['name']} ({h['kind']}): "), code(h["coq"]))
                             for h in hypotheses]))
    axioms = kernel.get("assumptions") or []
    if axioms:
        out.append(Paragraph(join(words("Print Assumptions lists "),
                                  *[part for index, axiom in enumerate(axioms)
                                    for part in ([words(", ")] if index else []) + [code(axiom)]],
                                  "."), lead="Axioms."))
    return out


def _summary(report, references: list, kernel: dict | None, level: int) -> list:
    proved = sum(1 for r in report.results if r.verdict is not None and r.ok)
    rows = [("Verdict", report.verdict),
            ("Checked steps", f"{report.checked_steps} ({proved} with the expected verdict)"),
            ("Definitions", str(report.definitions)),
            ("Cited lemmas", str(report.cited_lemmas))]
    if kernel:
        rows.append(("Coq kernel", f"{kernel.get('nontrivial_checked', 0)} of "
                                   f"{kernel.get('nontrivial', 0)} non-trivial steps "
                                   f"kernel-checked; {kernel.get('trivial', 0)} trivial "
                                   f"(not counted); whole theorem "
                                   f"{kernel.get('theorem', 'not stated')}"))
    rows.append(("Proof time", f"{report.seconds:.2f} s"))
    rows += [(f"{name} version", version) for name, version in versions().items()]
    out = [Heading(words("Summary"), level=level),
           Table([[words(key), words(value)] for key, value in rows])]
    if references:
        out.append(Paragraph(words("These steps are taken from the literature and are counted "
                                   "apart from machine-checked steps."), lead="Cited lemmas."))
        out.append(ItemList([sentence(prose(ref, "a reference")) for ref in references],
                            labels=[f"[{i}]" for i in range(1, len(references) + 1)],
                            role="reference"))
    return out


def notation_blocks(blocks, *, level: int, everything: bool = False) -> list:
    """The symbol table: the entries of :data:`NOTATION` the blocks use (or all of them)."""
    probe = Document((), blocks, "")
    math_pieces, _ = document_pieces(probe)
    entries = NOTATION if everything else notation_used(math_pieces)
    if not entries:
        return []
    rows = [[math(entry.symbol), prose(entry.meaning, "notation")] for entry in entries]
    return [Heading(words("Notation"), level=level), Table(rows, align="lp", role="notation")]


def _theorem_blocks(report: ProofReport, *, numbered: bool, level: int, kernel: dict | None,
                    notation: bool) -> list:
    theorem = report.theorem
    title = words(theorem_title(theorem))
    head = [Heading(title, level=level, numbered=numbered),
            Paragraph(join("Theorem ", code(theorem.name)), small=True),
            Paragraph(prose(theorem.statement, f"the statement of {theorem.name!r}"),
                      lead="Statement.")]
    if theorem.statement_latex:
        head.append(Display(display_layouts(check_raw_latex(
            theorem.statement_latex, f"statement_latex of {theorem.name!r}"))))
    parameters = _parameters(theorem.params)
    if parameters is not None:
        head.append(parameters)
    if theorem.hypotheses:
        head += [Paragraph((), lead="Hypotheses."),
                 ItemList([sentence(prose(h, "a hypothesis")) for h in theorem.hypotheses])]
    # a report marked by symrope.kernel.mark_kernel_results carries its whole theorem itself
    head += _kernel_blocks(kernel or getattr(report, "kernel_theorem", None))
    head.append(_verdict_sentence(report))
    references: list = []
    steps = [_step(number, result, references)
             for number, result in enumerate(report.results, 1)]
    body = [Heading(words("Derivation"), level=level + 1), *steps,
            *_summary(report, references, kernel, level + 1)]
    symbols = notation_blocks(head + body, level=level + 1) if notation else []
    return head + symbols + body


def _colophon(command: str) -> tuple:
    version_text = ", ".join(f"{k} {v}" for k, v in versions().items())
    return join("Generated by ", code(command), f" ({version_text}). Checked steps were decided "
                "by symrope's proof engine: proved only when a rewrite reduced the difference of "
                "the two sides to zero, refuted only with an exact counterexample.")


def theorem_derivation(report: ProofReport, kernel: dict | None = None) -> Document:
    """One theorem's derivation (``kernel``: its ``--kernel coq`` summary, when there is one)."""
    blocks = _theorem_blocks(report, numbered=False, level=1, kernel=kernel, notation=True)
    return Document(blocks[0].text, blocks[1:], f"symrope: {report.theorem.name}",
                    _colophon("symrope latex"))


def combined_derivation(reports, kernels=None) -> Document:
    """Every derivation in one document: a notation section, the theorems, a verdict table."""
    reports = list(reports)
    kernels = list(kernels) if kernels is not None else [None] * len(reports)
    intro = Paragraph(join(
        "Each theorem below is a sequence of steps. A step marked ", emph("checked"),
        " was decided by the proof engine: proved only when a rewrite reduced the difference of "
        "its two sides to zero, or refuted with an exact counterexample. A step marked ",
        emph("definition"), " introduces notation; a step marked ", emph("cited"),
        " is an analytic fact taken from the literature, with its reference, and is counted "
        "apart from the checked steps. Every step shows its claim as its author states it, then "
        "what SymPy computed where that says more."))
    blocks: list = [*notation_blocks([], level=1, everything=True)]
    blocks[0] = Heading(words("Notation"), level=1, numbered=True)
    for report, kernel in zip(reports, kernels):
        blocks += _theorem_blocks(report, numbered=True, level=1, kernel=kernel, notation=False)
    blocks += _overview(reports)
    return Document(words("symrope: machine-checked derivations"), blocks,
                    "symrope: machine-checked derivations", _colophon("symrope latex --all"),
                    contents=True, front=[intro])


def _overview(reports) -> list:
    total = sum(r.seconds for r in reports)
    proved = sum(r.proved for r in reports)
    rows = [[words(theorem_title(r.theorem)), words(r.verdict), words(str(r.checked_steps)),
             words(str(r.cited_lemmas)), words(f"{r.seconds:.2f} s")] for r in reports]
    return [Heading(words("Summary of all theorems"), level=1, numbered=True),
            Paragraph(words(f"{proved} of {plural(len(reports), 'theorem')} proved in "
                            f"{total:.2f} s.")),
            Table(rows, header=[words("theorem"), words("verdict"), words("checked"),
                                words("cited"), words("time")], align="plrrr")]

