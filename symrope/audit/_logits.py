"""What attention sees: logits of seeded q, k rotated by the implementation itself, per band.

For every band a seeded sample of key positions ``t`` (always including the band's last position)
is paired with query positions ``s = t - d`` for the distances ``d`` in ``DISTANCES`` and
``s = 0`` (the farthest pair). Seeded queries and keys -- standard normal entries, and the same
vectors scaled to unit length -- are rounded to the model dtype and rotated by the
implementation's own apply function (the real library's, for ``--impl`` of a real library; for a
table-only implementation, an exact float64 rotation by its table, rounded to the model dtype).
The logit ``q_s . k_t`` (summed in float64) is compared with the exact logit
``q^T R(t - s) k`` of the same rounded vectors, from the certified reference at ``t - s``:

* ``logit_error``: max ``|logit - exact|`` with standard normal q, k (the scale of attention
  logits before the ``1/sqrt(d)``), and ``logit_error_unit`` with unit q, k;
* ``shift_violation``: max ``|logit(s, t) - logit(s + u, t + u)|`` over a window of positions
  ``0..W-1`` moved by ``u`` to end at the band's last position (no exact value used).

Sampling: ``per_band`` keys per band; the table pass covers every position, this one is a probe of
what the table errors do to logits, not a bound over all pairs.
"""

from __future__ import annotations

import numpy as np

from symrope.audit._dtypes import round_to, rounded, widen
from symrope.audit._models import pair_channels

DISTANCES = (0, 1, 32, 1024)


