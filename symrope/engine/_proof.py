"""Theorems as ordered steps: checked claims, definitions and cited lemmas.

A :class:`Theorem` is *proved* when every checked step got the verdict it expects (usually
``proved``; a step may instead expect ``refuted``, as when a theorem states that a claim is
false and exhibits the counterexample). Cited lemmas (analytic facts the CAS cannot check)
are named, referenced and counted apart from checked steps, never silently trusted.

Not every checked step says something. A step whose hypothesis *is* its claim proves nothing:
:meth:`Theorem.prove` refuses it (verdict ``undecided``), whatever the engine would say. A step
whose two sides are already identical (a value computed while the theorem was built, such as a
limit evaluated to ``1`` and compared with ``1``) or become identical once its hypotheses are
substituted is sound but has no *content*: it is counted as checked, not as a content step.
A step may also name the ``instance`` it checks (an example matrix, one order of a series) so
that a reader can tell instances from general statements.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from symrope._typing import ClaimSide
from symrope.errors import UsageError
from symrope.engine._premises import check_premises
from symrope.engine._reasons import UndecidedReason
from symrope.engine._verdict import PROVED, REFUTED, UNDECIDED, Verdict, plain_text
from symrope.engine._verify import _normalise, _rewrites, verify

__all__ = ["Step", "Theorem", "ProofReport", "CHECKED", "DEFINITION", "CITED",
           "assumes_its_claim", "has_content"]

CHECKED, DEFINITION, CITED = "checked", "definition", "cited"
DEFAULT_STEP_BUDGET = 10.0


@dataclass
class Step:
    """One step of a proof.

    ``kind`` is ``"checked"`` (``lhs = rhs`` decided by :func:`symrope.verify`),
    ``"definition"`` (``lhs := rhs``, a name given to an expression) or ``"cited"`` (a lemma
    taken from the literature, with its ``reference``). ``justification`` is the short human
    reason rendered beside the step in derivations. ``display`` optionally gives LaTeX for the
    two sides where the real objects are too large to print (a 4096x4096 block matrix).
    ``instance`` says which instance a checked step is (``"2x2 example X = lambda I + N"``,
    ``"order 6"``) when it checks an example of a general fact rather than the fact itself.
    """

    kind: str
    claim: str
    justification: str
    lhs: Any = None
    rhs: Any = None
    reference: str | None = None
    expect: str = PROVED
    assumptions: tuple = ()
    budget: float | None = None
    display: tuple[str, str] | None = None
    instance: str | None = None

    def statement(self) -> str:
        return self.claim


def _rewritten_sides(step: Step):
    """The two sides as the engine sees them: normalised, then every hypothesis substituted."""
    lhs, rhs = _normalise(step.lhs), _normalise(step.rhs)
    rewrites = _rewrites(step.assumptions)
    if rewrites:
        # The same substitution verify() performs, so "identical" means identical to the engine.
        lhs, rhs = lhs.subs(list(rewrites.items())), rhs.subs(list(rewrites.items()))
    return lhs, rhs, rewrites


def _same(a, b) -> bool:
    """``a`` and ``b`` are the same expression, up to SymPy's canonical evaluation."""
    if a == b:
        return True
    if isinstance(a, sp.MatrixExpr) != isinstance(b, sp.MatrixExpr):
        return False
    try:
        difference = (a - b).doit() if isinstance(a, sp.MatrixExpr) else sp.expand(a - b)
    except (TypeError, ValueError, AttributeError, sp.ShapeError):
        return False
    if isinstance(difference, sp.MatrixExpr):
        return isinstance(difference, sp.ZeroMatrix) or sp.expand(difference) == 0 or \
            isinstance(sp.expand(difference), sp.ZeroMatrix)
    return difference == 0


def assumes_its_claim(step: Step) -> bool:
    """Whether one of the step's hypotheses is the step's own claim ``lhs = rhs`` (either way).

    Such a step "proves" its claim by substituting it: the engine would see two identical
    sides. :meth:`Theorem.prove` refuses it.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._proof import Step, assumes_its_claim
    >>> A, B, C = [sp.MatrixSymbol(name, 2, 2) for name in "ABC"]
    >>> assumes_its_claim(Step("checked", "AB = I", "", lhs=A*B, rhs=sp.Identity(2),
    ...                        assumptions=(sp.Eq(A*B, sp.Identity(2)),)))
    True
    >>> assumes_its_claim(Step("checked", "ABC = A", "", lhs=A*B*C, rhs=A,
    ...                        assumptions=(sp.Eq(B*C, sp.Identity(2)),)))
    False
    """
    if step.kind != CHECKED or not step.assumptions:
        return False
    lhs, rhs = _normalise(step.lhs), _normalise(step.rhs)
    for before, after in _rewrites(step.assumptions).items():
        if (_same(before, lhs) and _same(after, rhs)) or (_same(before, rhs) and _same(after, lhs)):
            return True
    return False


