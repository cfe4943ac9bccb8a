"""``Encoding``: a user's positional encoding, as two SymPy functions of content and position."""

from __future__ import annotations

from typing import Callable

import sympy as sp

from symrope.engine import BudgetExhausted
from symrope.errors import UsageError

__all__ = ["Encoding"]


class Encoding:
    """A positional encoding: how a query and a key vector are transformed at a position.

    Parameters
    ==========

    name : str
        Shown in reports and error messages.
    dim : int
        Length of the content vectors (and of the encoded vectors).
    query, key : callables
        ``query(x, p)`` and ``key(x, p)`` take a SymPy column vector ``x`` (``dim x 1``) and a
        position (a real SymPy symbol, or a tuple of ``position_dims`` symbols) and return the
        encoded vector (a SymPy ``dim x 1`` matrix, or a sequence of ``dim`` expressions).
        Nothing requires them to be linear.
    position_dims : int
        Number of position coordinates (2 for image patches, say).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.checker import Encoding
    >>> def rotate(x, p):
    ...     c, s = sp.cos(p), sp.sin(p)
    ...     return sp.Matrix([c*x[0] - s*x[1], s*x[0] + c*x[1]])
    >>> enc = Encoding("my_rope", 2, rotate, rotate)
    >>> enc
    Encoding('my_rope', dim=2, position_dims=1)
    >>> Encoding("bad", 2, rotate, "not a function")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: encoding 'bad': key must be a callable key(x, p), got str
    """

    def __init__(self, name: str, dim: int, query: Callable, key: Callable,
                 position_dims: int = 1) -> None:
        if not isinstance(name, str) or not name:
            raise UsageError(f"an encoding needs a non-empty name, got {name!r}")
        self.name = name
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise UsageError(f"encoding {name!r}: dim must be a positive integer, got {dim!r}")
        if isinstance(position_dims, bool) or not isinstance(position_dims, int) or \
                position_dims < 1:
            raise UsageError(f"encoding {name!r}: position_dims must be a positive integer, "
                             f"got {position_dims!r}")
        for role, function in (("query", query), ("key", key)):
            if not callable(function):
                raise UsageError(f"encoding {name!r}: {role} must be a callable {role}(x, p), "
                                 f"got {type(function).__name__}")
        self.dim = dim
        self.position_dims = position_dims
        self.query = query
        self.key = key
        self.matrices: tuple | None = None  # (F, G) when built from matrices

    def __repr__(self) -> str:
        return f"Encoding({self.name!r}, dim={self.dim}, position_dims={self.position_dims})"

    @classmethod
    def from_matrices(cls, name: str, F: Callable, G: Callable, position_dims: int = 1) -> "Encoding":
        """A linear encoding ``query(x, p) = F(p) x``, ``key(x, p) = G(p) x``.

        ``F`` and ``G`` map a position (a symbol, or a tuple of ``position_dims`` symbols) to a
        square SymPy matrix; both must have the same size.

        Examples
        ========

        >>> import sympy as sp
        >>> from symrope.checker import Encoding
        >>> shear = Encoding.from_matrices("shear", lambda p: sp.Matrix([[1, 0], [-p, 1]]),
        ...                                lambda p: sp.Matrix([[1, p], [0, 1]]))
        >>> shear.dim
        2
        >>> Encoding.from_matrices("oops", lambda p: sp.Matrix([[1, p]]), lambda p: sp.eye(2))
        Traceback (most recent call last):
        ...
        symrope.errors.UsageError: encoding 'oops': F(p) must be a square matrix, got shape 1x2
        """
        for role, function in (("F", F), ("G", G)):
            if not callable(function):
                raise UsageError(f"encoding {name!r}: {role} must be a callable {role}(p) "
                                 f"returning a square matrix, got {type(function).__name__}")
        probe = _position_symbols("p", position_dims)
        shapes = {}
        for role, function in (("F", F), ("G", G)):
            value = _call(name, f"{role}(p)", function, probe)
            matrix = _as_matrix(name, f"{role}(p)", value)
            if matrix.shape[0] != matrix.shape[1]:
                raise UsageError(f"encoding {name!r}: {role}(p) must be a square matrix, got "
                                 f"shape {matrix.shape[0]}x{matrix.shape[1]}")
            shapes[role] = matrix.shape[0]
        if shapes["F"] != shapes["G"]:
            raise UsageError(f"encoding {name!r}: F(p) is {shapes['F']}x{shapes['F']} but G(p) is "
                             f"{shapes['G']}x{shapes['G']}; they must have the same size")
        dim = shapes["F"]
        encoding = cls(name, dim, lambda x, p: _as_matrix(name, "F(p)", F(p)) * x,
                       lambda x, p: _as_matrix(name, "G(p)", G(p)) * x, position_dims)
        encoding.matrices = (F, G)
        return encoding

    def encode(self, role: str, x: sp.MatrixBase,
               position: sp.Expr | tuple[sp.Expr, ...]) -> sp.ImmutableMatrix:
        """``query(x, position)`` or ``key(x, position)`` as a checked ``dim x 1`` SymPy matrix."""
        function = self.query if role == "query" else self.key
        value = _call(self.name, f"{role}(x, p)", function, x, position)
        vector = _as_matrix(self.name, f"{role}(x, p)", value, column=True)
        if vector.shape != (self.dim, 1):
            raise UsageError(f"encoding {self.name!r}: {role}(x, p) returned a vector of shape "
                             f"{vector.shape[0]}x{vector.shape[1]}, expected {self.dim}x1 "
                             f"(dim={self.dim})")
        return vector

    def positions(self, stem: str) -> sp.Symbol | tuple[sp.Symbol, ...]:
        """Position symbols named after ``stem``: one real symbol, or a tuple for N-d positions."""
        return _position_symbols(stem, self.position_dims)


def _position_symbols(stem: str, count: int):
    if count == 1:
        return sp.Symbol(stem, real=True)
    return tuple(sp.Symbol(f"{stem}{k}", real=True) for k in range(count))


def _call(name, what, function, *args):
    try:
        return function(*args)
    except (UsageError, BudgetExhausted):
        raise
    except Exception as error:  # the user's code: any failure is bad input, named
        hint = ""
        if isinstance(error, TypeError) and "unpack" in str(error) and \
                isinstance(args[-1], sp.Basic):
            hint = ("; it unpacks the position, which is one symbol unless the encoding says "
                    "otherwise: pass position_dims=2 (or n) to Encoding for n-d positions")
        raise UsageError(f"encoding {name!r}: {what} raised {type(error).__name__}: "
                         f"{' '.join(str(error).split()) or 'no message'}{hint}") from None


def _as_matrix(name, what, value, column: bool = False) -> sp.ImmutableMatrix:
    if isinstance(value, sp.MatrixBase):
        matrix = sp.ImmutableMatrix(value)
    elif isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        try:
            matrix = sp.ImmutableMatrix(value)
        except (TypeError, ValueError, sp.SympifyError) as error:
            raise UsageError(f"encoding {name!r}: {what} returned a sequence SymPy cannot read "
                             f"as a matrix ({error})") from None
    else:
        raise UsageError(f"encoding {name!r}: {what} must return a SymPy matrix, got "
                         f"{type(value).__name__}")
    if column and matrix.shape[0] == 1 and matrix.shape[1] > 1:
        raise UsageError(f"encoding {name!r}: {what} returned a row vector (1x{matrix.shape[1]}); "
                         "return a column vector")
    return matrix
