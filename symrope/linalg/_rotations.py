"""Plane rotations: the generator ``J``, ``R(angle)``, the two RoPE layouts, and so(3).

The one home of these matrices: the theorems, the checker's zoo and the block decompositions
all build their rotations here.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from symrope._typing import ExactScalar, VectorLike

__all__ = ["J", "rotation", "rotate_pairs", "rotate_half_layout", "so3_exponential", "L_X", "L_Z",
           "quaternion_multiplication"]

#: The generator of plane rotations, ``dR/dphi`` at ``phi = 0``.
J = sp.ImmutableMatrix([[0, -1], [1, 0]])
#: so(3) generators of rotations about the z and x axes.
L_Z = sp.ImmutableMatrix([[0, -1, 0], [1, 0, 0], [0, 0, 0]])
L_X = sp.ImmutableMatrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]])


def rotation(angle: ExactScalar) -> sp.ImmutableMatrix:
    """The 2x2 rotation ``R(angle) = cos(angle) I + sin(angle) J``.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.linalg import rotation
    >>> rotation(sp.pi / 2)
    Matrix([
    [0, -1],
    [1,  0]])
    """
    return sp.ImmutableMatrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def rotate_pairs(x: VectorLike, angles: Sequence[ExactScalar]) -> sp.Matrix:
    """Interleaved layout (Meta reference, RoFormer): pair ``(2i, 2i+1)`` turns by ``angles[i]``.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.linalg import rotate_pairs
    >>> rotate_pairs(sp.Matrix([1, 0, 0, 1]), [sp.pi / 2, sp.pi / 2]).T
    Matrix([[0, 1, -1, 0]])
    """
    out = list(x)
    for i, angle in enumerate(angles):
        a, b = x[2 * i], x[2 * i + 1]
        out[2 * i] = a * sp.cos(angle) - b * sp.sin(angle)
        out[2 * i + 1] = a * sp.sin(angle) + b * sp.cos(angle)
    return sp.Matrix(out)


def rotate_half_layout(x: VectorLike, angles: Sequence[ExactScalar]) -> sp.Matrix:
    """HF layout: ``x * cos + rotate_half(x) * sin`` with ``cos = cat(cos(angles), cos(angles))``.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.linalg import rotate_half_layout
    >>> rotate_half_layout(sp.Matrix([1, 0, 0, 1]), [sp.pi / 2, sp.pi / 2]).T
    Matrix([[0, -1, 1, 0]])
    """
    half = len(angles)
    cos = [sp.cos(a) for a in angles] * 2
    sin = [sp.sin(a) for a in angles] * 2
    rotated_half = [-x[i + half] for i in range(half)] + [x[i] for i in range(half)]
    return sp.Matrix([x[i] * cos[i] + rotated_half[i] * sin[i] for i in range(2 * half)])


def so3_exponential(r1: ExactScalar, r2: ExactScalar) -> sp.Matrix:
    """``exp(r1 L_z + r2 L_x)`` in closed form (Rodrigues), with ``sinc`` so it is defined at 0.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.linalg import so3_exponential
    >>> sp.simplify(so3_exponential(sp.pi / 2, 0).applyfunc(lambda e: e.rewrite(sp.sin)))
    Matrix([
    [0, -1, 0],
    [1,  0, 0],
    [0,  0, 1]])
    """
    K = r1 * sp.Matrix(L_Z) + r2 * sp.Matrix(L_X)
    angle = sp.sqrt(r1 ** 2 + r2 ** 2)
    return sp.eye(3) + sp.sinc(angle) * K + sp.sinc(angle / 2) ** 2 / 2 * K * K


def quaternion_multiplication(q: Sequence[ExactScalar], side: str = "left") -> sp.Matrix:
    r"""The 4x4 matrix of ``x -> q x`` (``side="left"``) or ``x -> x q`` (``"right"``) on the
    quaternions, coordinates ``(w, x, y, z)``.

    Left and right multiplications commute (associativity), and for a pure quaternion ``q`` both
    are skew-symmetric: the standard source of commuting 4x4 skew generators (ComRoPE-style
    encodings with more than one rotation plane mixed).

    Examples
    ========

    >>> from symrope.linalg import quaternion_multiplication
    >>> A = quaternion_multiplication([0, 1, 2, 0])             # left by i + 2j
    >>> B = quaternion_multiplication([0, 0, 0, 1], "right")    # right by k
    >>> A * B == B * A, A.T == -A, B.T == -B
    (True, True, True)
    >>> quaternion_multiplication([0, 1, 0, 0]) * quaternion_multiplication([0, 0, 1, 0]) \
    ...     == quaternion_multiplication([0, 0, 0, 1])           # i j = k
    True
    """
    w, a, b, c = q  # exactly four coordinates (Quaternion would read a fifth as real_field)
    quaternion = sp.Quaternion(w, a, b, c)
    if side == "left":
        return quaternion.product_matrix_left
    if side == "right":
        return quaternion.product_matrix_right
    raise ValueError(f"side must be 'left' or 'right', got {side!r}")
