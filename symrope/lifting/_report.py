"""Check a lifted encoding: the checker's verdicts plus the lift's own evidence.

Beside the four verdicts the report gets the layout of the pairs, how the tokens relate, the
frequency report, the branches the code took on the positions and the precision hazards
(``report.hazards``: casts of positions to float types, with ``file:line``). Every
counterexample on basis vectors is replayed through the real code in float64 torch on a whole
sequence, its numbers printed beside the exact ones, and names the token pair.
"""

from __future__ import annotations

import sympy as sp

from symrope.checker import (IDENTITY, TRANSLATION, CheckReport, PairScore, ScoreOnBasis, check,
                             show)
from symrope.engine import verify
from symrope.errors import UsageError
from symrope.lifting._encoding import LiftedEncoding
from symrope.lifting._pairs import simplest_point

__all__ = ["check_lifted", "annotate"]


def check_lifted(encoding: LiftedEncoding, budget: float = 60.0,
                 audit_spec: str | None = None) -> CheckReport:
    """:func:`symrope.check` on a lifted encoding, with hazards and float64 replays.

    ``audit_spec`` (the ``--impl`` a user would pass to ``symrope audit``) is named in each
    hazard's advice.

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
    >>> "float64 replay" in report.assumptions["translation_invariance"].counterexample.summary
    True
    >>> [h["dtype"] for h in report.hazards]
    ['float32']
    """
    if not isinstance(encoding, LiftedEncoding):
        raise UsageError(f"check_lifted takes what lift() returns, got {type(encoding).__name__}")
    report = check(encoding, budget=budget)
    annotate(report, encoding, audit_spec)
    return report


def annotate(report: CheckReport, encoding: LiftedEncoding,
             audit_spec: str | None = None) -> CheckReport:
    """Add the lift's layout, tokens, frequencies, branches, hazards and float64 replays."""
    info = dict(encoding.lift_info)
    report.notes.append(f"lifted from {info['source']}: {info['layout']['text']}")
    report.notes.append(info["sequence"])
    if "frequencies" in info:
        report.notes.append(info["frequencies"]["text"])
    report.notes.extend(info.get("notes", []))
    for taken in info.get("branches", []):
        where = f"at {taken['location']}" if taken["location"] else "(location unknown)"
        report.notes.append(f"the code branches on the positions {where} "
                            f"({taken['condition']}): both ways were followed, the outputs "
                            "joined as a Piecewise")
    report.notes.append(info["casts"])
    advice = (f"; run 'symrope audit --impl {audit_spec}' for the error" if audit_spec else
              "; 'symrope audit' measures the error")
    report.hazards = [dict(h, text=h["text"] + advice) for h in info.get("hazards", [])]
    if encoding.per_token and encoding.rows is not None:
        _smaller_counterexamples(report, encoding.rows)
    for result in report.assumptions.values():
        example = result.counterexample
        if not isinstance(example, (ScoreOnBasis, PairScore)) or example.x is None:
            continue  # replayed on basis vectors only
        replay = _replay(encoding, example)
        if replay is not None:
            example.float64_replay = replay
            example.summary += f"; float64 replay through the real code: {replay['text']}"
    report.lift = info
    return report


def _smaller_counterexamples(report, rows) -> None:
    """Move the per-token check's counterexamples to small integer positions where one exists.

    The checker's points (``37/7``, ``-10^7``) are exact, but code in float32 replays them
    poorly; the same basis vectors at small integers show the same failure and replay cleanly.
    """
    def role_vector(role_rows, symbols, index):
        basis = {s: sp.Integer(int(k == index)) for k, s in enumerate(symbols)}
        return [entry.xreplace(basis) for entry in role_rows]

    s_axes, t_axes = rows.p[0], rows.p[min(1, rows.tokens - 1)]
    for result in report.assumptions.values():
        example = result.counterexample
        if not isinstance(example, ScoreOnBasis):
            continue
        a, b = example.x, example.y
        query = role_vector(rows.q[0], rows.x[0], a)
        if example.compared_with == TRANSLATION:
            key = [e.xreplace(dict(zip(rows.p[0], t_axes)))
                   for e in role_vector(rows.k[0], rows.y[0], b)]
            score = sum(q * k for q, k in zip(query, key))
            shifted = {**{s: sp.Integer(0) for s in s_axes},
                       **{t: t - s for s, t in zip(s_axes, t_axes)}}
            point = simplest_point(score - score.xreplace(shifted), [*s_axes, *t_axes])
            if point is None:
                continue
            here, there = score.xreplace(point), score.xreplace(shifted).xreplace(point)
            moved = verify(here, there, budget=10)
            if not moved.refuted:
                continue
            s_value = _pack([point[v] for v in s_axes])
            t_value = _pack([point[v] for v in t_axes])
            # the certificate is the new point's own: the old one certified another point
            example.positions = {"s": show(s_value), "t": show(t_value)}
            example.score, example.expected = show(here), show(there)
            example.certificate = moved.details.get("certificate")
            example.summary = (f"s = {s_value}, t = {t_value}, x = e_{a}, y = e_{b}: score "
                               f"{_number(here)} at (s, t) but {_number(there)} at (0, t - s); "
                               f"{moved.certified_gap('difference')}")
        elif example.compared_with == IDENTITY:
            key = role_vector(rows.k[0], rows.y[0], b)
            score = sum(q * k for q, k in zip(query, key))
            target = sp.Integer(int(a == b))
            point = simplest_point(score - target, list(s_axes))
            if point is None:
                continue
            moved = verify(score.xreplace(point), target, budget=10)
            if not moved.refuted:
                continue
            here, p_value = score.xreplace(point), _pack([point[v] for v in s_axes])
            example.positions = {"p": show(p_value)}
            example.score = show(here)
            example.certificate = moved.details.get("certificate")
            example.summary = (f"p = {p_value}, x = e_{a}, y = e_{b}: query(x, p)^T key(y, p) = "
                               f"{_number(here)} but x^T y = {target}; "
                               f"{moved.certified_gap('difference')}")


