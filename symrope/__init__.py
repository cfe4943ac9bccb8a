"""symrope: prove what positional encodings in attention do, and audit how float RoPE drifts.

The public API is re-exported here explicitly. Names are resolved on first use (PEP 562) so
that ``import symrope`` -- done by the pytest plugin in every test session -- stays light and
``symrope audit`` never pays for SymPy's import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from symrope._version import __version__
from symrope.errors import InternalError, UsageError

# public name -> module that defines it
_EXPORTS = {
    "verify": "symrope.engine",
    "Verdict": "symrope.engine",
    "Theorem": "symrope.engine",
    "ProofReport": "symrope.engine",
    "PROVED": "symrope.engine",
    "REFUTED": "symrope.engine",
    "UNDECIDED": "symrope.engine",
    "builtin_theorems": "symrope.theorems",
    "get_theorem": "symrope.theorems",
    "Encoding": "symrope.checker",
    "check": "symrope.checker",
    "CheckReport": "symrope.checker",
    "lift": "symrope.lifting",         # imports torch, only when used
    "check_lifted": "symrope.lifting",
}
# The audit, schedules, LaTeX and linalg APIs live in their subpackages (symrope.audit.audit,
# symrope.schedules.inv_freq, ...): a top-level name equal to a subpackage's name would be
# replaced by the subpackage as soon as it is imported.

__all__ = ["__version__", "UsageError", "InternalError", *_EXPORTS]

if TYPE_CHECKING:  # pragma: no cover
    from symrope.engine import PROVED, REFUTED, UNDECIDED, ProofReport, Theorem, Verdict, verify
    from symrope.checker import CheckReport, Encoding, check
    from symrope.lifting import check_lifted, lift
    from symrope.theorems import builtin_theorems, get_theorem


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'symrope' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
