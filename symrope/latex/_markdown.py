"""The Markdown writer: a derivation as a MyST page (math for the docs site's imgmath).

The same :class:`~symrope.latex._model.Document` the LaTeX writer reads -- statement,
hypotheses, notation, each step with its mark, claim and evidence, closing summary -- in the
Markdown that Sphinx's ``myst_parser`` reads.
"""

from __future__ import annotations

from symrope.engine import ProofReport
from symrope.latex._derivation import theorem_derivation
from symrope.latex._escape import markdown_text
from symrope.latex._layout import math_width
from symrope.latex._model import (CODE, EMPH, MATH, STRONG, Claim, Display, Document, Heading,
                                  ItemList, Paragraph, Quote, Step, Table)

__all__ = ["report_markdown", "write_markdown"]

_WEB_EM = 42   # wider displays take their broken layout on the web page


def _words(piece: str) -> str:
    # markdown_text collapses whitespace; keep the spaces that separate words from math.
    lead = " " if piece[:1].isspace() else ""
    tail = " " if piece[-1:].isspace() and piece.strip() else ""
    return lead + markdown_text(piece) + tail


def _text(spans) -> str:
    out = []
    for span in spans:
        if span.kind == MATH:
            out.append(f"${span.value.strip()}$")
        elif span.kind == CODE:
            fence = "``" if "`" in span.value else "`"
            out.append(f"{fence}{span.value}{fence}")
        elif span.kind == STRONG:
            out.append(f"**{markdown_text(span.value)}**")
        elif span.kind == EMPH:
            out.append(f"*{markdown_text(span.value)}*")
        else:
            out.append(_words(span.value))
    return "".join(out).strip()


def _display(body: str) -> str:
    return "$$\n" + body + "\n$$\n"


def _block(block) -> str:
    if isinstance(block, Heading):
        return "#" * block.level + " " + _text(block.text) + "\n"
    if isinstance(block, Paragraph):
        lead = f"**{markdown_text(block.lead)}** " if block.lead else ""
        return lead + _text(block.text) + "\n"
    if isinstance(block, Display):
        chosen = next((layout for layout in block.layouts if math_width(layout) <= _WEB_EM),
                      block.layouts[-1])
        return _display(chosen)
    if isinstance(block, Claim):
        one_line = f"{block.left} {block.relation} {block.right}"
        if math_width(one_line) <= _WEB_EM:
            return _display(rf"\begin{{aligned}}{block.left} &{block.relation} "
                            rf"{block.right}\end{{aligned}}")
        if block.fallback:
            return _display(block.fallback)
        return _display(rf"\begin{{aligned}}&{block.left}\\ &\quad {block.relation} "
                        rf"{block.right}\end{{aligned}}")
    if isinstance(block, ItemList):
        labels = block.labels or [("1." if block.numbered else "-")] * len(block.items)
        return "\n".join(f"{markdown_text(label) if block.labels else label} {_text(item)}"
                         for label, item in zip(labels, block.items)) + "\n"
    if isinstance(block, Table):
        width = len(block.align)
        header = [_text(cell) for cell in block.header] if block.header else [""] * width
        rows = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
        rows += ["| " + " | ".join(_text(cell) for cell in row) + " |" for row in block.rows]
        return "\n".join(rows) + "\n"
    if isinstance(block, Quote):
        return "> " + _text(block.text) + "\n"
    if isinstance(block, Step):
        symbol = {"check": "✓ ", "cross": "✗ "}.get(block.symbol, "")
        head = (f"**Step {block.number}** — *{markdown_text(symbol + block.mark)}: "
                f"{markdown_text(block.detail)}.* {_text(block.text)}\n")
        return "\n".join([head] + [_block(inner) for inner in block.body])
    raise TypeError(f"no Markdown for {type(block).__name__}")


def write_markdown(document: Document) -> str:
    """The MyST page of ``document``."""
    out = [f"# {_text(document.title)}", ""]
    for block in [*document.front, *document.blocks]:
        out += [_block(block), ""]
    if document.colophon:
        out += [_text(document.colophon), ""]
    return "\n".join(out)


def report_markdown(report: ProofReport, *, kernel: dict | None = None) -> str:
    r"""One theorem's derivation as a MyST Markdown page.

    Parameters
    ==========

    report : ProofReport
        What :meth:`~symrope.engine.Theorem.prove` returned.
    kernel : dict, optional
        Its ``--kernel coq`` summary (see :func:`symrope.latex.theorem_document`).

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
    return write_markdown(theorem_derivation(report, kernel))
