"""``lift``: run real RoPE code on a whole sequence of symbolic tokens, as an ``Encoding``.

The code runs on ``tokens`` (default 3) tokens, each with its own content symbols and its own
position symbol: no ``arange``, so left padding, packed sequences and a decode step at a cache
offset are all special cases. What it returns is checked per token:

* if every token's ``q_rot`` and ``k_rot`` is the same function of that token's own content
  and position (literally, after renaming the symbols), the score of any token pair
  ``(i, j)`` is ``query(x, p_i)^T key(y, p_j)`` and the lift is an ordinary per-token
  :class:`~symrope.Encoding` (the checker's fast path);
* otherwise the code mixes tokens (``positions.flip(0)``, positions re-based to the first token,
  a gather by a shifted index, a schedule switched by ``max(positions)``): the encoding is a
  *sequence* encoding whose assumptions :func:`symrope.lifting.check_lifted` decides on the
  score of every pair of tokens (``_pairs.py``).

A Python branch on a symbolic value is taken both ways (``_trace.explore``): the outputs are a
``Piecewise`` over the branch conditions. Casts of positions to float types are recorded as
precision hazards with their ``file:line``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import mpmath
import sympy as sp

from symrope.errors import UsageError
from symrope.lifting._encoding import LiftedEncoding, TokenRows, relate_tokens
from symrope.schedules import RopeConfig

__all__ = ["lift", "LiftedEncoding", "TokenRows", "CASTS_NOTE", "frequency_errors", "layout",
           "TOKENS"]

TOKENS = 3  # the fewest that show a score depending on a third token (i, j and another)

CASTS_NOTE = ("casts between float types are identities in exact semantics (float32 inv_freq "
              "read as the exact rational of its bits): float rounding is invisible to this "
              "check by design; the hazards below say where it bites, and 'symrope audit' "
              "measures it")


def lift(function: Callable[..., Any], head_dim: int, position_dims: int = 1,
         name: str | None = None, frequencies: Any = None, schedule: RopeConfig | None = None,
         tokens: int = TOKENS) -> LiftedEncoding:
    """Run ``function(q, k, positions) -> (q_rot, k_rot)`` on symbolic inputs: an Encoding.

    Parameters
    ==========

    function : callable or torch.nn.Module
        Real torch code. ``q`` and ``k`` are float tensors shaped ``(1, 1, seq, head_dim)``,
        ``positions`` an int64 tensor shaped ``(seq,)`` (or ``(seq, position_dims)``); it
        returns the rotated ``q`` and ``k`` with the same shape.
    head_dim : int
    position_dims : int
        Number of position coordinates (2 for image patches, 3 for M-RoPE).
    name : str, optional
    frequencies : tensor, optional
        The module's frequency buffer (HF's ``inv_freq``), compared with ``schedule``.
    schedule : RopeConfig, optional
        The exact schedule the frequencies should follow (:mod:`symrope.schedules`).
    tokens : int
        Sequence length of the symbolic run (each token at its own symbolic position).

    Raises
    ======

    LiftUndecided
        The code calls an op symrope cannot run symbolically, reads a symbolic value as a
        Python number, or branches in too many ways (the message names the op or file:line).
    UsageError
        The function has the wrong signature, raises, returns the wrong shapes, or mixes the
        contents of q and k or of different tokens.

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
    from symrope.lifting._backends import tracer_for

    if isinstance(head_dim, bool) or not isinstance(head_dim, int) or head_dim < 1:
        raise UsageError(f"head_dim must be a positive integer, got {head_dim!r}")
    if isinstance(position_dims, bool) or not isinstance(position_dims, int) or position_dims < 1:
        raise UsageError(f"position_dims must be a positive integer, got {position_dims!r}")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise UsageError(f"tokens must be a positive integer, got {tokens!r}")
    if not callable(function):
        raise UsageError(f"lift needs a callable (q, k, positions) -> (q_rot, k_rot), got "
                         f"{type(function).__name__}")
    name = name or getattr(function, "__qualname__", None) or type(function).__name__
    _check_signature(function, name)
    tracer = tracer_for(function)
    x = [sp.symbols(f"_lift_x{t}_0:{head_dim}", real=True) for t in range(tokens)]
    y = [sp.symbols(f"_lift_y{t}_0:{head_dim}", real=True) for t in range(tokens)]
    p = [tuple(sp.symbols(f"_lift_p{t}_0:{position_dims}", real=True)) for t in range(tokens)]
    outputs, hazards, branches = tracer.run(function, name, x, y, p, position_dims)
    q_rows, k_rows = outputs
    _check_separate(name, q_rows, k_rows, x, y)
    rows = relate_tokens(q_rows, k_rows, x, y, p)
    info = {"source": name, "tokens": tokens,
            "layout": layout(q_rows[0], k_rows[0], x[0], y[0]),
            "casts": CASTS_NOTE, "hazards": list(hazards.values()),
            "branches": branches, "sequence": _sequence_text(rows, tokens)}
    if frequencies is not None and schedule is not None:
        info["frequencies"] = frequency_errors(frequencies, schedule)

    def evaluator(role_rows, symbols):
        def encode(vector, position):
            if not rows.per_token:
                raise UsageError(f"{name} mixes positions across tokens ({info['sequence']}): "
                                 "it has no per-token query(x, p); check it with "
                                 "symrope.check or symrope.lifting.check_lifted, which decide "
                                 "every pair of tokens")
            values = position if isinstance(position, tuple) else (position,)
            mapping = dict(zip(symbols, list(vector)))
            mapping.update(zip(p[0], values))
            return sp.ImmutableMatrix([row.xreplace(mapping) for row in role_rows])
        return encode

    # a tracer may replay counterexamples its own way (JAX: jax_enable_x64 for the call)
    encoding_class = getattr(tracer, "encoding_class", LiftedEncoding)
    encoding = encoding_class(name, head_dim, evaluator(q_rows[0], x[0]),
                              evaluator(k_rows[0], y[0]), position_dims, function, info, rows)
    encoding.schedule = schedule
    return encoding


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


