"""``symrope diff --audit``: the two real implementations' float outputs, side by side per band.

The exact verdict says whether A and B are the same encoding; this says what their float code
does with it at long context. Both functions run as they are, in float32, on the same seeded
query and key (B's content in the verdict's basis, so a pairing change is not counted) at every
position ``0..max_position``; per position band (the audit's doubling bands) it reports the
largest ``|score_A - score_B|`` of ``q_rot(p) . k_rot(0)`` and the first position where it
exceeds the tolerance (the audit's, ``2^-8``), and beside it each side's own precision audit
against the exact schedule (``symrope.lifting._audit.audit_summary``: safe context, worst band).
"""

from __future__ import annotations

import numpy as np

__all__ = ["side_by_side"]

_CHUNK = 8192
_HEADS = 4


def _scores(encoding, q, k, start: int, stop: int) -> np.ndarray:
    """``q_rot(p) . k_rot(0)`` for p in ``start..stop-1`` (one row per head)."""
    count = stop - start
    positions = np.arange(start, stop, dtype=np.int64)
    queries = np.repeat(q[:, None, :], count, axis=1)[None].astype(np.float32)
    keys = k[None, :, None, :].astype(np.float32)
    call = _on_numpy(encoding.function)
    out = []
    for head in range(q.shape[0]):
        q_rot, _ = call(queries[:, head:head + 1], queries[:, head:head + 1], positions)
        _, k_rot = call(keys[:, head:head + 1], keys[:, head:head + 1], np.zeros(1, np.int64))
        out.append(q_rot.reshape(count, -1) @ k_rot.reshape(-1))
    return np.stack(out)


def _is_jax(function) -> bool:
    return getattr(function, "__symrope_framework__", None) == "jax"


def _on_numpy(function):
    """``function`` called on numpy arrays, its outputs float64 numpy: a JAX function takes the
    arrays as they are (int32 positions, JAX's default integer), a torch one as tensors."""
    if _is_jax(function):
        def on_arrays(q, k, positions):
            return tuple(np.asarray(t, dtype=np.float64)
                         for t in function(q, k, positions.astype(np.int32)))
        return on_arrays
    import torch

    def on_tensors(q, k, positions):
        with torch.no_grad():
            rotated = function(torch.from_numpy(q), torch.from_numpy(k),
                               torch.from_numpy(positions))
        return tuple(t.detach().to(torch.float64).numpy() for t in rotated)
    return on_tensors


class _TorchCalled:
    """The encoding as the audit's user callable sees it: arrays become torch tensors first
    (a lifted torch function calls torch on its inputs; the audit may hand it numpy); a JAX
    function takes the audit's numpy arrays as they are."""

    def __init__(self, encoding):
        self.name = encoding.name
        self.dim = encoding.dim
        self.schedule = getattr(encoding, "schedule", None)
        function = encoding.function
        if _is_jax(function):
            self.function = function
            return

        def on_tensors(q, k, positions):
            import torch

            return function(torch.as_tensor(q), torch.as_tensor(k), torch.as_tensor(positions))

        self.function = on_tensors


def side_by_side(enc_a, enc_b, basis: dict | None, max_position: int = 65535,
                 tolerance: float | None = None, seed: int = 0) -> dict:
    """Per band: max ``|score_A - score_B|``, the first position beyond ``tolerance``, and each
    side's own audit summary. Sides without code (saved lifts) are skipped with the reason."""
    from symrope.audit import DEFAULT_TOLERANCE, log_bands
    from symrope.lifting import audit_summary

    tolerance = DEFAULT_TOLERANCE if tolerance is None else tolerance
    missing = [letter for letter, e in (("A", enc_a), ("B", enc_b))
               if getattr(e, "function", None) is None]
    if missing:
        reason = f"{' and '.join(missing)} {'is a' if len(missing) == 1 else 'are'} saved " \
                 "lift(s): the code is not here to run"
        return {"skipped": reason, "table": f"audit skipped: {reason}"}
    dim = enc_a.dim
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((_HEADS, dim)) / np.sqrt(dim)
    k = rng.standard_normal((_HEADS, dim)) / np.sqrt(dim)
    q_b, k_b = q.copy(), k.copy()
    if basis is not None:
        q_b, k_b = np.zeros_like(q), np.zeros_like(k)
        for a, b, sign in basis["content"]:
            q_b[:, b] = sign * q[:, a]
            k_b[:, b] = sign * k[:, a]
    bands = log_bands(max_position)
    rows, first = [], None
    for low, high in bands:
        worst = 0.0
        for start in range(low, high + 1, _CHUNK):
            stop = min(high + 1, start + _CHUNK)
            gap = np.abs(_scores(enc_a, q, k, start, stop) - _scores(enc_b, q_b, k_b, start,
                                                                     stop)).max(axis=0)
            worst = max(worst, float(gap.max()))
            if first is None and (gap > tolerance).any():
                first = start + int(np.argmax(gap > tolerance))
        rows.append({"lo": low, "hi": high, "max_score_difference": worst})
    own = {letter: audit_summary(_TorchCalled(e), None, max_position=max_position)
           for letter, e in (("A", enc_a), ("B", enc_b))}
    lines = [f"audit side by side (float32 code, {_HEADS} seeded heads, q_rot(p) . k_rot(0), "
             f"positions 0..{max_position}, tolerance {tolerance:.3g}):",
             f"  {'band':>17}  {'max |score A - score B|':>24}"]
    lines += [f"  {row['lo']:>8}..{row['hi']:<8}  {row['max_score_difference']:>24.3g}"
              for row in rows]
    lines.append("  first position beyond the tolerance: " +
                 (str(first) if first is not None else f"none up to {max_position}"))
    lines += [f"  A's own audit: {own['A']['text']}", f"  B's own audit: {own['B']['text']}"]
    return {"max_position": max_position, "tolerance": tolerance, "bands": rows,
            "first_difference": first, "a": own["A"], "b": own["B"], "table": "\n".join(lines)}