def measure_logits(impl, config, schedule, dtype: str, bands, seed: int = 0, per_band: int = 8,
                   vectors: int = 4, window: int = 16) -> dict:
    """Per-band logit error and shift violation of ``impl`` (see the module docstring).

    Returns a dict with lists ``logit_error``, ``logit_error_unit``, ``shift_violation`` (one
    value per band, None where nothing was measured), the sampled ``positions`` and their
    ``position_error`` (for the plot), and a description of the method.
    """
    from symrope.errors import UsageError

    if config.rope_type != "proportional" and config.rotary_dim % 2:
        return _unmeasured(bands, f"rotary_dim {config.rotary_dim} is odd: its {config.pairs} pairs "
                                  f"span {2 * config.pairs} channels, and no apply function "
                                  f"(transformers' included) rotates {config.rotary_dim} with them")
    rng = np.random.default_rng(seed + 7919)
    head_dim, pairs = config.head_dim, config.pairs
    gaussian_q = rng.standard_normal((vectors, head_dim))
    gaussian_k = rng.standard_normal((vectors, head_dim))
    sets = []
    for scale in ("normal", "unit"):
        q, k = gaussian_q.copy(), gaussian_k.copy()
        if scale == "unit":
            q /= np.linalg.norm(q, axis=1, keepdims=True)
            k /= np.linalg.norm(k, axis=1, keepdims=True)
        sets.append((rounded(q, dtype), rounded(k, dtype)))
    heads = np.concatenate([part for pair in sets for part in pair])            # (4 * vectors, hd)

    if impl.rotate is not None:
        def rotate(positions):
            x = np.broadcast_to(heads, (positions.size, *heads.shape))
            return impl.rotate(np.ascontiguousarray(x), positions, dtype)
        method = "the implementation's own apply function"
    else:
        def rotate(positions):
            x = np.broadcast_to(heads, (positions.size, *heads.shape))
            return rotate_with_table(lambda p: impl.table(p, config, dtype), x, positions, dtype,
                                     impl.pairing)
        method = "an exact float64 rotation by the implementation's table, rounded to the dtype"

    # positions: per band, keys t and their queries s; plus the shift windows
    plan = []
    wanted = set(range(min(window, bands[-1][1] + 1)))
    for lo, hi in bands:
        keys = np.unique(np.concatenate([[hi], rng.integers(lo, hi + 1, per_band - 1)]))
        queries = [(int(t - d), int(t)) for t in keys for d in DISTANCES if t - d >= 0]
        queries += [(0, int(t)) for t in keys]
        plan.append(queries)
        for s, t in queries:
            wanted.update((s, t))
        if hi + 1 >= 2 * window:
            wanted.update(range(hi - window + 1, hi + 1))
    positions = np.array(sorted(wanted), dtype=np.int64)
    try:
        rotated = widen(rotate(positions))
    except UsageError as error:
        if getattr(impl, "user_supplied", True):
            raise                       # the user's own function failing is the user's to fix
        return _unmeasured(bands, f"the implementation's apply function fails here: {error}")
    row = {int(p): i for i, p in enumerate(positions)}
    count = vectors
    slices = [slice(0, count), slice(count, 2 * count), slice(2 * count, 3 * count), slice(3 * count, 4 * count)]

    first, second = pair_channels(pairs, impl.pairing)
    passive = np.setdiff1d(np.arange(head_dim), np.concatenate([first, second]))

    def exact_logits(q, k, distance):
        cos, sin, _ = schedule.reference.cos_sin(np.array([distance], dtype=np.int64))
        rotation = (cos[0] + 1j * sin[0]) * schedule.amplitude**2
        zq = q[:, first] + 1j * q[:, second]
        zk = k[:, first] + 1j * k[:, second]
        return (np.conj(zq) * zk * rotation).sum(axis=1).real + (q[:, passive] * k[:, passive]).sum(axis=1)

    def logits(s, t, which):
        q_part, k_part = slices[2 * which], slices[2 * which + 1]
        return (rotated[row[s], q_part] * rotated[row[t], k_part]).sum(axis=1)

    errors = {"logit_error": [], "logit_error_unit": [], "shift_violation": []}
    fine_positions, fine_errors = [], []
    with np.errstate(invalid="ignore", over="ignore"):
        for (_lo, hi), queries in zip(bands, plan):
            worst = [0.0, 0.0]
            for s, t in queries:
                for which, (q, k) in enumerate(sets):
                    error = np.abs(logits(s, t, which) - exact_logits(q, k, t - s)).max()
                    error = np.inf if not np.isfinite(error) else float(error)
                    worst[which] = max(worst[which], error)
                    if which == 0:
                        fine_positions.append(t)
                        fine_errors.append(error)
            errors["logit_error"].append(worst[0])
            errors["logit_error_unit"].append(worst[1])
            if hi + 1 >= 2 * window:
                u = hi - window + 1
                violation = 0.0
                for s in range(window):
                    for t in range(s, window):
                        moved = np.abs(logits(s + u, t + u, 0) - logits(s, t, 0)).max()
                        violation = max(violation, float(moved) if np.isfinite(moved) else np.inf)
                errors["shift_violation"].append(violation)
            else:
                errors["shift_violation"].append(None)
    order = np.argsort(fine_positions, kind="stable")
    return {**errors,
            "positions": [int(fine_positions[i]) for i in order],
            "position_error": [fine_errors[i] for i in order],
            "method": {"rotation": method, "keys_per_band": per_band, "distances": list(DISTANCES),
                       "farthest_pair": "s = 0", "vectors": vectors, "seed": seed,
                       "q_k": "standard normal entries (and scaled to unit length), rounded to the dtype",
                       "shift_window": window}}


def _unmeasured(bands, reason: str) -> dict:
    """No logits: every band's values None, and why (the report says it instead of a number)."""
    nothing = [None] * len(bands)
    return {"logit_error": nothing, "logit_error_unit": list(nothing),
            "shift_violation": list(nothing), "positions": [], "position_error": [],
            "method": {"not_measured": reason}}


def rotate_with_table(table_fn, x: np.ndarray, positions, dtype: str, pairing: str = "rotate_half"):
    """Rotate ``x`` (n, vectors, head_dim) with a table ``(cos, sin)`` in float64, then round to dtype.

    The stand-in for an apply function where an implementation only gives a table (the built-in
    models): the rotation itself is exact, so the logits measure the table's error alone.
    """
    cos, sin = (widen(part) for part in table_fn(positions))
    first, second = pair_channels(cos.shape[1], pairing)
    narrow = rounded(np.asarray(x, dtype=np.float64), dtype)
    out = narrow.copy()
    a, b = narrow[..., first], narrow[..., second]
    out[..., first] = a * cos[:, None, :] - b * sin[:, None, :]
    out[..., second] = b * cos[:, None, :] + a * sin[:, None, :]
    return round_to(out, dtype)
