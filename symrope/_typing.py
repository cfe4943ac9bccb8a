"""Type aliases of the public API: what its functions accept, named once.

Imported by modules that already use SymPy (never by ``symrope/__init__.py``, which stays light).
The aliases that name numpy arrays are built on first use, so the engine (which needs only
``ClaimSide``) does not import numpy.
``typing.get_type_hints`` resolves every hint that uses them (``tests/test_type_hints.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Union

import sympy as sp

__all__ = ["ExactScalar", "MatrixLike", "VectorLike", "ClaimSide"]  # noqa: F822 (two are lazy)

#: a number or expression SymPy reads exactly: an angle, a frequency, a position, a parameter
ExactScalar = Union[sp.Expr, int, float, Fraction]
#: one side of a claim: an expression, a matrix (explicit, block or symbolic), a number, or
#: nested lists read as a matrix
ClaimSide = Union[sp.Basic, sp.MatrixBase, complex, Sequence[Any]]


def __getattr__(name: str) -> Any:
    if name not in ("MatrixLike", "VectorLike"):  # e.g. the import system asking for __path__
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import numpy as np

    aliases = {
        #: a matrix as SymPy (explicit or symbolic), a numpy array or nested sequences of reals
        "MatrixLike": Union[sp.MatrixBase, sp.MatrixExpr, np.ndarray, Sequence[Sequence[Any]]],
        #: a vector as a SymPy matrix, a numpy array or a sequence of exact reals
        "VectorLike": Union[sp.MatrixBase, np.ndarray, Sequence[Any]],
    }
    globals()[name] = aliases[name]
    return aliases[name]
