"""Continuity in real positions: proved by structure, refuted at an exact point of discontinuity.

*Proved* means every sub-expression that depends on a position is built from functions
continuous on the whole real line (sums, products, ``sin``, ``exp``, powers of positive bases,
non-negative integer powers, ``sqrt`` of what SymPy knows is non-negative, quotients by what
SymPy knows has a fixed sign...): continuity follows by composition. *Refuted* means a
candidate point (a ``Piecewise`` boundary, a jump of ``floor``/``sign``, a zero of a
denominator) where the one-sided limits differ, are infinite, or disagree with the value there;
the limits are computed exactly on each side and compared by :func:`symrope.verify` (a
difference counts only where ball arithmetic certifies it). Anything else is *undecided*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from symrope.engine import verify

__all__ = ["ContinuityFinding", "continuity_obstacle", "find_discontinuity",
           "find_switch_discontinuity", "continuous_extension", "continuous_extensions",
           "defined_value", "extended_value", "value_at_origin", "parameter_values",
           "symbol_name"]

_CONTINUOUS_FUNCTIONS = (sp.sin, sp.cos, sp.exp, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.sinc,
                         sp.Abs, sp.erf, sp.Max, sp.Min, sp.re, sp.im)
_STEP_FUNCTIONS = (sp.floor, sp.ceiling, sp.frac, sp.sign, sp.Heaviside)
_EPSILON = sp.Rational(1, 10**12)


def continuity_obstacle(expr: sp.Basic, positions: list) -> sp.Basic | None:
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


def find_discontinuity(expr: sp.Basic, positions: list, fixed: dict, budget: float = 5.0) -> ContinuityFinding | None:
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
        if isinstance(e, sp.Mod) and e.args[1].is_number and e.args[1].is_positive:
            # Mod(a, m) = a - m floor(a / m): the floor settles beside the point, a need not
            a, m = settle(e.args[0]), e.args[1]
            turns = sp.floor(a / m)
            k, k_nearer = turns.xreplace({axis: near}), turns.xreplace({axis: nearer})
            if not (k.is_Integer and k == k_nearer):
                raise _Unsettled()
            return a - k * m
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
        # The continuous extension: undefined where both one-sided limits exist and agree is
        # a removable point, not a discontinuity. Only "no limit at all" is one.
        if left.has(sp.AccumBounds) or right.has(sp.AccumBounds) or \
                not (left.is_number and right.is_number):
            return ContinuityFinding({}, axis, left, right, value, "undefined")
        return None
    if verify(value, left, budget=budget).refuted:
        return ContinuityFinding({}, axis, left, right, value, "value")
    return None


def _reciprocals(expr, axis) -> list:
    """The ``b**(-n)`` nodes (n a positive integer) of ``expr`` whose base depends on ``axis``."""
    return [node for node in sp.preorder_traversal(expr)
            if isinstance(node, sp.Pow) and node.exp.is_integer and node.exp.is_negative
            and axis in node.base.free_symbols]


def continuous_extension(expr, axis, budget: float = 5.0) -> str | None:
    """Prove that the continuous extension of ``expr`` (one real position) is continuous on R.

    Every reciprocal ``b**(-n)`` is replaced by a fresh symbol: if the result and every base
    ``b`` are continuous by structure, ``expr`` is continuous wherever no base vanishes. The
    bases' real zeros must be a finite set (``solveset``); at each zero the one-sided limits
    (SymPy's Gruntz algorithm) must be finite and *proved* equal by :func:`symrope.verify`
    (and equal to the value, where there is one). Returns the evidence, or None when any step
    does not go through.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.checker._continuity import continuous_extension
    >>> p = sp.Symbol("p", real=True)
    >>> continuous_extension(sp.sin(3 * sp.Abs(p)) / sp.Abs(p), p)
    'removable singularity at p = 0 (both one-sided limits 3)'
    >>> continuous_extension(sp.cos(p) / p, p) is None
    True
    """
    reciprocals = _reciprocals(expr, axis)
    if not reciprocals:
        return None
    stand_ins = {node: sp.Dummy("r") for node in reciprocals}
    if continuity_obstacle(expr.xreplace(stand_ins), [axis]) is not None:
        return None
    points = set()
    for node in reciprocals:
        if continuity_obstacle(node.base, [axis]) is not None:
            return None
        try:
            zeros = sp.solveset(node.base, axis, sp.S.Reals)
        except (NotImplementedError, ValueError, TypeError):
            return None
        if not isinstance(zeros, sp.FiniteSet) or not all(z.is_number for z in zeros):
            return None
        points |= set(zeros)
    found = []
    for point in sorted(points, key=sp.default_sort_key):
        try:
            left = sp.limit(expr, axis, point, "-")
            right = sp.limit(expr, axis, point, "+")
        except (NotImplementedError, ValueError, TypeError):
            return None
        if not (left.is_number and right.is_number) or _infinite(left) or _infinite(right) or \
                left.has(sp.AccumBounds) or right.has(sp.AccumBounds):
            return None
        if not verify(left, right, budget=budget).proved:
            return None
        value = expr.xreplace({axis: point})
        if value.is_number and not _infinite(value) and not verify(value, left,
                                                                   budget=budget).proved:
            return None
        # the name, not str(): a Dummy position prints as _p, the user wrote p
        found.append(f"{symbol_name(axis)} = {sp.sstr(point)} (both one-sided limits "
                     f"{sp.sstr(left)})")
    if not found:
        return None
    return ("removable singularit" + ("y" if len(found) == 1 else "ies") + " at "
            + "; ".join(found))


def continuous_extensions(entries, axis, budget: float = 5.0) -> str | None:
    """:func:`continuous_extension` for every entry: the evidence of all, or None if any fails.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.checker._continuity import continuous_extensions
    >>> p = sp.Dummy("p", real=True)
    >>> continuous_extensions([sp.sin(p) / p, (p**2 + p) / (p * (p + 1))], p)
    'removable singularity at p = 0 (both one-sided limits 1); removable singularities at p = -1 (both one-sided limits 1); p = 0 (both one-sided limits 1)'
    >>> continuous_extensions([sp.sin(p) / p, sp.cos(p) / p], p) is None
    True
    """
    found = []
    for entry in entries:
        evidence = continuous_extension(entry, axis, budget=budget)
        if evidence is None:
            return None
        found.append(evidence)
    return "; ".join(dict.fromkeys(found))


def symbol_name(symbol: sp.Symbol) -> str:
    """A symbol's name as the user reads it (a Dummy prints with a leading underscore)."""
    return symbol.name if isinstance(symbol, sp.Symbol) else sp.sstr(symbol)


def defined_value(expr, values: dict):
    """``expr`` at ``values`` by substitution, or None where it is undefined there (0/0, 1/0)."""
    # sympify again: a bare symbol replaced by a Python int comes back as that int
    value = sp.sympify(sp.sympify(expr).xreplace(values))
    return None if _infinite(value) else value


def extended_value(expr, axis, point):
    """The continuous extension's value: substitution where defined, else the two-sided limit
    (None when the one-sided limits are not finite and equal)."""
    value = defined_value(expr, {axis: point})
    if value is not None:
        return value
    try:
        limit = sp.limit(expr, axis, point, "+-")
    except (NotImplementedError, ValueError, TypeError):
        return None
    if _infinite(limit) or limit.has(sp.AccumBounds):
        return None
    return limit


def value_at_origin(matrix, axes) -> sp.ImmutableMatrix | None:
    """``matrix`` with *every* axis in ``axes`` at 0: its continuous extension there.

    With one axis, a 0/0 as written is replaced by its two-sided limit
    (:func:`extended_value`); with several, only direct substitution is used. None where an
    entry is undefined there and has no such limit (or is not a finite value).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.checker._continuity import value_at_origin
    >>> p = sp.Symbol("p", real=True)
    >>> value_at_origin(sp.Matrix([[sp.sin(p) / p, sp.cos(p)]]), (p,))
    Matrix([[1, 1]])
    >>> a, b = sp.symbols("a b", real=True)
    >>> value_at_origin(sp.Matrix([[sp.cos(a + b), sp.sin(b)]]), (a, b))
    Matrix([[1, 0]])
    >>> value_at_origin(sp.Matrix([[1 / p]]), (p,)) is None
    True
    """
    axes = tuple(axes)
    if len(axes) == 1:
        values = [extended_value(e, axes[0], 0) for e in matrix]
    else:
        zero = {a: sp.Integer(0) for a in axes}
        values = [defined_value(e, zero) for e in matrix]
    if any(v is None or defined_value(v, {}) is None for v in values):
        return None
    return sp.ImmutableMatrix(matrix.shape[0], matrix.shape[1], values)


_PARAMETER_CANDIDATES = (sp.Rational(3, 2), sp.Integer(2), sp.Rational(-3, 2), sp.Integer(-2),
                         sp.Integer(1), sp.Integer(0), sp.Rational(1, 2) + sp.I)


def parameter_values(expr: sp.Basic, positions: list) -> dict:
    """Exact values for the encoding's own symbols (a symbolic theta), respecting assumptions.

    A value that breaks a parameter's assumptions (3/2 for a negative one) would make any
    discontinuity found there a statement about another encoding; such a parameter stays
    symbolic instead.
    """
    values = {}
    for symbol in getattr(expr, "free_symbols", set()) - set(positions):
        for value in _PARAMETER_CANDIDATES:
            if all(getattr(value, f"is_{fact}", None) == expected
                   for fact, expected in symbol.assumptions0.items() if fact != "commutative"):
                values[symbol] = value
                break
    return values


def find_switch_discontinuity(value: sp.Basic, positions: list, budget: float) -> ContinuityFinding | None:
    """A discontinuity of one entry along one position axis, the other axes fixed.

    ``Max``/``Min`` of positions (a schedule switched by ``max(P)``) are rewritten as
    ``Piecewise`` on each line first, where their switching points can be solved for.
    """
    fixed = parameter_values(value, positions)
    for symbol in set(value.free_symbols) - set(positions):
        fixed.setdefault(symbol, sp.Integer(1))
    if value.has(sp.Piecewise, sp.Max, sp.Min):  # the switches first: solving them is cheap
        for axis in positions:
            others = {p: fixed.get(p, sp.Rational(1, 3)) for p in positions if p != axis}
            line = value.xreplace({**fixed, **others})
            if line.has(sp.Max, sp.Min):
                line = line.rewrite(sp.Piecewise)
            for point in _switch_points(line, axis):
                finding = _examine(line, axis, point, budget)
                if finding is not None:
                    finding.position = {axis: point, **others}
                    return finding
    return find_discontinuity(value, positions, fixed, budget=budget)


def _switch_points(line, axis) -> list:
    """Where a ``Piecewise`` condition of ``line`` switches along ``axis`` (linear relations)."""
    points = []
    for node in sp.preorder_traversal(line):
        if not isinstance(node, sp.Piecewise):
            continue
        for _, condition in node.args:
            for relation in condition.atoms(sp.core.relational.Relational):
                difference = relation.lhs - relation.rhs
                if axis in difference.free_symbols and difference.is_polynomial(axis) and \
                        sp.degree(difference, axis) == 1:
                    root = sp.solve(difference, axis)
                    points += [r for r in root if r.is_number and r not in points]
    return points[:8]
