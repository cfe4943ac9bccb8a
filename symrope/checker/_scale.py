"""Readings after the four verdicts: a uniform scale ``c^2``, non-commuting generators.

* **A uniform scale.** YaRN and LongRoPE multiply cos and sin by an attention factor ``c``, so
  ``F(p)^T G(p) = c^2 I``: identity at zero offset is refuted, yet every score is ``c^2`` times
  a relative one (softmax sees a temperature, not the positions). When identity is refuted and
  ``F(p)^T G(p) = c^2 I`` is *proved* for a constant ``c^2``, the report names it on its own
  verdict line; with the other three proved the headline is "relative up to a uniform scale
  c^2 = ..." and the generator of the normalised encoding ``G / c^2`` is classified (kept in
  ``uniform_scale``: ``report.generator`` is the generator of an encoding with all four proved).
* **Non-commuting generators.** When translation invariance fails for n-d positions and each
  axis alone is a one-parameter group, the usual reason is that the generators ``X_k = G'(0)``
  along the axes do not commute (LieRE): ``exp(r_1 X_1 + r_2 X_2)`` is then no group in ``r``.
  The commutator is decided exactly and named beside the counterexample (which stands alone).
"""

from __future__ import annotations

import copy

import sympy as sp

from symrope.checker._claims import combine, methods
from symrope.checker._continuity import value_at_origin
from symrope.checker._shown import show
from symrope.engine import PROVED, REFUTED, BudgetExhausted, deadline

__all__ = ["constant_of", "read_after_verdicts"]


def constant_of(blocks: list, positions: list) -> sp.Expr | None:
    """``c^2`` if the blocks at every position 0 are ``c^2 I`` with a constant ``c^2 != 0, 1``."""
    zero = {p: sp.Integer(0) for p in positions}
    values = [sp.ImmutableMatrix(b.xreplace(zero)).applyfunc(sp.simplify) for b in blocks]
    if not values or values[0].shape[0] == 0:
        return None
    c2 = values[0][0, 0]
    if c2.free_symbols or c2 == 0 or c2 == 1 or not c2.is_finite:
        return None
    if any(v != c2 * sp.eye(v.shape[0]) for v in values):
        return None
    return c2


def read_after_verdicts(run, report) -> None:
    """The hook ``check`` calls once the four verdicts are in (both readings, within budget)."""
    verdicts = report.verdicts()
    try:
        with deadline(run.clock.left()):
            if verdicts["identity_at_zero"] == REFUTED and run.F is not None:
                _uniform_scale(run, report, verdicts)
            if verdicts["translation_invariance"] == REFUTED and run.F is not None and \
                    run.encoding.position_dims > 1:
                _commutation(run, report)
    except BudgetExhausted:
        report.notes.append("the time budget ran out while reading a uniform scale or the "
                            "generators' commutators")


def _uniform_scale(run, report, verdicts) -> None:
    blocks = [f.T * g for f, g in zip(run.blocks.restrict(run.F), run.blocks.restrict(run.G))]
    c2 = constant_of(blocks, _axes(run.p))
    if c2 is None:
        return
    verdict = run._block_claim(lambda f, g: f.T * g, lambda f, g: c2 * sp.eye(f.shape[0]))
    scale = {"verdict": verdict.status, "c2": show(c2),
             "c2_value": f"{float(sp.N(c2, 20)):.6g}",
             "evidence": (f"F(p)^T G(p) = c^2 I with c^2 = {show(c2)} ({methods([verdict])}): "
                          "every score is c^2 times a relative one")
             if verdict.proved else verdict.explain()}
    report.uniform_scale = scale
    if not verdict.proved or verdicts["continuity"] != PROVED or \
            verdicts["translation_invariance"] != PROVED:
        return
    from symrope.checker._generator import Unclassifiable, generator

    normalised = copy.copy(run)
    normalised.G = run.G / c2
    normalised._exponentials = None
    try:  # kept beside the scale: report.generator stays the four-proved generator
        scale["generator"], scale["classification"] = generator(normalised)
    except Unclassifiable as reason:
        report.notes.append(f"the normalised generator was not classified: {reason}")


def _axes(position) -> tuple:
    return position if isinstance(position, tuple) else (position,)


def _commutation(run, report) -> None:
    axes = _axes(run.p)
    generators = []
    t = sp.Dummy("t", positive=True)
    for axis in axes:  # X_k = lim (G(t e_k) - I) / t as t -> 0+: the generator along one axis
        line = sp.ImmutableMatrix(run.G.xreplace(
            {other: (t if other == axis else sp.Integer(0)) for other in axes}))
        at_zero = value_at_origin(line, (t,))
        if at_zero is None or at_zero != sp.eye(line.shape[0]):
            return
        line = line.replace(sp.sinc, lambda u: sp.sin(u) / u)  # t > 0: no sinc(0) here
        rows, cols = line.shape
        try:
            generators.append(sp.ImmutableMatrix(rows, cols, [
                sp.limit((line[i, j] - int(i == j)) / t, t, 0, "+")
                for i in range(rows) for j in range(cols)]))
        except (NotImplementedError, ValueError, TypeError):
            return
    if any(g.has(sp.oo, -sp.oo, sp.zoo, sp.nan) for g in generators):
        return
    failing = []
    for a in range(len(axes)):
        for b in range(a + 1, len(axes)):
            A, B = sp.ImmutableMatrix(generators[a]), sp.ImmutableMatrix(generators[b])
            verdict = run._verify(A * B, B * A, expand=True)
            if verdict.refuted:
                failing.append((a, b, verdict))
    if not failing:
        return
    a, b, _verdict = failing[0]
    names = [getattr(s, "name", str(s)) for s in axes]
    commutator = (sp.ImmutableMatrix(generators[a]) * sp.ImmutableMatrix(generators[b]) -
                  sp.ImmutableMatrix(generators[b]) * sp.ImmutableMatrix(generators[a]))
    reason = (f"the generators X_{names[a]} = G'(0) along {names[a]} and X_{names[b]} along "
              f"{names[b]} do not commute ([X_{names[a]}, X_{names[b]}] = "
              f"{show(commutator.applyfunc(sp.expand))} != 0, decided exactly): "
              "exp(r . X) is a group in r only for commuting generators")
    result = report.assumptions["translation_invariance"]
    result.evidence = f"{result.evidence}; reason: {reason}"
    report.noncommuting = {"axes": [names[a], names[b]], "commutator": show(commutator),
                           "verdict": combine([_verdict])}
