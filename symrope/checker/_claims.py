"""Deciding one claim for the checker: the engine's verdict, with the checker's two additions.

* Claims are pre-expanded when asked (an equivalence) so entries that agree term by term are
  seen as identical instead of sampled at 30 and 60 digits.
* ``sinc`` (which the engine's rewrites do not know) is handled by a density argument: the
  claim is proved where no ``sinc`` argument vanishes, and extended by continuity.
"""

from __future__ import annotations

import time

import sympy as sp

from symrope.engine import PROVED, REFUTED, UNDECIDED, Verdict, verify
from symrope.engine._exact import read_floats_exactly
from symrope.errors import UsageError
from symrope.checker._continuity import continuity_obstacle
from symrope.checker._structure import block_claim

__all__ = ["Clock", "decide", "combine", "methods"]

_MIN_STEP_BUDGET = 0.5


class Clock:
    """The whole check's budget; every engine call gets what is left (at least 0.5 s)."""

    def __init__(self, budget: float):
        self.start = time.monotonic()
        self.budget = budget

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float:
        return max(self.budget - self.elapsed(), _MIN_STEP_BUDGET)


def decide(lhs, rhs, clock: Clock, expand: bool = False) -> Verdict:
    """``symrope.verify(lhs, rhs)`` within the check's budget (see the module docstring)."""
    # Not for trigonometric claims: expanding there splits the engine's constant templates.
    if expand:  # Floats read exactly first: expanding multiplies them, and that rounds
        lhs, rhs = _expanded(read_floats_exactly(lhs)[0]), _expanded(read_floats_exactly(rhs)[0])
    try:
        verdict = verify(lhs, rhs, budget=clock.left())
    except UsageError as error:  # a dense block above the engine's explicit-size limit
        return Verdict(UNDECIDED, lhs, rhs, reason=f"a block is too large to decide: {error}")
    if verdict.undecided and _has_sinc(lhs, rhs):
        return _verify_through_sinc(lhs, rhs, verdict, clock) or verdict
    return verdict


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


def combine(verdicts) -> str:
    statuses = {v.status for v in verdicts}
    if REFUTED in statuses:
        return REFUTED
    return UNDECIDED if UNDECIDED in statuses else PROVED


def methods(verdicts) -> str:
    """The rewrites that did the work (entries that were literally equal are not a method)."""
    pieces = list(dict.fromkeys(piece.strip().split(",")[0] for v in verdicts if v.method
                                for piece in v.method.split(";") if "cross-check" not in piece))
    working = [piece for piece in pieces if piece != "identical"]
    return "; ".join(working or pieces)
