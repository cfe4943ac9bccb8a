r"""How wide displayed math is, and how to break it: the layouts a writer chooses from.

A journal breaks a long display (at a relation, after a comma, before an implication, between
the terms of a sum) rather than shrinking it. pdflatex measures each layout and shows the first
that fits (``\fitfirst`` in the document preamble); this module proposes the layouts, and
estimates widths in ems where Python must decide (whether what SymPy computed is worth
printing at all). The estimate is deliberately rough -- a letter is about half an em -- and is
never the last word: LaTeX measures what is typeset.
"""

from __future__ import annotations

import re

__all__ = ["math_width", "split_top_level", "packed_lines", "LINE_EM", "display_layouts",
           "chain_layouts", "side_by_side"]

#: The text width of the documents (A4, 2.3 cm + 4.3 cm margins, 11 pt) in ems.
LINE_EM = 37.0

_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_FUNCTIONS = {"sin", "cos", "tan", "ln", "log", "exp", "det", "lim", "max", "min", "arctan",
              "atan", "operatorname", "sinc", "Re", "Im"}
_RELATIONS = {"=", "<", ">", "leq", "geq", "le", "ge", "neq", "ne", "to", "mapsto", "implies",
              "iff", "Rightarrow", "approx", "in", "equiv", "coloneqq", "sim"}
_SPACES = {"quad": 1.0, "qquad": 2.0, ",": 0.17, ";": 0.28, ":": 0.22, " ": 0.33, "!": -0.17}
_DROPPED = {"left", "right", "bigl", "bigr", "Bigl", "Bigr", "displaystyle", "textstyle",
            "limits", "nolimits", "mathrm", "mathbf", "mathsf", "boldsymbol", "mathit"}


def _group(latex: str, start: int) -> tuple[str, int]:
    """The ``{...}`` group (or single token) at ``start``: its content and the index after it."""
    while start < len(latex) and latex[start] == " ":
        start += 1
    if start >= len(latex):
        return "", start
    if latex[start] != "{":
        match = _COMMAND.match(latex, start)
        end = match.end() if match else start + 1
        return latex[start:end], end
    depth = 0
    for index in range(start, len(latex)):
        char = latex[index]
        if char == "\\":
            continue
        if char == "{" and latex[index - 1:index] != "\\":
            depth += 1
        elif char == "}" and latex[index - 1:index] != "\\":
            depth -= 1
            if depth == 0:
                return latex[start + 1:index], index + 1
    return latex[start + 1:], len(latex)


def _environment(latex: str, start: int, name: str) -> tuple[str, int]:
    """The body of ``\\begin{name}...\\end{name}`` whose ``\\begin`` ends at ``start``."""
    depth, position = 1, start
    pattern = re.compile(r"\\(begin|end)\{" + re.escape(name) + r"\}")
    while True:
        match = pattern.search(latex, position)
        if match is None:
            return latex[start:], len(latex)
        depth += 1 if match.group(1) == "begin" else -1
        if depth == 0:
            return latex[start:match.start()], match.end()
        position = match.end()


def _split_rows(body: str) -> list[list[str]]:
    rows, cells, depth, start = [], [], 0, 0
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and body[index + 1:index + 2] == "\\" and depth == 0:
            cells.append(body[start:index])
            rows.append(cells)
            cells, start = [], index + 2
            index += 2
            continue
        if char == "\\":
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "&" and depth == 0:
            cells.append(body[start:index])
            start = index + 1
        index += 1
    cells.append(body[start:])
    rows.append(cells)
    return [row for row in rows if any(cell.strip() for cell in row)]


