"""A SymPy LaTeX printer that escapes user names and shows big matrices by their structure."""

from __future__ import annotations

from typing import Any

import re

import sympy as sp
from sympy.printing.latex import LatexPrinter

from symrope.latex._escape import escape_math_text

__all__ = ["SafeLatexPrinter", "math_latex", "MAX_EXPLICIT_SIDE", "MAX_LATEX_CHARS"]

MAX_EXPLICIT_SIDE = 8      # explicit matrices up to 8x8 are printed entry by entry
MAX_LATEX_CHARS = 2500     # longer expressions are summarised rather than printed
_SHOWN_BLOCKS = 2          # diag(B_0, B_1, ..., B_last) for long block diagonals
_MAX_SCANNED_SIDE = 64

# Names SymPy may typeset itself: letters and digits, with _sub / ^super parts and primes.
_SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*([_^][A-Za-z0-9]+)*'*")
# Names written the way a reader writes them: a base name, primes, an optional braced
# subscript and an optional argument list, e.g. R_{t-s}, H(d+e), H'(d). Only characters that
# mean nothing special to TeX may appear inside the braces and parentheses.
_WRITTEN_NAME = re.compile(r"(?P<base>[A-Za-z][A-Za-z0-9]*)(?P<primes>'*)"
                           r"(?:_\{(?P<sub>[A-Za-z0-9+\-, ]+)\})?"
                           r"(?:\^\{(?P<sup>[A-Za-z0-9+\-, ']+(?:\^T)?)\})?"
                           r"(?:\((?P<args>[A-Za-z0-9+\-, ]*)\))?")


class SafeLatexPrinter(LatexPrinter):
    """SymPy's :class:`~sympy.printing.latex.LatexPrinter`, safe for names users choose.

    A symbol, matrix symbol or function whose name is not a plain identifier (``omega_0`` is,
    ``\\input{x}`` is not) is printed as literal text. Explicit matrices larger than 8x8 are
    printed as ``diag(...)`` when block diagonal, or summarised by their shape.
    """

    printmethod = "_latex"

    def _deal_with_super_sub(self, string: str, style: str = "plain") -> str:
        if _SAFE_NAME.fullmatch(string):
            return super()._deal_with_super_sub(string, style=style)
        written = _WRITTEN_NAME.fullmatch(string)
        if written and any(written.group(part) is not None for part in ("sub", "sup", "args")):
            text = super()._deal_with_super_sub(written.group("base"), style=style)
            text += written.group("primes")
            if written.group("sub") is not None:
                text += "_{" + written.group("sub") + "}"
            if written.group("sup") is not None:
                text += "^{" + written.group("sup").replace("^T", r"^{\top}") + "}"
            if written.group("args") is not None:
                text += "(" + written.group("args") + ")"
            return text
        return escape_math_text(string)

    def _print_Transpose(self, expr):
        # The same transpose sign as the prose and the authors' displays: ^\top, not ^T.
        text = super()._print_Transpose(expr)
        return text[:-len("^{T}")] + r"^{\top}" if text.endswith("^{T}") else text

    def _print_Str(self, s):
        return self._deal_with_super_sub(str(s.name))

    def _print_MatrixBase(self, expr):
        rows, cols = expr.shape
        if rows <= MAX_EXPLICIT_SIDE and cols <= MAX_EXPLICIT_SIDE:
            return super()._print_MatrixBase(expr)
        # Block structure is looked for up to 64x64 (the largest explicit matrix the engine
        # accepts); beyond that scanning every entry would cost more than it shows.
        blocks = _diagonal_blocks(expr) if max(rows, cols) <= _MAX_SCANNED_SIDE else None
        if blocks is not None:
            return self._diag(blocks)
        return _shape_summary(expr)

    _print_Matrix = _print_MatrixBase
    _print_ImmutableMatrix = _print_ImmutableDenseMatrix = _print_MatrixBase
    _print_MutableDenseMatrix = _print_MutableSparseMatrix = _print_MatrixBase
    _print_ImmutableSparseMatrix = _print_SparseMatrix = _print_MatrixBase

    def _print_BlockDiagMatrix(self, expr):
        return self._diag(list(expr.diag))

    def _print_BlockMatrix(self, expr):
        rows, cols = expr.blockshape
        if rows <= MAX_EXPLICIT_SIDE and cols <= MAX_EXPLICIT_SIDE:
            return self._print(expr.blocks)
        return _shape_summary(expr)

    def _diag(self, blocks: list) -> str:
        """``diag(B_0, B_1, ..., B_last)``: a long block diagonal shows its first and last blocks."""
        if len(blocks) > _SHOWN_BLOCKS + 1:
            items = [self._print(b) for b in blocks[:_SHOWN_BLOCKS]] + [r"\ldots",
                                                                        self._print(blocks[-1])]
        else:
            items = [self._print(b) for b in blocks]
        return r"\operatorname{diag}\left(" + ",\\ ".join(items) + r"\right)"

    def doprint(self, expr: object) -> str:
        text = super().doprint(expr)
        if len(text) > MAX_LATEX_CHARS:
            return _long_summary(expr, len(text))
        return text


