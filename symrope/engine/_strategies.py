"""Rewrites that may turn a true identity's difference into a literal zero.

Each strategy is an equivalence under the symbols' stated assumptions: SymPy's ``expand``,
``powsimp``, ``cancel``... are assumption-aware as long as ``force`` is never passed, and
rewriting trigonometric functions as exponentials is valid on all of C. Nothing here uses
``force=True``, ``inverse=True`` or a branch-cut shortcut, so ``sqrt(x**2) -> x`` and
``log(exp(z)) -> z`` stay unprovable unless the assumptions make them true.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["STRATEGIES", "TEMPLATE_STRATEGIES", "abstract_constants", "is_literal_zero"]


def is_literal_zero(expr) -> bool:
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
    ("rational normal form", _rational),
    ("trigonometric expansion", _trig),
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


def _keeps_concrete(e) -> bool:
    return e.is_Atom or e.is_NumberSymbol or e is sp.I


def abstract_constants(expr):
    """Replace each maximal constant subexpression (``10000**(-1/32)``, ``sqrt(2)``...) by a symbol.

    Integers, rationals, floats, ``pi``, ``E`` and ``I`` stay as they are. A symbol is real or
    positive exactly when SymPy can decide that of the constant it stands for, so an identity
    proved for the *template* holds for every instance: a RoPE block for frequency ``omega_i``
    is the same template for every ``i``, and is proved once.

    Returns ``(template, key)`` where ``key`` is a canonical string shared by every expression
    that is the same template (constants renamed in order of first appearance).
    """
    replacements: dict = {}

    def constant(e):
        if e not in replacements:
            facts = {"positive": e.is_positive is True,
                     "real": e.is_extended_real is True and e.is_finite is not False}
            replacements[e] = sp.Symbol(f"_c{len(replacements)}",
                                        **{k: True for k, v in facts.items() if v})
        return replacements[e]

    def walk(e):
        if isinstance(e, sp.MatrixBase) or not isinstance(e, sp.Basic):
            return e
        if not e.free_symbols and e.is_number and not _keeps_concrete(e):
            return constant(e)
        if e.is_Atom or not e.args:
            return e
        if e.is_Mul or e.is_Add:
            # 10**(7/8)/10 * s is Mul(1/10, 10**(7/8), s): its constant is the product of factors.
            fixed = [a for a in e.args if not a.free_symbols]
            varying = [walk(a) for a in e.args if a.free_symbols]
            if len(fixed) > 1:
                combined = e.func(*fixed)
                keep = combined.is_Rational or _keeps_concrete(combined)
                return e.func(combined if keep else constant(combined), *varying)
        return e.func(*[walk(a) for a in e.args])

    template = walk(expr)
    key = sp.srepr(template) + "|" + ";".join(
        f"{s.name}:{sorted(s.assumptions0.items())}" for s in replacements.values())
    return template, key