def has_content(step: Step) -> bool:
    """Whether a checked step asks the engine anything: its sides differ after the rewrites.

    ``False`` for a step whose sides were equal as built (a value computed while building the
    theorem, compared with itself) or become identical once its hypotheses are substituted (a
    pure substitution, sound but saying nothing beyond the hypothesis), and for a step that
    assumes its claim.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._proof import Step, has_content
    >>> x = sp.Symbol('x', real=True)
    >>> has_content(Step("checked", "1 = 1", "", lhs=sp.limit(sp.sin(x)/x, x, 0), rhs=1))
    False
    >>> has_content(Step("checked", "limit", "", lhs=sp.Limit(sp.sin(x)/x, x, 0), rhs=1))
    True
    """
    if step.kind != CHECKED or assumes_its_claim(step):
        return False
    return _differs_after_rewrites(step)


def _differs_after_rewrites(step: Step) -> bool:
    lhs, rhs, _ = _rewritten_sides(step)
    return lhs != rhs


@dataclass
class StepResult:
    step: Step
    verdict: Verdict | None  # None for definitions and cited lemmas
    content: bool | None = None  # checked steps: see has_content
    premises: str | None = None  # steps with hypotheses: the witness, or why none (_premises)

    @property
    def ok(self) -> bool:
        return self.verdict is None or self.verdict.status == self.step.expect

    @property
    def status(self) -> str:
        if self.verdict is None:
            return self.step.kind  # "definition" / "cited": nothing was decided
        if self.ok:
            return self.verdict.status
        return self.verdict.status


@dataclass
class ProofReport:
    """The outcome of :meth:`Theorem.prove`."""

    theorem: "Theorem"
    results: list[StepResult]
    seconds: float

    @property
    def verdict(self) -> str:
        checked = [r for r in self.results if r.verdict is not None]
        if all(r.ok for r in checked):
            return PROVED
        # A step got the opposite of what it expects, with evidence (a counterexample or a proof).
        if any(not r.ok and r.verdict.status != UNDECIDED for r in checked):
            return REFUTED
        return UNDECIDED

    @property
    def proved(self) -> bool:
        return self.verdict == PROVED

    @property
    def checked_steps(self) -> int:
        return sum(1 for r in self.results if r.step.kind == CHECKED)

    @property
    def content_steps(self) -> int:
        """Checked steps with content (see :func:`has_content`)."""
        return sum(1 for r in self.results if r.step.kind == CHECKED and r.content)

    @property
    def instance_steps(self) -> int:
        """Checked steps that check a named instance of a general fact."""
        return sum(1 for r in self.results if r.step.kind == CHECKED and r.step.instance)

    @property
    def cited_lemmas(self) -> int:
        return sum(1 for r in self.results if r.step.kind == CITED)

    @property
    def definitions(self) -> int:
        return sum(1 for r in self.results if r.step.kind == DEFINITION)

    def failures(self) -> list[StepResult]:
        return [r for r in self.results if not r.ok]

    def to_dict(self) -> dict:
        return {
            "name": self.theorem.name,
            "statement": self.theorem.statement,
            "parameters": {k: str(v) for k, v in self.theorem.params.items()},
            "verdict": self.verdict,
            "checked_steps": self.checked_steps,
            "content_steps": self.content_steps,
            "instance_steps": self.instance_steps,
            "cited_lemmas": self.cited_lemmas,
            "steps": [
                {"kind": r.step.kind,
                 "verdict": r.verdict.status if r.verdict else r.step.kind,
                 "expected": r.step.expect if r.step.kind == CHECKED else None,
                 "claim": r.step.claim,
                 "justification": r.step.justification,
                 **({"content": r.content} if r.step.kind == CHECKED else {}),
                 **({"instance": r.step.instance} if r.step.instance else {}),
                 **({"reference": r.step.reference} if r.step.reference else {}),
                 **({"evidence": {**r.verdict.to_dict(),
                                  **({"premises": r.premises} if r.premises else {})}}
                    if r.verdict else {})}
                for r in self.results],
            "seconds": round(self.seconds, 4),
        }

    def explain(self) -> str:
        """Several lines: the verdict, then each step that did not get its expected verdict."""
        lines = [f"{self.theorem.name}: {self.verdict} ({self.checked_steps} checked steps, "
                 f"{self.content_steps} with content, {self.cited_lemmas} cited lemmas, "
                 f"{self.seconds:.2f} s)"]
        for r in self.failures():
            lines.append(f"  step {r.step.claim!r} expected {r.step.expect}: {r.verdict.explain()}")
        return "\n".join(lines)

    __str__ = explain