def _check_separate(name, q_rows, k_rows, x, y) -> None:
    all_x = {s for symbols in x for s in symbols}
    all_y = {s for symbols in y for s in symbols}
    for role, rows, other in (("q_rot", q_rows, all_y), ("k_rot", k_rows, all_x)):
        if any(entry.free_symbols & other for row in rows for entry in row):
            raise UsageError(f"{name}: {role} depends on the other input "
                             f"({'k' if role == 'q_rot' else 'q'}); a positional encoding "
                             "transforms q and k separately")
    for role, rows, symbols in (("q_rot", q_rows, x), ("k_rot", k_rows, y)):
        for t, row in enumerate(rows):
            for other, own in enumerate(symbols):
                if other != t and any(entry.free_symbols & set(own) for entry in row):
                    raise UsageError(f"{name}: {role} of token {t} depends on the content of "
                                     f"token {other}; a positional encoding transforms each "
                                     "token's vector on its own")


def _sequence_text(rows: TokenRows, tokens: int) -> str:
    positions = set(rows.positions())
    if not any(entry.free_symbols & positions for role in (rows.q, rows.k) for row in role
               for entry in row):
        return ("no output depends on the positions: the code ignores the position ids it is "
                "given (no positional encoding, or positions it builds itself)")
    if rows.per_token:
        return (f"checked on {tokens} tokens at independent positions: every token's q_rot "
                "and k_rot is the same function of its own content and position, so every "
                "pair (i, j) scores query(x, p_i)^T key(y, p_j)")
    if rows.foreign:
        reads = "; ".join(f"token {t} reads the position of token"
                          f"{'s' if len(us) > 1 else ''} {', '.join(map(str, us))}"
                          for t, us in rows.foreign.items())
        return (f"the code mixes positions across tokens ({reads}): decided on the score of "
                f"every pair of the {tokens} tokens")
    return (f"the tokens are transformed by different functions of their positions (the "
            f"code depends on the token index): decided on the score of every pair of the "
            f"{tokens} tokens")


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