def _pack(values):
    return values[0] if len(values) == 1 else sp.Tuple(*values)


def _number(value) -> str:
    return sp.sstr(sp.N(value, 12))


def _axes(value) -> tuple:
    """A position of the report (a :class:`Shown`, or a list of them) as its exact coordinates."""
    value = [v.exact for v in value] if isinstance(value, list) else value.exact
    if isinstance(value, (list, tuple, sp.Tuple)):
        return tuple(value)
    return (value,)


def _sequence(encoding, assignments: dict) -> list:
    """Positions of every token: the given ones, every other token at 0."""
    tokens = encoding.rows.tokens if encoding.rows is not None else 1
    zero = tuple(sp.Integer(0) for _ in range(encoding.position_dims))
    return [assignments.get(t, zero) for t in range(tokens)]


def _replay(encoding, example) -> dict | None:
    """The counterexample's scores computed by the real code in float64, beside the exact ones."""
    a, b = example.x, example.y
    exact_here = float(example.score.exact)
    if isinstance(example, PairScore) and example.reference_pair is not None:  # a sequence
        i, j = example.pair
        r_i, r_j = example.reference_pair
        here = encoding.replay_score(i, a, j, b, [_axes(v) for v in example.positions])
        there = encoding.replay_score(r_i, a, r_j, b,
                                      [_axes(v) for v in example.reference_positions])
        exact_there = float(example.expected.exact)
        return {"score": here, "reference_score": there,
                "agrees": _close(here, exact_here) and _close(there, exact_there),
                "text": f"{here:.12g} for tokens ({i}, {j}) but {there:.12g} for tokens "
                        f"({r_i}, {r_j}) (exact {exact_here:.12g} and {exact_there:.12g})"}
    if isinstance(example, PairScore):  # identity on a sequence check
        i, _ = example.pair
        here = encoding.replay_score(i, a, i, b, [_axes(v) for v in example.positions])
        return {"score": here, "agrees": _close(here, exact_here),
                "text": f"token {i} scores {here:.12g} (exact {exact_here:.12g}), "
                        f"x^T y = {int(a == b)}"}
    if example.compared_with == TRANSLATION:  # the per-token check: tokens (0, 1)
        s, t = _axes(example.positions["s"]), _axes(example.positions["t"])
        shifted = tuple(y - x for x, y in zip(s, t))
        zero = tuple(sp.Integer(0) for _ in s)
        here = encoding.replay_score(0, a, 1, b, _sequence(encoding, {0: s, 1: t}))
        there = encoding.replay_score(0, a, 1, b, _sequence(encoding, {0: zero, 1: shifted}))
        exact_there = float(example.expected.exact)
        example.pair = [0, 1]
        return {"score_at_s_t": here, "score_at_0_t_minus_s": there,
                "agrees": _close(here, exact_here) and _close(there, exact_there),
                "text": f"tokens (0, 1) (every pair alike): {here:.12g} at (s, t) but "
                        f"{there:.12g} at (0, t - s) (exact {exact_here:.12g} and "
                        f"{exact_there:.12g})"}
    if example.compared_with == IDENTITY:
        p = _axes(example.positions["p"])
        here = encoding.replay_score(0, a, 0, b, _sequence(encoding, {0: p}))
        example.pair = [0, 0]
        return {"score": here, "agrees": _close(here, exact_here),
                "text": f"token 0 against itself: query(x, p)^T key(y, p) = {here:.12g} "
                        f"(exact {exact_here:.12g}), x^T y = {int(a == b)}"}
    return None  # translation stated as a shift (F(0) undefined as written): not replayed


def _close(a: float, b: float) -> bool:
    """float32 code replayed in float64 agrees with the exact value to about float32 precision."""
    return abs(a - b) <= 1e-4 * max(1.0, abs(b))
