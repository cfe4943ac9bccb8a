"""The result of checking an encoding: one verdict per assumption, then the generator."""

from __future__ import annotations

from dataclasses import dataclass, field

from symrope._cliutil import VERDICT_EXIT_CODES as EXIT_CODES
from symrope.checker._classify import describe
from symrope.checker._counterexample import Counterexample
# the exact values of a report have their own home; named here too for code that read them here
from symrope.checker._shown import Shown, exact_of, show
from symrope.engine import PROVED, REFUTED, UNDECIDED, UndecidedReason

__all__ = ["AssumptionResult", "CheckReport", "ASSUMPTIONS", "ASSUMPTION_TITLES", "EXIT_CODES",
           "Shown", "show", "exact_of"]

ASSUMPTIONS = ("linearity", "translation_invariance", "identity_at_zero", "continuity")
# each assumption in words, as the terminal's table (and the lift's assertions) name it
ASSUMPTION_TITLES = {"linearity": "linearity", "translation_invariance": "translation invariance",
           "identity_at_zero": "identity at zero offset", "continuity": "continuity"}


@dataclass
class AssumptionResult:
    """The verdict on one assumption, with its evidence in the user's terms.

    ``counterexample`` (only when refuted) is a typed :class:`~symrope.checker.Counterexample`:
    the positions, content vectors and the two values that should have agreed (or the point of
    discontinuity); its ``to_dict()`` is the JSON. ``undecided_reason`` (only when undecided)
    names why, as an :class:`~symrope.engine.UndecidedReason` (``reason_code`` in the JSON).
    ``verdicts`` are the engine's :class:`~symrope.engine.Verdict` objects behind the verdict.
    ``proof`` says how a proved verdict was reached, as data (``route``: ``matrices``,
    ``superposition``, ``exponential``, ``blocks``, ``score``, ``composition`` or
    ``extension``, with the block count, the rewrites, the engine's ``methods``): what the
    LaTeX report typesets, where ``evidence`` is the sentence the terminal prints.
    """

    name: str
    verdict: str
    evidence: str
    counterexample: Counterexample | None = None
    verdicts: list = field(default_factory=list)
    seconds: float = 0.0
    proof: dict | None = None
    undecided_reason: UndecidedReason | None = None

    def to_dict(self) -> dict:
        out = {"verdict": self.verdict,
               "counterexample": None if self.counterexample is None else
               self.counterexample.to_dict(),
               "evidence": self.evidence, "seconds": round(self.seconds, 4)}
        if self.proof is not None:
            out["proof"] = self.proof
        if self.verdict == UNDECIDED and self.undecided_reason is not None:
            out["reason_code"] = self.undecided_reason.value
        return out


