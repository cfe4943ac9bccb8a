"""The built-in theorem library: the seed article's derivation, machine-checked.

Each module of ``THEOREM_MODULES`` registers parametric theorems with :func:`theorem` (the
registry, ``_registry.py``); :func:`builtin_theorems` imports them on first use (SymPy-heavy, so
never at ``import symrope``). A registered theorem is proved, listed, typeset and tested by
being registered: the command line and the tests walk this registry, not lists of names.
"""

from __future__ import annotations

import importlib

from symrope.errors import UsageError
from symrope.theorems._registry import BUILTIN, TheoremBuilder, signature_defaults, theorem

__all__ = ["builtin_theorems", "get_theorem", "THEOREM_MODULES", "theorem", "TheoremBuilder",
           "BUILTIN", "signature_defaults"]

# In the order of the seed article's argument (this is also the order `symrope prove` runs).
THEOREM_MODULES = [
    "_group_law",           # 1. four assumptions -> one-parameter group
    "_exponential_form",    # 2. continuity -> H(d) = e^{dX}
    "_general_solution",    # 3. G = C e^{pX}, F = C^{-T} e^{-pX^T}; F = G iff rotations
    "_matrix_exponential",  # 4. e^{phi J} = R(phi)
    "_skew_blocks",         # 5. skew X = Q diag(omega_i J, 0) Q^T
    "_rope",                # 6. RoPE is e^{pX}, relative
    "_xpos",                # 7. xPos / damped rotations
    "_pairing",             # interleaved vs rotate_half layouts
    "_nd_positions",        # N-d positions: relative iff generators commute
    "_schedules",           # frequency schedules keep (or break) the relative property
    "_alibi",               # ALiBi as a nilpotent generator
]


def builtin_theorems() -> dict[str, TheoremBuilder]:
    """Every registered theorem builder, by name, in library order."""
    for module in THEOREM_MODULES:
        importlib.import_module(f"{__name__}.{module}")
    order = {f"{__name__}.{module}": rank for rank, module in enumerate(THEOREM_MODULES)}
    # Library order, whatever order the modules happened to be imported in.
    ranked = sorted(BUILTIN.values(), key=lambda b: order.get(b.build_function.__module__,
                                                              len(order)))
    return {builder.name: builder for builder in ranked}


def get_theorem(name: str) -> TheoremBuilder:
    theorems = builtin_theorems()
    if name not in theorems:
        raise UsageError(f"no theorem named {name!r}; 'symrope list' shows the "
                         f"{len(theorems)} built-in theorems")
    return theorems[name]
