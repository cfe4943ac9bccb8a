"""A standalone derivation for an encoding check (``symrope check ... --latex FILE``).

The document reads the checker report's ``to_dict()`` (its stable, JSON-shaped form) and typesets
it as mathematics: each assumption's claim and verdict, a counterexample as numbers, the
generator as block matrices, and the classification in words. Exact values arrive as SymPy
strings; they are parsed back exactly and printed with :class:`SafeLatexPrinter`, and anything
that does not parse is shown as escaped text, so no report can break the document.
"""

from __future__ import annotations

import re

import sympy as sp

from symrope.checker import CheckReport
from symrope.latex._document import PREAMBLE, _colophon
from symrope.latex._escape import escape_name, escape_text, pdf_string
from symrope.latex._printer import math_latex

__all__ = ["check_report_document"]

# name -> (title, the claim in math). Every claim is quantified over all positions and contents.
_CLAIMS = {
    "linearity": ("Linearity",
                  r"q \mapsto F(p)\,q,\quad k \mapsto G(p)\,k"
                  r"\quad\text{with } F(p), G(p) \text{ matrices free of } q, k"),
    "translation_invariance": ("Translation invariance",
                               r"F(s)^{\top} G(t) = H(t - s)\quad\text{for all } s, t"),
    "identity_at_zero": ("Identity at zero offset",
                         r"H(0) = F(p)^{\top} G(p) = I\quad\text{for all } p"),
    "continuity": ("Continuity", r"\delta \mapsto H(\delta)\ \text{is continuous on } \mathbb{R}"),
}
_VERDICT_WORDS = {"proved": "proved", "refuted": "refuted", "undecided": "undecided"}
_KIND_WORDS = {
    "rotation": "Rotation planes", "damped_rotation": "Damped rotation planes",
    "decay": "Decaying directions", "growth": "Growing directions",
    "exponential": "Exponential directions", "jordan": "Jordan blocks",
    "nilpotent": "Nilpotent shears", "zero": "Directions left unchanged",
}
_BLOCKS_SHOWN = 6        # generator blocks printed per axis; the JSON report has all of them
_ITEMS_SHOWN = 8         # classification items printed per kind


def _parse(text):
    """An exact SymPy value from the report's string form, or None when it is not one."""
    if not isinstance(text, str):
        return sp.sympify(text) if isinstance(text, (int, float)) else None
    try:
        return sp.sympify(text, rational=True)
    except (sp.SympifyError, SyntaxError, TypeError, ValueError, AttributeError):
        return None


def _math(value) -> str:
    """Math-mode LaTeX for one reported value: exact when it parses, escaped text otherwise."""
    parsed = _parse(value)
    if parsed is None:
        return r"\text{" + escape_text(str(value)) + "}"
    if isinstance(parsed, (list, tuple)):
        parsed = sp.Matrix(parsed)
    # -log(2)/512 + log(7)/512 reads better as (log 7 - log 2)/512.
    if isinstance(parsed, sp.MatrixBase):
        parsed = parsed.applyfunc(sp.factor_terms)
    elif isinstance(parsed, sp.Expr):
        parsed = sp.factor_terms(parsed)
    return math_latex(parsed)


def _approx(value) -> str:
    """``\\approx -0.180734`` for an exact real number; empty for a rational or a non-number."""
    parsed = _parse(value)
    if parsed is None or not isinstance(parsed, sp.Expr) or parsed.is_Rational \
            or not parsed.is_number:
        return ""
    number = sp.N(parsed, 30)
    if not number.is_real:
        return ""
    mantissa, _, exponent = f"{float(number):.6g}".partition("e")
    return r" \approx " + mantissa + (rf" \cdot 10^{{{int(exponent)}}}" if exponent else "")


# ASCII math the checker's evidence sentences use, typeset as math in the running text.
_PROSE_MATH = {"^T": r"\ensuremath{^{\top}}", "!=": r"\ensuremath{\neq}", "->": r"\ensuremath{\to}"}
_PROSE_TOKEN = re.compile("|".join(re.escape(token) for token in _PROSE_MATH))


