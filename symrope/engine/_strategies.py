"""Rewrites that may turn a true identity's difference into a literal zero.

Each strategy is an equivalence under the symbols' stated assumptions: SymPy's ``expand``,
``powsimp``, ``cancel``... are assumption-aware as long as ``force`` is never passed, and
rewriting trigonometric functions as exponentials is valid on all of C. Nothing here uses
``force=True``, ``inverse=True`` or a branch-cut shortcut, so ``sqrt(x**2) -> x`` and
``log(exp(z)) -> z`` stay unprovable unless the assumptions make them true.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["STRATEGIES", "TEMPLATE_STRATEGIES", "is_literal_zero"]


def is_literal_zero(expr: object) -> bool:
    if isinstance(expr, sp.MatrixBase):
        return all(entry == 0 for entry in expr)
    if isinstance(expr, sp.MatrixExpr):
        return isinstance(expr, sp.ZeroMatrix)
    return expr == 0


def _expand(e):
    return sp.expand(e)


def _rational(e):
    return sp.cancel(sp.together(e))


def _trig(e):
    return sp.expand(sp.expand_trig(sp.expand(e)))


def _trigsimp(e):
    return sp.trigsimp(sp.expand(e))


def _exponential(e):
    rewritten = sp.expand(e.rewrite(sp.exp))
    return sp.expand(sp.powsimp(rewritten))


def _exponential_rational(e):
    return sp.cancel(sp.powsimp(sp.expand(e.rewrite(sp.exp))))


def _simplify(e):
    return sp.simplify(e)


# Cheapest first; full simplify last (it is the slowest and the least predictable).
# Templates (constants abstracted) get only the cheap ones: when they fail, the concrete
# entries are tried with everything.
STRATEGIES = [
    ("expand", _expand),
    ("trigonometric expansion", _trig),
    ("rational normal form", _rational),
    ("exponential rewriting", _exponential),
    ("exponential rational form", _exponential_rational),
    ("trigsimp", _trigsimp),
    ("simplify", _simplify),
]

TEMPLATE_STRATEGIES = STRATEGIES[:5]

_MATRIX_STRATEGIES = [
    ("matrix algebra", lambda e: e.doit()),
    ("matrix expansion", lambda e: sp.expand(e.doit())),
    ("matrix simplify", lambda e: sp.simplify(e.doit())),
]
