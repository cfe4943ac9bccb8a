r"""A SymPy LaTeX printer that escapes user names and shows big matrices by their structure.

It also keeps symrope's notation (``symrope/latex/_notation.py``): ``\ln`` for the natural
logarithm, ``I`` for every identity matrix, ``^\top`` for the transpose, ``t - s`` rather than
SymPy's ``- s + t`` (a sum is never printed starting with a minus sign when it has a positive
term), and ``e`` only for Euler's number (a variable named ``e`` prints as ``\varepsilon``, one
named ``l`` as ``\ell``).
"""

from __future__ import annotations

from typing import Any

import re

import sympy as sp
from sympy.matrices.expressions import MatMul
from sympy.printing.latex import LatexPrinter, translate
from sympy.printing.precedence import PRECEDENCE, precedence_traditional

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
# A variable that would read as another symbol of the notation: e is Euler's number, l a one.
_RENAMED = {"e": r"\varepsilon", "l": r"\ell"}
_WORD = re.compile(r"[A-Za-z]+")


def _written_math(text: str) -> str:
    r"""The inside of a written name's subscript or argument list as math: Greek letters by
    name (``delta`` is ``\delta``), ``e`` and ``l`` renamed as for a variable."""
    return _WORD.sub(lambda m: _RENAMED.get(m.group(0)) or translate(m.group(0)), text)


class SafeLatexPrinter(LatexPrinter):
    """SymPy's :class:`~sympy.printing.latex.LatexPrinter`, safe for names users choose.

    A symbol, matrix symbol or function whose name is not a plain identifier (``omega_0`` is,
    ``\\input{x}`` is not) is printed as literal text. Explicit matrices larger than 8x8 are
    printed as ``diag(...)`` when block diagonal, or summarised by their shape.
    """

    printmethod = "_latex"
    _default_settings = {**LatexPrinter._default_settings, "ln_notation": True}

    def _deal_with_super_sub(self, string: str, style: str = "plain") -> str:
        if string in _RENAMED:
            return _RENAMED[string]
        if _SAFE_NAME.fullmatch(string):
            return super()._deal_with_super_sub(string, style=style)
        written = _WRITTEN_NAME.fullmatch(string)
        if written and any(written.group(part) is not None for part in ("sub", "sup", "args")):
            text = super()._deal_with_super_sub(written.group("base"), style=style)
            text += written.group("primes")
            if written.group("sub") is not None:
                text += "_{" + _written_math(written.group("sub")) + "}"
            if written.group("sup") is not None:
                text += "^{" + _written_math(written.group("sup")).replace("^T", r"^{\top}") + "}"
            if written.group("args") is not None:
                text += "(" + _written_math(written.group("args")) + ")"
            return text
        return escape_math_text(string)

    def _print_Transpose(self, expr):
        # The same transpose sign as the prose and the authors' displays: ^\top, not ^T; and
        # (C^{-1})^T is C^{-\top}.
        if isinstance(expr.arg, sp.Inverse) and isinstance(expr.arg.arg, sp.MatrixSymbol):
            return _inverse_transpose(self._print(expr.arg.arg))
        text = super()._print_Transpose(expr)
        return text[:-len("^{T}")] + r"^{\top}" if text.endswith("^{T}") else text

    def _print_Inverse(self, expr):
        if isinstance(expr.arg, sp.Transpose) and isinstance(expr.arg.arg, sp.MatrixSymbol):
            return _inverse_transpose(self._print(expr.arg.arg))
        return self._print_MatPow(expr)

    def _as_ordered_terms(self, expr, order=None):
        # t - s, not SymPy's -s + t: a sum starts with its first positive term when it has one.
        terms = list(super()._as_ordered_terms(expr, order=order))
        if isinstance(expr, sp.Add) and len(terms) > 1 and terms[0].could_extract_minus_sign():
            for index, term in enumerate(terms):
                if not term.could_extract_minus_sign():
                    return [term] + terms[:index] + terms[index + 1:]
        return terms

    def parenthesize(self, item: Any, level: int, is_neg: bool = False,
                     strict: bool = False) -> str:
        inner = _precedence(item)
        if is_neg and strict:
            return self._add_parens(self._print(item))
        if inner < level or (not strict and inner <= level):
            return self._add_parens(self._print(item))
        return self._print(item)

    def _print_MatMul(self, expr):
        # SymPy asks a product whether it "could extract a minus sign" by negating it, which
        # inverts every block-diagonal factor of an Inverse (seconds per block): the sign is
        # read off the leading coefficient instead (a matrix product is never its own negative).
        args = list(expr.args)
        sign = ""
        lead = args[0] if args else None
        if lead is not None and not isinstance(lead, sp.MatrixExpr) and \
                (lead.is_extended_negative if lead.is_number else lead.could_extract_minus_sign()):
            sign = "- "
            args = args[1:] if lead == -1 else [-lead, *args[1:]]
        level = _precedence(expr)
        return sign + " ".join(
            self._print(arg) if (isinstance(arg, sp.Mul) and not isinstance(arg, MatMul)) or
            arg.is_Rational else self.parenthesize(arg, level, False) for arg in args)

    def _print_MatAdd(self, expr):
        # a - b, not SymPy's a + -b; and a sum starts with a positive term when it has one
        terms = [self._print(term) for term in expr.args]
        positive = [t for t in terms if not t.startswith("-")]
        if positive and terms[0].startswith("-"):
            terms.remove(positive[0])
            terms.insert(0, positive[0])
        out = terms[0]
        for term in terms[1:]:
            out += " - " + term[1:].lstrip() if term.startswith("-") else " + " + term
        return out

    def _print_Identity(self, expr):
        return "I"   # one identity symbol whatever the size (SymPy writes \mathbb{I})

    def _print_ZeroMatrix(self, expr):
        return "0"

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


def _inverse_transpose(name: str) -> str:
    """``C^{-\top}``; a name with its own superscript (``e^{tX}``) is parenthesised first."""
    return (rf"\left({name}\right)" if "^" in name else name) + r"^{-\top}"


def _precedence(item) -> int:
    """SymPy's precedence, without negating a matrix product to find its sign."""
    if isinstance(item, MatMul):
        lead = item.args[0] if item.args else None
        return PRECEDENCE["Add"] if lead is not None and lead.is_number and \
            lead.is_extended_negative else PRECEDENCE["Mul"]
    return precedence_traditional(item)


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
    >>> math_latex(sp.MatrixSymbol("R_{t-s}", 4, 4).T * sp.MatrixSymbol("H'(delta+u)", 4, 4))
    "R_{t-s}^{\\top} H'(\\delta+u)"
    >>> math_latex(sp.Symbol("t") - sp.Symbol("s")), math_latex(sp.log(sp.Symbol("x")))
    ('t - s', '\\ln{\\left(x \\right)}')
    >>> math_latex(sp.Symbol(r"\input{x}"))
    '\\backslash{}\\text{input}\\{\\text{x}\\}'
    >>> J = sp.Matrix([[0, -1], [1, 0]])
    >>> math_latex(sp.diag(*[J] * 8))  # 16x16: shown by its blocks
    '\\operatorname{diag}\\left(\\left[\\begin{matrix}0 & -1\\\\1 & 0\\end{matrix}\\right],\\ \\left[\\begin{matrix}0 & -1\\\\1 & 0\\end{matrix}\\right],\\ \\ldots,\\ \\left[\\begin{matrix}0 & -1\\\\1 & 0\\end{matrix}\\right]\\right)'
    """
    if isinstance(expr, str):
        return escape_math_text(expr)
    return SafeLatexPrinter(settings).doprint(expr)
