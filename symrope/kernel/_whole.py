"""Whole theorems in Coq: each theorem's statement, defined and proved in Coq, not only its steps.

The step lemmas (:mod:`symrope.kernel._export`) re-check what SymPy computed, one step at a
time and at the theorem's parameters. A *whole-theorem* file states the theorem itself in Coq:
the objects are defined there (the 2x2 rotation, ``R_d`` as a block diagonal over any frequency
function, the dot product, ``J``, xPos's scaling, ALiBi's matrices, the pairing permutation,
MathComp's matrices) and the statement is proved for every ``d`` where the Python statement
claims every ``d``. Facts of analysis the proof rests on (the matrix exponential's series,
continuity) are ``Hypothesis`` declarations of a ``Section``: the trusted part is a printed Coq
statement, listed in the JSON and the derivation, never prose.

The hand-written sources live in ``symrope/kernel/coq/`` as a Coq library with logical path
``Symrope`` (``coqc -Q symrope/kernel/coq Symrope FILE.v``). :func:`standalone_text` inlines
what a file requires from that library, so the exported ``NAME_theorem.v`` compiles with a
plain ``coqc``. :func:`check_whole` compiles it and runs ``Print Assumptions`` on every
``Theorem``: the theorem is ``checked`` only when ``coqc`` accepts the file and the assumptions
are the axioms Coq's real numbers rest on (and excluded middle), nothing else.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from symrope.kernel._translate import sanitise

__all__ = ["WholeTheorem", "WholeResult", "WHOLE_THEOREMS", "ALLOWED_AXIOMS", "whole_theorem",
           "standalone_text", "check_whole", "Hypothesis", "COQ_SOURCES"]

COQ_SOURCES = Path(__file__).parent / "coq"
_REQUIRE = re.compile(r"^From Symrope Require Import ([\w ]+)\.\n", re.MULTILINE)
_THEOREM = re.compile(r"^\s*Theorem (\w+)", re.MULTILINE)
_HYPOTHESIS = re.compile(r"(?:\(\*(?P<comment>(?:(?!\*\))[^\n]|\n)*?)\*\)\s*)?"
                         r"Hypothesis (?P<name>\w+) :\s*(?P<statement>[^.]*?)\.\s*$",
                         re.MULTILINE)
_VARIABLES = re.compile(r"^\s*Variables? (?P<text>[^.]*?)\.\s*$", re.MULTILINE)
_WITNESS = re.compile(r"^Lemma (\w+_satisfiable)\b", re.MULTILINE)
_ASSUMPTIONS_MARK = "symrope-assumptions"
_AXIOM_LINE = re.compile(r"^([A-Za-z_][\w.']*)(?: :|$)", re.MULTILINE)  # an entry, not its type

# What Coq 8.16's real numbers rest on (Rdefinitions is built from these), plus excluded
# middle; a whole theorem may use nothing else beyond its own named hypotheses.
ALLOWED_AXIOMS = frozenset({
    "ClassicalDedekindReals.sig_not_dec", "ClassicalDedekindReals.sig_forall_dec",
    "FunctionalExtensionality.functional_extensionality_dep", "Classical_Prop.classic"})


@dataclass(frozen=True)
class WholeTheorem:
    """Where a built-in theorem is stated whole in Coq, and what that statement says."""

    theorem: str    # the symrope theorem's name
    source: str     # the file in symrope/kernel/coq
    statement: str  # what the Coq file proves, in words (for the JSON and the derivation)
    # Section hypotheses that are the theorem's own premises (part of its statement, as in the
    # Python theorem); every other Hypothesis is a fact of analysis taken on trust.
    premises: tuple[str, ...] = ()


WHOLE_THEOREMS = {w.theorem: w for w in [
    WholeTheorem("group_law", "GroupLaw.v",
                 "over every commutative ring with units and every additive group of positions: "
                 "F(s)^T G(t) = H(t - s) and H(0) = I imply G(t) invertible, F(t)^T = G(t)^-1, "
                 "H(t - s) = G(s)^-1 G(t), H(a + b) = H(a) H(b) = H(b) H(a), "
                 "H(-a) = H(a)^-1", premises=("translation_invariance", "identity_at_zero")),
    WholeTheorem("general_solution", "GeneralSolution.v",
                 "over every commutative ring with units: F(s)^T G(t) = e^((t-s)X) forces "
                 "G(t) = C e^(tX), F(t) = C^-T e^(-tX^T) with C = G(0) invertible; conversely "
                 "every invertible C gives such a pair; F = G iff C^T C = I and X^T = -X"),
    WholeTheorem("rope_relative", "RopeRelative.v",
                 "for every d = 2m and every frequency function omega: R_d(s)^T R_d(t) = "
                 "R_d(t - s), (R_d(s) q)^T (R_d(t) k) = q^T R_d(t - s) k, and "
                 "R_d(p) = e^(pX) with X = diag(omega_i J)"),
    WholeTheorem("xpos_damped_rotation", "XposDampedRotation.v",
                 "F(s)^T G(t) = e^(lambda (t-s)) R(omega (t-s)) with F(p) = e^(-pX^T), "
                 "G(p) = e^(pX), X = lambda I + omega J; H(0) = I; the causal decay and the "
                 "growth H(delta)^T H(delta) = e^(2 lambda delta) I; for every d = 2m, every "
                 "frequency function and scale base B: 0 < zeta_i < 1, lambda_i > 0 and "
                 "xPos's score depends on t - s only; identical damping is not relative"),
    WholeTheorem("pairing_permutation", "PairingPermutation.v",
                 "for every d = 2m and every frequency function: P^T P = I, "
                 "R_half(p) = P R_inter(p) P^T, and q cos + rotate_half(q) sin = R_half(p) q"),
    WholeTheorem("nd_commuting_generators_relative", "NdCommuting.v",
                 "over every commutative ring with units, skew generators X1, X2: "
                 "[A(s), A(t)] = (s1 t2 - s2 t1)[X1, X2], and G(s)^T G(t) = G(t - s) for all "
                 "s, t if and only if X1 X2 = X2 X1", premises=("X1_skew", "X2_skew")),
    WholeTheorem("schedule_keeps_relative", "ScheduleKeepsRelative.v",
                 "for every d = 2m and every frequency schedule that does not depend on the "
                 "position: R_omega(s)^T R_omega(t) = R_omega(t - s), R_omega(p)^T R_omega(p) = I"),
    WholeTheorem("alibi_nilpotent", "AlibiNilpotent.v",
                 "for every number d of content coordinates: (F(s) q')^T (G(t) k') = "
                 "q^T k - m (s - t), F(s)^T G(t) = G(t - s), F(p)^T G(p) = I, N^2 = 0, "
                 "e^(pN) = I + pN and H'(0) = diag(0, N)"),
]}


@dataclass(frozen=True)
class Hypothesis:
    """A named hypothesis of a whole-theorem file: its Coq statement, the comment above it, and
    whether it is one of the theorem's own premises or a fact of analysis taken on trust."""

    name: str
    coq: str
    comment: str = ""
    premise: bool = False

    @property
    def kind(self) -> str:
        return "premise" if self.premise else "analytic"

    def to_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "coq": self.coq}
        if self.comment:
            out["comment"] = self.comment
        return out


