"""The encoding checker: any user-written positional encoding against the four assumptions.

``Encoding`` wraps a user's query and key functions; :func:`check` decides linearity,
translation invariance, identity at zero offset and continuity, and classifies the generator
when all four hold. ``ZOO`` holds the built-in encodings with the verdicts they must get.
``symrope.check`` and ``symrope.Encoding`` are re-exported from here.
"""

from symrope.checker._check import check
from symrope.checker._encoding import Encoding
from symrope.checker._report import ASSUMPTIONS, AssumptionResult, CheckReport, exact_of
from symrope.checker._zoo import ZOO, ZooEntry, zoo_encoding

__all__ = ["Encoding", "check", "CheckReport", "AssumptionResult", "ASSUMPTIONS", "ZOO",
           "ZooEntry", "zoo_encoding", "exact_of"]
