"""Why a claim stayed undecided: one enum of reasons, each a stable code and the sentence it prints.

A verdict's ``reason`` is the sentence (what the terminal and ``--json`` have always printed);
its code is ``Verdict.details["reason_code"]`` (and ``reason_code`` in the engine's and the
checker's ``--json`` wherever a verdict is undecided), so a machine reading a report never
parses prose. Every undecided verdict of the engine, the checker and the lift names one member.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["UndecidedReason"]


class UndecidedReason(Enum):
    """A reason a claim stayed undecided: ``.value`` is its stable code, :meth:`text` its prose.

    Examples
    ========

    >>> from symrope.engine import UndecidedReason
    >>> reason = UndecidedReason.UNSAMPLEABLE
    >>> reason.value, reason.text(detail="no value satisfies x > 0 and x < 0")
    ('unsampleable', 'cannot sample exact points: no value satisfies x > 0 and x < 0')
    >>> UndecidedReason("time_budget") is UndecidedReason.TIME_BUDGET
    True
    """

    # -- the engine (symrope.verify)
    #: a Float too large or small for its exact rational to be built (``detail``: which)
    FLOAT_OUT_OF_RANGE = ("float_out_of_range", "{detail}")
    #: no exact point meets the symbols' assumptions
    UNSAMPLEABLE = ("unsampleable", "cannot sample exact points: {detail}")
    #: the budget ran out in the engine, with what the probes saw (``evidence``)
    TIME_BUDGET = ("time_budget", "time budget of {budget:g} s exhausted before the difference "
                   "reduced to zero or a counterexample was found; {evidence}")
    #: no rewrite reduced an entry's difference to zero (``where``: which entry)
    NO_REWRITE = ("no_rewrite", "no rewrite reduced the difference to zero{where}; {evidence}")
    #: a claim on symbolic matrices that matrix algebra did not reduce
    MATRIX_ALGEBRA = ("matrix_algebra", "matrix algebra did not reduce the difference to zero, "
                      "and no random matrices satisfying the hypotheses refuted it; {evidence}")
    #: decided off the main thread, in a child process, but the claim cannot travel
    NOT_PICKLABLE = ("not_picklable", "off the main thread a claim is decided in a child "
                     "process (so that its budget can be enforced), and this one cannot be "
                     "pickled: {detail}")
    #: the child process deciding the claim died without an answer
    CHILD_ENDED = ("child_ended", "the child process deciding the claim ended without a "
                   "verdict (exit code {exit_code})")
    #: the child process deciding the claim was stopped at the budget
    CHILD_TIME_BUDGET = ("child_time_budget", "time budget of {budget:g} s exhausted")
    # -- theorems (Theorem.prove refuses a step)
    #: a step whose hypothesis is its own claim
    ASSUMES_ITS_CLAIM = ("assumes_its_claim", "refused: a hypothesis of this step is its own "
                         "claim, so substituting it proves nothing (check the claim, or cite it)")
    #: a step whose hypotheses no witness satisfies (``premises``: the search's account)
    PREMISES_UNSATISFIED = ("premises_unsatisfied", "refused: {premises}")
    # -- the checker (symrope.check) and the lift
    #: a dense block above the engine's explicit-size limit
    TOO_LARGE = ("too_large", "a block is too large to decide: {detail}")
    #: a stage's time share ended while its claims were still being built
    SHARE_RAN_OUT = ("share_ran_out", "its time share ran out while its claims were built, "
                     "before any was decided (no points were sampled)")
    #: the search for a discontinuity (SymPy's solver, limits) ran past the budget
    CONTINUITY_SEARCH_TIME = ("continuity_search_time", "the time budget ran out while "
                              "searching for a discontinuity")
    #: an expression (``obstacle``, in ``where``) whose continuity is neither proved nor refuted
    CONTINUITY_UNKNOWN = ("continuity_unknown", "{where} contains {obstacle}, whose continuity "
                          "symrope cannot establish, and no discontinuity was found at its "
                          "candidate points")
    #: ``H(0)`` is not ``c^2 I`` for one constant (the uniform-scale reading of the checker)
    NOT_A_UNIFORM_SCALE = ("not_a_uniform_scale", "H(0) is not a constant multiple of I")

    def __new__(cls, code: str, template: str):
        member = object.__new__(cls)
        member._value_ = code
        member.template = template
        return member

    def text(self, **facts: object) -> str:
        """The sentence this reason prints, with the facts of one case filled in."""
        return self.template.format(**facts)
