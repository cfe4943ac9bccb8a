"""The encoding checker: any user-written positional encoding against the four assumptions.

``Encoding`` wraps a user's query and key functions; :func:`check` decides linearity,
translation invariance, identity at zero offset and continuity, and classifies the generator
when all four hold. ``ZOO`` holds the built-in encodings with the verdicts they must get.
``symrope.check`` and ``symrope.Encoding`` are re-exported from here.

A report's counterexamples are typed (:class:`Counterexample` and its kinds) and its exact
values are :class:`Shown` strings carrying the value. The building blocks of a check are public
too, for checks of other structures (:mod:`symrope.lifting` decides every token pair of code
that mixes tokens with them): the budget ``Clock`` and ``decide``, Jacobians and block
partitions, the continuity search, the generator read off ``H``, the uniform scale.
"""

from symrope.checker._check import check
from symrope.checker._claims import Clock, combine, decide, methods
from symrope.checker._continuity import (continuity_obstacle, find_discontinuity,
                                         find_switch_discontinuity, parameter_values,
                                         symbol_name)
from symrope.checker._counterexample import (IDENTITY, SHIFTED, TRANSLATION, Counterexample,
                                             Discontinuity, NonlinearContent, NonlinearToken,
                                             PairScore, ScoreOnBasis, ScoreOnContent)
from symrope.checker._encoding import Encoding
from symrope.checker._generator import Unclassifiable, from_relative
from symrope.checker._report import (ASSUMPTION_TITLES, ASSUMPTIONS, AssumptionResult,
                                     CheckReport)
from symrope.checker._scale import constant_of
from symrope.checker._shown import BasisVector, Shown, exact_of, show
from symrope.checker._structure import block_claim, block_partition, jacobian
from symrope.checker._zoo import ZOO, ZooEntry, zoo_encoding

__all__ = ["Encoding", "check", "CheckReport", "AssumptionResult", "ASSUMPTIONS",
           "ASSUMPTION_TITLES", "ZOO", "ZooEntry", "zoo_encoding",
           # a report's values and counterexamples
           "Shown", "show", "exact_of", "BasisVector", "Counterexample", "NonlinearContent",
           "NonlinearToken", "ScoreOnBasis", "ScoreOnContent", "PairScore", "Discontinuity",
           "TRANSLATION", "SHIFTED", "IDENTITY",
           # the building blocks of a check
           "Clock", "decide", "methods", "combine", "jacobian", "block_partition", "block_claim",
           "continuity_obstacle", "find_discontinuity", "find_switch_discontinuity",
           "parameter_values", "symbol_name", "Unclassifiable", "from_relative", "constant_of"]
