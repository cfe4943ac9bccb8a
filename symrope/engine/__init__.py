"""The proof engine: honest verdicts on identities, and theorems made of checked steps.

Beside ``verify`` and theorems, the building blocks the checker and the kernel share with the
engine are public here: the exact sampler (``evaluate`` judges a claim at an exact point,
``sweep`` and ``has_thresholds`` find the points worth trying), ``refutation`` (a certified
counterexample as a verdict), the block claims and their templates, the premises' witness
search. The registry of built-in theorems is :mod:`symrope.theorems`'.
"""

from symrope.engine._blocks import block_claims, claim_key, with_symbolic_constants
from symrope.engine._blocks import evaluate as evaluate_block
from symrope.engine._deadline import BudgetExhausted, deadline
from symrope.engine._points import refutation
from symrope.engine._premises import PremiseCheck, check_premises
from symrope.engine._reasons import UndecidedReason
from symrope.engine._judgement import evaluate
from symrope.engine._sampling import (Unsampleable, has_thresholds, scale_values, sweep,
                                      threshold_constants)
from symrope.engine._strategies import is_literal_zero
from symrope.engine._verdict import PROVED, REFUTED, UNDECIDED, Verdict
from symrope.engine._verify import verify
from symrope.engine._proof import CHECKED, CITED, DEFINITION, ProofReport, Step, Theorem

__all__ = ["verify", "Verdict", "PROVED", "REFUTED", "UNDECIDED", "UndecidedReason", "deadline",
           "BudgetExhausted", "Theorem", "Step", "ProofReport", "CHECKED", "DEFINITION", "CITED",
           # building blocks shared with the checker and the kernel
           "evaluate", "sweep", "has_thresholds", "threshold_constants", "scale_values",
           "Unsampleable", "refutation", "is_literal_zero", "block_claims", "claim_key",
           "evaluate_block", "with_symbolic_constants", "check_premises", "PremiseCheck"]
