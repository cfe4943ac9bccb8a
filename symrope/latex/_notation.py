r"""symrope's notation: one symbol per concept, one concept per symbol, in every document.

:data:`NOTATION` is the symbol table a derivation prints (the entries its mathematics uses; the
combined document prints all of them, as its notation section). :func:`notation_conflicts`
finds a symbol used for two concepts, or a concept written two ways, in a document;
:func:`python_leaks` finds a Python identifier or value that reached the mathematics or the
prose. The tests run both over every built-in derivation and check report.

The conventions the printer keeps (:mod:`symrope.latex._printer`): ``\ln`` (never ``\log``),
``I`` for every identity matrix, ``^\top`` for the transpose, ``t - s`` in that order, ``e``
only for Euler's number (a variable named ``e`` is printed ``\varepsilon``), ``\ell`` for a
lag, ``\delta`` for an offset ``t - s``, and ``k`` only for the key vector (an index or an
exponent is ``j`` or ``m``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from symrope.latex._model import (CODE, MATH, Claim, Display, Document, Heading,
                                  ItemList, Paragraph, Quote, Step, Table)

__all__ = ["NOTATION", "Notation", "notation_used", "notation_conflicts", "python_leaks",
           "document_pieces"]


@dataclass(frozen=True)
class Notation:
    symbol: str       # math-mode LaTeX
    meaning: str      # prose (words and $math$)
    used: str         # a regular expression on a document's math: the entry applies when found


NOTATION = (
    Notation(r"q,\ k", "the content vectors of a query and of a key",
             r"(?<![\\A-Za-z_^])q(?![A-Za-z])"),
    Notation(r"s,\ t", "the positions of the query and of the key",
             r"(?<![\\A-Za-z_^])s(?![A-Za-z])"),
    Notation(r"F,\ G", r"the transforms of queries and of keys: the score is "
             r"$(F(s)\,q)^\top (G(t)\,k)$", r"(?<![\\A-Za-z])[FG]\("),
    Notation(r"H", r"the relative transform: $F(s)^\top G(t) = H(t - s)$",
             r"(?<![\\A-Za-z])H'?\("),
    Notation(r"\delta", r"an offset $t - s$ of the key's position from the query's",
             r"\\delta(?![A-Za-z])"),
    Notation(r"X", r"a generator: $H(\delta) = e^{\delta X}$, $X = H'(0)$",
             r"(?<![\\A-Za-z])X(?![A-Za-z])"),
    Notation(r"J", r"$\begin{pmatrix}0 & -1\\ 1 & 0\end{pmatrix}$, the generator of plane "
             r"rotations: $J^2 = -I$", r"(?<![\\A-Za-z])J(?![A-Za-z])"),
    Notation(r"R(\phi)", r"the rotation of the plane by the angle $\phi$: "
             r"$R(\phi) = \begin{pmatrix}\cos\phi & -\sin\phi\\ \sin\phi & \cos\phi\end{pmatrix}"
             r" = \cos\phi\, I + \sin\phi\, J = e^{\phi J}$", r"(?<![\\A-Za-z])R\("),
    Notation(r"\omega_i", r"the angular frequency of the $i$-th pair of coordinates "
             r"(RoPE's default: $\omega_i = \theta^{-2i/d}$ with base $\theta$)",
             r"\\omega"),
    Notation(r"d", r"the head dimension (even: $d/2$ pairs of coordinates)",
             r"(?<![\\A-Za-z])d\s*=\s*\d|d/2|/d(?![A-Za-z])"),
    Notation(r"R_d(p)", r"RoPE's rotation of a whole head: "
             r"$\operatorname{diag}(R(p\,\omega_0), \ldots, R(p\,\omega_{d/2-1}))$",
             r"R_\{?d\}?\("),
    Notation(r"\operatorname{diag}(A_1, \ldots, A_m)", "the block-diagonal matrix with these "
             "blocks", r"\\operatorname\{diag\}"),
    Notation(r"I", "the identity matrix (of the size the context needs)",
             r"(?<![\\A-Za-z])I(?![A-Za-z])"),
    Notation(r"A^\top,\ A^{-\top}", r"the transpose, and $(A^{-1})^\top$", r"\\top"),
    Notation(r"e,\ \ln", r"Euler's number and the natural logarithm ($e$ is never a variable)",
             r"(?<![\\A-Za-z])e\^|\\ln"),
    Notation(r"\ell", r"a causal lag $s - t \ge 0$ (the key before the query)", r"\\ell"),
)


def notation_used(math_pieces) -> list[Notation]:
    """The entries of :data:`NOTATION` whose symbols appear in ``math_pieces``."""
    text = "\n".join(math_pieces)
    return [entry for entry in NOTATION if re.search(entry.used, text)]


# --- what a document says -------------------------------------------------------------------------

def document_pieces(document: Document) -> tuple[list[str], list[str]]:
    """``(math, words)``: every math-mode fragment of ``document`` and every run of its own
    words (references to the literature and code spans are not its words)."""
    math_pieces: list[str] = []
    word_pieces: list[str] = []

    def text(spans, own=True):
        for span in spans:
            if span.kind == MATH:
                math_pieces.append(span.value)
            elif span.kind != CODE and own:
                word_pieces.append(span.value)

    def block(item):
        if isinstance(item, Heading):
            text(item.text)
        elif isinstance(item, Paragraph):
            text(item.text, own=item.role != "reference")
        elif isinstance(item, Display):
            math_pieces.extend(item.layouts[:1])
        elif isinstance(item, Claim):
            math_pieces.extend([item.left, item.right])
        elif isinstance(item, ItemList):
            for entry in item.items:
                text(entry, own=item.role != "reference")
        elif isinstance(item, Table) and item.role != "notation":
            for row in (item.header or []), *item.rows:
                for cell in row:
                    text(cell)
        elif isinstance(item, Quote):
            text(item.text)
        elif isinstance(item, Step):
            text(item.text)
            for inner in item.body:
                block(inner)

    text(document.title)
    for item in [*document.front, *document.blocks]:
        block(item)
    return math_pieces, word_pieces


def _tokens(latex: str):
    """``(letter, in_script, next_char)`` for every single-letter variable of ``latex``.

    Command names (``\\cos``), ``\\text{...}``-like groups and ``\\begin{...}`` arguments are
    skipped; ``in_script`` is whether the letter is inside a sub- or superscript.
    """
    out = []
    stack: list[bool] = [False]
    pending_script = False
    index = 0
    while index < len(latex):
        char = latex[index]
        if char == "\\":
            match = re.match(r"\\([A-Za-z]+|.)", latex[index:])
            name = match.group(1)
            index += match.end()
            if name in ("text", "mathrm", "operatorname", "begin", "end", "textbf", "texttt",
                        "mathbb", "mathcal", "textit", "emph", "mathsf") and \
                    latex[index:index + 1] == "{":
                depth = 0
                for end in range(index, len(latex)):
                    depth += {"{": 1, "}": -1}.get(latex[end], 0)
                    if depth == 0:
                        index = end + 1
                        break
            pending_script = False   # x^\top: the command was the whole script
            continue
        if char in "^_":
            pending_script = True
            index += 1
            continue
        if char == "{":
            stack.append(stack[-1] or pending_script)
            pending_script = False
        elif char == "}":
            if len(stack) > 1:
                stack.pop()
        elif char.isalpha():
            before = latex[index - 1:index]
            after = latex[index + 1:index + 2]
            if not before.isalpha() and not after.isalpha():
                out.append((char, stack[-1] or pending_script, after, before))
            pending_script = False
        elif not char.isspace():
            pending_script = False
        index += 1
    return out


_FORBIDDEN_MATH = {
    r"\log": r"the natural logarithm is \ln",
    r"\mathbb{I}": "the identity is I",
    r"\mathbb{1}": "the identity is I",
    r"\mathsf T": r"the transpose is ^\top",
    r"\mathsf{T}": r"the transpose is ^\top",
    r"\mathrm{diag}": r"block diagonals are \operatorname{diag}",
}
_OFFSET_AS_D = re.compile(r"(?<![\\A-Za-z])[HE]'?\(\s*-?\s*d(?![A-Za-z])|e\^\{-?dX|"
                          r"\\frac\{d\}\{dd\}")
_TRANSPOSE_T = re.compile(r"\^\{?T\}?(?![A-Za-z])")
_SIZE_AS_X = re.compile(r"\b\d+x\d+\b")


def notation_conflicts(document: Document) -> list[str]:
    """Where ``document`` uses one symbol for two concepts, or one concept with two symbols.

    Examples
    ========

    >>> from symrope.latex._model import Document, Paragraph, math
    >>> doc = Document((), [Paragraph(math(r"e^{x} + e > 0"))], "t")
    >>> notation_conflicts(doc)
    ["e is Euler's number and a variable: write the variable \\\\varepsilon"]
    """
    math_pieces, word_pieces = document_pieces(document)
    found: list[str] = []
    joined = "\n".join(math_pieces)
    for pattern, rule in _FORBIDDEN_MATH.items():
        if pattern in joined:
            found.append(f"{pattern} appears: {rule}")
    if _TRANSPOSE_T.search(joined):
        found.append(r"a transpose written ^T: the transpose is ^\top")
    if _OFFSET_AS_D.search(joined):
        found.append(r"an offset written d: offsets are \delta (d is the head dimension)")
    tokens = [token for piece in math_pieces for token in _tokens(piece)]
    euler = any(letter == "e" and after == "^" for letter, _, after, _ in tokens)
    variable_e = any(letter == "e" and after != "^" for letter, _, after, _ in tokens)
    if euler and variable_e:
        found.append(r"e is Euler's number and a variable: write the variable \varepsilon")
    if any(letter == "l" for letter, *_ in tokens):
        found.append(r"a variable l: write \ell")
    key = any(letter == "k" and not script and not before.isdigit() and after != "!"
              for letter, script, after, before in tokens)
    index = any(letter == "k" and (script or before.isdigit() or after == "!")
                for letter, script, after, before in tokens)
    if key and index:
        found.append("k is the key vector and an index or exponent: write the index j or m")
    for piece in word_pieces:
        match = _SIZE_AS_X.search(piece)
        if match:
            found.append(f"{match.group(0)!r} in the text: sizes are written $2 \\times 2$")
            break
    return found


_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_DOTTED = re.compile(r"\b[a-z_]+\.[a-z_]+\.[a-z_]+\b")
_PYTHON_VALUES = re.compile(r"\b(None|True|False)\b")
_PYTHON_SETTING = re.compile(r"[=:(]\s*(None|True|False)\b")   # explicit=False, not "False in"


def python_leaks(document: Document) -> list[str]:
    """Python identifiers and values that reached the mathematics or the prose of ``document``.

    In math: an escaped underscore (``inv\\_freq``) or ``None``/``True``/``False``; in the
    document's own words (not code spans, not references): a snake_case identifier, a dotted
    module path, ``None``/``True``/``False``.

    Examples
    ========

    >>> from symrope.latex._model import Document, Paragraph, math, words
    >>> python_leaks(Document((), [Paragraph(math(r"\\text{tolerance} = \\text{None}"))], "t"))
    ['math: \\\\text{tolerance} = \\\\text{None}']
    >>> python_leaks(Document((), [Paragraph(words("see exponential_form"))], "t"))
    ["words: 'exponential_form'"]
    """
    math_pieces, word_pieces = document_pieces(document)
    found = [f"math: {piece}" for piece in math_pieces
             if r"\_" in piece or _PYTHON_VALUES.search(re.sub(r"\\[A-Za-z]+", " ", piece))]
    for piece in word_pieces:
        for pattern in (_IDENTIFIER, _DOTTED, _PYTHON_SETTING):
            match = pattern.search(piece)
            if match:
                found.append(f"words: {match.group(0)!r}")
    return found
