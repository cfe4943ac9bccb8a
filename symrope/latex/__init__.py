"""LaTeX derivations: proofs as typeset mathematics, step by step.

``symrope latex`` writes one standalone document per theorem (and ``--all`` one combined
document). :func:`latex` typesets a verdict, theorem or proof report in math mode through
SymPy's printer protocol (:class:`DerivationPrinter`), and ``Typeset(report)`` shows one in
Jupyter. The engine imports nothing of this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from symrope.latex._escape import (check_raw_latex, escape_math_text, escape_name, escape_text,
                                   markdown_text, pdf_string)
from symrope.latex._printer import SafeLatexPrinter, math_latex
from symrope.latex._render import name_math, report_latex, theorem_latex, verdict_latex
from symrope.latex._derivation import versions
from symrope.latex._document import combined_document, theorem_document
from symrope.latex._compile import (compile_pdf, latex_errors, overfull_boxes,
                                    pdflatex_available)
from symrope.latex._markdown import report_markdown
from symrope.latex._objects import DerivationPrinter, Typeset, latex

# The encoding-check document names the checker's report type, and the checker loads numpy,
# the linear algebra and the zoo: imported on first use (PEP 562), so that typesetting proofs
# never pays for the checker's import.
_LAZY = {"check_report_document": "symrope.latex._check"}

if TYPE_CHECKING:  # pragma: no cover
    from symrope.latex._check import check_report_document

__all__ = ["latex", "Typeset", "DerivationPrinter", "verdict_latex", "report_latex", "theorem_latex", "theorem_document",
           "combined_document", "check_report_document", "compile_pdf", "report_markdown",
           "math_latex", "name_math", "SafeLatexPrinter", "escape_text", "escape_name",
           "escape_math_text", "check_raw_latex", "pdf_string", "latex_errors", "overfull_boxes",
           "pdflatex_available", "versions", "markdown_text"]


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
