"""``lift``: run real torch RoPE code on symbolic vectors and positions, as an ``Encoding``.

The code is executed once, on content vectors of fresh real symbols and a symbolic position,
through :class:`~symrope.lift._symbolic.SymbolicTensor`. Its outputs are exact SymPy
expressions; ``query(x, p)`` and ``key(y, p)`` substitute the checker's vectors and positions
into them (exact, because no branch on a symbolic value was taken: that stops the lift).
"""

from __future__ import annotations

import inspect
from typing import Callable

import mpmath
import numpy as np
import sympy as sp

from symrope.checker._encoding import Encoding
from symrope.errors import InternalError, UsageError
from symrope.lift._errors import LiftUndecided

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

    def __init__(self, name, dim, query, key, position_dims, function, lift_info):
        super().__init__(name, dim, query, key, position_dims)
        self.function = function
        self.lift_info = lift_info

    def replay(self, role: str, index: int, position) -> np.ndarray:
        """``role``'s output for the basis vector ``e_index`` at ``position``, in float64 torch."""
        import torch

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


def lift(function: Callable, head_dim: int, position_dims: int = 1, name: str | None = None,
         frequencies=None, schedule=None) -> LiftedEncoding:
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
    >>> from symrope.lift import lift
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
    import torch

    from symrope.lift._symbolic import entries, symbolic

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
    >>> from symrope.lift._lift import layout
    >>> x, y, p = sp.symbols("x0:4"), sp.symbols("y0:4"), sp.Symbol("p")
    >>> rows = lambda v: [v[0] * sp.cos(p) - v[1] * sp.sin(p), v[1] * sp.cos(p) + v[0] * sp.sin(p),
    ...                   v[2], v[3]]
    >>> layout(rows(x), rows(y), x, y)["text"]
    'interleaved pairs (2i, 2i+1) on 0..1; identity (pass-through) on 2, 3'
    """
    index = {s: i for i, s in enumerate(xs)} | {s: i for i, s in enumerate(ys)}
    parent = list(range(len(xs)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for rows in (q_rows, k_rows):
        for out, row in enumerate(rows):
            for symbol in row.free_symbols & index.keys():
                parent[find(index[symbol])] = find(out)
    groups: dict[int, list[int]] = {}
    for i in range(len(xs)):
        groups.setdefault(find(i), []).append(i)
    groups_list = sorted(groups.values())
    identity = [g[0] for g in groups_list if len(g) == 1 and q_rows[g[0]] == xs[g[0]]
                and k_rows[g[0]] == ys[g[0]]]
    pairs = [tuple(g) for g in groups_list if len(g) == 2]
    other = [g for g in groups_list if len(g) > 2 or (len(g) == 1 and g[0] not in identity)]
    parts = []
    if pairs:
        offsets = {b - a for a, b in pairs}
        if offsets == {1} and all(a % 2 == pairs[0][0] % 2 for a, _ in pairs):
            kind = "interleaved"
            parts.append(f"interleaved pairs (2i, 2i+1) on {pairs[0][0]}..{pairs[-1][1]}")
        elif len(offsets) == 1:
            half = offsets.pop()
            kind = "rotate_half"
            parts.append(f"rotate_half pairs (i, i + {half}) for i = {pairs[0][0]}.."
                         f"{pairs[-1][0]}")
        else:
            kind = "pairs"
            parts.append("pairs " + ", ".join(map(str, pairs[:6])) + (" ..." if len(pairs) > 6
                                                                       else ""))
    else:
        kind = "none"
    if identity:
        parts.append("identity (pass-through) on " + _ranges(identity))
    if other:
        parts.append("other coupled coordinates " + ", ".join(map(str, other[:4])))
    return {"kind": kind, "pairs": [list(p) for p in pairs], "identity": identity,
            "other": other, "text": "; ".join(parts)}


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
    >>> from symrope.lift._lift import frequency_errors
    >>> report = frequency_errors(torch.tensor([1.0, 0.1], dtype=torch.float32),
    ...                           RopeConfig.from_options(head_dim=4, theta=100))
    >>> report["planes"], report["max_plane"], report["max_relative_error"]
    (2, 1, '1.49e-9')
    """
    from symrope.lift._symbolic import exact
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