@dataclass
class WholeResult:
    """What ``coqc`` said about one whole-theorem file."""

    theorem: str
    status: str = "not checked"   # "checked" / "rejected" once coqc ran
    statements: list[str] = field(default_factory=list)   # the Coq Theorems
    hypotheses: list[Hypothesis] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    witness: str | None = None    # a Coq lemma showing the hypotheses can all hold at once
    axioms: list[str] = field(default_factory=list)
    detail: str | None = None
    seconds: float = 0.0

    @property
    def analytic(self) -> list[Hypothesis]:
        """The hypotheses taken on trust (facts of analysis), not the theorem's own premises."""
        return [h for h in self.hypotheses if not h.premise]


def whole_theorem(name: str) -> WholeTheorem | None:
    """The whole-theorem file of the built-in theorem ``name``, or None (not stated)."""
    return WHOLE_THEOREMS.get(name)


@cache
def _source(file: str) -> str:
    return (COQ_SOURCES / file).read_text(encoding="utf-8")


def standalone_text(whole: WholeTheorem, *, source: str | None = None) -> str:
    """The file with everything it requires from the ``Symrope`` library inlined, once each:
    it compiles with a plain ``coqc``. ``source`` replaces the file's own text (tests tamper
    with it)."""
    seen: set[str] = set()

    def inline(text: str) -> str:
        def replace(match: re.Match) -> str:
            parts = []
            for module in match.group(1).split():
                if module not in seen:
                    seen.add(module)
                    parts.append(f"(* ---- inlined from the symrope library: {module}.v ---- *)\n"
                                 + inline(_source(f"{module}.v")))
            return "\n".join(parts)
        return _REQUIRE.sub(replace, text)

    body = inline(_source(whole.source) if source is None else source)
    return (f"(* symrope: theorem {whole.theorem}, stated whole and proved in Coq. Generated by "
            f"symrope export coq from symrope/kernel/coq/{whole.source}. *)\n" + body)


