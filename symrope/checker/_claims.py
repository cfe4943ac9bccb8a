"""Deciding one claim for the checker: the engine's verdict, with the checker's two additions.

* Claims are pre-expanded when asked (an equivalence) so entries that agree term by term are
  seen as identical instead of sampled.
* ``sinc`` (which the engine's rewrites do not know) is handled by a density argument: the
  claim is proved where no ``sinc`` argument vanishes, and extended by continuity.
"""

from __future__ import annotations

import random
import time

import sympy as sp

from symrope._exact import read_floats_exactly
from symrope.engine import (PROVED, REFUTED, UNDECIDED, BudgetExhausted, UndecidedReason,
                            Unsampleable, Verdict, deadline, evaluate, has_thresholds,
                            is_literal_zero, refutation, sweep, verify)
from symrope.errors import UsageError
from symrope.checker._continuity import continuity_obstacle
from symrope.checker._structure import block_claim

__all__ = ["Clock", "decide", "combine", "methods", "probe_across_scales"]

_MIN_STEP_BUDGET = 0.5


class Clock:
    """The whole check's budget, shared fairly between its stages.

    :meth:`share` opens a stage with an equal share of what is left among the stages still to
    run, so a stage that finishes early passes its unused time on (and one cut short can be
    decided again with what the others left: ``checker._check``); every engine call gets what
    is left of the current stage (at least 0.5 s).
    """

    def __init__(self, budget: float) -> None:
        self.start = time.monotonic()
        self.budget = budget
        self.stage_end = None

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def share(self, stages_left: float) -> float:
        """Start a stage: ``1 / stages_left`` of the remaining budget (the last takes all);
        returns the share in seconds."""
        share = self.remaining() / max(stages_left, 1)
        self.stage_end = time.monotonic() + share
        return share

    def remaining(self) -> float:
        """What is left of the whole budget (0 when it is spent)."""
        return max(self.budget - self.elapsed(), 0.0)

    def left(self) -> float:
        total = self.budget - self.elapsed()
        if self.stage_end is not None:
            total = min(total, self.stage_end - time.monotonic())
        return max(total, _MIN_STEP_BUDGET)


def decide(lhs: object, rhs: object, clock: Clock, expand: bool = False,
           positions: tuple | list = (), probe_undecided: bool = True) -> Verdict:
    """``symrope.verify(lhs, rhs)`` within the check's budget (see the module docstring).

    With ``positions`` (the claim's position symbols), a claim whose expressions switch at a
    threshold is first probed at positions across scales (:func:`probe_across_scales`), and so
    is any other claim the engine leaves undecided (never the same claim twice) unless
    ``probe_undecided`` is false (for a caller that reads only ``.proved``); an undecided
    verdict says how many points could be evaluated at all (the engine counts them).
    """
    # Not for trigonometric claims: expanding there splits the engine's constant templates.
    if expand:  # Floats read exactly first: expanding multiplies them, and that rounds
        lhs, rhs = _expanded(read_floats_exactly(lhs)[0]), _expanded(read_floats_exactly(rhs)[0])
    positions = list(positions)
    # The probe is deterministic (fixed seed and scales): once run, running it again on the
    # same claim finds nothing new (and a run cut short restarts from the same points).
    probed = bool(positions) and has_thresholds(*_blocks_of(lhs), *_blocks_of(rhs))
    if probed:
        found = _bounded_probe(lhs, rhs, positions, clock)
        if found is not None:
            return found
    try:
        verdict = verify(lhs, rhs, budget=clock.left())
    except UsageError as error:  # a dense block above the engine's explicit-size limit
        return Verdict.undecided_because(UndecidedReason.TOO_LARGE, lhs, rhs, detail=error)
    if verdict.undecided and _has_sinc(lhs, rhs):
        verdict = _verify_through_sinc(lhs, rhs, verdict, clock) or verdict
    if verdict.undecided and positions and probe_undecided and not probed:
        found = _bounded_probe(lhs, rhs, positions, clock)
        if found is not None:
            return found
    return verdict


def _bounded_probe(lhs, rhs, positions, clock) -> Verdict | None:
    """:func:`probe_across_scales` within the stage's budget (None when it runs out)."""
    try:
        with deadline(clock.left()):
            return probe_across_scales(lhs, rhs, positions)
    except BudgetExhausted:
        return None


def _expanded(side):
    if isinstance(side, sp.BlockDiagMatrix):
        return sp.BlockDiagMatrix(*[sp.ImmutableMatrix(b).applyfunc(sp.expand) for b in side.diag])
    if isinstance(side, sp.MatrixBase):
        return sp.ImmutableMatrix(side).applyfunc(sp.expand)
    return sp.expand(side)


