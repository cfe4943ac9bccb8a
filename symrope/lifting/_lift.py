"""``lift``: run real torch RoPE code on symbolic vectors and positions, as an ``Encoding``.

The code is executed once, on content vectors of fresh real symbols and a symbolic position,
through :class:`~symrope.lifting._symbolic.SymbolicTensor`. Its outputs are exact SymPy
expressions; ``query(x, p)`` and ``key(y, p)`` substitute the checker's vectors and positions
into them (exact, because no branch on a symbolic value was taken: that stops the lift).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy as sp
import torch

from symrope.checker._encoding import Encoding
from symrope.errors import InternalError, UsageError
from symrope.lifting._errors import LiftUndecided
from symrope.schedules import RopeConfig

__all__ = ["lift", "LiftedEncoding", "CASTS_NOTE", "frequency_errors"]

CASTS_NOTE = ("casts are identities in exact semantics (float32 inv_freq read as the exact "
              "rational of its bits, .float()/.to(bf16) ignored): float rounding is invisible "
              "to this check by design; measure it with 'symrope audit'")


class LiftedEncoding(Encoding):
    """An :class:`Encoding` whose query and key are real torch code run symbolically.

    ``lift_info`` holds what the report prints beside the verdicts: the layout of the pairs,
    the frequency report (when a schedule is known) and the casts note; ``replay(...)`` runs
    the real code in float64 torch.
    """

    def __init__(self, name: str, dim: int, query: Callable[..., sp.Matrix],
                 key: Callable[..., sp.Matrix], position_dims: int,
                 function: Callable[..., Any], lift_info: dict[str, Any]) -> None:
        super().__init__(name, dim, query, key, position_dims)
        self.function = function
        self.lift_info = lift_info

    def replay(self, role: str, index: int,
               position: sp.Expr | float | Sequence[sp.Expr | float]) -> np.ndarray:
        """``role``'s output for the basis vector ``e_index`` at ``position``, in float64 torch."""
        dim = self.dim
        basis = torch.zeros(1, 1, 1, dim, dtype=torch.float64)
        basis[..., index] = 1.0
        values = [sp.nsimplify(v) if not isinstance(v, sp.Basic) else v
                  for v in (position if isinstance(position, (tuple, list, sp.Tuple))
                            else (position,))]
        integral = all(v.is_integer for v in values)
        dtype = torch.int64 if integral else torch.float64
        numbers = [int(v) if integral else float(v) for v in values]
        positions = torch.tensor(numbers if self.position_dims > 1 else numbers[:1],
                                 dtype=dtype).reshape((1, self.position_dims)
                                                      if self.position_dims > 1 else (1,))
        with torch.no_grad():
            q_rot, k_rot = self.function(basis, basis.clone(), positions)
        out = q_rot if role == "query" else k_rot
        return out.detach().to(torch.float64).reshape(-1).numpy()


