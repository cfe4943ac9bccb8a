"""Exact block decomposition of a real skew-symmetric matrix (SymPy).

For a real skew-symmetric ``X`` there is an orthogonal ``Q`` with ``Q^T X Q = B``, where ``B``
is block diagonal with ``2x2`` blocks ``omega_i J`` (``J = [[0, -1], [1, 0]]``,
``omega_1 >= omega_2 >= ... > 0``) followed by zeros. This module constructs ``Q`` exactly:

* :func:`skew_blocks_exact` for matrices with numeric (rational or radical) entries, from the
  eigenspaces of the symmetric matrix ``X^T X = -X^2``;
* :func:`axis_skew_blocks` for the cross-product matrix of a symbolic axis ``(a, b, c)``, in
  closed form.

The construction is only half of the story: the theorems in
:mod:`symrope.theorems._skew_blocks` hand ``Q^T Q = I`` and ``Q^T X Q = B`` to the proof engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from symrope._typing import ExactScalar, MatrixLike, VectorLike
from symrope.errors import UsageError
from symrope.linalg._rotations import J, rotation

__all__ = ["block_matrix", "SkewBlocks", "require_skew", "skew_blocks_exact",
           "cross_product_matrix", "axis_skew_blocks", "block_exponential", "householder",
           "conjugated_skew"]



def block_matrix(omegas: Sequence[ExactScalar], n: int) -> sp.ImmutableMatrix:
    """``diag(omega_1 J, ..., omega_k J, 0, ..., 0)`` of size ``n``."""
    if 2 * len(omegas) > n:
        raise UsageError(f"{len(omegas)} rotation planes do not fit in dimension {n}")
    blocks = [omega * J for omega in omegas] + [sp.zeros(1, 1)] * (n - 2 * len(omegas))
    return sp.ImmutableMatrix(sp.diag(*blocks)) if blocks else sp.ImmutableMatrix(0, 0, [])


def block_exponential(omegas: Sequence[ExactScalar], n: int,
                      p: ExactScalar) -> sp.ImmutableMatrix:
    """``e^{pB} = diag(R(p omega_1), ..., R(p omega_k), 1, ..., 1)``."""
    blocks = [rotation(p * omega) for omega in omegas] + [sp.ones(1, 1)] * (n - 2 * len(omegas))
    return sp.ImmutableMatrix(sp.diag(*blocks))


@dataclass(frozen=True)
class SkewBlocks:
    """An exact block decomposition ``Q^T X Q = B`` (``Q`` orthogonal, not yet proved).

    Attributes
    ==========

    X : ImmutableMatrix
        The skew-symmetric input.
    Q : ImmutableMatrix
        Columns ``v_1, w_1, v_2, w_2, ..., z_1, ...``: one orthonormal pair per rotation plane
        (``X v = omega w``, ``X w = -omega v``), then an orthonormal basis of the kernel of ``X``.
    omegas : tuple
        The frequencies ``omega_i > 0``, largest first, repeated for repeated planes.
    """

    X: sp.ImmutableMatrix
    Q: sp.ImmutableMatrix
    omegas: tuple

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def B(self) -> sp.ImmutableMatrix:
        """The block matrix ``diag(omega_i J, 0, ...)``."""
        return block_matrix(self.omegas, self.n)

    def exponential(self, p: ExactScalar) -> sp.ImmutableMatrix:
        """``Q diag(R(p omega_i), 1, ...) Q^T``, which the theorem identifies with ``e^{pX}``."""
        return sp.ImmutableMatrix(self.Q * block_exponential(self.omegas, self.n, p) * self.Q.T)


def require_skew(X: MatrixLike, name: str = "X") -> sp.ImmutableMatrix:
    """``X`` as a SymPy matrix, or a :class:`~symrope.errors.UsageError` if it is not skew.

    Examples
    ========

    >>> from symrope.linalg import require_skew
    >>> require_skew([[0, 2], [-2, 0]])
    Matrix([
    [ 0, 2],
    [-2, 0]])
    >>> require_skew([[0, 2], [3, 0]])
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: X is not skew-symmetric: X[0, 1] + X[1, 0] = 5, not 0 (X^T must equal -X)
    """
    try:
        matrix = sp.ImmutableMatrix(X)
    except (TypeError, ValueError, sp.SympifyError) as error:
        raise UsageError(f"{name} is not a matrix: {error}") from None
    rows, cols = matrix.shape
    if rows != cols:
        raise UsageError(f"{name} must be square to be skew-symmetric, got shape {rows}x{cols}")
    for i in range(rows):
        for j in range(i, cols):
            total = sp.expand(matrix[i, j] + matrix[j, i])
            if total != 0:
                raise UsageError(f"{name} is not skew-symmetric: {name}[{i}, {j}] + {name}[{j}, {i}]"
                                 f" = {sp.sstr(total)}, not 0 ({name}^T must equal -{name})")
    return matrix


def _orthonormalise(vectors, against=()):
    """Gram-Schmidt, exactly: unit vectors spanning ``vectors`` and orthogonal to ``against``."""
    basis = list(against)
    found = []
    for vector in vectors:
        v = sp.Matrix(vector)
        for u in basis:
            v = v - u.dot(v) * u
        v = v.applyfunc(sp.radsimp)
        norm_squared = sp.radsimp(sp.expand(v.dot(v)))
        if norm_squared == 0:
            continue
        v = (v / sp.sqrt(norm_squared)).applyfunc(sp.radsimp)
        basis.append(v)
        found.append(v)
    return found


def skew_blocks_exact(X: MatrixLike) -> SkewBlocks:
    """Construct ``Q`` and the ``omega_i`` of a skew matrix with numeric entries, exactly.

    The ``omega_i^2`` are the nonzero eigenvalues of the positive semidefinite ``X^T X``. In
    each of its eigenspaces (which ``X`` maps into itself) take a unit ``v`` orthogonal to the
    planes already chosen and pair it with ``w = X v / omega``: then ``|w| = 1``, ``v . w = 0``,
    ``X v = omega w`` and ``X w = -omega v``, so ``(v, w)`` is a plane with block ``omega J``.
    Repeated ``omega`` (an eigenspace of dimension ``2m``) gives ``m`` planes; the kernel of
    ``X`` gets an orthonormal basis of its own.

    Parameters
    ==========

    X : square matrix with rational or radical entries, ``X^T = -X``

    Returns
    =======

    SkewBlocks

    Raises
    ======

    UsageError
        If ``X`` is not square and skew-symmetric, has free symbols (use the closed forms such
        as :func:`axis_skew_blocks`), or ``X^T X`` has eigenvalues SymPy cannot write in radicals.

    Examples
    ========

    >>> from sympy import eye
    >>> from symrope.linalg import skew_blocks_exact
    >>> blocks = skew_blocks_exact([[0, -3, 0], [3, 0, 4], [0, -4, 0]])
    >>> blocks.omegas
    (5,)
    >>> blocks.Q.T * blocks.Q == eye(3)
    True
    >>> (blocks.Q.T * blocks.X * blocks.Q - blocks.B).is_zero_matrix
    True
    """
    X = require_skew(X)
    if X.free_symbols:
        raise UsageError("skew_blocks_exact needs numeric entries; X has the symbols "
                         f"{', '.join(sorted(map(str, X.free_symbols)))} (use axis_skew_blocks "
                         "for the cross-product matrix, or state the parametric case by hand)")
    n = X.shape[0]
    gram = sp.Matrix(X.T * X)
    eigen = gram.eigenvects()
    if any(value.has(sp.CRootOf) for value, _, _ in eigen):
        raise UsageError("the eigenvalues of X^T X are not expressible in radicals; use "
                         "symrope.linalg.certified_skew_blocks for a certified numeric decomposition")
    columns, omegas = [], []
    for value, multiplicity, vectors in sorted(eigen, key=lambda e: -sp.N(e[0], 30)):
        if value == 0:
            continue
        omega = sp.sqrt(value)
        planes: list = []
        for v in _orthonormalise(vectors):
            (v,) = _orthonormalise([v], planes) or (None,)
            if v is None:
                continue
            w = (X * v / omega).applyfunc(sp.radsimp)
            planes += [v, w]
            columns += [v, w]
            omegas.append(omega)
        if len(planes) != multiplicity:
            raise UsageError(f"X^T X has eigenvalue {value} of multiplicity {multiplicity} but "
                             f"{len(planes)} planes were found: X is not real skew-symmetric")
    columns += _orthonormalise(X.nullspace())
    if len(columns) != n:
        raise UsageError(f"found {len(columns)} orthonormal columns for a {n}x{n} X")
    return SkewBlocks(X, sp.ImmutableMatrix(sp.Matrix.hstack(*columns)), tuple(omegas))


def householder(vector: VectorLike) -> sp.ImmutableMatrix:
    """The reflection ``I - 2 v v^T / (v^T v)``: orthogonal, and rational when ``v`` is."""
    v = sp.Matrix(vector)
    norm_squared = v.dot(v)
    if norm_squared == 0:
        raise UsageError("a Householder reflection needs a nonzero vector")
    return sp.ImmutableMatrix(sp.eye(len(v)) - 2 * v * v.T / norm_squared)


def conjugated_skew(omegas: Sequence[ExactScalar], n: int,
                    vectors: Sequence[VectorLike]) -> sp.ImmutableMatrix:
    """``H B H^T`` for ``B = block_matrix(omegas, n)`` and ``H`` the product of the reflections.

    A skew matrix with known ``omegas`` whose planes are not the coordinate planes: rational
    when the ``omegas`` and ``vectors`` are, so its decomposition can be proved exactly.

    Examples
    ========

    >>> from symrope.linalg import conjugated_skew
    >>> conjugated_skew([2], 3, [(1, 1, 0)])  # the reflection swaps the first two axes
    Matrix([
    [ 0, 2, 0],
    [-2, 0, 0],
    [ 0, 0, 0]])
    """
    H = sp.eye(n)
    for vector in vectors:
        H = H * householder(vector)
    return sp.ImmutableMatrix(H * block_matrix(omegas, n) * H.T)


def cross_product_matrix(axis: VectorLike) -> sp.ImmutableMatrix:
    """``[axis]_x``: the matrix with ``[axis]_x v = axis x v`` (skew-symmetric).

    Examples
    ========

    >>> from sympy import symbols
    >>> from symrope.linalg import cross_product_matrix
    >>> a, b, c = symbols('a b c', real=True)
    >>> cross_product_matrix((a, b, c))
    Matrix([
    [ 0, -c,  b],
    [ c,  0, -a],
    [-b,  a,  0]])
    """
    a, b, c = axis
    return sp.ImmutableMatrix([[0, -c, b], [c, 0, -a], [-b, a, 0]])


def axis_skew_blocks(a: ExactScalar, b: ExactScalar, c: ExactScalar) -> SkewBlocks:
    """Closed-form ``Q`` for the cross-product matrix of the axis ``(a, b, c)``.

    ``omega = sqrt(a^2 + b^2 + c^2)``; the columns of ``Q`` are ``u = (-b, a, 0)/s``
    (``s = sqrt(a^2 + b^2)``), ``w = n x u`` and the unit axis ``n = (a, b, c)/omega``, so that
    ``X u = omega w``, ``X w = -omega u`` and ``X n = 0``.

    The formula needs ``(a, b) != (0, 0)``: no single continuous formula can serve every axis,
    since a unit vector perpendicular to the axis would be a nowhere-vanishing tangent field on
    the sphere (hairy ball theorem). The axes ``(0, 0, c)`` are the separate case
    ``Q = diag(1, sign(c), 1)``.

    Examples
    ========

    >>> from sympy import symbols, simplify
    >>> from symrope.linalg import axis_skew_blocks
    >>> a, b, c = symbols('a b c', real=True)
    >>> blocks = axis_skew_blocks(a, b, c)
    >>> blocks.omegas
    (sqrt(a**2 + b**2 + c**2),)
    >>> (blocks.Q.T * blocks.X * blocks.Q - blocks.B).applyfunc(simplify).is_zero_matrix
    True
    """
    X = cross_product_matrix((a, b, c))
    omega = sp.sqrt(a**2 + b**2 + c**2)
    s = sp.sqrt(a**2 + b**2)
    u = sp.Matrix([-b, a, 0]) / s
    w = sp.Matrix([-a * c, -b * c, a**2 + b**2]) / (omega * s)
    n = sp.Matrix([a, b, c]) / omega
    return SkewBlocks(X, sp.ImmutableMatrix(sp.Matrix.hstack(u, w, n)), (omega,))