def math_width(latex: str, scale: float = 1.0) -> float:
    r"""A rough width of math-mode ``latex`` in ems of the surrounding font.

    Examples
    ========

    >>> from symrope.latex._layout import math_width
    >>> 3 < math_width("R_d(s)^\\top R_d(t) = R_d(t-s)") < 12
    True
    >>> math_width(r"\left[\begin{matrix}a & b\\c & d\end{matrix}\right]") < 4
    True
    """
    width, index = 0.0, 0
    while index < len(latex):
        char = latex[index]
        if char in "^_":
            content, index = _group(latex, index + 1)
            width += math_width(content, scale * 0.7)
            continue
        if char == "{":
            content, index = _group(latex, index)
            width += math_width(content, scale)
            continue
        if char == "\\":
            match = _COMMAND.match(latex, index)
            name = match.group(1)
            index = match.end()
            if name == "begin":
                environment, index = _group(latex, index)
                if environment in ("array", "tabular"):
                    _, index = _group(latex, index)   # the column specification
                body, index = _environment(latex, index, environment)
                rows = _split_rows(body)
                if environment in ("matrix", "pmatrix", "bmatrix", "array"):
                    columns = max(len(row) for row in rows) if rows else 0
                    column_widths = [max((math_width(row[c], scale) for row in rows
                                          if c < len(row)), default=0) for c in range(columns)]
                    width += sum(column_widths) + 0.9 * scale * max(columns - 1, 0) + 0.3 * scale
                else:  # aligned, gathered, cases: the widest row
                    width += max((sum(math_width(cell, scale) for cell in row) for row in rows),
                                 default=0)
                continue
            if name in ("frac", "tfrac", "dfrac", "binom"):
                top, index = _group(latex, index)
                bottom, index = _group(latex, index)
                inner = scale if name == "dfrac" else scale * 0.8
                width += max(math_width(top, inner), math_width(bottom, inner)) + 0.2 * scale
                continue
            if name in ("text", "mathrm", "operatorname", "textbf", "mathbb", "mathcal",
                        "texttt", "textit", "emph"):
                content, index = _group(latex, index)
                if name in ("mathbb", "mathcal"):
                    width += 0.75 * scale
                else:
                    width += 0.5 * scale * len(re.sub(r"\\.", "x", content)) + \
                        (0.2 * scale if name == "operatorname" else 0)
                continue
            if name in ("sqrt",):
                content, index = _group(latex, index)
                width += math_width(content, scale) + 0.9 * scale
                continue
            if name in ("hat", "tilde", "bar", "vec", "overline", "mathbf", "boldsymbol"):
                content, index = _group(latex, index)
                width += math_width(content, scale)
                continue
            if name in ("overset", "underset", "stackrel"):
                _, index = _group(latex, index)
                content, index = _group(latex, index)
                width += math_width(content, scale) + 0.5 * scale
                continue
            if name in _DROPPED or name in ("end", "ensuremath"):
                continue
            if name in _SPACES:
                width += _SPACES[name] * scale
            elif name in _RELATIONS:
                width += 1.4 * scale
            elif name in _FUNCTIONS:
                width += (0.5 * len(name) + 0.2) * scale
            elif name in ("cdot", "times", "pm", "oplus", "otimes", "circ"):
                width += 1.2 * scale
            elif name in ("ldots", "cdots", "dots"):
                width += 1.2 * scale
            elif name in ("sum", "int", "prod"):
                width += 1.2 * scale
            else:
                width += 0.6 * scale
            continue
        if char in "=<>":
            width += 1.4 * scale
        elif char in "+-":
            width += 1.2 * scale
        elif char in ",;":
            width += 0.45 * scale
        elif char in "()[]|/":
            width += 0.4 * scale
        elif char == "&" or char.isspace():
            pass
        elif char.isdigit():
            width += 0.5 * scale
        else:
            width += 0.55 * scale
        index += 1
    return width


_SEPARATOR = re.compile(r"\\q?quad(?![A-Za-z])")
_OPEN = re.compile(r"\\left(?![A-Za-z])|\\begin\{[^}]*\}|\{")
_CLOSE = re.compile(r"\\right(?![A-Za-z])|\\end\{[^}]*\}|\}")


