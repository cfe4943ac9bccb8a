"""``check``: decide the four assumptions of the seed article for any user-written encoding.

Linear encodings are decided on the extracted matrices, block by block in the finest partition
in which both F and G are block diagonal (exact: only literal zeros count); anything else is
decided on the score ``query(x, s)^T key(y, t)`` for symbolic content vectors. Every verdict
comes from :func:`symrope.verify`: proved only by reduction to a literal zero, refuted only with
an exact counterexample whose difference rigorous (Arb ball) arithmetic encloses away from
zero, undecided otherwise.

The stages and their budget are here; each assumption's claims are
:class:`~symrope.checker._run.CheckRun`'s, and a refuted one is phrased in the user's terms by
:mod:`symrope.checker._phrasing`.
"""

from __future__ import annotations

import time

from symrope.checker._claims import Clock
from symrope.checker._encoding import Encoding
from symrope.checker._generator import Unclassifiable, generator
from symrope.checker._report import AssumptionResult, CheckReport
from symrope.checker._run import CheckRun
from symrope.checker._scale import read_after_verdicts
from symrope.engine import PROVED, UNDECIDED, BudgetExhausted, UndecidedReason, deadline
from symrope.errors import UsageError

__all__ = ["check"]


def check(encoding: Encoding, budget: float = 60.0) -> CheckReport:
    """Decide linearity, translation invariance, identity at zero offset and continuity.

    Parameters
    ==========

    encoding : Encoding
    budget : float
        Seconds for the whole check. A claim still open when it runs out is ``undecided``.

    Returns
    =======

    CheckReport
        One :class:`AssumptionResult` per assumption (``proved`` / ``refuted`` with a
        counterexample in terms of positions and content vectors / ``undecided``) and, when
        all four are proved, the generator ``X = H'(0)``, the verification of
        ``H(d) = e^{dX}`` and the classification of ``X`` by its real Jordan form.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.checker import Encoding, check
    >>> R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])
    >>> rope = Encoding.from_matrices("rope2", R, R)
    >>> report = check(rope)
    >>> report.verdicts()
    {'linearity': 'proved', 'translation_invariance': 'proved', 'identity_at_zero': 'proved', 'continuity': 'proved'}
    >>> report.classification["p"]["rotation"][0]["frequency"]
    '1'
    >>> skewed = Encoding.from_matrices("q_only", R, lambda p: sp.eye(2))
    >>> check(skewed).assumptions["translation_invariance"].verdict
    'refuted'

    References
    ==========

    .. [1] The seed article, "Positional encodings and group theory": the four assumptions
       force ``H(d) = e^{dX}``.
    """
    if not isinstance(encoding, Encoding):
        if callable(encoding):
            raise UsageError(
                f"check() takes an Encoding, got the plain function "
                f"{getattr(encoding, '__name__', 'function')}: wrap it, e.g. "
                f"Encoding('name', dim, query, key) with query(x, p) and key(x, p), or "
                f"Encoding.from_matrices('name', F, G); for torch code use symrope.lift")
        raise UsageError(f"check() takes an Encoding, got {type(encoding).__name__}")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
        raise UsageError(f"budget must be a positive number of seconds, got {budget!r}")
    delegated = getattr(encoding, "check_delegate", lambda budget: None)(budget)
    if delegated is not None:  # lifted code that mixes tokens: decided on every token pair
        return delegated
    clock = Clock(float(budget))
    run = CheckRun(encoding, clock)
    results = _decide_assumptions(run, clock)
    linearity = results[0]
    clock.share(1)
    report = CheckReport(encoding.name, encoding.dim, encoding.position_dims,
                         {r.name: r for r in results})
    read_after_verdicts(run, report)  # a uniform scale c^2 I; non-commuting generators
    if report.verdict == PROVED:
        try:
            with deadline(clock.left()):
                report.generator, report.classification = generator(run)
        except BudgetExhausted:
            report.notes.append(f"the time budget of {budget:g} s ran out while classifying "
                                "the generator")
        except Unclassifiable as reason:
            report.notes.append(f"the generator was not classified: {reason}")
    elif linearity.verdict != PROVED:
        report.notes.append("not linear: decided on the score query(x, s)^T key(y, t) for "
                            "symbolic content vectors x, y")
    report.seconds = clock.elapsed()
    return report