@dataclass
class CheckReport:
    """What :func:`symrope.check` found about an encoding.

    Attributes
    ==========

    assumptions : dict
        ``name -> AssumptionResult`` for ``linearity``, ``translation_invariance``,
        ``identity_at_zero`` and ``continuity``.
    generator : dict or None
        When all four are proved: the generator blocks (one set per position axis), the
        verification of ``H(d) = e^{dX}``, whether ``X`` is skew (a pure rotation) and, for
        several axes, whether the generators commute.
    classification : dict or None
        The real Jordan form of each generator, grouped by behaviour (rotation planes, damped
        rotations, decay, growth, Jordan blocks, nilpotent shears, zero directions).
    """

    encoding: str
    dim: int
    position_dims: int
    assumptions: dict
    generator: dict | None = None
    classification: dict | None = None
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    lift: dict | None = None  # what symrope.lift adds: the code's layout, frequencies, casts
    uniform_scale: dict | None = None  # F(p)^T G(p) = c^2 I (an attention factor): _scale.py
    noncommuting: dict | None = None   # why n-d translation invariance failed: _scale.py
    hazards: list | None = None        # precision hazards of lifted code (file:line)
    audit: dict | None = None          # symrope check --audit: the same callable's audit summary

    @property
    def verdict(self) -> str:
        """``refuted`` if any assumption is, else ``undecided`` if any is, else ``proved``."""
        statuses = {a.verdict for a in self.assumptions.values()}
        if REFUTED in statuses:
            return REFUTED
        if UNDECIDED in statuses:
            return UNDECIDED
        return PROVED

    @property
    def scaled(self) -> bool:
        """Relative up to a uniform scale: identity at zero offset refuted only by ``c^2 I``."""
        others = [a.verdict for n, a in self.assumptions.items() if n != "identity_at_zero"]
        return bool(self.uniform_scale) and self.uniform_scale.get("verdict") == PROVED and \
            all(v == PROVED for v in others)

    @property
    def headline(self) -> str:
        """The verdict as the report's first line says it (a uniform scale is not "refuted")."""
        if self.scaled:
            return f"relative up to a uniform scale c^2 = {self.uniform_scale['c2_value']}"
        return self.verdict

    @property
    def exit_code(self) -> int:
        """0 proved (or relative up to a uniform scale), 1 refuted, 3 undecided."""
        return EXIT_CODES[PROVED] if self.scaled else EXIT_CODES[self.verdict]

    def verdicts(self) -> dict:
        """``assumption -> verdict``, the four answers at a glance."""
        return {name: result.verdict for name, result in self.assumptions.items()}

    def to_dict(self) -> dict:
        document = {"encoding": self.encoding, "dim": self.dim,
                    "position_dims": self.position_dims, "verdict": self.verdict,
                    "assumptions": {n: self.assumptions[n].to_dict() for n in ASSUMPTIONS},
                    "generator": self.generator, "classification": self.classification,
                    "notes": list(self.notes), "seconds": round(self.seconds, 4)}
        if self.lift is not None:
            document["lift"] = self.lift
        if self.uniform_scale is not None:
            document["uniform_scale"] = self.uniform_scale
        if self.noncommuting is not None:
            document["noncommuting"] = self.noncommuting
        if self.hazards is not None:
            document["hazards"] = list(self.hazards)
        if self.audit is not None:
            document["audit"] = self.audit
        document["headline"] = self.headline
        return document

    def table(self) -> str:
        """The report as the ``symrope check`` command prints it."""
        axes = "axis" if self.position_dims == 1 else "axes"
        lines = [f"{self.encoding}: dim {self.dim}, {self.position_dims} position {axes} "
                 f"-> {self.headline} ({self.seconds:.2f} s)",
                 f"  {'assumption':<26}{'verdict':<11}evidence"]
        for name in ASSUMPTIONS:
            result = self.assumptions[name]
            lines.append(f"  {ASSUMPTION_TITLES[name]:<26}{result.verdict:<11}{result.evidence}")
            if result.counterexample:
                lines.append(f"  {'':<26}{'':<11}counterexample: "
                             f"{result.counterexample.summary}")
        if self.uniform_scale and self.uniform_scale.get("c2"):
            scale = self.uniform_scale
            lines.append(f"  {'attention factor':<26}{scale['verdict']:<11}relative up to a "
                         f"uniform scale c^2 = {scale['c2']} ({scale['c2_value']}): "
                         f"{scale['evidence']}")
        for note in self.notes:
            lines.append(f"  note: {note}")
        for hazard in self.hazards or []:
            lines.append(f"  precision hazard: {hazard['text']}")
        if self.audit is not None:
            lines.append(f"  {self.audit['text']}")
        generator, classification = self.generator, self.classification
        if generator is None and self.scaled and self.uniform_scale.get("generator"):
            lines.append(f"  the normalised encoding F, G / c^2 (c^2 = {self.uniform_scale['c2']}):")
            generator = self.uniform_scale["generator"]
            classification = self.uniform_scale.get("classification")
        if generator:
            lines += _generator_lines(generator)
        if classification:
            for axis, groups in classification.items():
                prefix = "" if len(classification) == 1 else f"[{axis}] "
                lines += [f"  {prefix}{line}" for line in describe(groups)]
        return "\n".join(lines)

    __str__ = table


def _generator_lines(generator: dict) -> list[str]:
    lines = []
    for axis in generator["axes"]:
        blocks = axis["blocks"]
        picked = blocks if len(blocks) <= 4 else blocks[:2] + blocks[-1:]
        shown = [f"{b['indices']}: {b['matrix']}" for b in picked]
        if len(blocks) > 4:  # the first two, the last one, and where the rest are
            shown.insert(2, f"... {len(blocks) - 3} more (--json lists every block)")
        shown, more = ", ".join(shown), f" ({len(blocks)} blocks)" if len(blocks) > 4 else ""
        several = len(generator["axes"]) > 1
        name = f"X_{axis['axis']} = dH/dd_{axis['axis']}(0)" if several else "X = H'(0)"
        lines.append(f"generator {name}, block diagonal: {shown}{more}")
    form = "exp(sum_k d_k X_k)" if len(generator["axes"]) > 1 else "exp(d X)"
    lines.append(f"  H(d) = {form}: {generator['exponential']['verdict']} "
                 f"({generator['exponential']['evidence']})")
    skew = generator["pure_rotation"]
    lines.append(f"  pure rotation (X skew-symmetric): {skew['verdict']}"
                 + (" -- one shared orthogonal transform for q and k is possible"
                    if skew["verdict"] == PROVED else
                    " -- q and k need different transforms (F = G forces a rotation)"
                    if skew["verdict"] == REFUTED else ""))
    if generator.get("commute") is not None:
        lines.append(f"  generators commute: {generator['commute']['verdict']}")
    return lines