def split_top_level(latex: str, separator: re.Pattern = _SEPARATOR) -> list[str]:
    r"""Split math at ``\quad`` / ``\qquad`` outside any group, ``\left..\right`` or environment.

    Examples
    ========

    >>> from symrope.latex._layout import split_top_level
    >>> split_top_level(r"a = b,\quad \left(c \quad d\right),\qquad e^{x \quad y}")
    ['a = b,', '\\left(c \\quad d\\right),', 'e^{x \\quad y}']
    >>> split_top_level(r"\begin{matrix}a \quad b\end{matrix},\quad c")
    ['\\begin{matrix}a \\quad b\\end{matrix},', 'c']
    """
    parts, depth, start, position = [], 0, 0, 0
    while position < len(latex):
        if latex[position] == "\\" and position + 1 < len(latex) and \
                not latex[position + 1].isalpha() and latex[position + 1] != " ":
            position += 2  # an escaped character such as \{ opens nothing
            continue
        for pattern, change in ((_OPEN, 1), (_CLOSE, -1)):
            match = pattern.match(latex, position)
            if match:
                depth += change
                position = match.end() - 1
                break
        else:
            match = separator.match(latex, position) if depth == 0 else None
            if match:
                parts.append(latex[start:position].strip())
                start = match.end()
                position = max(match.end(), position + 1)  # a lookahead matches no characters
                continue
        position += 1
    parts.append(latex[start:].strip())
    return [part for part in parts if part]


# Where a long statement may break: between \quad-separated statements (always, once it does
# not fit on one line), after a comma-separated item, and before an implication.
_ITEM = re.compile(r"(?<=[,;])\\[ ;]")
_ARROW = re.compile(r"(?=\\(?:implies|iff|Rightarrow|Longrightarrow)(?![A-Za-z]))")


def _packed(latex: str, width: float) -> list[tuple[int, str]]:
    """``(indent, line)`` pairs: 0 starts a statement, 1 an implication, 2 continues one."""
    lines: list[list] = []
    for statement in split_top_level(latex):
        for clause_index, clause in enumerate(split_top_level(statement, _ARROW)):
            for item_index, item in enumerate(split_top_level(clause, _ITEM)):
                if item_index > 0 and math_width(lines[-1][1] + item) + 0.5 <= width - \
                        lines[-1][0]:
                    lines[-1][1] = lines[-1][1] + r"\ " + item
                elif item_index == 0:
                    lines.append([1 if clause_index else 0, item])
                else:
                    lines.append([2 if clause_index else 1, item])
    return [(indent, line) for indent, line in lines]


def packed_lines(latex: str, width: float = LINE_EM - 3) -> list[str]:
    r"""``latex`` broken into lines of at most ``width`` ems (estimated): each ``\quad``-separated
    statement and each implication starts a line, and comma-separated items fill lines.

    Examples
    ========

    >>> from symrope.latex._layout import packed_lines
    >>> packed_lines(r"a = b,\ c = d \implies e = f,\ g = h", width=9)
    ['a = b,\\ c = d', '\\implies e = f,\\ g = h']
    >>> packed_lines(r"a = b,\quad c = d", width=20)
    ['a = b,', 'c = d']
    """
    return [line for _, line in _packed(latex, width)]


def display_layouts(latex: str) -> tuple[str, ...]:
    r"""The layouts of an author's display: as written, then broken into packed lines (an
    implication indented under its premise, its continuation lines further in)."""
    lines = _packed(latex, LINE_EM - 3)
    if len(lines) < 2:
        return (latex,)
    indents = {0: "&", 1: r"&\quad ", 2: r"&\qquad\quad "}
    body = r"\\ ".join(indents[indent] + line for indent, line in lines)
    return (latex, r"\begin{aligned}" + body + r"\end{aligned}")


_EQUALS = re.compile(r"(?<![<>!\\])=")


def chain_layouts(latex: str) -> tuple[str, ...]:
    r"""A chain ``a = b = c`` as written, then one equality per line (``\begin{aligned}``).

    Examples
    ========

    >>> from symrope.latex._layout import chain_layouts
    >>> chain_layouts("a = b = c")[1]
    '\\begin{aligned}a &= b\\\\ &= c\\end{aligned}'
    """
    parts = split_top_level(latex, _EQUALS)
    if len(parts) < 3:
        return (latex,)
    body = parts[0] + " &= " + r"\\ &= ".join(parts[1:])
    return (latex, r"\begin{aligned}" + body + r"\end{aligned}")


def side_by_side(*pieces: str) -> tuple[str, ...]:
    """Formulas beside each other when they fit, else one per line."""
    return (r",\qquad ".join(pieces), r"\begin{gathered}" + r",\\ ".join(pieces) +
            r"\end{gathered}")
