"""The document model every derivation is written in: rich text, blocks, one document.

A proof report (:mod:`symrope.latex._derivation`) and an encoding check
(:mod:`symrope.latex._check`) are each walked *once*, into a :class:`Document`; writers turn the
document into a file: LaTeX (:mod:`symrope.latex._document`) and MyST Markdown
(:mod:`symrope.latex._markdown`). What a derivation says is decided here, how it looks there.

Text is a tuple of :class:`Span` s: words (escaped by every writer, so they always print
literally), math (math-mode LaTeX that was printed by :class:`SafeLatexPrinter` or checked by
:func:`check_raw_latex`), code (a name to be typed in a terminal, in typewriter font), and
words in bold or italics.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Union

from symrope.latex._escape import check_raw_latex
from symrope.latex._prose import split_prose

__all__ = ["Span", "Text", "words", "math", "code", "strong", "emph", "prose", "join",
           "sentence", "plain", "Heading", "Paragraph", "Display", "Claim", "ItemList",
           "Table", "Quote", "Step", "Document", "Block", "WORDS", "MATH", "CODE", "STRONG",
           "EMPH"]

WORDS, MATH, CODE, STRONG, EMPH = "words", "math", "code", "strong", "emph"


@dataclass(frozen=True)
class Span:
    """A run of text of one kind (``words``, ``math``, ``code``, ``strong`` or ``emph``)."""

    kind: str
    value: str


Text = tuple  # of Span


def words(text: str) -> Text:
    return (Span(WORDS, str(text)),) if text else ()


def math(latex: str) -> Text:
    """Math-mode LaTeX, already safe (printer output or checked author LaTeX)."""
    return (Span(MATH, str(latex)),)


def code(text: str) -> Text:
    """A name or command as typed (typewriter font, every character literal)."""
    return (Span(CODE, str(text)),)


def strong(text: str) -> Text:
    return (Span(STRONG, str(text)),)


def emph(text: str) -> Text:
    return (Span(EMPH, str(text)),)


def prose(text: str, what: str = "prose") -> Text:
    r"""Prose (words with inline math between dollar signs), each formula checked.

    Examples
    ========

    >>> from symrope.latex._model import prose
    >>> [(s.kind, s.value) for s in prose(r"with $a = s\omega_i$ each")]
    [('words', 'with '), ('math', 'a = s\\omega_i'), ('words', ' each')]
    """
    return tuple(Span(MATH, check_raw_latex(piece, what)) if is_math else Span(WORDS, piece)
                 for is_math, piece in split_prose(text) if piece)


def join(*parts) -> Text:
    """Concatenate text pieces; a plain ``str`` is words."""
    out: list[Span] = []
    for part in parts:
        if isinstance(part, str):
            out.extend(words(part))
        elif part:
            out.extend(part)
    return tuple(out)


_END = re.compile(r"[.!?:]\s*$")


def sentence(text: Text) -> Text:
    """``text`` as a sentence: its first word capitalised, a full stop at the end.

    Examples
    ========

    >>> from symrope.latex._model import prose, sentence, plain
    >>> plain(sentence(prose("block by block: $R(a)^\\top R(b)$")))
    'Block by block: $R(a)^\\top R(b)$.'
    >>> plain(sentence(prose("$e^0 = 1$ and so on.")))
    '$e^0 = 1$ and so on.'
    """
    spans = [span for span in text if span.value]
    if not spans:
        return ()
    first = spans[0]
    if first.kind == WORDS:
        stripped = first.value.lstrip()
        if stripped[:1].islower() and not _starts_with_identifier(stripped):
            spans[0] = Span(WORDS, stripped[0].upper() + stripped[1:])
    last = spans[-1]
    if last.kind == WORDS:
        if not _END.search(last.value):
            spans[-1] = Span(WORDS, last.value.rstrip().rstrip(",;") + ".")
    else:
        spans.append(Span(WORDS, "."))
    return tuple(spans)


def _starts_with_identifier(text: str) -> bool:
    """A word that must keep its case (``eigh``, ``x_i``): letters glued to ``_`` or ``.``."""
    word = text.split(" ", 1)[0]
    return any(mark in word.rstrip(".,;:") for mark in "_.()")


def plain(text: Text) -> str:
    """Words as written and math between dollar signs (for tests and plain-text summaries)."""
    return "".join(f"${span.value}$" if span.kind == MATH else span.value for span in text)


# --- blocks --------------------------------------------------------------------------------------

@dataclass
class Heading:
    """A section (``level`` 1) or subsection (2) heading; ``numbered`` ones enter the contents."""

    text: Text
    level: int = 1
    numbered: bool = False


@dataclass
class Paragraph:
    """Running text; ``lead`` is a bold run-in heading (``Statement.``), ``small`` a footnote
    size aside (evidence, notes)."""

    text: Text
    lead: str | None = None
    small: bool = False
    role: str = ""               # "reference": words quoted from the literature, not ours


@dataclass
class Claim:
    """One displayed equation ``left relation right`` (math-mode LaTeX).

    ``fallback`` is a last layout for a claim too wide for one or two lines (each entry of a
    matrix equation on its own line, say); the writers use it only when the others overflow.
    """

    left: str
    relation: str
    right: str
    fallback: str | None = None
    computed: bool = False       # what SymPy computed ("SymPy gives"), not the step's claim


@dataclass
class Display:
    """Displayed math: ``layouts`` from the most compact to the most broken; a writer shows
    the first that fits its line (the LaTeX writer measures; Markdown shows the first)."""

    layouts: tuple


@dataclass
class ItemList:
    items: list
    numbered: bool = False
    labels: list | None = None   # explicit labels ("[1]") instead of bullets or numbers
    role: str = ""               # "reference": a list of references to the literature


@dataclass
class Table:
    rows: list                   # of lists of Text
    header: list | None = None
    align: str = "ll"            # l, r, or p (a wrapped column): one letter per column
    role: str = ""               # "notation": the symbol table (its symbols stand alone)


@dataclass
class Quote:
    text: Text


@dataclass
class Step:
    """One step of a derivation: its number, margin mark, sentence and what it displays.

    ``mark`` is what the margin says in bold (``checked``, ``refuted``, ``definition``,
    ``cited [2]``, ``FAILED: ...``), ``detail`` the line under it; ``body`` the blocks after the
    sentence (the claim, what SymPy gives, the evidence).
    """

    number: int
    mark: str
    detail: str
    text: Text
    body: list = field(default_factory=list)
    symbol: str | None = None    # "check" or "cross" in front of the mark


Block = Union[Heading, Paragraph, Display, Claim, ItemList, Table, Quote, Step]


@dataclass
class Document:
    """A whole derivation: ``title`` (a section heading), the ``blocks``, and how it ends.

    ``colophon`` is the closing small print (which command generated it, and how verdicts are
    decided); ``pdf_title`` the PDF's metadata title (plain characters).
    """

    title: Text
    blocks: list
    pdf_title: str
    colophon: Text = ()
    contents: bool = False       # a table of contents after the title (combined document)
    front: list = field(default_factory=list)   # blocks before the contents
