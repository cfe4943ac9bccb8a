"""Lift real torch RoPE code into exact SymPy semantics and check the code itself.

``lift(function, head_dim, position_dims)`` runs ``function(q, k, positions)`` on symbolic
content vectors and positions and returns an :class:`~symrope.Encoding`; ``check_lifted``
checks it and replays counterexamples through the real code in float64. ``lift_impl(spec)``
builds the encoding for a named library (``hf-transformers``, ``torchtune``, ``timm``,
``rotary-embedding-torch[:xpos]``) or a user function (``module:function``,
``file.py:function``).
"""

try:
    import torch  # noqa: F401  (the lifting runs real torch code; say which extra brings it)
except ImportError as error:
    raise ImportError(f"symrope.lifting runs torch code and needs torch ({error}); "
                      "pip install 'symrope[torch]'") from None

from symrope.lifting._errors import LiftUndecided
from symrope.lifting._lift import CASTS_NOTE, LiftedEncoding, lift
from symrope.lifting._report import annotate, check_lifted
from symrope.lifting._adapters import (IMPLS, PositionsForArange, lift_hf, lift_impl,
                                     lift_rotary_embedding_torch, lift_timm, lift_torchtune)

__all__ = ["lift", "check_lifted", "annotate", "lift_impl", "LiftedEncoding", "LiftUndecided",
           "CASTS_NOTE", "IMPLS", "lift_hf", "lift_torchtune", "lift_timm",
           "lift_rotary_embedding_torch", "PositionsForArange"]
