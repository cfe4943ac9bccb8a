"""The generator of a relative encoding: ``X = H'(0)`` per axis, ``H(d) = e^{dX}``, classification.

Everything is decided block by block in the partition found by ``_structure``.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from symrope.engine import PROVED
from symrope.checker._claims import combine
from symrope.checker._classify import classify_block, summarise
from symrope.checker._continuity import value_at_origin
from symrope.checker._shown import show
from symrope.checker._structure import block_claim

__all__ = ["generator", "from_relative", "Unclassifiable"]


class Unclassifiable(Exception):
    """The generator cannot be read off (the encoding is undefined at 0 with no usable limit)."""


def _axes(position) -> tuple:
    return position if isinstance(position, tuple) else (position,)


def _pack(symbols: tuple, template):
    return symbols if isinstance(template, tuple) else symbols[0]


def generator(run):
    """Generators, the check of ``H(d) = e^{dX}``, skewness, commutation, classification."""
    axes_p = _axes(run.p)
    # Dummies: an encoding's own parameter named d must not be taken for the offset.
    offsets = tuple(sp.Dummy(f"d{k}" if len(axes_p) > 1 else "d", real=True)
                    for k in range(len(axes_p)))
    offset = _pack(offsets, run.p)
    names = [a.name for a in axes_p]
    known = run._exponentials  # decided with translation invariance (None: never tried)
    if known is not None and known.proved:
        # F(0) = I, so H(d) = F(0)^T G(d) = G(d) = e^{d.B}: X_k = B_k, already proved.
        X = known.G.generators
        result = {"axes": _axes_of(names, run.blocks.groups, X),
                  "exponential": {"verdict": PROVED, "evidence": (
                      "H(d) = F(0)^T G(d) = G(d) = exp(dB), X = B (checked for translation "
                      "invariance: " + "; ".join(known.facts) + ")"), "route": "known"}}
        return _classified(run.blocks.groups, run._verify, X, names, result)
    Fb, Gb = run.blocks.restrict(run.F), run.blocks.restrict(run.G)
    # The continuous extension at 0 (a limit where F(0) is 0/0 as written: one position axis)
    at_origin = [value_at_origin(f, axes_p) for f in Fb]
    if any(f0 is None for f0 in at_origin):
        raise Unclassifiable("F(0) is undefined and has no limit symrope could compute")
    H = [sp.ImmutableMatrix((f0.T * run._at(g, run.p, offset)).applyfunc(sp.expand))
         for f0, g in zip(at_origin, Gb)]
    return from_relative(H, offsets, names, run.blocks.groups, run._verify)


def from_relative(H: list, offsets: list, names: list, groups: list,
                  decide: Callable) -> tuple:
    """Generators, ``H(d) = e^{dX}``, skewness, commutation and classification from ``H``.

    ``H`` are the diagonal blocks (index ``groups``) of the relative transform as functions of
    the ``offsets`` (one Dummy per axis); ``decide(lhs, rhs, expand=False)`` decides a claim.
    Used by :func:`generator` and by the lifted sequence checker (``symrope.lifting``).
    """
    # X_k = dH/dd_k at d = 0: every offset at 0, not only d_k
    X = [[value_at_origin(h.diff(d), offsets) for h in H] for d in offsets]
    if any(x_b is None for Xk in X for x_b in Xk):
        raise Unclassifiable("H'(0) is undefined and has no limit symrope could compute")
    X = [[_readable(x_b) for x_b in Xk] for Xk in X]
    ode = [decide(block_claim([h.diff(d) for h in H]),
                  block_claim([x_b * h for x_b, h in zip(Xk, H)]), expand=True)
           for d, Xk in zip(offsets, X)]
    status = combine(ode)
    result = {
        "axes": _axes_of(names, groups, X),
        "exponential": {"verdict": status, "evidence": (
            ("H(0) = I and dH/dd = X H(d), so H(d) = exp(d X) by uniqueness of solutions of "
             "linear ODEs" if len(X) == 1 else
             "H(0) = I and dH/dd_k = X_k H(d) on every axis: with commuting X_k this is "
             "exp(sum_k d_k X_k) by uniqueness of solutions of linear ODEs")
            if status == PROVED else "; ".join(v.explain() for v in ode)), "route": "ode"},
    }
    return _classified(groups, decide, X, names, result)


def _readable(matrix):
    """Expanded entries, with constants folded (``sin(1)**2 + cos(1)**2`` is 1: a constant
    position offset ``R(p + 1)`` leaves such sums in ``H'(0)``, a scale ``c^2`` quotients)."""
    def entry(value):
        value = sp.expand(value)
        if value.free_symbols or value.is_Rational or sp.count_ops(value) > 200:
            return value
        return sp.simplify(sp.trigsimp(value) if value.has(sp.sin, sp.cos) else value)
    return matrix.applyfunc(entry)


def _axes_of(names, groups, X) -> list:
    return [{"axis": name, "blocks": [{"indices": list(g), "matrix": show(x_b)}
                                      for g, x_b in zip(groups, Xk)]}
            for name, Xk in zip(names, X)]


def _classified(groups, decide, X, names, result):
    """Skewness, commutation and the real Jordan form of each generator, block by block."""
    skew = [decide(block_claim([x_b + x_b.T for x_b in Xk]),
                   block_claim([sp.zeros(*x_b.shape) for x_b in Xk])) for Xk in X]
    result["pure_rotation"] = {"verdict": combine(skew)}
    if len(X) > 1:
        pairs = [(a, b) for a in range(len(X)) for b in range(a + 1, len(X))]
        commute = [decide(block_claim([xa * xb for xa, xb in zip(X[a], X[b])]),
                          block_claim([xb * xa for xa, xb in zip(X[a], X[b])]))
                   for a, b in pairs]
        result["commute"] = {"verdict": combine(commute)}
    classification = {}
    for name, Xk in zip(names, X):
        behaviours = []
        for group, x_b in zip(groups, Xk):
            behaviours += classify_block(x_b, group)
        classification[name] = summarise(behaviours)
    return result, classification
