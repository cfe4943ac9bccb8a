"""From a user's encoding to exact linear structure: the Jacobians F(p), G(p) and their blocks.

Only literal zeros count as structure, so every decomposition here is exact: if no entry links
index ``i`` to ``j`` (directly or through other indices) in F or G at a symbolic position,
then ``F(s)^T G(t)`` is block diagonal in the same partition, and claims about it can be
decided block by block (RoPE at d = 64 is 32 blocks of 2x2, not one 64x64 matrix).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["jacobian", "block_partition", "Blocks"]


def jacobian(vector: sp.MatrixBase, x: list) -> sp.ImmutableMatrix:
    """``d vector / d x``, differentiating each entry only by the symbols it contains (sparse)."""
    dim_out, dim_in = vector.shape[0], x.shape[0]
    index = {symbol: j for j, symbol in enumerate(x)}
    entries = {}
    for i in range(dim_out):
        expression = vector[i]
        for symbol in sorted(expression.free_symbols & index.keys(), key=index.get):
            derivative = sp.diff(expression, symbol)
            if derivative != 0:
                entries[(i, index[symbol])] = derivative
    return sp.ImmutableSparseMatrix(dim_out, dim_in, entries)


def _nonzero_entries(matrix):
    if isinstance(matrix, sp.SparseMatrix) or hasattr(matrix, "todok"):
        return [(i, j) for (i, j), v in matrix.todok().items() if v != 0]
    rows, cols = matrix.shape
    return [(i, j) for i in range(rows) for j in range(cols) if matrix[i, j] != 0]


@dataclass(frozen=True)
class Blocks:
    """A partition of ``range(dim)`` into index blocks, each sorted, blocks ordered by first index."""

    groups: tuple[tuple[int, ...], ...]

    def restrict(self, matrix) -> list[sp.ImmutableMatrix]:
        """The diagonal blocks ``matrix[I, I]`` for each index group ``I``."""
        return [sp.ImmutableMatrix(matrix.extract(list(g), list(g))) for g in self.groups]

    def original_index(self, block: int, i: int, j: int) -> tuple[int, int]:
        group = self.groups[block]
        return group[i], group[j]

    def from_block_order(self, i: int, j: int) -> tuple[int, int]:
        """Original indices of entry ``(i, j)`` of the matrix with the blocks laid out in order."""
        order = [index for group in self.groups for index in group]
        return order[i], order[j]

    def __len__(self) -> int:
        return len(self.groups)


def block_partition(dim: int, *matrices: sp.MatrixBase) -> Blocks:
    """The finest partition in which every matrix is block diagonal (connected components)."""
    parent = list(range(dim))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for matrix in matrices:
        for i, j in _nonzero_entries(matrix):
            a, b = find(i), find(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in range(dim):
        groups.setdefault(find(i), []).append(i)
    return Blocks(tuple(tuple(g) for g in sorted(groups.values())))


# Up to this size the engine decides an explicit matrix entry by entry, faster than a
# BlockDiagMatrix claim (measured in benchmarks/bench_check.py); above it, only blockwise.
EXPLICIT_SIDE = 64


def block_claim(blocks: list) -> sp.MatrixBase | sp.BlockDiagMatrix:
    """One matrix claim from diagonal blocks, in block order.

    The blocks are multiplied out one by one (never as one dense product); the claim is the
    explicit block-diagonal matrix up to ``EXPLICIT_SIDE`` rows, a ``BlockDiagMatrix`` above.
    """
    if len(blocks) == 1:
        return blocks[0]
    if sum(b.shape[0] for b in blocks) <= EXPLICIT_SIDE:
        return sp.ImmutableMatrix(sp.diag(*blocks))
    return sp.BlockDiagMatrix(*blocks)