def _diagonal_blocks(matrix) -> list | None:
    """The 2x2 (or 1x1) blocks of a block-diagonal square matrix, or None if it is not one."""
    rows, cols = matrix.shape
    if rows != cols:
        return None
    blocks, start = [], 0
    while start < rows:
        size = 2 if start + 1 < rows and (matrix[start, start + 1] != 0 or
                                          matrix[start + 1, start] != 0) else 1
        blocks.append(matrix[start:start + size, start:start + size])
        start += size
    starts = []
    position = 0
    for block in blocks:
        starts.append((position, position + block.shape[0]))
        position += block.shape[0]
    owner = [0] * rows
    for index, (begin, end) in enumerate(starts):
        for i in range(begin, end):
            owner[i] = index
    for i in range(rows):
        for j in range(cols):
            if owner[i] != owner[j] and matrix[i, j] != 0:
                return None
    return blocks


def _shape_summary(expr) -> str:
    rows, cols = expr.shape
    return (r"\left[\text{a } " + sp.latex(rows) + r" \times " + sp.latex(cols) +
            r"\text{ matrix, not printed}\right]")


def _long_summary(expr, length: int) -> str:
    ops = sp.count_ops(expr) if isinstance(expr, sp.Basic) else None
    what = f"an expression of {ops} operations" if ops is not None else "an expression"
    return r"\left[\text{" + what + f" ({length} characters of LaTeX), not printed" + r"}\right]"


def math_latex(expr: object, **settings: Any) -> str:
    r"""Math-mode LaTeX for ``expr`` with :class:`SafeLatexPrinter`.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.latex import math_latex
    >>> math_latex(sp.Symbol("omega_0") * sp.Symbol("p"))
    '\\omega_{0} p'
    >>> math_latex(sp.MatrixSymbol("R_{t-s}", 4, 4).T * sp.MatrixSymbol("H'(d+e)", 4, 4))
    "R_{t-s}^{\\top} H'(d+e)"
    >>> math_latex(sp.Symbol(r"\input{x}"))
    '\\backslash{}\\text{input}\\{\\text{x}\\}'
    >>> J = sp.Matrix([[0, -1], [1, 0]])
    >>> math_latex(sp.diag(*[J] * 8))  # 16x16: shown by its blocks
    '\\operatorname{diag}\\left(\\left[\\begin{matrix}0 & -1\\\\1 & 0\\end{matrix}\\right],\\ \\left[\\begin{matrix}0 & -1\\\\1 & 0\\end{matrix}\\right],\\ \\ldots,\\ \\left[\\begin{matrix}0 & -1\\\\1 & 0\\end{matrix}\\right]\\right)'
    """
    if isinstance(expr, str):
        return escape_math_text(expr)
    return SafeLatexPrinter(settings).doprint(expr)
