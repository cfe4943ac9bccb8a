"""Escaping: user-provided text can never become LaTeX commands.

Two targets. :func:`escape_text` writes *text mode* LaTeX for documents compiled by pdflatex:
every ASCII special is typeset from the typewriter font by character code (``\\char92`` is a
backslash there), so the PDF shows -- and ``pdftotext`` extracts -- the literal character.
:func:`escape_math_text` writes *math mode* LaTeX that both pdflatex and MathJax (Jupyter, the
docs site) accept, for :func:`symrope.latex.latex` and ``Typeset``. Raw LaTeX that a theorem's
author supplies on purpose (``statement_latex``, a step's ``display``) is checked by
:func:`check_raw_latex` instead: it may typeset, never read or write files or redefine commands.
"""

from __future__ import annotations

import re
import unicodedata

from symrope.errors import UsageError

__all__ = ["escape_text", "escape_name", "escape_math_text", "check_raw_latex", "pdf_string",
           "markdown_text"]

# Characters typeset from the OT1 typewriter font by code: cmtt has the ASCII glyph in each slot.
_TYPEWRITER_CODES = {c: ord(c) for c in "\\{}$_~^<>|\"`"}
_SIMPLE_ESCAPES = {"%": r"\%", "#": r"\#", "&": r"\&"}

_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "varepsilon", "ζ": "zeta",
    "η": "eta", "θ": "theta", "ι": "iota", "κ": "kappa", "λ": "lambda", "μ": "mu", "ν": "nu",
    "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi",
    "χ": "chi", "ψ": "psi", "ω": "omega", "Γ": "Gamma", "Δ": "Delta", "Θ": "Theta",
    "Λ": "Lambda", "Ξ": "Xi", "Π": "Pi", "Σ": "Sigma", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega",
    "ϕ": "phi", "ϵ": "epsilon",
}
_MATH_SYMBOLS = {
    "≤": r"\leq", "≥": r"\geq", "≠": r"\neq", "→": r"\to", "←": r"\leftarrow",
    "⇒": r"\Rightarrow", "⇔": r"\Leftrightarrow", "↦": r"\mapsto", "∈": r"\in",
    "×": r"\times", "·": r"\cdot", "−": "-", "∞": r"\infty", "≈": r"\approx", "∑": r"\sum",
    "∫": r"\int", "√": r"\surd", "∂": r"\partial", "⊗": r"\otimes", "∘": r"\circ",
    "ℝ": r"\mathbb{R}", "ℤ": r"\mathbb{Z}", "ℂ": r"\mathbb{C}", "ℕ": r"\mathbb{N}",
    "⊤": r"\top", "±": r"\pm", "∀": r"\forall", "∃": r"\exists", "⁻": "^{-}", "²": "^{2}",
}
_TYPOGRAPHY = {"‘": "`", "’": "'", "“": "``", "”": "''", "–": "--", "—": "---", "…": r"\dots{}",
               "\u00a0": "~"}

# Long unbroken words (paths, dotted names) may break after these, so no line overflows.
_BREAK_AFTER = set("/._-:,=)]}^|+*")
_LONG_WORD = 10


def _non_ascii(char: str, *, math: bool) -> str:
    if char in _GREEK:
        command = "\\" + _GREEK[char]
        return command if math else f"\\ensuremath{{{command}}}"
    if char in _MATH_SYMBOLS:
        command = _MATH_SYMBOLS[char]
        return command if math else f"\\ensuremath{{{command}}}"
    if char in _TYPOGRAPHY and not math:
        return _TYPOGRAPHY[char]
    plain = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    if plain and plain.isascii() and plain.isprintable():
        return escape_math_text(plain) if math else escape_text(plain)
    code = f"[U+{ord(char):04X}]"
    return f"\\text{{{code}}}" if math else code


def escape_text(text: str, *, breakable: bool = True) -> str:
    r"""Return LaTeX (text mode) that typesets ``text`` literally.

    Parameters
    ==========

    text : str
        Anything a user wrote: a theorem or encoding name, a justification, a reference.
    breakable : bool
        Allow line breaks inside long words (after ``/``, ``.``, ``_`` ...), so that a file
        path or a dotted name never runs into the margin.

    Examples
    ========

    >>> from symrope.latex import escape_text
    >>> escape_text(r"\input{x} 50% & $5")
    '{\\ttfamily\\char92}input{\\ttfamily\\char123}x{\\ttfamily\\char125} 50\\% \\& {\\ttfamily\\char36}5'
    """
    text = str(text)
    out: list[str] = []
    run = 0  # characters since the last space: where long words get break opportunities
    for index, char in enumerate(text):
        if char in _TYPEWRITER_CODES:
            piece = f"{{\\ttfamily\\char{_TYPEWRITER_CODES[char]}}}"
        elif char in _SIMPLE_ESCAPES:
            piece = _SIMPLE_ESCAPES[char]
        elif char in "\n\t\r":
            piece = " "
        elif char == "-" and text[index + 1:index + 2] == "-":
            piece = "-{}"  # no en- or em-dash ligature: the reader sees what was written
        elif not char.isascii():
            piece = _non_ascii(char, math=False)
        elif not char.isprintable():
            piece = ""
        else:
            piece = char
        out.append(piece)
        run = 0 if char.isspace() else run + 1
        following = text[index + 1:index + 2]
        if breakable and run >= _LONG_WORD and following not in ";,.:!?)" and \
                (char in _BREAK_AFTER or run >= 2 * _LONG_WORD):
            out.append(r"\allowbreak{}")
            run = 0
    return "".join(out)