@dataclass
class Theorem:
    """A named statement with hypotheses and an ordered list of steps.

    Build one, add steps with :meth:`define`, :meth:`check` and :meth:`cite`, then call
    :meth:`prove`. The words of a theorem (statement, hypotheses, summary, justifications,
    cited claims) are prose with inline math between dollar signs, LaTeX math mode as in a
    paper (``"block by block, with $a = s\\omega_i$"``): derivations typeset the math and print
    the words literally (``\\$`` is a dollar sign). ``title`` is the heading in words.

    Examples
    ========

    >>> from sympy import symbols, cos, sin, Matrix
    >>> from symrope.engine import Theorem
    >>> phi, psi = symbols('phi psi', real=True)
    >>> R = lambda a: Matrix([[cos(a), -sin(a)], [sin(a), cos(a)]])
    >>> thm = Theorem("rotation_composition", "R(phi) R(psi) = R(phi + psi)")
    >>> thm.define("R(a)", R(symbols('a')), "the 2x2 rotation by angle a")
    >>> thm.check(R(phi) * R(psi), R(phi + psi), "angle addition formulas")
    >>> report = thm.prove()
    >>> report.verdict, report.checked_steps
    ('proved', 1)
    """

    name: str
    statement: str
    hypotheses: list[str] = field(default_factory=list)
    params: dict = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    statement_latex: str | None = None
    summary: str | None = None
    title: str | None = None
    # built by the built-in library's registered builder (symrope.theorems), not merely named
    # like one: only then do the library's companions (its whole Coq statement) describe it
    built_in: bool = False

    def define(self, name: str, value: object, justification: str, *,
               display: tuple | None = None) -> None:
        """Record ``name := value`` (nothing to check: a definition introduces notation)."""
        self.steps.append(Step(DEFINITION, f"{name} := {_short(value)}", justification,
                               lhs=name, rhs=value, display=display))

    def check(self, lhs: ClaimSide, rhs: ClaimSide, justification: str, *,
              claim: str | None = None,
              assumptions: Iterable[sp.Basic | tuple[ClaimSide, ClaimSide]] = (), budget: float | None = None, expect: str = PROVED,
              display: tuple | None = None, instance: str | None = None) -> None:
        """Add the claim ``lhs = rhs``, to be decided by :func:`symrope.verify`.

        ``expect="refuted"`` states that the claim is *false*: the step succeeds only with a
        counterexample. ``instance`` names the example when the step checks an instance of a
        general fact (it is shown beside the step and counted in the report).
        """
        if expect not in (PROVED, REFUTED):
            raise UsageError(f"a step can expect 'proved' or 'refuted', not {expect!r}")
        text = claim or f"{_short(lhs)} = {_short(rhs)}"
        self.steps.append(Step(CHECKED, text, justification, lhs=lhs, rhs=rhs, expect=expect,
                               assumptions=tuple(assumptions), budget=budget, display=display,
                               instance=instance))

    def cite(self, claim: str, reference: str, justification: str) -> None:
        """Add an analytic fact the CAS cannot check, with its reference (counted separately)."""
        if not reference:
            raise UsageError(f"cited lemma {claim!r} needs a reference")
        self.steps.append(Step(CITED, claim, justification, reference=reference))

    def prove(self, budget: float | None = None, *, seed: int = 0) -> ProofReport:
        """Decide every checked step; ``budget`` (seconds) bounds the whole theorem."""
        start = time.monotonic()
        results = []
        for step in self.steps:
            if step.kind != CHECKED:
                results.append(StepResult(step, None))
                continue
            if assumes_its_claim(step):
                results.append(StepResult(step, Verdict.undecided_because(
                    UndecidedReason.ASSUMES_ITS_CLAIM, step.lhs, step.rhs), content=False))
                continue
            premises = check_premises(step.assumptions, step.lhs, step.rhs, seed=seed) \
                if step.assumptions else None
            if premises is not None and not premises.satisfiable:  # a vacuous implication
                results.append(StepResult(step, Verdict.undecided_because(
                    UndecidedReason.PREMISES_UNSATISFIED, step.lhs, step.rhs,
                    premises=premises.text()), content=False, premises=premises.text()))
                continue
            step_budget = step.budget or DEFAULT_STEP_BUDGET
            if budget is not None:
                step_budget = min(step_budget, max(budget - (time.monotonic() - start), 0.05))
            verdict = verify(step.lhs, step.rhs, assumptions=step.assumptions,
                             budget=step_budget, seed=seed)
            # has_content(step), less the assumes_its_claim test already answered above
            results.append(StepResult(step, verdict, content=_differs_after_rewrites(step),
                                      premises=premises.text() if premises else None))
        return ProofReport(self, results, time.monotonic() - start)



def _short(value, limit: int = 120) -> str:
    if isinstance(value, (sp.MatrixBase, sp.MatrixExpr)) and getattr(value, "shape", (0, 0))[0] > 8:
        return f"<{value.shape[0]}x{value.shape[1]} {type(value).__name__}>"
    text = plain_text(value) if isinstance(value, sp.Basic) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
