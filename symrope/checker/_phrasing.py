"""Counterexamples in the user's terms: the engine's refuting point, phrased for one assumption.

The engine refutes a claim about matrices or a score at an exact point of *its* symbols; these
functions read that point back in the encoding's terms (positions ``s``, ``t``, ``u`` or ``p``,
basis or content vectors, the encoding's own parameters), re-evaluate the user's functions
there, and return a typed :class:`~symrope.checker.Counterexample` whose ``summary`` is the one
line the terminal prints. Deciding is :mod:`symrope.checker._run`'s; nothing here decides.
"""

from __future__ import annotations

import sympy as sp

from symrope.checker._continuity import symbol_name
from symrope.checker._counterexample import (CONTENT_WORDS, SHIFTED, TRANSLATION, Discontinuity,
                                             NonlinearContent, ScoreOnBasis, ScoreOnContent)
from symrope.checker._shown import show
from symrope.engine import verify
from symrope.errors import InternalError

__all__ = ["nonlinear_content", "score_on_basis", "score_on_content", "entry_discontinuity",
           "score_discontinuity", "number", "vector"]


def nonlinear_content(run, verdict, role: str, a, b) -> NonlinearContent:
    """``role(a x + b y, p) != a role(x, p) + b role(y, p)`` at the engine's point."""
    point = verdict.counterexample
    x = [point.get(v, 0) for v in run.x]
    y = [point.get(v, 0) for v in run.y]
    position = run.point(verdict, ["p"])["p"]
    row = verdict.entry[0] if verdict.entry else 0
    summary = (f"{role}(a x + b y, p) != a {role}(x, p) + b {role}(y, p) at a = "
               f"{show(point.get(a, 0))}, b = {show(point.get(b, 0))}, p = "
               f"{show(position)}, x = {vector(x)}, y = {vector(y)} (component "
               f"{row}; {verdict.certified_gap('difference')})")
    return NonlinearContent(summary, role, show(point.get(a, 0)), show(point.get(b, 0)),
                            show(position), [show(v) for v in x], [show(v) for v in y], row,
                            verdict.difference[1], verdict.details.get("certificate"))


def score_on_basis(run, verdict, compared_with: str) -> ScoreOnBasis:
    """A linear encoding's refuted block claim, re-evaluated through the user's own functions
    on the basis vectors of the failing entry, at the engine's point."""
    i, j = run.entry(verdict)
    x, y = run.basis(i), run.basis(j)
    parameters = run.parameters(verdict)
    if compared_with == SHIFTED:
        point = run.point(verdict, ["s", "t", "u"])
        s, t, u = point["s"], point["t"], point["u"]
        moved = [run.plus(v, u) for v in (s, t)]
        here = run.score(x, s, y, t).xreplace(parameters)
        there = run.score(x, moved[0], y, moved[1]).xreplace(parameters)
        summary = (f"s = {show(s)}, t = {show(t)}, u = {show(u)}, x = e_{i}, y = e_{j}: "
                   f"score {number(here)} at (s, t) but {number(there)} at "
                   f"(s + u, t + u)")
        positions = {"s": show(s), "t": show(t), "u": show(u)}
    elif compared_with == TRANSLATION:
        point = run.point(verdict, ["s", "t"])
        s, t = point["s"], point["t"]
        here = run.score(x, s, y, t).xreplace(parameters)
        there = run.score(x, run.zero(), y, run.minus(t, s)).xreplace(parameters)
        summary = (f"s = {show(s)}, t = {show(t)}, x = e_{i}, y = e_{j}: score "
                   f"{number(here)} at (s, t) but {number(there)} at (0, t - s)")
        positions = {"s": show(s), "t": show(t)}
    else:
        p = run.point(verdict, ["p"])["p"]
        here = run.score(x, p, y, p).xreplace(parameters)
        there = sp.Integer(int(i == j))
        summary = (f"p = {show(p)}, x = e_{i}, y = e_{j}: query(x, p)^T key(y, p) = "
                   f"{number(here)} but x^T y = {there}")
        positions = {"p": show(p)}
    confirm = verify(here, there, budget=run.clock.left())
    if not confirm.refuted:  # the engine's point, replayed through the user's functions
        raise InternalError(f"encoding {run.encoding.name!r}: the engine's counterexample "
                            f"did not replay through the user's functions: {summary}")
    return ScoreOnBasis(f"{summary}; {verdict.certified_gap('difference')}", compared_with,
                        positions, show(here), show(there), i, j,
                        {str(k): show(v) for k, v in parameters.items()},
                        verdict.details.get("certificate"))


def score_on_content(run, verdict, compared_with: str, lhs, rhs, names) -> ScoreOnContent:
    """A score claim refuted for symbolic content vectors: the contents and positions of the
    engine's point (``names``: the position symbols the claim has)."""
    point = verdict.counterexample
    values = run.point(verdict, names)
    where = ", ".join(f"{n} = {show(values[n])}" for n in names)
    x = [point.get(v, sp.Integer(0)) for v in run.x]
    y = [point.get(v, sp.Integer(0)) for v in run.y]
    here, there = lhs.xreplace(point), rhs.xreplace(point)
    left, right = CONTENT_WORDS[compared_with]
    summary = (f"{where}, x = {vector(x)}, y = {vector(y)}: {left} {number(here)} "
               f"but {right} {number(there)}; {verdict.certified_gap('difference')}")
    return ScoreOnContent(summary, compared_with, [show(v) for v in x], [show(v) for v in y],
                          show(here), show(there), verdict.details.get("certificate"),
                          {n: show(values[n]) for n in names})


def _where(finding) -> str:
    """Where a discontinuity sits: ``p = 1/2, q = 3``."""
    return ", ".join(f"{symbol_name(k)} = {show(v)}" for k, v in finding.position.items())


def entry_discontinuity(name: str, i: int, j: int, finding) -> Discontinuity:
    """An entry ``name(p)[i, j]`` of ``F`` or ``G`` that is not continuous at ``finding``."""
    role = "query" if name == "F" else "key"
    summary = (f"{name}(p)[{i}, {j}] ({role}) has a {finding.kind} at {_where(finding)}"
               + f": limit from below {show(finding.left)}, from above "
               f"{show(finding.right)}, value "
               f"{'undefined' if finding.value is None else show(finding.value)}")
    return Discontinuity(summary, finding.kind, _position(finding), show(finding.left),
                         show(finding.right), matrix=name, entry=[i, j],
                         value=None if finding.value is None else show(finding.value))


def score_discontinuity(finding, contents) -> Discontinuity:
    """The score, for the content vectors ``contents = (x, y)``, not continuous at ``finding``."""
    summary = (f"the score has a {finding.kind} at {_where(finding)}"
               + f" for x = {vector(contents[0])}, y = {vector(contents[1])}: "
               f"limit from below {show(finding.left)}, from above "
               f"{show(finding.right)}")
    return Discontinuity(summary, finding.kind, _position(finding), show(finding.left),
                         show(finding.right), x=[show(v) for v in contents[0]],
                         y=[show(v) for v in contents[1]])


def _position(finding) -> dict:
    return {symbol_name(k): show(v) for k, v in finding.position.items()}


def number(value) -> str:
    """A value to 12 significant digits, as the summaries print it."""
    return sp.sstr(sp.N(value, 12))


def vector(values) -> str:
    """A content vector in a summary: its entries, or the first four and how many there are."""
    values = [show(v) for v in values]
    if len(values) > 6:
        return "[" + ", ".join(values[:4]) + f", ... ({len(values)} entries)]"
    return "[" + ", ".join(values) + "]"
