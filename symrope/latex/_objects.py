"""SymPy's printer protocol for symrope's own objects: verdicts, theorems and proof reports.

The engine knows nothing of LaTeX. This layer teaches a SymPy printer the engine's objects the
way SymPy itself is extended: a ``_print_<ClassName>`` method per class, which SymPy's
``Printer._print`` finds by walking the object's class hierarchy.
"""

from __future__ import annotations

from typing import Any

from symrope.engine import ProofReport, Theorem, Verdict
from symrope.latex._escape import escape_math_text
from symrope.latex._printer import SafeLatexPrinter
from symrope.latex._render import report_latex, theorem_latex, verdict_latex

__all__ = ["DerivationPrinter", "latex", "Typeset"]

# A derivation is long by nature: these are never cut down to a one-line summary.
_DERIVATIONS = (Verdict, Theorem, ProofReport)


class DerivationPrinter(SafeLatexPrinter):
    """:class:`SafeLatexPrinter` that also typesets ``Verdict``, ``Theorem`` and ``ProofReport``."""

    def _print_Verdict(self, verdict) -> str:
        return verdict_latex(verdict)

    def _print_Theorem(self, theorem) -> str:
        return theorem_latex(theorem)

    def _print_ProofReport(self, report) -> str:
        return report_latex(report)

    def doprint(self, expr: object) -> str:
        if isinstance(expr, _DERIVATIONS):
            return self._print(expr)
        return super().doprint(expr)


def latex(obj: object, **settings: Any) -> str:
    r"""Math-mode LaTeX for a verdict, theorem, proof report, or any SymPy expression.

    Replaces ``sympy.latex(report)``: the engine's objects carry no LaTeX hook of their own.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import verify
    >>> from symrope.latex import latex
    >>> x = sp.Symbol("x", real=True)
    >>> latex(verify(sp.sin(2*x), 2*sp.sin(x))).startswith(r"\sin{\left(2 x \right)} \neq")
    True
    >>> latex(sp.Symbol("omega_0"))
    '\\omega_{0}'
    """
    if isinstance(obj, str):
        return escape_math_text(obj)
    return DerivationPrinter(settings).doprint(obj)


class Typeset:
    r"""Wrap an object so Jupyter displays it as typeset mathematics (``_repr_latex_``).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope import verify
    >>> from symrope.latex import Typeset
    >>> x = sp.Symbol("x", real=True)
    >>> text = Typeset(verify(sp.cos(x)**2, 1 - sp.sin(x)**2))._repr_latex_()
    >>> text.startswith(r"$\displaystyle \cos^{2}{\left(x \right)} = 1 - \sin^{2}"), text[-1]
    (True, '$')
    """

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {latex(self.obj)}$"

    def __repr__(self) -> str:
        return f"Typeset({self.obj!r})"
