"""The rotated outputs themselves: how many of q's values a knob changes, and by how much.

A field report usually reads "72 of 128 outputs wrong at position 4095, max |diff| 0.83": the
query *after* RoPE (head dim 128) from the code as it runs, next to the same code with a float32
phase, both in the model dtype. :func:`output_mismatch` measures exactly that, with the real
apply function on both sides (for ``--impl hf-transformers``: the modeling module's
``apply_rotary_pos_emb`` with the forward's cos/sin, the knobbed module against the same module
without the knobs). Outputs are compared bit for bit, as ``np.testing.assert_array_equal`` does:
in bf16 any difference is at least one bf16 step.

How many outputs differ is structural: a pair's two outputs change when its frequency error
times the position moves the phase by more than the dtype resolves (for a bf16 ``inv_freq`` at
position 4095 with theta 1e6: the ~35 highest-frequency pairs whose bf16 rounding is not exact,
about 70 of 128 outputs, whatever the inputs). How large the difference is depends on the
inputs: at most ``2 |sin(phi / 2)|`` times the norm of the pair's two input values.
"""

from __future__ import annotations

import numpy as np

from symrope.audit._dtypes import rounded, widen

__all__ = ["output_mismatch", "seeded_vectors"]


def seeded_vectors(count: int, head_dim: int, dtype: str, seed: int = 0) -> np.ndarray:
    """``count`` standard normal vectors of ``head_dim`` (float32 draws), rounded to ``dtype``.

    Examples
    ========
    >>> seeded_vectors(2, 4, "bf16", seed=1).shape
    (2, 4)
    """
    rng = np.random.default_rng(seed)
    return rounded(rng.standard_normal((count, head_dim), dtype=np.float32), dtype)


def output_mismatch(rotate, reference_rotate, positions, vectors: np.ndarray, dtype: str) -> dict:
    """Rotate ``vectors`` at every position with ``rotate`` and ``reference_rotate``; compare.

    Parameters
    ==========
    rotate, reference_rotate : callable
        ``rotate(x, positions, dtype)`` of two implementations (the real apply functions), with
        ``x`` of shape (n, vectors, head_dim); each returns the rotated x in ``dtype``.
    positions : sequence of int
        Where to compare.
    vectors : ndarray, shape (vectors, head_dim)
        The inputs (already in ``dtype``'s values; see :func:`seeded_vectors`).
    dtype : str
        The model dtype both rotate in.

    Returns
    =======
    dict
        Per position: ``mismatched`` (the most outputs of one vector that differ, of
        ``outputs_per_vector``) and ``max_abs_diff`` (over every vector), plus the settings.

    Examples
    ========
    >>> import numpy as np
    >>> from symrope.audit._logits import rotate_with_table
    >>> from symrope.audit._models import get_model
    >>> from symrope.schedules import RopeConfig
    >>> config = RopeConfig.from_options(head_dim=8, theta=10000)
    >>> def by(model):
    ...     return lambda x, p, d: rotate_with_table(
    ...         lambda q: get_model(model).table(q, config, d), x, p, d)
    >>> found = output_mismatch(by("hf"), by("fp64-angle"), [0, 1],
    ...                         seeded_vectors(1, 8, "fp32"), "fp32")
    >>> found["mismatched"][0], found["max_abs_diff"][0]     # position 0 rotates by nothing
    (0, 0.0)
    """
    positions = np.asarray(positions, dtype=np.int64)
    x = np.repeat(np.asarray(vectors, dtype=np.float64)[None], positions.size, axis=0)
    ours = widen(rotate(x, positions, dtype))
    theirs = widen(reference_rotate(x.copy(), positions, dtype))
    differ = ours != theirs
    with np.errstate(invalid="ignore"):
        difference = np.abs(ours - theirs)
    return {"positions": [int(p) for p in positions],
            "mismatched": [int(v) for v in differ.sum(axis=2).max(axis=1)],
            "max_abs_diff": [float(v) for v in difference.max(axis=(1, 2))],
            "outputs_per_vector": int(vectors.shape[1]), "vectors": int(vectors.shape[0])}