def _prose(text: str) -> str:
    """A sentence of the report as text mode LaTeX, its ``^T`` and ``!=`` typeset as math."""
    parts = _PROSE_TOKEN.split(str(text))
    tokens = _PROSE_TOKEN.findall(str(text))
    out = [escape_text(parts[0])]
    for token, part in zip(tokens, parts[1:]):
        out += [_PROSE_MATH[token], escape_text(part)]
    return "".join(out)


def _display(math: str) -> str:
    return r"\[ \fitmath{" + math + r"} \]"


def _counterexample(name: str, point: dict) -> list[str]:
    """The counterexample of one assumption as displayed math with its numbers."""
    vectors = r",\quad ".join(f"{key} = {_math(point[key])}" for key in ("x", "y") if key in point)
    out = []
    if name == "translation_invariance" and {"s", "t"} <= point.keys():
        where = rf"s = {_math(point['s'])},\quad t = {_math(point['t'])}"
        # the checker shifts both positions by u where F(0) or G(0) is undefined as written
        shifted = "u" in point
        if shifted:
            where += rf",\quad u = {_math(point['u'])}"
            other, key = r"F(s + u)^{\top} G(t + u)", "score_at_s_plus_u_t_plus_u"
        else:
            other, key = r"F(0)^{\top} G(t - s)", "score_at_0_t_minus_s"
        out += [r"At the exact point", _display(where + (r",\quad " + vectors if vectors else "")),
                "the score depends on the positions themselves, not only on their offset:",
                _display(rf"x^{{\top}} F(s)^{{\top}} G(t)\, y = {_math(point.get('score_at_s_t'))}"
                         rf"{_approx(point.get('score_at_s_t'))}"),
                _display(rf"x^{{\top}} {other}\, y = {_math(point.get(key))}"
                         rf"{_approx(point.get(key))}")]
    elif name == "identity_at_zero" and "p" in point:
        out += [r"At the exact point",
                _display(rf"p = {_math(point['p'])}" + (r",\quad " + vectors if vectors else "")),
                _display(rf"x^{{\top}} F(p)^{{\top}} G(p)\, y = {_math(point.get('score'))}"
                         rf"{_approx(point.get('score'))} \neq x^{{\top}} y = "
                         rf"{_math(point.get('x_dot_y'))}")]
    elif name == "continuity" and "entry" in point:
        position = point.get("position") or {}
        where = r",\ ".join(f"{_math(k)} = {_math(v)}" for k, v in position.items())
        matrix = "F" if point.get("matrix") == "F" else "G"
        i, j = (int(n) for n in point["entry"])
        out += [rf"The entry ${matrix}(p)_{{{i}{j}}}$ has a {escape_text(str(point.get('kind')))} "
                rf"at ${where}$:",
                _display(rf"\lim_{{\uparrow}} = {_math(point.get('left_limit'))},\quad "
                         rf"\lim_{{\downarrow}} = {_math(point.get('right_limit'))},\quad "
                         rf"\text{{value}} = {_math(point.get('value'))}")]
    else:
        shown = {k: v for k, v in point.items() if k not in ("summary", "parameters")}
        out += ["Counterexample:", _display(r",\quad ".join(
            rf"\text{{{escape_text(str(k))}}} = {_math(v)}" for k, v in shown.items()))]
    if point.get("parameters"):
        out.append("with parameters " + ", ".join(
            f"${_math(k)} = {_math(v)}$" for k, v in point["parameters"].items()) + ".")
    return out


def _assumption_section(number: int, name: str, entry: dict) -> list[str]:
    title, claim = _CLAIMS.get(name, (name.replace("_", " ").capitalize(), None))
    verdict = _VERDICT_WORDS.get(entry.get("verdict"), str(entry.get("verdict")))
    out = [rf"\subsection*{{{number}. {escape_text(title)}: \textbf{{{escape_text(verdict)}}}}}"]
    if claim:
        out += ["Claim:", _display(claim)]
    if entry.get("evidence"):
        out.append(r"{\raggedright Evidence: \emph{" + _prose(entry["evidence"]) + r"}\par}")
    if isinstance(entry.get("counterexample"), dict):
        out += _counterexample(name, entry["counterexample"])
    return out + [""]


