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
    "audit": "symrope.audit",
    "AuditOptions": "symrope.audit",
    "AuditReport": "symrope.audit",
    "get_model": "symrope.audit",
    "load_user_impl": "symrope.audit",
    "RopeConfig": "symrope.schedules",
    "inv_freq": "symrope.schedules",
    "attention_factor": "symrope.schedules",
    "theorem_document": "symrope.latex",
    "combined_document": "symrope.latex",
    "compile_pdf": "symrope.latex",
    "certified_skew_blocks": "symrope.linalg",
    "skew_blocks_exact": "symrope.linalg",
}

__all__ = ["__version__", "UsageError", "InternalError", *_EXPORTS]

if TYPE_CHECKING:  # pragma: no cover
    from symrope.engine import PROVED, REFUTED, UNDECIDED, ProofReport, Theorem, Verdict, verify
    from symrope.audit import AuditOptions, AuditReport, audit, get_model, load_user_impl
    from symrope.checker import CheckReport, Encoding, check
    from symrope.latex import combined_document, compile_pdf, theorem_document
    from symrope.linalg import certified_skew_blocks, skew_blocks_exact
    from symrope.schedules import RopeConfig, attention_factor, inv_freq
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
