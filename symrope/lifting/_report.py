"""Check a lifted encoding: the checker's verdicts plus the lift's own evidence.

Beside the four verdicts the report gets the layout of the pairs, the frequency report and the
casts note, and every counterexample on basis vectors is replayed through the real code in
float64 torch, its numbers printed beside the exact ones.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from symrope.checker._check import check
from symrope.checker._report import CheckReport
from symrope.errors import UsageError
from symrope.lifting._lift import LiftedEncoding

__all__ = ["check_lifted", "annotate"]


def check_lifted(encoding: LiftedEncoding, budget: float = 60.0) -> CheckReport:
    """:func:`symrope.check` on a lifted encoding, with float64 replays of counterexamples.

    Examples
    ========

    >>> import torch
    >>> from symrope.lifting import lift, check_lifted
    >>> def q_only(q, k, positions):
    ...     angle = positions[:, None].float()
    ...     turn = lambda v: torch.cat((v[..., :1] * angle.cos() - v[..., 1:] * angle.sin(),
    ...                                 v[..., :1] * angle.sin() + v[..., 1:] * angle.cos()), -1)
    ...     return turn(q), k
    >>> report = check_lifted(lift(q_only, head_dim=2))
    >>> report.verdicts()["translation_invariance"]
    'refuted'
    >>> "float64 replay" in report.assumptions["translation_invariance"].counterexample["summary"]
    True
    """
    if not isinstance(encoding, LiftedEncoding):
        raise UsageError(f"check_lifted takes what lift() returns, got {type(encoding).__name__}")
    report = check(encoding, budget=budget)
    annotate(report, encoding)
    return report


def annotate(report: CheckReport, encoding: LiftedEncoding) -> CheckReport:
    """Add the lift's layout, frequency report, casts note and float64 replays to ``report``."""
    info = dict(encoding.lift_info)
    report.notes.append(f"lifted from {info['source']}: {info['layout']['text']}")
    if "frequencies" in info:
        report.notes.append(info["frequencies"]["text"])
    report.notes.append(info["casts"])
    for result in report.assumptions.values():
        counterexample = result.counterexample
        if not counterexample or not str(counterexample.get("x", "")).startswith("e_"):
            continue
        replay = _replay(encoding, counterexample)
        if replay is not None:
            counterexample["float64_replay"] = replay
            counterexample["summary"] += f"; float64 replay through the real code: {replay['text']}"
    report.lift = info
    return report


def _exact(shown):
    """The exact value a checker report's string carries (never parsed back from the text)."""
    return shown.exact


def _basis_index(text: str) -> int:
    return int(text.split("_", 1)[1])


def _score(encoding, i, s, j, t) -> float:
    query = encoding.replay("query", i, s)
    key = encoding.replay("key", j, t)
    return float(np.dot(query, key))


def _replay(encoding, counterexample) -> dict | None:
    i, j = _basis_index(counterexample["x"]), _basis_index(counterexample["y"])
    if "s" in counterexample and "t" in counterexample:
        s, t = _exact(counterexample["s"]), _exact(counterexample["t"])
        s_axes = tuple(s) if isinstance(s, sp.Tuple) else (s,)
        t_axes = tuple(t) if isinstance(t, sp.Tuple) else (t,)
        shifted = tuple(b - a for a, b in zip(s_axes, t_axes))
        zero = tuple(sp.Integer(0) for _ in s_axes)
        here = _score(encoding, i, s_axes, j, t_axes)
        there = _score(encoding, i, zero, j, shifted)
        exact_here = float(_exact(counterexample["score_at_s_t"]))
        exact_there = float(_exact(counterexample["score_at_0_t_minus_s"]))
        return {"score_at_s_t": here, "score_at_0_t_minus_s": there,
                "agrees": _close(here, exact_here) and _close(there, exact_there),
                "text": f"{here:.12g} at (s, t) but {there:.12g} at (0, t - s) "
                        f"(exact {exact_here:.12g} and {exact_there:.12g})"}
    if "p" in counterexample:
        p = _exact(counterexample["p"])
        axes = tuple(p) if isinstance(p, sp.Tuple) else (p,)
        here = _score(encoding, i, axes, j, axes)
        exact_here = float(_exact(counterexample["score"]))
        return {"score": here, "agrees": _close(here, exact_here),
                "text": f"query(x, p)^T key(y, p) = {here:.12g} (exact {exact_here:.12g}), "
                        f"x^T y = {int(i == j)}"}
    return None


def _close(a: float, b: float) -> bool:
    """float32 code replayed in float64 agrees with the exact value to about float32 precision."""
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))