def _generator_section(generator: dict) -> list[str]:
    axes = generator.get("axes") or []
    several = len(axes) > 1
    out = [r"\subsection*{Generator}",
           "All four assumptions hold, so the relative transforms form a one-parameter group. "
           "The generator, the derivative of $H$ at zero offset, is block diagonal:"]
    for axis in axes:
        name = escape_text(str(axis.get("axis", "")))
        symbol = rf"X_{{\mathrm{{{name}}}}}" if several else "X"
        blocks = axis.get("blocks") or []
        picked = blocks[:_BLOCKS_SHOWN] + (blocks[-1:] if len(blocks) > _BLOCKS_SHOWN else [])
        shown = [_math(b.get("matrix")) for b in picked]
        names = [rf"B_{{{','.join(str(i) for i in b.get('indices', []))}}}" for b in picked]
        if len(blocks) > _BLOCKS_SHOWN:
            shown.insert(_BLOCKS_SHOWN, r"\ldots")
            names.insert(_BLOCKS_SHOWN, r"\ldots")
        whole = rf"{symbol} = \operatorname{{diag}}\left(" + r",\ ".join(shown) + r"\right)"
        # Too wide for one line: name the blocks by their coordinates, one per line.
        stacked = (rf"{symbol} = \operatorname{{diag}}\left(" + r",\ ".join(names) + r"\right)"
                   + "".join(rf"\\ {n} = {m}" for n, m in zip(names, shown) if m != r"\ldots"))
        out.append(r"\[ \fitorstack{" + whole + "}{" + stacked + r"} \]")
        if len(blocks) > _BLOCKS_SHOWN:
            out.append(f"({len(blocks)} blocks in all; the JSON report lists every one.)")
    exponential = generator.get("exponential") or {}
    form = r"H(\delta) = e^{\sum_k \delta_k X_k}" if several else r"H(\delta) = e^{\delta X}"
    out.append(rf"${form}$: \textbf{{{escape_text(str(exponential.get('verdict')))}}}"
               + (r" --- \emph{" + _prose(exponential["evidence"]) + "}"
                  if exponential.get("evidence") else "") + ".")
    rotation = (generator.get("pure_rotation") or {}).get("verdict")
    out.append(r"\par $X + X^{\top} = 0$ (a pure rotation, so one orthogonal transform can serve "
               rf"queries and keys): \textbf{{{escape_text(str(rotation))}}}.")
    if generator.get("commute") is not None:
        out.append(r"\par $X_a X_b = X_b X_a$ for every pair of axes (relative in every "
                   rf"direction at once): \textbf{{{escape_text(str(generator['commute'].get('verdict')))}}}.")
    return out + [""]


def _classification_section(classification: dict) -> list[str]:
    out = [r"\subsection*{Classification}",
           "The real Jordan form of the generator says what the encoding does to each plane:",
           r"\begin{itemize}"]
    for axis, groups in classification.items():
        prefix = rf"[{escape_text(str(axis))}] " if len(classification) > 1 else ""
        for kind, items in (groups or {}).items():
            label = escape_text(_KIND_WORDS.get(kind, kind.replace("_", " ").capitalize()))
            if kind == "zero":
                count = sum(int(item.get("count", 0)) for item in items)
                out.append(rf"  \item {prefix}{label}: {count}.")
                continue
            parts = []
            for item in items[:_ITEMS_SHOWN]:
                math = []
                if item.get("rate") not in (None, "0"):
                    math.append(rf"\lambda = {_math(item['rate'])}")
                if item.get("frequency") not in (None, "0"):
                    math.append(rf"\omega = {_math(item['frequency'])}")
                if not math:
                    math.append(rf"\mu = {_math(item.get('eigenvalue'))}")
                indices = ", ".join(str(i) for i in item.get("indices", []))
                parts.append("$" + r",\ ".join(math) + f"$ on coordinates {indices}"
                             + ("" if item.get("normal", True) else " (not normal)"))
            more = f"; and {len(items) - _ITEMS_SHOWN} more" if len(items) > _ITEMS_SHOWN else ""
            out.append(rf"  \item {prefix}{label} ({len(items)}): " + "; ".join(parts) + more + ".")
    out += [r"\end{itemize}", ""]
    return out


