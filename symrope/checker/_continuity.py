"""Continuity in real positions: proved by structure, refuted at an exact point of discontinuity.

*Proved* means every sub-expression that depends on a position is built from functions
continuous on the whole real line (sums, products, ``sin``, ``exp``, powers of positive bases,
non-negative integer powers, ``sqrt`` of what SymPy knows is non-negative, quotients by what
SymPy knows has a fixed sign...): continuity follows by composition. *Refuted* means a
candidate point (a ``Piecewise`` boundary, a jump of ``floor``/``sign``, a zero of a
denominator) where the one-sided limits differ, are infinite, or disagree with the value there;
the limits are computed exactly on each side and compared at 30 and 60 digits by
:func:`symrope.verify`. Anything else is *undecided*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from symrope.engine import verify

__all__ = ["ContinuityFinding", "continuity_obstacle", "find_discontinuity"]

_CONTINUOUS_FUNCTIONS = (sp.sin, sp.cos, sp.exp, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.sinc,
                         sp.Abs, sp.erf, sp.Max, sp.Min, sp.re, sp.im)
_STEP_FUNCTIONS = (sp.floor, sp.ceiling, sp.frac, sp.sign, sp.Heaviside)
_EPSILON = sp.Rational(1, 10**12)


def continuity_obstacle(expr, positions) -> sp.Basic | None:
    """The first sub-expression whose continuity in ``positions`` does not follow by structure.

    ``None`` means ``expr`` is continuous in the (real) positions everywhere, by composition of
    continuous functions. Sub-expressions free of the positions are constants and never obstruct.
    """
    positions = set(positions)

    def obstacle(e):
        if not (e.free_symbols & positions):
            return None
        if e.is_Symbol:
            return None
        if isinstance(e, (sp.Add, sp.Mul)) or isinstance(e, _CONTINUOUS_FUNCTIONS):
            return _first(obstacle(a) for a in e.args)
        if isinstance(e, sp.Pow):
            base, exponent = e.args
            if _power_is_continuous(base, exponent, positions):
                return _first(obstacle(a) for a in e.args)
            return e
        if isinstance(e, sp.log) and e.args[0].is_positive:
            return obstacle(e.args[0])
        return e

    return obstacle(sp.sympify(expr))


def _first(items):
    for item in items:
        if item is not None:
            return item
    return None


def _power_is_continuous(base, exponent, positions) -> bool:
    if exponent.is_integer and exponent.is_nonnegative:
        return True
    if base.is_positive:  # b**e = exp(e log b), with e continuous
        return True
    if exponent.free_symbols & positions:
        return False
    if exponent.is_integer and exponent.is_negative:
        return bool(base.is_negative)  # is_positive was handled above
    if exponent.is_rational and exponent.is_positive:
        return bool(base.is_nonnegative)
    return False


@dataclass
class ContinuityFinding:
    """A point where an expression is not continuous, with the exact one-sided limits."""

    position: dict           # every position coordinate (and fixed parameter) at the point
    axis: sp.Symbol          # the coordinate along which the limits were taken
    left: sp.Basic
    right: sp.Basic
    value: sp.Basic | None   # None where the expression is undefined at the point
    kind: str                # "jump", "pole", "undefined", "value"
    extra: dict = field(default_factory=dict)

    def describe(self) -> str:
        where = ", ".join(f"{k} = {sp.sstr(v)}" for k, v in self.position.items())
        value = "undefined" if self.value is None else sp.sstr(self.value)
        return (f"{self.kind} at {where}: limit from below {sp.sstr(self.left)}, from above "
                f"{sp.sstr(self.right)}, value {value}")


def find_discontinuity(expr, positions, fixed: dict, budget: float = 5.0) -> ContinuityFinding | None:
    """Search the candidate points of ``expr`` for a discontinuity along each position axis.

    ``fixed`` gives exact values to every other free symbol (other position axes are set to
    ``1/3`` unless given). Returns the first discontinuity confirmed exactly, or ``None``.
    """
    expr = sp.sympify(expr)
    for axis in positions:
        others = {p: fixed.get(p, sp.Rational(1, 3)) for p in positions if p != axis}
        values = {**fixed, **others}
        values.pop(axis, None)
        line = expr.xreplace(values)
        for point in _candidate_points(line, axis):
            finding = _examine(line, axis, point, budget)
            if finding is not None:
                finding.position = {axis: point, **{p: v for p, v in values.items()
                                                    if p in positions}}
                return finding
    return None


def _candidate_points(expr, axis) -> list:
    equations = []
    for node in sp.preorder_traversal(expr):
        if not (getattr(node, "free_symbols", set()) & {axis}):
            continue
        if isinstance(node, (sp.floor, sp.ceiling, sp.frac)):
            equations += [node.args[0] - k for k in (1, 0, -1)]
        elif isinstance(node, (sp.sign, sp.Heaviside)):
            equations.append(node.args[0])
        elif isinstance(node, sp.Piecewise):
            for _, condition in node.args:
                for relation in condition.atoms(sp.core.relational.Relational):
                    equations.append(relation.lhs - relation.rhs)
        elif isinstance(node, sp.Pow) and node.args[1].is_negative:
            equations.append(node.args[0])
        elif isinstance(node, sp.log):
            equations.append(node.args[0])
        elif isinstance(node, (sp.tan, sp.sec)):
            equations.append(node.args[0] - sp.pi / 2)
        elif isinstance(node, (sp.cot, sp.csc)):
            equations.append(node.args[0])
        elif isinstance(node, sp.Mod):
            equations += [node.args[0] - k * node.args[1] for k in (1, 0)]
    points = []
    for equation in equations:
        try:
            solutions = sp.solve(equation, axis)
        except (NotImplementedError, ValueError, TypeError):
            continue
        for solution in solutions:
            if solution.is_real and solution.free_symbols == set() and solution not in points:
                points.append(solution)
    return points[:8]


def _one_sided(expr, axis, point, direction: int):
    """``expr`` with each step function and Piecewise fixed to its value just beside ``point``."""
    near = point + direction * _EPSILON
    nearer = point + direction * _EPSILON / 1000

    def settle(e):
        if not (getattr(e, "free_symbols", set()) & {axis}) or e.is_Atom:
            return e
        if isinstance(e, sp.Piecewise):
            for piece, condition in e.args:
                here = condition.xreplace({axis: near}) if condition is not sp.true else sp.true
                closer = condition.xreplace({axis: nearer}) if condition is not sp.true else sp.true
                if here not in (sp.true, sp.false) or here != closer:
                    raise _Unsettled()
                if here is sp.true:
                    return settle(piece)
            raise _Unsettled()
        if isinstance(e, _STEP_FUNCTIONS) or isinstance(e, sp.Mod):
            a, b = e.xreplace({axis: near}), e.xreplace({axis: nearer})
            if not (a.is_number and a == b):
                raise _Unsettled()
            return a
        return e.func(*[settle(a) for a in e.args])

    return settle(expr)


class _Unsettled(Exception):
    pass


def _limit(expr, axis, point, direction):
    side = _one_sided(expr, axis, point, direction)
    if continuity_obstacle(side, [axis]) is None:
        return side.xreplace({axis: point})
    return sp.limit(side, axis, point, "+" if direction > 0 else "-")


def _infinite(value) -> bool:
    return value.has(sp.oo, -sp.oo, sp.zoo, sp.nan)


def _examine(expr, axis, point, budget) -> ContinuityFinding | None:
    try:
        left, right = _limit(expr, axis, point, -1), _limit(expr, axis, point, +1)
    except (_Unsettled, NotImplementedError, ValueError, TypeError):
        return None
    value = expr.xreplace({axis: point})
    value = None if (not value.is_number or _infinite(value)) else value
    if _infinite(left) or _infinite(right):
        return ContinuityFinding({}, axis, left, right, value, "pole")
    if verify(left, right, budget=budget).refuted:
        return ContinuityFinding({}, axis, left, right, value, "jump")
    if value is None:
        return ContinuityFinding({}, axis, left, right, value, "undefined")
    if verify(value, left, budget=budget).refuted:
        return ContinuityFinding({}, axis, left, right, value, "value")
    return None
