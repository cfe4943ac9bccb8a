"""Linear algebra behind the proofs: rotations and block decompositions of skew generators.

Plane rotations, ``J``, the two RoPE layouts and so(3)'s exponential have one home,
:mod:`symrope.linalg._rotations`.

Exact constructions (SymPy) live in :mod:`symrope.linalg._skew`; the certified numeric
decomposition for any size (float64 start, high-precision refinement, rigorous residual
bounds) in :mod:`symrope.linalg._certified`.
"""

from symrope.linalg._rotations import (L_X, L_Z, J, rotate_half_layout, rotate_pairs, rotation,
                                      quaternion_multiplication, so3_exponential)
from symrope.linalg._skew import (SkewBlocks, axis_skew_blocks, block_exponential, block_matrix,
                                  conjugated_skew, cross_product_matrix, householder, require_skew,
                                  skew_blocks_exact)

from symrope.linalg._certified import (DEFAULT_DPS, DEFAULT_TOLERANCE, SkewCertificate,
                                       certified_skew_blocks, exact_rational_matrix, random_skew)
from symrope.linalg._exact import exact_matmul

__all__ = ["SkewCertificate", "certified_skew_blocks", "exact_rational_matrix", "random_skew",
           "exact_matmul", "DEFAULT_DPS", "DEFAULT_TOLERANCE", "J", "L_X", "L_Z", "rotation",
           "rotate_pairs", "rotate_half_layout", "so3_exponential", "block_matrix",
           "block_exponential", "SkewBlocks", "require_skew", "skew_blocks_exact",
           "cross_product_matrix", "axis_skew_blocks", "householder", "conjugated_skew",
           "quaternion_multiplication"]