def describe(whole: WholeTheorem) -> WholeResult:
    """The statements, hypotheses and witness a whole-theorem file declares (before checking)."""
    text = _source(whole.source)
    hypotheses = [Hypothesis(m.group("name"), " ".join(m.group("statement").split()),
                             " ".join((m.group("comment") or "").split()),
                             premise=m.group("name") in whole.premises)
                  for m in _HYPOTHESIS.finditer(text)]
    variables = [" ".join(m.group("text").split()) for m in _VARIABLES.finditer(text)]
    witness = _WITNESS.search(text)
    return WholeResult(whole.theorem, statements=_THEOREM.findall(text), hypotheses=hypotheses,
                       variables=variables, witness=witness.group(1) if witness else None)


def _assumption_queries(statements: list[str]) -> str:
    return "".join(f'\nGoal True. idtac "{_ASSUMPTIONS_MARK} {name}". Abort.\n'
                   f"Print Assumptions {name}.\n" for name in statements)


def _axioms(output: str) -> dict[str, list[str]]:
    """Per statement, the axioms ``Print Assumptions`` listed (empty when closed)."""
    found: dict[str, list[str]] = {}
    blocks = output.split(_ASSUMPTIONS_MARK + " ")[1:]
    for block in blocks:
        name, _, rest = block.partition("\n")
        axioms = []
        if "Axioms:" in rest:
            listing = rest.split("Axioms:", 1)[1]
            axioms = _AXIOM_LINE.findall(listing)
        found[name.strip()] = axioms
    return found


def compile_text(coqc: str, text: str, *, name: str = "whole", timeout: float = 300.0,
                 directory: Path | None = None) -> tuple[bool, str]:
    """``coqc`` on ``text`` as a file of its own; ``(accepted, output)``."""
    with tempfile.TemporaryDirectory(prefix="symrope-whole-") as scratch:
        where = Path(directory) if directory is not None else Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{sanitise(name)}.v"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([coqc, "-q", "-w", "-notation-overridden,-ambiguous-paths",
                                   path.name], cwd=where, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, f"coqc ran past {timeout:g} s"
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def check_whole(coqc: str, whole: WholeTheorem, *, timeout: float = 300.0,
                source: str | None = None, directory: Path | None = None) -> WholeResult:
    """Compile the whole-theorem file and inspect what its theorems rest on."""
    result = describe(whole)
    started = time.monotonic()
    text = standalone_text(whole, source=source) + _assumption_queries(result.statements)
    ok, output = compile_text(coqc, text, name=f"{whole.theorem}_theorem", timeout=timeout,
                              directory=directory)
    result.seconds = time.monotonic() - started
    if not ok:
        result.status = "rejected"
        result.detail = _first_error(output)
        return result
    per_statement = _axioms(output)
    missing = [s for s in result.statements if s not in per_statement]
    extra = sorted({a for axioms in per_statement.values() for a in axioms} - ALLOWED_AXIOMS)
    result.axioms = sorted({a for axioms in per_statement.values() for a in axioms})
    if missing or extra:
        result.status = "rejected"
        result.detail = (f"Print Assumptions lists {', '.join(extra)}" if extra else
                         f"no assumptions printed for {', '.join(missing)}")
        return result
    result.status = "checked"
    return result


def _first_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    error = next((i for i, line in enumerate(lines) if line.startswith("Error")), None)
    if error is None:
        return (lines[-1] if lines else "coqc failed")[:200]
    return " ".join(lines[error:error + 2])[:200]
