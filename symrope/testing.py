"""Testing helpers: proof items for the pytest plugin, and assertions for a model's own tests.

* :func:`proof` marks functions in proof files so the pytest plugin runs them as proofs.
* :func:`assert_relative` (the lifted code makes attention relative, or the refuted assumption
  with its counterexample) and :func:`assert_precise` (the float RoPE stays within a tolerance
  up to a context, or the first failing position band), in the manner of ``numpy.testing``;
  they live in :mod:`symrope.lifting._assertions` and are re-exported here lazily.

Kept free of SymPy at import so that collecting proof files stays light.

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

from typing import TYPE_CHECKING

__all__ = ["proof", "assert_relative", "assert_precise"]

if TYPE_CHECKING:  # pragma: no cover - resolved lazily below (PEP 562)
    from symrope.lifting import assert_precise, assert_relative

_LAZY = {"assert_relative": "symrope.lifting", "assert_precise": "symrope.lifting"}


def __getattr__(name: str):
    """The assertions on first use (they import SymPy, and torch when they lift)."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'symrope.testing' has no attribute {name!r}")


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