_ORDER = ("linearity", "translation_invariance", "identity_at_zero", "continuity")
# A stage's own work (building its claims: a Jacobian, an expanded score) is interrupted this
# long after its share ends; the engine calls inside it keep to the share itself.
_STAGE_GRACE = 2.0
# A stage decided again takes 80% of what is left (whatever it does not use passes on); the
# rest is kept for the stages after it and the generator.
_RETRY_STAGES = 1.25


def _decide_assumptions(run: CheckRun, clock: Clock) -> list[AssumptionResult]:
    """The four assumptions, within the budget, in two passes.

    First pass: each stage gets an equal share of what is left among the stages still to run
    (four assumptions, then the generator), so time a stage does not use passes on and one
    slow claim cannot starve the others. Second pass: a stage that ran out of its share (it is
    undecided and used all of it) is decided again with the time the others left unused, and so
    is any undecided stage once a retry has proved the exponential form (which decides it at
    once); when a retry proves linearity, the stages decided on the score meanwhile are decided
    again on the matrices (a verdict already proved or refuted stands).
    """
    shares, results = {}, {}

    def attempt(name, step, stages_left):
        shares[name] = clock.share(stages_left)
        results[name] = _stage(name, step, clock)
        return results[name]

    attempt("linearity", run.linearity, 5)
    steps = _steps(run, clock, results["linearity"].verdict == PROVED)
    for stages_left, name in zip((4, 3, 2), _ORDER[1:]):
        attempt(name, steps[name], stages_left)
    if _cut_short(results["linearity"], shares["linearity"], clock):
        if attempt("linearity", run.linearity, 2).verdict == PROVED:  # half: the rest follows
            steps = _steps(run, clock, True)
            for name in _ORDER[1:]:  # the score's verdicts were cut short by the same stage
                if results[name].verdict == UNDECIDED:
                    shares[name] = 0.0
    for name in _ORDER[1:]:
        if results[name].verdict == UNDECIDED and (
                shares[name] == 0.0 or _cut_short(results[name], shares[name], clock)
                or run.structure_proved()):  # a retry proved F = e^{pA}: the rest follows
            run.forget_structure()  # recognised again with the longer share
            attempt(name, steps[name], _RETRY_STAGES)
    return [results[name] for name in _ORDER]


def _steps(run: CheckRun, clock: Clock, linear: bool) -> dict:
    if linear:
        return {"translation_invariance": run.linear_translation,
                "identity_at_zero": run.linear_identity,
                "continuity": lambda: _bounded(run.linear_continuity, clock)}
    return {"translation_invariance": run.score_translation,
            "identity_at_zero": run.score_identity,
            "continuity": lambda: _bounded(run.score_continuity, clock)}


def _cut_short(result: AssumptionResult, share: float, clock: Clock) -> bool:
    """Undecided after using (nearly) all its share, when a retry would get a longer one."""
    retry = clock.remaining() / _RETRY_STAGES
    return result.verdict == UNDECIDED and result.seconds >= 0.9 * share and \
        retry > max(share, 1.0)


def _stage(name: str, step, clock: Clock) -> AssumptionResult:
    """One stage, never past its share by more than ``_STAGE_GRACE`` (nor past the budget)."""
    start = time.monotonic()
    try:
        with deadline(min(clock.left(), clock.remaining()) + _STAGE_GRACE):
            return step()
    except BudgetExhausted:
        reason = UndecidedReason.SHARE_RAN_OUT
        return AssumptionResult(name, UNDECIDED, reason.text(), seconds=time.monotonic() - start,
                                undecided_reason=reason)


def _bounded(decide, clock) -> AssumptionResult:
    """Continuity searches call SymPy's solver and limits: keep them inside the budget."""
    start = time.monotonic()
    try:
        with deadline(clock.left()):
            return decide()
    except BudgetExhausted:
        reason = UndecidedReason.CONTINUITY_SEARCH_TIME
        return AssumptionResult("continuity", UNDECIDED, reason.text(),
                                seconds=time.monotonic() - start, undecided_reason=reason)
