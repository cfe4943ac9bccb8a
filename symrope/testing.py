"""Mark functions in proof files so the pytest plugin runs them as proofs.

Kept free of SymPy so that collecting proof files stays light.

Examples
========

A proof file (``proofs/my_rope.py``)::

    from symrope.testing import proof
    from symrope.theorems import get_theorem

    @proof(d=[2, 4, 128], theta=[10000, 500000])
    def rope_is_relative(d, theta):
        return get_theorem("rope_relative").build(d=d, theta=theta)

``pytest proofs/my_rope.py`` then runs six proofs; each passes when its theorem is proved
(or, with ``expect="refuted"``, when a step is refuted with a counterexample).
"""

from __future__ import annotations

__all__ = ["proof"]


def proof(function=None, /, *, expect: str = "proved", budget: float | None = None, **grid):
    """Decorate a function returning a :class:`~symrope.engine.Theorem` as a proof item.

    Parameters
    ==========

    expect : "proved" or "refuted"
        The verdict the theorem must reach for the item to pass.
    budget : float, optional
        Seconds for the whole theorem (default: the ``--proof-budget`` option, 120 s).
    **grid : lists of literals
        One pytest item per point of the product of the lists. They must be literals
        (the plugin reads them without importing the file).
    """
    if expect not in ("proved", "refuted"):
        raise ValueError(f"expect must be 'proved' or 'refuted', not {expect!r}")

    def mark(target):
        target.__symrope_proof__ = {"expect": expect, "budget": budget, "grid": grid}
        return target

    return mark(function) if function is not None else mark
