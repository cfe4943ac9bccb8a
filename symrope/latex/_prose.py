r"""Prose with inline math: the words of a derivation, with its formulas typeset.

A theorem's statement, hypotheses and summary, a step's justification and a cited lemma's claim
are *prose*: plain words with inline math between dollar signs, as in a paper
(``"the angle-addition formulas, with $a = s\omega_i$"``). The math is LaTeX math mode, checked
by :func:`~symrope.latex.check_raw_latex` (it may typeset, never read files or redefine
commands); the words are escaped, so they always print literally. ``\$`` is a literal dollar
sign, and so is a lone ``$`` with no partner.

One split, four targets: text-mode LaTeX for documents, math-mode LaTeX for the ``_latex``
hooks, MyST Markdown (``$...$`` is its inline math too) and plain text for a terminal.
"""

from __future__ import annotations

import re

from symrope.latex._escape import check_raw_latex, escape_math_text, escape_text, markdown_text

__all__ = ["split_prose", "prose_text", "prose_math", "prose_markdown", "prose_words",
           "method_phrase"]

_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)


def split_prose(text: str) -> list[tuple[bool, str]]:
    r"""``text`` as ``(is_math, piece)`` pairs, in order; ``\$`` in words becomes ``$``.

    Examples
    ========

    >>> from symrope.latex._prose import split_prose
    >>> split_prose(r"with $\omega_i = \theta^{-2i/d}$ for \$5")
    [(False, 'with '), (True, '\\omega_i = \\theta^{-2i/d}'), (False, ' for $5')]
    """
    text = str(text)
    pieces: list[tuple[bool, str]] = []
    position = 0
    for match in _MATH.finditer(text):
        if match.start() > position:
            pieces.append((False, text[position:match.start()].replace(r"\$", "$")))
        pieces.append((True, match.group(1)))
        position = match.end()
    if position < len(text):
        pieces.append((False, text[position:].replace(r"\$", "$")))
    return pieces


def prose_text(text: str, what: str = "prose") -> str:
    r"""Text-mode LaTeX for prose: words escaped, each formula checked and set as inline math.

    Examples
    ========

    >>> from symrope.latex._prose import prose_text
    >>> prose_text(r"block by block: $R(a)^\top R(b) = R(b - a)$")
    'block by block: $R(a)^\\top R(b) = R(b - a)$'
    >>> prose_text("50% of $x_1$")
    '50\\% of $x_1$'
    """
    return "".join(f"${check_raw_latex(piece, what)}$" if is_math else escape_text(piece)
                   for is_math, piece in split_prose(text))


def prose_math(text: str, what: str = "prose") -> str:
    r"""Math-mode LaTeX for prose (words in ``\text{...}``), for pdflatex and MathJax alike.

    Examples
    ========

    >>> from symrope.latex._prose import prose_math
    >>> prose_math(r"hence $X^\top = -X$")
    '\\text{hence }X^\\top = -X'
    """
    return "".join(check_raw_latex(piece, what) if is_math else escape_math_text(piece)
                   for is_math, piece in split_prose(text))


def prose_markdown(text: str, what: str = "prose") -> str:
    r"""MyST Markdown for prose: words escaped, formulas as ``$...$`` inline math.

    Examples
    ========

    >>> from symrope.latex._prose import prose_markdown
    >>> prose_markdown(r"the pair (q_a, q_b): $q_a^2$")
    'the pair \\(q\\_a, q\\_b\\)\\: $q_a^2$'
    """
    out = []
    for is_math, piece in split_prose(text):
        if is_math:
            out.append(f"${check_raw_latex(piece, what).strip()}$")
        else:
            # markdown_text collapses whitespace; keep the spaces that separate words from math.
            lead = " " if piece[:1].isspace() else ""
            tail = " " if piece[-1:].isspace() and piece.strip() else ""
            out.append(lead + markdown_text(piece) + tail)
    return "".join(out)


def prose_words(text: str) -> list[str]:
    """The word pieces of prose (what ``pdftotext`` finds verbatim in a compiled derivation).

    Examples
    ========

    >>> from symrope.latex._prose import prose_words
    >>> prose_words(r"for every $d$, proved")
    ['for every ', ', proved']
    """
    return [piece for is_math, piece in split_prose(text) if not is_math]


_TEMPLATE = re.compile(r"^(?P<rewrite>.*?),\s*(?P<template>one template for .*)$")
_REWRITE_NAMES = {"identical": "identity of the normalised sides", "expand": "expansion",
                  "simplify": "simplification"}


def method_phrase(method: str | None) -> str:
    """The engine's method string (``"a; b, one template for 2 entries; a"``) as one phrase.

    Each rewrite is named once, in order, and the templates follow in parentheses.

    Examples
    ========

    >>> from symrope.latex._prose import method_phrase
    >>> method_phrase("trigonometric expansion; trigonometric expansion, one template for "
    ...               "2 entries; identical")
    'trigonometric expansion and identity of the normalised sides (one template for 2 entries)'
    >>> method_phrase(None)
    'rewriting'
    """
    rewrites: list[str] = []
    templates: list[str] = []
    for part in (method or "").split(";"):
        part = part.strip()
        if not part:
            continue
        match = _TEMPLATE.match(part)
        if match:
            part = match.group("rewrite").strip()
            if match.group("template") not in templates:
                templates.append(match.group("template"))
        name = _REWRITE_NAMES.get(part, part)
        if name and name not in rewrites:
            rewrites.append(name)
    if not rewrites:
        rewrites = ["rewriting"]
    phrase = rewrites[0] if len(rewrites) == 1 else \
        ", ".join(rewrites[:-1]) + " and " + rewrites[-1]
    if templates:
        phrase += " (" + "; ".join(templates) + ")"
    return _TYPOGRAPHIC.sub(lambda m: _SIGNS[m.group(0)], phrase)


# The engine names a few rewrites with ASCII signs ("sinc(u) -> sin(u)/u where u != 0"): a
# derivation prints the signs themselves.
_SIGNS = {"->": "→", "!=": "≠", "<=": "≤", ">=": "≥"}
_TYPOGRAPHIC = re.compile("|".join(re.escape(sign) for sign in _SIGNS))
