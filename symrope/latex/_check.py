r"""An encoding check as a derivation (``symrope check ... --latex FILE``).

The checker report's ``to_dict()`` (its stable, JSON-shaped form) is walked once into the same
document model as a proof (:mod:`symrope.latex._model`) and written by the same LaTeX writer.
Everything is typeset from *data*: each assumption's claim, how it was proved (the ``proof``
entry: the route, the block count, the rewrites), a counterexample's exact numbers, the
generator's blocks and the classification; the sentences the terminal prints are not pasted in.

Notation (one symbol per concept): content vectors $q$ (query) and $k$ (key), positions $s$,
$t$ (vectors for several axes), the score $a(s, t)$, offsets $\delta$, generators $A_j$, $B_j$
of $F$ and $G$ and $X_j$ of $H$ (axes counted from 1), $b_i$ the $i$-th standard basis vector
(coordinates counted from 1). Exact values arrive as SymPy strings; they are parsed back
exactly and printed with :class:`SafeLatexPrinter`, and anything that does not parse is shown
as literal text, so no report can break the document.

(Over 500 lines on purpose: each proof route and counterexample kind of the checker is typeset
here, beside the report keys it reads, so a change to the report's shape has one place to go.)
"""

from __future__ import annotations

import re

import sympy as sp

from symrope.checker import CheckReport
from symrope.errors import UsageError
from symrope.latex._derivation import plural, versions
from symrope.latex._document import write_latex
from symrope.latex._layout import LINE_EM, chain_layouts, display_layouts, math_width, side_by_side
from symrope.latex._model import (Claim, Display, Document, Heading, ItemList, Paragraph, code,
                                  join, math, sentence, strong, words)
from symrope.latex._printer import math_latex
from symrope.latex._prose import method_phrase

__all__ = ["check_report_document", "check_derivation"]

_TITLES = {"linearity": "Linearity", "translation_invariance": "Translation invariance",
           "identity_at_zero": "Identity at zero offset", "continuity": "Continuity"}
_KIND_WORDS = {
    "rotation": "Rotation planes", "damped_rotation": "Damped rotation planes",
    "decay": "Decaying directions", "growth": "Growing directions",
    "exponential": "Exponential directions", "jordan": "Jordan blocks",
    "nilpotent": "Nilpotent shears", "zero": "Directions left unchanged",
}
_BLOCKS_SHOWN = 6        # generator blocks printed per axis; the JSON report has all of them
_ITEMS_SHOWN = 8         # classification items printed per kind


def _parse(text):
    """The exact SymPy value a report entry carries, or None when it carries none.

    The checker's strings carry their value (``.exact``); a plain string (a report read back
    from JSON) is read by the one parser as a number, else shown as text: report text is never
    evaluated (``sympify`` of a string runs Python).
    """
    if isinstance(text, (list, tuple)):
        values = [_parse(item) for item in text]
        return None if any(v is None for v in values) else values
    exact = getattr(text, "exact", None)
    if exact is not None:
        return exact
    if not isinstance(text, str):
        return sp.sympify(text) if isinstance(text, (int, float)) else None
    from symrope._parse import parse_number

    try:
        return sp.sympify(parse_number(text), strict=True)
    except UsageError:
        return None


def _math(value) -> str:
    """Math-mode LaTeX for one reported value: exact when it parses, literal text otherwise."""
    parsed = _parse(value)
    if parsed is None:
        return r"\text{" + re.sub(r"[^A-Za-z0-9 .,:()+\-/*]", "?", str(value)) + "}"
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], list):
        parsed = sp.Matrix(parsed)
    elif isinstance(parsed, list):   # a position with several coordinates, or a vector
        return r"\left(" + ",\\ ".join(math_latex(sp.factor_terms(v)) for v in parsed) + \
            r"\right)"
    if isinstance(parsed, sp.Tuple):
        return r"\left(" + ",\\ ".join(math_latex(v) for v in parsed) + r"\right)"
    # -log(2)/512 + log(7)/512 reads better as (log 7 - log 2)/512.
    if isinstance(parsed, sp.MatrixBase):
        parsed = parsed.applyfunc(sp.factor_terms)
    elif isinstance(parsed, sp.Expr):
        parsed = sp.factor_terms(parsed)
    return math_latex(parsed)