def check_report_document(check_report: CheckReport) -> str:
    r"""A standalone ``.tex`` derivation of an encoding check.

    Parameters
    ==========

    check_report : CheckReport or dict
        The checker's report, read through its ``to_dict()`` form: ``encoding``, ``dim``,
        ``position_dims``, ``verdict``, ``assumptions`` (each ``{verdict, evidence,
        counterexample}``), ``generator``, ``classification`` and ``notes``. Missing keys are
        skipped.

    Examples
    ========

    >>> from symrope.latex import check_report_document
    >>> tex = check_report_document({
    ...     "encoding": "my_rope$v2", "verdict": "refuted",
    ...     "assumptions": {"identity_at_zero": {
    ...         "verdict": "refuted", "evidence": "H(0) != I",
    ...         "counterexample": {"p": "37/7", "score": "cos(37/7)**2 - sin(37/7)**2",
    ...                            "x_dot_y": "1", "x": "e_0", "y": "e_0"}}}})
    >>> r"my{\ttfamily\char95}rope{\ttfamily\char36}v2" in tex
    True
    >>> r"p = \frac{37}{7}" in tex
    True
    """
    data = check_report.to_dict() if hasattr(check_report, "to_dict") else dict(check_report)
    encoding = str(data.get("encoding", "unnamed encoding"))
    axes = data.get("position_dims", 1)
    out = [PREAMBLE, rf"\hypersetup{{pdftitle={{symrope check: {pdf_string(encoding)}}}}}",
           r"\begin{document}", rf"\section*{{Encoding check: {escape_name(encoding)}}}"]
    facts = []
    if "dim" in data:
        facts.append(f"dimension ${int(data['dim'])}$")
    if isinstance(axes, int):
        facts.append(f"${axes}$ position " + ("axis" if axes == 1 else "axes"))
    out.append((", ".join(facts) + ". " if facts else "") +
               rf"Overall verdict: \textbf{{{escape_text(str(data.get('headline') or data.get('verdict', '')))}}}.")
    out += [r"\par A query $q$ at position $s$ and a key $k$ at position $t$ are scored by",
            _display(r"e_{st} = \bigl(F(s)\,q\bigr)^{\top} \bigl(G(t)\,k\bigr)."),
            "Under the four assumptions below the relative transforms $H$ form a one-parameter "
            r"group $H(\delta) = e^{\delta X}$. A claim is \emph{proved} only when a rewrite "
            r"reduced it to zero, \emph{refuted} only with the exact counterexample shown.", ""]
    assumptions = data.get("assumptions")
    if not isinstance(assumptions, dict):
        assumptions = {}
    order = [n for n in _CLAIMS if n in assumptions] + [n for n in assumptions if n not in _CLAIMS]
    for number, name in enumerate(order, start=1):
        entry = assumptions[name] if isinstance(assumptions[name], dict) else \
            {"verdict": assumptions[name]}
        out += _assumption_section(number, name, entry)
    if isinstance(data.get("generator"), dict):
        out += _generator_section(data["generator"])
    if isinstance(data.get("classification"), dict):
        out += _classification_section(data["classification"])
    for note in data.get("notes") or []:
        out.append(r"{\raggedright\small Note: " + _prose(note) + r"\par}")
    scale = data.get("uniform_scale") or {}
    if scale.get("c2"):  # symrope.lifting / checker._scale: an attention factor, named
        out.append(r"{\raggedright\small Attention factor (" + escape_text(scale["verdict"])
                   + r"): relative up to a uniform scale $c^2 = " + _math(scale["c2"])
                   + _approx(scale["c2"]) + r"$, $F(p)^{\top} G(p) = c^2 I$.\par}")
    for hazard in data.get("hazards") or []:  # lifted code: casts of positions, file:line
        out.append(r"{\raggedright\small Precision hazard: " + _prose(hazard["text"]) + r"\par}")
    out += [_colophon(), r"\end{document}", ""]
    return "\n".join(out)