def escape_name(name: str) -> str:
    r"""Return LaTeX (text mode) for a name: typewriter font, every character literal.

    Examples
    ========

    >>> from symrope.latex import escape_name
    >>> escape_name("rope_relative")
    '\\texttt{rope{\\ttfamily\\char95}relative}'
    """
    return f"\\texttt{{{escape_text(name)}}}"


_MATH_SPECIALS = {"\\": r"\backslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "_": r"\_",
                  "%": r"\%", "#": r"\#", "&": r"\&", "~": r"\sim{}", "^": r"\wedge{}",
                  "<": "<", ">": ">", "|": r"\vert{}", '"': "''", "`": "'"}
_MATH_TEXT_SAFE = re.compile(r"[A-Za-z0-9 .,;:!?()\[\]'*+=/@-]+")


def escape_math_text(text: str) -> str:
    r"""Return math-mode LaTeX that shows ``text`` literally, in pdflatex and in MathJax.

    Safe runs go inside ``\text{...}``; specials become math symbols (``\backslash``, ``\{``...).

    Examples
    ========

    >>> from symrope.latex import escape_math_text
    >>> escape_math_text("a_b {c}")
    '\\text{a}\\_\\text{b }\\{\\text{c}\\}'
    """
    text = str(text)
    out: list[str] = []
    position = 0
    while position < len(text):
        match = _MATH_TEXT_SAFE.match(text, position)
        if match:
            out.append(f"\\text{{{match.group(0)}}}")
            position = match.end()
            continue
        char = text[position]
        if char in _MATH_SPECIALS:
            out.append(_MATH_SPECIALS[char])
        elif char in "\n\t\r":
            out.append(r"\ ")
        elif not char.isascii():
            out.append(_non_ascii(char, math=True))
        position += 1
    return "".join(out)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>$~^&:\"'@%=])")


def markdown_text(text: str) -> str:
    r"""Markdown that shows ``text`` literally: every ASCII punctuation mark backslash-escaped.

    Examples
    ========

    >>> from symrope.latex._escape import markdown_text
    >>> markdown_text("rope_relative [$x$]")
    'rope\\_relative \\[\\$x\\$\\]'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def pdf_string(text: str) -> str:
    """Plain characters for PDF bookmarks (hyperref): letters, digits and harmless punctuation."""
    return re.sub(r"[^A-Za-z0-9 .,:()+=/-]", " ", str(text)).strip() or "untitled"


# Primitives and commands that read or write files, run code, or change how later input is read.
_FORBIDDEN = re.compile(
    r"\\(input|include|InputIfFileExists|IfFileExists|openin|openout|read|readline|write|"
    r"immediate|special|catcode|def|edef|gdef|xdef|let|futurelet|newcommand|renewcommand|"
    r"providecommand|DeclareRobustCommand|csname|expandafter|endinput|usepackage|RequirePackage|"
    r"documentclass|pdfprimitive|directlua|ShellEscape|verbatiminput|lstinputlisting|"
    r"includegraphics|pdffilesize|pdffiledump|pdfmdfivesum|pdfobj|pdfliteral|scantokens|"
    r"begin\s*\{\s*document|end\s*\{\s*document|makeatletter|output|every\w*)(?![A-Za-z])")


def check_raw_latex(fragment: str, what: str) -> str:
    r"""Return ``fragment`` (author-supplied LaTeX) after checking that it only typesets.

    Raises :class:`~symrope.errors.UsageError` naming ``what`` when the fragment has unbalanced
    braces or uses a command that could read a file, write one, or redefine commands.

    Examples
    ========

    >>> from symrope.latex import check_raw_latex
    >>> check_raw_latex(r"R_d(s)^\top R_d(t) = R_d(t-s)", "statement_latex")
    'R_d(s)^\\top R_d(t) = R_d(t-s)'
    >>> check_raw_latex(r"\input{/etc/passwd}", "statement_latex")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: statement_latex uses \input, which LaTeX derivations do not allow (it could read or write files or redefine commands)
    """
    fragment = str(fragment)
    match = _FORBIDDEN.search(fragment)
    if match:
        raise UsageError(f"{what} uses \\{match.group(1)}, which LaTeX derivations do not allow "
                         f"(it could read or write files or redefine commands)")
    if "^^" in fragment:
        raise UsageError(f"{what} uses ^^ (TeX character-code notation), which is not allowed")
    depth = 0
    escaped = False
    for char in fragment:
        if escaped:
            escaped = False
            continue
        if char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                break
    if depth != 0:
        raise UsageError(f"{what} has unbalanced braces: {fragment!r}")
    if "%" in fragment.replace(r"\%", "") or "$" in fragment.replace(r"\$", ""):
        raise UsageError(f"{what} must be math-mode LaTeX without % comments or $ signs: "
                         f"{fragment!r}")
    return fragment
