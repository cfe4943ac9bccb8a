r"""The LaTeX writer: a :class:`~symrope.latex._model.Document` as a standalone ``.tex`` file.

Only packages from Debian's ``texlive-latex-base`` are used (article, amsmath, amssymb,
graphicx, geometry, hyperref). Displayed math is never shrunk to fit: pdflatex measures each
layout a display offers (one line; the claim's sides on two lines; a statement broken at its
commas and implications; a matrix equation entry by entry) and shows the first that fits
(``\fitfirst``). Only the last layout may be scaled, and never below 85 % of the text size
(``\fitlast``). A step is kept on one page with its displays when it fits on one.
"""

from __future__ import annotations

from collections.abc import Iterable

from symrope.engine import ProofReport
from symrope.latex._derivation import combined_derivation, theorem_derivation, versions
from symrope.latex._escape import escape_text, pdf_string
from symrope.latex._model import (CODE, EMPH, MATH, STRONG, Claim, Display, Document, Heading,
                                  ItemList, Paragraph, Quote, Step, Table)

__all__ = ["theorem_document", "combined_document", "PREAMBLE", "versions", "write_latex",
           "MIN_SCALE"]

MIN_SCALE = 0.85   # the smallest a display is ever scaled (the journal standard)

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
\newsavebox{\symropebox}
% \fitfirst{A}{B}: the layout A when it fits the line, else B (another \fitfirst, or \fitlast).
\newcommand{\fitfirst}[2]{\sbox{\symropebox}{$\displaystyle #1$}%
  \ifdim\wd\symropebox>\linewidth #2\else\usebox{\symropebox}\fi}
% \fitlast{A}: the last layout, scaled down to the line if still too wide, never below 85 %.
\newcommand{\fitlast}[1]{\sbox{\symropebox}{$\displaystyle #1$}%
  \ifdim\wd\symropebox>\linewidth
    \ifdim0.85\wd\symropebox>\linewidth\scalebox{0.85}{\usebox{\symropebox}}%
    \else\resizebox{\linewidth}{!}{\usebox{\symropebox}}\fi
  \else\usebox{\symropebox}\fi}
% A step's claim: on one line when it fits, else the left side on one line and the relation
% with the right side on the next; \stepeqor adds a last layout (a matrix entry by entry).
\newcommand{\stepeq}[3]{\fitfirst{#1 #2 #3}%
  {\fitlast{\begin{aligned}&#1\\ &\quad #2 #3\end{aligned}}}}
\newcommand{\stepeqor}[4]{\fitfirst{#1 #2 #3}%
  {\fitfirst{\begin{aligned}&#1\\ &\quad #2 #3\end{aligned}}{\fitlast{#4}}}}
\let\sympygives\stepeq \let\sympygivesor\stepeqor
% The margin mark of a step: what kind of evidence stands behind it.
\newcommand{\stepmark}[2]{\marginpar{\raggedright\footnotesize\textbf{#1}\\[-0.2ex]#2}}
% A step: its number, margin mark and body, kept on one page when it fits on one.
\newsavebox{\symropestepbox}
\newcommand{\symropestep}[3]{\par\medskip
  \sbox{\symropestepbox}{\begin{minipage}[t]{\linewidth}%
    \setlength{\parskip}{0.45ex plus 0.2ex}\textbf{Step #1.}\ #3\end{minipage}}%
  \ifdim\dimexpr\ht\symropestepbox+\dp\symropestepbox\relax<0.8\textheight
    \noindent#2\usebox{\symropestepbox}\par
  \else\noindent#2\textbf{Step #1.}\ #3\par\fi}
"""


def _text(spans) -> str:
    out = []
    for span in spans:
        if span.kind == MATH:
            out.append(f"${span.value}$")
        elif span.kind == CODE:
            out.append(r"\texttt{" + escape_text(span.value) + "}")
        elif span.kind == STRONG:
            out.append(r"\textbf{" + escape_text(span.value) + "}")
        elif span.kind == EMPH:
            out.append(r"\emph{" + escape_text(span.value) + "}")
        else:
            out.append(escape_text(span.value))
    return "".join(out)


def _layouts(layouts) -> str:
    body = r"\fitlast{" + layouts[-1] + "}"
    for layout in reversed(layouts[:-1]):
        body = r"\fitfirst{" + layout + "}{" + body + "}"
    return "\\[\n" + body + "\n\\]\n"


def _claim(claim: Claim) -> str:
    # \sympygives is \stepeq by another name: a step's own claim is found by its macro
    name = "sympygives" if claim.computed else "stepeq"
    if claim.fallback:
        return (f"\\[\n\\{name}or{{{claim.left}}}{{{claim.relation}}}{{{claim.right}}}"
                f"{{{claim.fallback}}}\n\\]\n")
    return f"\\[\n\\{name}{{{claim.left}}}{{{claim.relation}}}{{{claim.right}}}\n\\]\n"


_SECTIONS = {1: "section", 2: "subsection", 3: "subsubsection"}


def _block(block) -> str:
    if isinstance(block, Heading):
        command = _SECTIONS[block.level]
        title = _text(block.text)
        if not block.numbered:
            return rf"\{command}*{{{title}}}" + "\n"
        bookmark = pdf_string("".join(span.value for span in block.text))
        return rf"\{command}[\texorpdfstring{{{title}}}{{{bookmark}}}]{{{title}}}" + "\n"
    if isinstance(block, Paragraph):
        lead = r"\textbf{" + escape_text(block.lead) + "} " if block.lead else ""
        body = lead + _text(block.text)
        if block.small:
            return r"{\small\raggedright " + body + r"\par}" + "\n"
        return body + "\n"
    if isinstance(block, Display):
        return _layouts(block.layouts)
    if isinstance(block, Claim):
        return _claim(block)
    if isinstance(block, ItemList):
        environment = "enumerate" if block.numbered else "itemize"
        labels = block.labels or [None] * len(block.items)
        items = "\n".join(
            (rf"  \item[{{{label}}}] " if label else r"  \item ") +
            (r"{\raggedright " + _text(item) + r"\par}" if label else _text(item))
            for label, item in zip(labels, block.items))
        return f"\\begin{{{environment}}}\n{items}\n\\end{{{environment}}}\n"
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Quote):
        return r"\begin{quote}\itshape " + _text(block.text) + r"\end{quote}" + "\n"
    if isinstance(block, Step):
        return _step(block)
    raise TypeError(f"no LaTeX for {type(block).__name__}")


def _table(table: Table) -> str:
    wide = r"p{0.66\linewidth}" if len(table.align) < 4 else r"p{0.45\linewidth}"
    columns = "".join(wide if kind == "p" else kind for kind in table.align)
    rows = []
    if table.header:
        rows.append(" & ".join(_text(cell) for cell in table.header) + r" \tabularnewline \hline")
    for row in table.rows:
        cells = [(r"\raggedright " if kind == "p" else "") + _text(cell)
                 for kind, cell in zip(table.align, row)]
        rows.append(" & ".join(cells) + r" \tabularnewline")
    return ("\\begin{tabular}{@{}" + columns + "@{}}\n" + "\n".join("  " + r for r in rows) +
            "\n\\end{tabular}\n\n")


def _step(step: Step) -> str:
    symbol = {"check": r"$\checkmark$ ", "cross": r"$\times$ "}.get(step.symbol, "")
    mark = rf"\stepmark{{{symbol}{escape_text(step.mark)}}}{{{escape_text(step.detail)}}}"
    body = _sequence([Paragraph(step.text), *step.body])
    return f"\\symropestep{{{step.number}}}{{{mark}}}{{%\n{body}}}\n"


def _sequence(blocks) -> str:
    """Blocks in order; a paragraph that follows text starts a new paragraph (a display never
    does: it belongs to the paragraph before it, as in print)."""
    out, previous = [], None
    for block in blocks:
        if isinstance(block, Paragraph) and isinstance(previous, Paragraph) and \
                not previous.small:
            out.append("\\par\n")
        out.append(_block(block))
        previous = block
    return "".join(out)


def write_latex(document: Document) -> str:
    """The standalone ``.tex`` file of ``document``."""
    out = [PREAMBLE, rf"\hypersetup{{pdftitle={{{pdf_string(document.pdf_title)}}}}}",
           r"\begin{document}"]
    if document.contents:
        out += [rf"\title{{{_text(document.title)}}}", r"\date{}", r"\maketitle"]
        out += [_block(block) for block in document.front]
        out.append(r"{\setlength{\parskip}{0pt}\tableofcontents}")
    else:
        out.append(rf"\section*{{{_text(document.title)}}}")
        out += [_block(block) for block in document.front]
    previous = None
    for block in document.blocks:
        if document.contents and isinstance(block, Heading) and block.level == 1:
            out.append(r"\clearpage")
        if isinstance(block, Paragraph) and isinstance(previous, Paragraph) and \
                not previous.small:
            out.append(r"\par")
        out.append(_block(block))
        previous = block
    if document.colophon:
        out.append("\n\\vfill\n{\\footnotesize " + _text(document.colophon) + "\\par}")
    out.append("\\end{document}\n")
    return "\n".join(out)


def theorem_document(report: ProofReport, kernel: dict | None = None) -> str:
    r"""A standalone ``.tex`` document: one theorem's derivation, step by step.

    Parameters
    ==========

    report : ProofReport
        What :meth:`~symrope.engine.Theorem.prove` returned.
    kernel : dict, optional
        The theorem's ``"kernel"`` summary from ``symrope prove --kernel coq``
        (:func:`symrope.kernel.kernel_summary`): its counts go into the summary table, and
        Coq's statement of the whole theorem with its hypotheses, when the summary has one.

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
    return write_latex(theorem_derivation(report, kernel))


def combined_document(reports: Iterable[ProofReport],
                      kernels: Iterable[dict | None] | None = None) -> str:
    r"""One standalone ``.tex`` document: a notation section, every derivation, and a closing
    table of verdicts (``kernels``: one ``--kernel coq`` summary per report, or None).

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
    (3, True)
    """
    return write_latex(combined_derivation(reports, kernels))
