"""Linear algebra behind the proofs: block decompositions of skew-symmetric generators.

Exact constructions (SymPy) live in :mod:`symrope.linalg._skew`; the certified numeric
decomposition for any size (float64 start, high-precision refinement, rigorous residual
bounds) in :mod:`symrope.linalg._certified`.
"""

from symrope.linalg._skew import (J, SkewBlocks, axis_skew_blocks, block_exponential,
                                  block_matrix, conjugated_skew, cross_product_matrix, householder,
                                  require_skew, rotation, skew_blocks_exact)

__all__ = ["J", "rotation", "block_matrix", "block_exponential", "SkewBlocks", "require_skew",
           "skew_blocks_exact", "cross_product_matrix", "axis_skew_blocks", "householder", "conjugated_skew"]
