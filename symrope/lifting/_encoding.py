"""What a lift returns: a :class:`LiftedEncoding` (real code as an encoding the checker takes) and
its rows over a whole sequence (:class:`TokenRows`).

Its own module so that the tracers (``_symbolic.py``, ``_jax.py``), which build encodings, and
``lift`` in ``_lift.py``, which chooses a tracer, import it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from symrope.checker import CheckReport, Encoding

__all__ = ["LiftedEncoding", "TokenRows", "relate_tokens"]


@dataclass
class TokenRows:
    """The lifted outputs of a whole sequence: one row of expressions per token and role.

    ``x[t]``, ``y[t]`` are token ``t``'s query and key content symbols, ``p[t]`` its position
    symbols (a tuple of ``position_dims``); ``per_token`` says whether every token's rows are
    token 0's rows with the symbols renamed.
    """

    q: list
    k: list
    x: list
    y: list
    p: list
    per_token: bool
    foreign: dict  # token -> tokens whose positions its outputs read (empty when per_token)

    @property
    def tokens(self) -> int:
        return len(self.q)

    def positions(self) -> list:
        return [s for axes in self.p for s in axes]


class LiftedEncoding(Encoding):
    """An :class:`Encoding` whose query and key are real code run symbolically on a sequence.

    ``lift_info`` holds what the report prints beside the verdicts (layout, frequencies,
    hazards, branches, how the tokens relate); ``rows`` the per-token expressions;
    :meth:`replay_score` runs the real code in float64 on concrete positions.
    """

    def __init__(self, name: str, dim: int, query: Callable[..., sp.Matrix],
                 key: Callable[..., sp.Matrix], position_dims: int,
                 function: Callable[..., Any], lift_info: dict[str, Any],
                 rows: TokenRows | None = None) -> None:
        super().__init__(name, dim, query, key, position_dims)
        self.function = function
        self.lift_info = lift_info
        self.rows = rows

    @property
    def per_token(self) -> bool:
        return self.rows is None or self.rows.per_token

    def check_delegate(self, budget: float) -> CheckReport | None:
        """For :func:`symrope.check`: a sequence encoding is decided pair by pair."""
        if self.per_token:
            return None
        from symrope.lifting._pairs import check_pairs

        return check_pairs(self, budget)

    def replay_inputs(self, i: int, a: int, j: int, b: int,
                      positions: Sequence) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(q, k, positions)`` of a replay as float64 / int64 numpy arrays: token ``i``'s query
        is the basis vector ``e_a``, token ``j``'s key ``e_b``, every other input zero; the
        positions are integers where every one is (else float64)."""
        tokens = self.rows.tokens if self.rows is not None else 1
        q = np.zeros((1, 1, tokens, self.dim), dtype=np.float64)
        k = np.zeros_like(q)
        q[0, 0, i, a] = 1.0
        k[0, 0, j, b] = 1.0
        values = [v if isinstance(v, sp.Basic) else sp.Rational(v)
                  for axes in positions for v in (axes if isinstance(axes, (tuple, list))
                                                  else (axes,))]
        integral = all(v.is_integer for v in values)
        shape = (tokens, self.position_dims) if self.position_dims > 1 else (tokens,)
        numbers = np.array([int(v) if integral else float(v) for v in values],
                           dtype=np.int64 if integral else np.float64).reshape(shape)
        return q, k, numbers

    def replay_score(self, i: int, a: int, j: int, b: int, positions: Sequence) -> float:
        """``q_rot[i] . k_rot[j]`` through the real code in float64 (``replay_inputs``)."""
        import torch

        q, k, numbers = (torch.from_numpy(array) for array in
                         self.replay_inputs(i, a, j, b, positions))
        with torch.no_grad():
            q_rot, k_rot = self.function(q, k, numbers)
        tokens = q.shape[2]
        q_row = q_rot.detach().to(torch.float64).reshape(tokens, self.dim)[i]
        k_row = k_rot.detach().to(torch.float64).reshape(tokens, self.dim)[j]
        return float(torch.dot(q_row, k_row))


def relate_tokens(q_rows: list, k_rows: list, x: list, y: list, p: list) -> TokenRows:
    """Whether every token's rows are token 0's, renamed; else which positions each reads."""
    foreign, same = {}, True
    for t in range(len(q_rows)):
        read = sorted(u for u in range(len(p)) if u != t and any(
            entry.free_symbols & set(p[u]) for entry in (*q_rows[t], *k_rows[t])))
        if read:
            foreign[t] = read
        if t == 0 or read:
            same = same and not read
            continue
        renaming = {**dict(zip(x[t], x[0])), **dict(zip(y[t], y[0])), **dict(zip(p[t], p[0]))}
        if any(a.xreplace(renaming) != b for a, b in zip(q_rows[t], q_rows[0])) or \
                any(a.xreplace(renaming) != b for a, b in zip(k_rows[t], k_rows[0])):
            same = False
    return TokenRows(q_rows, k_rows, x, y, p, same, foreign)