def lift(function: Callable[..., Any], head_dim: int, position_dims: int = 1,
         name: str | None = None, frequencies: torch.Tensor | None = None,
         schedule: RopeConfig | None = None) -> LiftedEncoding:
    """Run ``function(q, k, positions) -> (q_rot, k_rot)`` on symbolic inputs: an Encoding.

    Parameters
    ==========

    function : callable or torch.nn.Module
        Real torch code. ``q`` and ``k`` are float tensors shaped ``(1, 1, seq, head_dim)``,
        ``positions`` an int64 tensor shaped ``(seq,)`` (or ``(seq, position_dims)``); it
        returns the rotated ``q`` and ``k`` with the same shape.
    head_dim : int
    position_dims : int
        Number of position coordinates (2 for image patches).
    name : str, optional
    frequencies : tensor, optional
        The module's frequency buffer (HF's ``inv_freq``), compared with ``schedule``.
    schedule : RopeConfig, optional
        The exact schedule the frequencies should follow (:mod:`symrope.schedules`).

    Raises
    ======

    LiftUndecided
        The code calls an op symrope cannot run symbolically, or branches on a symbolic value
        (the message names the op or file:line).
    UsageError
        The function has the wrong signature, raises, or returns the wrong shapes.

    Examples
    ========

    >>> import torch
    >>> from symrope import check
    >>> from symrope.lifting import lift
    >>> def rope2(q, k, positions):
    ...     angle = positions[:, None].float() * 0.5
    ...     cos, sin = angle.cos(), angle.sin()
    ...     turn = lambda v: torch.cat((v[..., :1] * cos - v[..., 1:] * sin,
    ...                                 v[..., :1] * sin + v[..., 1:] * cos), dim=-1)
    ...     return turn(q), turn(k)
    >>> encoding = lift(rope2, head_dim=2)
    >>> encoding.query(sp.Matrix(sp.symbols("a b")), sp.Symbol("p"))
    Matrix([
    [a*cos(p/2) - b*sin(p/2)],
    [a*sin(p/2) + b*cos(p/2)]])
    >>> check(encoding).verdict
    'proved'
    """
    from symrope.lifting._symbolic import entries, symbolic

    if isinstance(head_dim, bool) or not isinstance(head_dim, int) or head_dim < 1:
        raise UsageError(f"head_dim must be a positive integer, got {head_dim!r}")
    if not callable(function):
        raise UsageError(f"lift needs a callable (q, k, positions) -> (q_rot, k_rot), got "
                         f"{type(function).__name__}")
    name = name or getattr(function, "__qualname__", None) or type(function).__name__
    _check_signature(function, name)
    xs = sp.symbols(f"_lift_x0:{head_dim}", real=True)
    ys = sp.symbols(f"_lift_y0:{head_dim}", real=True)
    ps = sp.symbols(f"_lift_p0:{position_dims}", real=True)
    q = symbolic(np.array(xs, dtype=object).reshape(1, 1, 1, head_dim))
    k = symbolic(np.array(ys, dtype=object).reshape(1, 1, 1, head_dim))
    positions = symbolic(np.array(ps, dtype=object).reshape(
        (1, position_dims) if position_dims > 1 else (1,)), dtype=torch.int64)
    try:
        with torch.no_grad():
            result = function(q, k, positions)
    except (LiftUndecided, UsageError, InternalError):
        raise
    except Exception as error:  # the user's code refused the inputs: a contract problem
        message = " ".join(str(error).split())[:300] or "no message"
        raise UsageError(f"{name}(q, k, positions) raised {type(error).__name__}: {message} "
                         f"(q, k: (1, 1, seq, {head_dim}) float, positions: int64 (seq,)"
                         f"{'' if position_dims == 1 else f' x {position_dims}'})") from None
    if not isinstance(result, (tuple, list)) or len(result) != 2 or \
            not all(isinstance(r, torch.Tensor) for r in result):
        raise UsageError(f"{name} must return (q_rot, k_rot), two tensors; got "
                         f"{type(result).__name__}")
    rows = []
    for role, tensor in zip(("q_rot", "k_rot"), result):
        if tensor.numel() != head_dim or tuple(tensor.shape)[-1] != head_dim:
            raise UsageError(f"{name} returned {role} of shape {tuple(tensor.shape)}; expected "
                             f"(1, 1, 1, {head_dim}) for inputs of that shape")
        rows.append([sp.sympify(v) for v in entries(tensor).reshape(-1)])
    q_rows, k_rows = rows
    _check_separate(name, q_rows, k_rows, set(xs), set(ys))
    info = {"source": name, "layout": layout(q_rows, k_rows, xs, ys),
            "casts": CASTS_NOTE}
    if frequencies is not None and schedule is not None:
        info["frequencies"] = frequency_errors(frequencies, schedule)

    def evaluator(rows_, symbols):
        def encode(x, p):
            values = p if isinstance(p, tuple) else (p,)
            mapping = dict(zip(symbols, list(x)))
            mapping.update(zip(ps, values))
            return sp.ImmutableMatrix([row.xreplace(mapping) for row in rows_])
        return encode

    return LiftedEncoding(name, head_dim, evaluator(q_rows, xs), evaluator(k_rows, ys),
                          position_dims, function, info)


def _check_signature(function, name) -> None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(object(), object(), object())
    except TypeError:
        raise UsageError(f"{name} must take (q, k, positions); its signature is "
                         f"{name}{signature}") from None


def _check_separate(name, q_rows, k_rows, xs, ys) -> None:
    for role, rows, other in (("q_rot", q_rows, ys), ("k_rot", k_rows, xs)):
        if any(row.free_symbols & other for row in rows):
            raise UsageError(f"{name}: {role} depends on the other input ({'k' if role == 'q_rot' else 'q'}); "
                             "a positional encoding transforms q and k separately")


