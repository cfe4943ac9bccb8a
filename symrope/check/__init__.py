"""The encoding checker: any user-written positional encoding against the four assumptions.

``Encoding`` wraps a user's query and key functions; :func:`check` decides linearity,
translation invariance, identity at zero offset and continuity, and classifies the generator
when all four hold. ``ZOO`` holds the built-in encodings with the verdicts they must get.

The package is callable, ``symrope.check(encoding)`` being ``symrope.check.check(encoding)``:
the top-level name ``symrope.check`` is both this package and the function, and which one
Python's import machinery leaves on ``symrope`` depends on import order.
"""

import sys
import types

from symrope.check._check import check
from symrope.check._encoding import Encoding
from symrope.check._report import ASSUMPTIONS, AssumptionResult, CheckReport
from symrope.check._zoo import ZOO, ZooEntry, zoo_encoding

__all__ = ["Encoding", "check", "CheckReport", "AssumptionResult", "ASSUMPTIONS", "ZOO",
           "ZooEntry", "zoo_encoding"]


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs):
        return check(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