def _approx(value) -> str:
    r"""``\approx -0.180734`` for an exact real number; empty for a rational or a non-number."""
    parsed = _parse(value)
    if parsed is None or not isinstance(parsed, sp.Expr) or parsed.is_Rational \
            or not parsed.is_number:
        return ""
    number = sp.N(parsed, 30)
    if not number.is_real:
        return ""
    mantissa, _, exponent = f"{float(number):.6g}".partition("e")
    return r" \approx " + mantissa + (rf" \cdot 10^{{{int(exponent)}}}" if exponent else "")


def _value(value) -> str:
    """A reported number: exact and approximate, or only approximate when the exact form would
    not fit a line (the JSON report carries it)."""
    exact, approx = _math(value), _approx(value)
    if approx and math_width(exact) > LINE_EM / 2:
        return approx.strip()
    return exact + approx


def _first_key(point: dict, *keys: str) -> str:
    return next((key for key in keys if key in point), keys[0])


def _basis_coordinate(value) -> int | None:
    """``i`` of a basis vector ``e_i``: the report's own (a :class:`~symrope.checker.BasisVector`
    carries it), else read from the text of a report loaded back from JSON; None otherwise."""
    coordinate = getattr(value, "coordinate", None)
    if coordinate is not None:
        return coordinate
    match = re.fullmatch(r"e_(\d+)", value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def _vector(value) -> str:
    """A content vector: ``b_1`` for the report's ``e_0``, else its entries."""
    coordinate = _basis_coordinate(value)
    if coordinate is not None:
        return f"b_{{{coordinate + 1}}}"
    return _math(value)


class _Setting:
    """What depends on the number of position axes: ``sB`` or ``s_1 B_1 + s_2 B_2``, ..."""

    def __init__(self, axes: int):
        self.axes = axes
        self.several = axes > 1

    def combination(self, position: str, letter: str) -> str:
        """``position`` times ``letter``: ``(t - s)B``, or ``(t_1 - s_1) B_1 + ...``."""
        if not self.several:
            return f"{position} {letter}" if position.startswith("\\") else f"{position}{letter}"
        terms = []
        for j in range(1, self.axes + 1):
            if position == "(t - s)":
                coefficient = f"(t_{j} - s_{j})"
            elif position.startswith("-"):
                coefficient = f"-{position[1:]}_{j}"
            else:
                coefficient = f"{position}_{{{j}}}" if position.startswith("\\") else \
                    f"{position}_{j}"
            terms.append(f"{coefficient} {letter}_{j}")
        return " + ".join(terms).replace("+ -", "- ")

    def exp(self, position: str, letter: str) -> str:
        inner = self.combination(position, letter)
        return rf"e^{{{inner}}}" if not self.several else rf"\exp\left({inner}\right)"

    def group(self) -> tuple:
        """The statement of the group the relative transforms form."""
        if not self.several:
            return join("a one-parameter group ", math(r"H(\delta) = e^{\delta X}"),
                        ", ", math(r"\delta \in \mathbb{R}"))
        count = {2: "two", 3: "three"}.get(self.axes, str(self.axes))
        return join(f"a {count}-parameter commuting group ",
                    math(rf"H(\delta) = {self.exp(chr(92) + 'delta', 'X')}"), ", ",
                    math(rf"\delta \in \mathbb{{R}}^{{{self.axes}}}"), ", with ",
                    math(r"X_i X_j = X_j X_i"))

    def positions(self) -> str:
        return r"s, t \in \mathbb{R}" + (f"^{{{self.axes}}}" if self.several else "")


def _claim(name: str, setting: _Setting) -> Claim | None:
    everywhere = setting.positions()
    return {
        "linearity": Claim(r"q \mapsto F(p)\,q,\quad k \mapsto G(p)\,k", r"\quad",
                           r"\text{with matrices } F(p), G(p) \text{ free of } q, k"),
        "translation_invariance": Claim(r"F(s)^\top G(t)", "=",
                                        rf"H(t - s)\quad\text{{for all }} {everywhere}"),
        "identity_at_zero": Claim(r"F(p)^\top G(p)", "=", r"I\quad\text{for all } p"),
        "continuity": Claim(r"\delta \mapsto H(\delta)", r"\quad",
                            r"\text{continuous on } \mathbb{R}" +
                            (f"^{{{setting.axes}}}" if setting.several else "")),
    }.get(name)


def _methods(proof: dict) -> str:
    found = proof.get("methods") or []
    return method_phrase("; ".join(str(m) for m in found)) if found else ""


def _proof(name: str, proof: dict, setting: _Setting) -> list:
    """How a proved assumption was proved, typeset from the report's ``proof`` entry."""
    route = proof.get("route")
    how = _methods(proof)
    by = f" ({how})" if how else ""
    j = "j" if setting.several else ""
    partial = (lambda f: rf"\partial {f}/\partial p_j") if setting.several else \
        (lambda f: f"{f}'")
    if route == "matrices":
        sizes = " or ".join(str(s) for s in proof.get("sizes") or [])
        return [Paragraph(join(
            "The query and the key are ", math(r"F(p)\,q"), " and ", math(r"G(p)\,k"),
            " with ", math("F"), " and ", math("G"), " their Jacobians in the content, which are "
            f"free of it{by}. Both are block diagonal in the same "
            f"{plural(int(proof.get('blocks', 0)), 'block')}"
            + (f" of size {sizes}" if sizes else "") +
            "; every claim below is decided block by block."), lead="Proof.")]
    if route == "superposition":
        return [Paragraph(join("For symbolic scalars ", math(r"\alpha, \beta"),
                               " and contents ", math("q, q'"), ": query",
                               math(r"(\alpha q + \beta q', p)"), " = ", math(r"\alpha"),
                               " query", math("(q, p)"), " + ", math(r"\beta"), " query",
                               math("(q', p)"), f", and the same for the key{by}."),
                          lead="Proof.")]
    if route == "exponential":
        A = rf"A_{j}" if j else "A"
        B = rf"B_{j}" if j else "B"
        facts = [join(math(r"F(0) = I"), " and ", math(rf"{partial('F')} = {A}\,F(p)"),
                      " with ", math(rf"{A} = {partial('F')}\,(0)"))]
        if proof.get("shared"):
            facts.append(join(math("G = F"), ", so ", math(f"{B} = {A}")))
        else:
            facts.append(join(math(r"G(0) = I"), " and ", math(rf"{partial('G')} = {B}\,G(p)")))
        facts.append(math(rf"{A}^\top = -{B}"))
        if setting.several:
            facts.append(math(r"B_i B_j = B_j B_i"))
        rewrites = {"sinc": join("after writing ", math(r"\operatorname{sinc} u"), " as ",
                                 math(r"\sin u / u")),
                    "abs": join("after replacing ", math(r"\lvert p_j\rvert"), " by ",
                                math("p_j"), " in entries even in it"),
                    "extension": words("with the removable singularities of the entries filled "
                                       "in by continuity")}
        extra = [rewrites[r] for r in proof.get("rewrites") or [] if r in rewrites]
        listed: list = []
        for index, fact in enumerate(facts):
            listed += ([", "] if 0 < index < len(facts) - 1 else
                       [" and "] if index == len(facts) - 1 and index else []) + [fact]
        conclusion = (rf"F(s)^\top G(t) = {setting.exp('-s', 'B')}\, {setting.exp('t', 'B')} = "
                      rf"{setting.exp('(t - s)', 'B')}" if name == "translation_invariance" else
                      rf"F(p)^\top G(p) = {setting.exp('-p', 'B')}\, {setting.exp('p', 'B')} = I")
        text = join("The checker recognised both transforms as exponentials, ",
                    math(rf"F(p) = {setting.exp('p', 'A')}"), " and ",
                    math(rf"G(p) = {setting.exp('p', 'B')}"), ": it proved ", *listed,
                    *([" ("] + [piece for r in extra for piece in (r, "; ")][:-1] + [")"]
                      if extra else []),
                    f"{by}, block by block ({plural(int(proof.get('blocks', 0)), 'block')}). "
                    "Uniqueness of the solution of a linear ODE (cited) gives the exponential "
                    "form" + (", and commuting generators add in the exponent" if setting.several
                              else "") + ", hence")
        return [Paragraph(text, lead="Proof."), Display(chain_layouts(conclusion))]
    if route == "blocks":
        if name == "identity_at_zero":
            claim = r"F(p)^\top G(p) = I"
        elif proof.get("shifted"):
            claim = r"F(s)^\top G(t) = F(s + u)^\top G(t + u)\ \text{for all } u"
        else:
            claim = r"F(s)^\top G(t) = F(0)^\top G(t - s)"
        text = join("Proved block by block "
                    f"({plural(int(proof.get('blocks', 0)), 'block')}){by}:")
        out = [Paragraph(text, lead="Proof."), Display((claim,))]
        if proof.get("shifted"):
            out.append(Paragraph(join(math("F(0)"), " is undefined as written, so the claim "
                                      "shifts both positions instead of evaluating at 0."),
                                 small=True))
        return out
    if route == "score":
        claim = (r"a(p, p) = q^\top k" if name == "identity_at_zero" else
                 r"a(s, t) = a(s + u, t + u)\ \text{for all } u" if proof.get("shifted") else
                 r"a(s, t) = a(0, t - s)")
        return [Paragraph(join("Proved on the score, for symbolic contents ", math("q, k"),
                               f"{by}:"), lead="Proof."), Display((claim,))]
    if route == "composition":
        what = (words("The score") if proof.get("of") == "score" else
                join("Every entry of ", math("F"), " and ", math("G")))
        return [Paragraph(join(what, " is a composition of functions continuous on the real "
                               "line."), lead="Proof.")]
    if route == "extension":
        return [Paragraph(join("Every entry of ", math("F"), " and ", math("G"), " is a "
                                "composition of continuous functions except at finitely many "
                                "points, where its two "
                                "one-sided limits are proved equal: removable singularities, "
                                "continuous once filled in (the checker's convention)."),
                          lead="Proof.")]
    return []


def _counterexample(name: str, point: dict) -> list:
    """The counterexample of one assumption: its exact point and the two values that differ."""
    contents = []
    if "x" in point:
        contents.append(rf"q = {_vector(point['x'])}")
    if "y" in point:
        contents.append(rf"k = {_vector(point['y'])}")
    basis = any(_basis_coordinate(point.get(key)) is not None for key in ("x", "y"))
    where_contents = r",\quad ".join(contents)
    basis_note = (join(" (", math("b_i"), " is the ", math("i"), "-th standard basis vector)")
                  if basis else ())
    out: list = []
    if name == "translation_invariance" and {"s", "t"} <= point.keys():
        where = rf"s = {_math(point['s'])},\quad t = {_math(point['t'])}"
        # the keys of a linear encoding's report, or (second) of one decided on the score
        if "u" in point:
            where += rf",\quad u = {_math(point['u'])}"
            other = "a(s + u, t + u)"
            key = _first_key(point, "score_at_s_plus_u_t_plus_u", "score_at_(s_+_u,_t_+_u)")
        else:
            other = "a(0, t - s)"
            key = _first_key(point, "score_at_0_t_minus_s", "score_at_(0,_t_-_s)")
        here = _first_key(point, "score_at_s_t", "score_at_(s,_t)")
        out += [Paragraph(join("At the exact point", basis_note, ":")),
                Display((where + (r",\quad " + where_contents if contents else ""),)),
                Paragraph(words("the score depends on the positions themselves, not only on "
                                "their offset:")),
                Display(side_by_side(rf"a(s, t) = {_value(point.get(here))}",
                                     rf"{other} = {_value(point.get(key))}"))]
    elif name == "identity_at_zero" and "p" in point:
        value = point.get(_first_key(point, "score", "score_at_(p,_p)"))
        out += [Paragraph(join("At the exact point", basis_note, ":")),
                Display((rf"p = {_math(point['p'])}" +
                         (r",\quad " + where_contents if contents else ""),)),
                Display(side_by_side(rf"a(p, p) = {_value(value)}",
                                     rf"q^\top k = "
                                     rf"{_math(point.get('x_dot_y', point.get('x^T_y')))}"))]
    elif name == "continuity" and "entry" in point:
        position = point.get("position") or {}
        where = r",\ ".join(f"{_math(k)} = {_math(v)}" for k, v in position.items())
        matrix = "F" if point.get("matrix") == "F" else "G"
        i, j = (int(n) + 1 for n in point["entry"])
        kind = re.sub(r"[^a-z ]", "", str(point.get("kind", "discontinuity")))
        out += [Paragraph(join("The entry ", math(rf"{matrix}(p)_{{{i}{j}}}"), f" has a {kind} "
                               "at ", math(where), ":")),
                Display((rf"\lim_{{\uparrow}} = {_math(point.get('left_limit'))},\quad "
                         rf"\lim_{{\downarrow}} = {_math(point.get('right_limit'))}" +
                         (rf",\quad \text{{value}} = {_math(point['value'])}"
                          if point.get("value") is not None else ""),))]
    elif name == "linearity" and "role" in point:
        role = "query" if point.get("role") == "query" else "key"
        out += [Paragraph(words(f"The {role} is not linear in its content: at")),
                Display((rf"\alpha = {_math(point.get('a'))},\ \beta = {_math(point.get('b'))},"
                         rf"\ p = {_math(point.get('p'))},\quad q = {_math(point.get('x'))},\ "
                         rf"q' = {_math(point.get('y'))}",)),
                Paragraph(join(f"component {int(point.get('component', 0)) + 1} of ",
                               f"{role}", math(r"(\alpha q + \beta q', p)"), " and of ",
                               math(r"\alpha"), f" {role}", math("(q, p) + \\beta"),
                               f" {role}", math("(q', p)"), " differ by about ",
                               math(_math(point.get("difference"))), "."))]
    else:
        shown = {k: v for k, v in point.items()
                 if k not in ("summary", "parameters", "float64_replay")}
        out += [Paragraph(words("Counterexample:")),
                Display((r",\quad ".join(rf"\text{{{re.sub(r'[^A-Za-z0-9 ]', ' ', str(k))}}} = "
                                        rf"{_math(v)}" for k, v in shown.items()),))]
    if point.get("parameters"):
        out.append(Paragraph(join("with the parameters ", *[
            piece for index, (k, v) in enumerate(point["parameters"].items())
            for piece in ([", "] if index else []) + [math(f"{_math(k)} = {_math(v)}")]], ".")))
    replay = point.get("float64_replay")
    if isinstance(replay, dict) and replay.get("text"):
        out.append(Paragraph(join("Replayed through the real code in float64: ",
                                  code(str(replay["text"])), "."), small=True))
    return out


def _assumption(number: int, name: str, entry: dict, setting: _Setting) -> list:
    title = _TITLES.get(name, name.replace("_", " ").capitalize())
    verdict = str(entry.get("verdict"))
    out = [Heading(join(f"{number}. {title}: ", strong(verdict)), level=2)]
    claim = _claim(name, setting)
    if claim is not None:
        out += [Paragraph(words("Claim:")), claim]
    if verdict == "proved" and isinstance(entry.get("proof"), dict):
        out += _proof(name, entry["proof"], setting)
    if name == "linearity" and verdict != "proved":
        out.append(Paragraph(join("So the other assumptions are decided on the score ",
                                  math("a(s, t)"), " itself, for symbolic contents ",
                                  math("q, k"), ".")))
    elif verdict == "undecided":
        out.append(Paragraph(join("Undecided: ", code(str(entry.get("evidence") or "")), "."),
                             small=True))
    if isinstance(entry.get("counterexample"), dict):
        out += _counterexample(name, entry["counterexample"])
    return out


def _axis_symbol(index: int, setting: _Setting) -> str:
    return f"X_{{{index + 1}}}" if setting.several else "X"


def _generator(generator: dict, setting: _Setting) -> list:
    axes = generator.get("axes") or []
    out = [Heading(words("Generator"), level=2),
           Paragraph(join("All four assumptions hold, so the relative transforms form ",
                          setting.group(), ". The generator",
                          "s " if setting.several else " ",
                          math(r"X_j = \partial H/\partial \delta_j\,(0)" if setting.several
                               else r"X = H'(0)"),
                          ", block diagonal in the coordinates shown (counted from 1):"))]
    for index, axis in enumerate(axes):
        symbol = _axis_symbol(index, setting)
        blocks = axis.get("blocks") or []
        picked = blocks[:_BLOCKS_SHOWN] + (blocks[-1:] if len(blocks) > _BLOCKS_SHOWN else [])
        names = [r"B^{(" + ",".join(str(int(i) + 1) for i in b.get("indices", [])) + ")}"
                 for b in picked]
        shown = [_math(b.get("matrix")) for b in picked]
        if len(blocks) > _BLOCKS_SHOWN:
            names.insert(_BLOCKS_SHOWN, r"\ldots")
        whole = rf"{symbol} = \operatorname{{diag}}\left(" + r",\ ".join(
            shown[:_BLOCKS_SHOWN] + ([r"\ldots"] + shown[-1:] if len(blocks) > _BLOCKS_SHOWN
                                     else [])) + r"\right)"
        per_block = (rf"{symbol} = \operatorname{{diag}}\left(" + r",\ ".join(names) +
                     r"\right),\quad " + r",\quad ".join(
                         f"{n} = {m}" for n, m in zip([n for n in names if n != r"\ldots"],
                                                      shown)))
        out.append(Display((whole, *display_layouts(per_block)[1:])))
        if len(blocks) > _BLOCKS_SHOWN:
            out.append(Paragraph(words(f"{len(blocks)} blocks in all; the JSON report lists "
                                       "every one."), small=True))
    exponential = generator.get("exponential") or {}
    form = rf"H(\delta) = {setting.exp(chr(92) + 'delta', 'X')}"
    route = exponential.get("route")
    reason = ({"known": join(": ", math(r"H(\delta) = F(0)^\top G(\delta) = G(\delta)"),
                             " with ", math("X = B" if not setting.several else "X_j = B_j"),
                             ", proved with translation invariance"),
               "ode": join(": ", math(r"H(0) = I"), " and ",
                           math(r"\partial H/\partial \delta_j = X_j H" if setting.several
                                else r"H' = X H"),
                           " proved; uniqueness of the solution of a linear ODE (cited)")}
              .get(route, ()))
    out.append(Paragraph(join(math(form), " ", strong(str(exponential.get("verdict"))), reason,
                              ".")))
    rotation = (generator.get("pure_rotation") or {}).get("verdict")
    skew = r"X_j + X_j^\top = 0" if setting.several else r"X + X^\top = 0"
    out.append(Paragraph(join(math(skew), " (a pure rotation, so one orthogonal transform can "
                              "serve queries and keys): ", strong(str(rotation)), ".")))
    if generator.get("commute") is not None:
        out.append(Paragraph(join(math(r"X_i X_j = X_j X_i"), " for every pair of axes (relative "
                                  "in every direction at once): ",
                                  strong(str(generator["commute"].get("verdict"))), ".")))
    return out


def _classification(classification: dict, setting: _Setting) -> list:
    items = []
    for index, (_axis, groups) in enumerate(classification.items()):
        prefix = join(math(_axis_symbol(index, setting)), ": ") if setting.several else ()
        for kind, found in (groups or {}).items():
            label = _KIND_WORDS.get(kind, kind.replace("_", " ").capitalize())
            if kind == "zero":
                count = sum(int(item.get("count", 0)) for item in found)
                items.append(join(prefix, f"{label}: {count}."))
                continue
            parts: list = []
            for item in found[:_ITEMS_SHOWN]:
                pieces = []
                if item.get("rate") not in (None, "0"):
                    pieces.append(rf"\lambda = {_math(item['rate'])}")
                if item.get("frequency") not in (None, "0"):
                    pieces.append(rf"\omega = {_math(item['frequency'])}")
                if not pieces:
                    pieces.append(rf"\mu = {_math(item.get('eigenvalue'))}")
                coordinates = " and ".join(str(int(i) + 1) for i in item.get("indices", []))
                parts += (["; "] if parts else []) + [
                    math(r",\ ".join(pieces)), f" on coordinates {coordinates}" +
                    ("" if item.get("normal", True) else " (not normal)")]
            more = f"; and {len(found) - _ITEMS_SHOWN} more" if len(found) > _ITEMS_SHOWN else ""
            items.append(join(prefix, f"{label} ({len(found)}): ", *parts, more, "."))
    return [Heading(words("Classification"), level=2),
            Paragraph(words("The real Jordan form of the generator says what the encoding does "
                            "to each plane:")), ItemList(items)]


def _hazards(data: dict) -> list:
    """The lift's precision hazards (casts of positions or angles, with ``file:line``) and an
    attention factor read as a uniform scale (``uniform_scale``: ``F(p)^T G(p) = c^2 I``)."""
    out = []
    hazards = data.get("hazards")
    if isinstance(hazards, list) and hazards:
        items = []
        for hazard in hazards:
            if not isinstance(hazard, dict):
                items.append(code(str(hazard)))
                continue
            where = str(hazard.get("location") or "")
            text = str(hazard.get("text", ""))
            # the text names the place itself; the code font shows it literally
            text = text.replace(f" at {where}", "") if where else text
            items.append(join(code(where), ": " if where else "", sentence(words(text))))
        out += [Heading(words("Precision hazards"), level=2),
                Paragraph(words("Casts that touch positions or angles: the exact semantics "
                                "treat them as identities, so the verdicts above cannot see "
                                "their rounding (measure it with the audit):")),
                ItemList(items)]
    scale = data.get("uniform_scale")
    if isinstance(scale, dict) and scale.get("c2") is not None:
        c2 = _math(scale["c2"])
        out.append(Paragraph(join(
            "The encoding is relative up to a uniform scale: ",
            math(r"F(p)^{\top} G(p) = c^2 I"), " with ", math("c^2 = " + c2),
            f" (about {scale.get('c2_value', '')}), {scale.get('verdict', '')}. "
            "A uniform scale multiplies every score by the same constant, so attention still "
            "sees only relative position."), lead="Attention factor."))
    return out


def check_derivation(check_report) -> Document:
    """The document model of an encoding check (``CheckReport`` or its ``to_dict()``)."""
    data = check_report.to_dict() if hasattr(check_report, "to_dict") else dict(check_report)
    encoding = str(data.get("encoding", "unnamed encoding"))
    axes = data.get("position_dims", 1)
    setting = _Setting(axes if isinstance(axes, int) and axes > 0 else 1)
    facts = []
    if "dim" in data:
        facts.append(f"dimension {int(data['dim'])}")
    if isinstance(axes, int):
        facts.append(plural(axes, "position axis") if axes == 1 else f"{axes} position axes")
    blocks: list = [
        Paragraph(join(", ".join(facts).capitalize() + ". " if facts else "",
                       "Overall verdict: ",
                       strong(str(data.get("headline") or data.get("verdict", ""))), ".")),
        Paragraph(join("A query with content ", math("q"), " at position ", math("s"),
                       " and a key with content ", math("k"), " at position ", math("t"),
                       (join(" (", math(setting.positions()), ")") if setting.several else ""),
                       " are scored by")),
        Display((r"a(s, t) = \bigl(F(s)\,q\bigr)^{\top} \bigl(G(t)\,k\bigr).",)),
        Paragraph(join("Under the four assumptions below the relative transforms ",
                       math(r"H(\delta) = F(0)^\top G(\delta)"), " form ", setting.group(),
                       ". A claim is ", strong("proved"), " only when a rewrite reduced it to "
                       "zero, ", strong("refuted"), " only with the exact counterexample shown."))]
    assumptions = data.get("assumptions")
    if not isinstance(assumptions, dict):
        assumptions = {}
    order = [n for n in _TITLES if n in assumptions] + [n for n in assumptions if n not in _TITLES]
    for number, name in enumerate(order, start=1):
        entry = assumptions[name] if isinstance(assumptions[name], dict) else \
            {"verdict": assumptions[name]}
        blocks += _assumption(number, name, entry, setting)
    if isinstance(data.get("generator"), dict):
        blocks += _generator(data["generator"], setting)
    if isinstance(data.get("classification"), dict):
        blocks += _classification(data["classification"], setting)
    blocks += _hazards(data)
    # "not linear: decided on the score ..." is said by the assumption sections themselves
    notes = [note for note in data.get("notes") or []
             if note and not str(note).startswith("not linear:")]
    if notes:
        blocks += [Heading(words("Notes"), level=2),
                   ItemList([code(str(note)) for note in notes])]
    version_text = ", ".join(f"{k} {v}" for k, v in versions().items())
    colophon = join("Generated by ", code("symrope check --latex"), f" ({version_text}). "
                    "Every verdict was decided by symrope's proof engine: proved only when a "
                    "rewrite reduced the claim to zero, refuted only with an exact "
                    "counterexample.")
    return Document(join("Encoding check: ", code(encoding)), blocks,
                    f"symrope check: {encoding}", colophon)


def check_report_document(check_report: CheckReport) -> str:
    r"""A standalone ``.tex`` derivation of an encoding check.

    Parameters
    ==========

    check_report : CheckReport or dict
        The checker's report, read through its ``to_dict()`` form: ``encoding``, ``dim``,
        ``position_dims``, ``verdict``, ``assumptions`` (each ``{verdict, evidence,
        counterexample, proof}``), ``generator``, ``classification``, ``notes`` and, from a
        lift, ``hazards``. Missing keys are skipped.

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
    return write_latex(check_derivation(check_report))