def layout(q_rows, k_rows, xs, ys) -> dict:
    """Which content coordinates each output mixes: rotate_half / interleaved pairs, identity.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.lifting._lift import layout
    >>> x, y, p = sp.symbols("x0:4"), sp.symbols("y0:4"), sp.Symbol("p")
    >>> rows = lambda v: [v[0] * sp.cos(p) - v[1] * sp.sin(p), v[1] * sp.cos(p) + v[0] * sp.sin(p),
    ...                   v[2], v[3]]
    >>> layout(rows(x), rows(y), x, y)["text"]
    'interleaved pairs (2i, 2i+1) on 0..1; identity (pass-through) on 2, 3'
    """
    x_index = {s: i for i, s in enumerate(xs)}
    y_index = {s: i for i, s in enumerate(ys)}
    outputs_of: dict[frozenset, list[int]] = {}
    for out, (q_row, k_row) in enumerate(zip(q_rows, k_rows)):
        inputs = frozenset(x_index[s] for s in q_row.free_symbols & x_index.keys()) | \
            frozenset(y_index[s] for s in k_row.free_symbols & y_index.keys())
        outputs_of.setdefault(inputs, []).append(out)
    identity, in_pairs, out_pairs, other = [], [], [], []
    for inputs, outs in sorted(outputs_of.items(), key=lambda item: sorted(item[0])):
        if len(inputs) == 1 and outs == sorted(inputs) and q_rows[outs[0]] == xs[outs[0]] and \
                k_rows[outs[0]] == ys[outs[0]]:
            identity.append(outs[0])
        elif len(inputs) == 2 and len(outs) == 2:
            in_pairs.append(tuple(sorted(inputs)))
            out_pairs.append(tuple(outs))
        else:
            other.append(sorted(inputs))
    parts = []
    kind = _pairs_kind(in_pairs)
    if in_pairs:
        text = _pairs_text(kind, in_pairs)
        if sorted(in_pairs) != sorted(out_pairs):
            text = (f"input {text} rotated into output "
                    f"{_pairs_text(_pairs_kind(out_pairs), out_pairs)} (coordinates permuted)")
        parts.append(text)
    if identity:
        parts.append("identity (pass-through) on " + _ranges(sorted(identity)))
    if other:
        parts.append("other coupled coordinates " + ", ".join(map(str, other[:4])))
    return {"kind": kind, "pairs": [list(p) for p in in_pairs],
            "output_pairs": [list(p) for p in out_pairs], "identity": sorted(identity),
            "other": other, "text": "; ".join(parts)}


def _pairs_kind(pairs) -> str:
    if not pairs:
        return "none"
    offsets = {b - a for a, b in pairs}
    if offsets == {1} and all(a % 2 == pairs[0][0] % 2 for a, _ in pairs):
        return "interleaved"
    return "rotate_half" if len(offsets) == 1 else "pairs"


def _pairs_text(kind, pairs) -> str:
    pairs = sorted(pairs)
    if kind == "interleaved":
        return f"interleaved pairs (2i, 2i+1) on {pairs[0][0]}..{pairs[-1][1]}"
    if kind == "rotate_half":
        half = pairs[0][1] - pairs[0][0]
        return f"rotate_half pairs (i, i + {half}) for i = {pairs[0][0]}..{pairs[-1][0]}"
    return "pairs " + ", ".join(map(str, pairs[:6])) + (" ..." if len(pairs) > 6 else "")


def _ranges(indices: list[int]) -> str:
    if len(indices) > 4 and indices == list(range(indices[0], indices[-1] + 1)):
        return f"{indices[0]}..{indices[-1]}"
    return ", ".join(map(str, indices))


def frequency_errors(frequencies, schedule) -> dict:
    """Per plane: the module's frequencies (exact rationals of their bits) vs the exact schedule.

    Examples
    ========

    >>> import torch
    >>> from symrope.schedules import RopeConfig
    >>> from symrope.lifting._lift import frequency_errors
    >>> report = frequency_errors(torch.tensor([1.0, 0.1], dtype=torch.float32),
    ...                           RopeConfig.from_options(head_dim=4, theta=100))
    >>> report["planes"], report["max_plane"], report["max_relative_error"]
    (2, 1, '1.49e-08')
    """
    from symrope.lifting._symbolic import exact
    from symrope.schedules import inv_freq

    module = exact(frequencies).reshape(-1)
    reference = inv_freq(schedule, "sympy")
    if len(reference) != len(module):
        raise UsageError(f"the module holds {len(module)} frequencies, the schedule "
                         f"{len(reference)}")
    errors = []
    with mpmath.workdps(40):
        for got, want in zip(module, reference):
            want_value = sp.N(want, 40)
            errors.append(abs(sp.N(got, 40) - want_value) / abs(want_value))
    worst = max(range(len(errors)), key=lambda i: errors[i])
    return {"planes": len(errors), "max_relative_error": f"{float(errors[worst]):.3g}",
            "max_plane": worst, "relative_errors": [f"{float(e):.3g}" for e in errors],
            "schedule": schedule.describe(),
            "text": f"frequencies vs the exact schedule ({schedule.describe()}): max relative "
                    f"error {float(errors[worst]):.3g} (plane {worst}) over {len(errors)} "
                    "planes: the float32 rounding of inv_freq; the theorem is about these "
                    "rounded frequencies"}
