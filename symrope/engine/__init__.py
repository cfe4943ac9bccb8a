"""The proof engine: honest verdicts on identities, and theorems made of checked steps."""

from symrope.engine._deadline import BudgetExhausted, deadline
from symrope.engine._verdict import PROVED, REFUTED, UNDECIDED, Verdict
from symrope.engine._verify import verify
from symrope.engine._proof import (BUILTIN, CHECKED, CITED, DEFINITION, ProofReport, Step, Theorem,
                                   TheoremBuilder, theorem)

__all__ = ["verify", "Verdict", "PROVED", "REFUTED", "UNDECIDED", "deadline", "BudgetExhausted",
           "Theorem", "Step", "ProofReport", "TheoremBuilder", "theorem", "BUILTIN", "CHECKED",
           "DEFINITION", "CITED"]