def _blocks_of(side) -> list:
    if isinstance(side, sp.BlockDiagMatrix):
        return [sp.ImmutableMatrix(b) for b in side.diag]
    return [side]


def _has_sinc(*sides) -> bool:
    return any(block.has(sp.sinc) for side in sides for block in _blocks_of(side))


def _verify_through_sinc(lhs, rhs, verdict, clock):
    """Prove ``lhs = rhs`` off the zeros of every ``sinc`` argument, then extend by continuity.

    With ``sinc(u) = sin(u)/u`` for ``u != 0`` the claim is decided by the engine on the set
    where no argument vanishes. That set is dense when each ``u**2`` is a nonzero polynomial
    (its zero set has empty interior), and two functions continuous everywhere (shown by
    structure) that agree on a dense set agree everywhere.
    """
    blocks = _blocks_of(lhs) + _blocks_of(rhs)
    arguments = {node.args[0] for block in blocks for node in block.atoms(sp.sinc)}
    variables = set().union(*(block.free_symbols for block in blocks))
    for u in arguments:
        square = sp.expand(u ** 2)
        if square == 0 or not square.is_polynomial(*variables):
            return None
    if any(continuity_obstacle(entry, variables) is not None
           for block in blocks for entry in block):
        return None
    expanded = [sp.ImmutableMatrix(b.replace(sp.sinc, lambda u: sp.sin(u) / u)) for b in blocks]
    half = len(_blocks_of(lhs))
    off_zeros = verify(block_claim(expanded[:half]), block_claim(expanded[half:]),
                       budget=clock.left())
    if not off_zeros.proved:
        return None
    return Verdict(PROVED, lhs, rhs, method="sinc(u) = sin(u)/u where u != 0 and continuity where u = 0 (a set with "
                   f"empty interior); {off_zeros.method}",
                   seconds=verdict.seconds + off_zeros.seconds,
                   cross_checks=off_zeros.cross_checks)


def combine(verdicts: list[Verdict]) -> str:
    statuses = {v.status for v in verdicts}
    if REFUTED in statuses:
        return REFUTED
    return UNDECIDED if UNDECIDED in statuses else PROVED


def methods(verdicts: list[Verdict]) -> str:
    """The rewrites that did the work (entries that were literally equal are not a method)."""
    pieces = list(dict.fromkeys(piece.strip().split(",")[0] for v in verdicts if v.method
                                for piece in v.method.split(";") if "cross-check" not in piece))
    working = [piece for piece in pieces if piece != "identical"]
    return "; ".join(working or pieces)


_SCALE_PROBE_SEED = 7


def _claim_entries(side) -> list:
    if isinstance(side, sp.BlockDiagMatrix):
        return [e for block in side.diag for e in sp.ImmutableMatrix(block)]
    if isinstance(side, sp.MatrixBase):
        return list(side)
    return [side]


def probe_across_scales(lhs, rhs, positions) -> Verdict | None:
    """A refutation at positions far from the engine's first points, or None.

    The engine's shared sampler sweeps each position symbol in turn across its special values
    (the claim's breakpoints and thresholds, at and beside them) and ``+-10**k`` for
    k = -9..9, the other symbols drawn as usual (:func:`symrope.engine.sweep`). A
    point counts only as the engine's points do: rigorous arithmetic encloses the difference
    away from zero, at exact rational coordinates inside the claim's real domain.
    """
    left, right = _claim_entries(lhs), _claim_entries(rhs)
    # (flat index, lhs entry, rhs entry): the index is kept, since equal entries elsewhere
    # would make a search by value report the wrong one
    pairs = [(flat, a, b) for flat, (a, b) in enumerate(zip(left, right))
             if not is_literal_zero(a - b)]
    if not pairs:
        return None
    differences = [a - b for _, a, b in pairs]
    symbols = [s for s in positions if any(s in d.free_symbols for d in differences)]
    try:
        for point in sweep(random.Random(_SCALE_PROBE_SEED), *differences, symbols=symbols):
            for flat, a, b in pairs:
                (evaluation,) = evaluate(a, b, point)
                if evaluation.clearly_nonzero:
                    return refutation(lhs, rhs, point, evaluation, _entry_of(lhs, flat),
                                      "exact counterexample from a sweep of the positions "
                                      "across scales and breakpoints;")
    except Unsampleable:
        return None
    return None


def _entry_of(side, flat: int):
    """The (row, column), or (block, row, column), of the ``flat``-th entry of a claim."""
    if isinstance(side, sp.BlockDiagMatrix):
        for block_index, block in enumerate(side.diag):
            rows, cols = block.shape
            if flat < rows * cols:
                return (block_index, *divmod(flat, cols))
            flat -= rows * cols
    if isinstance(side, sp.MatrixBase):
        return divmod(flat, side.shape[1])
    return None
