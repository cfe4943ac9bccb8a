"""``diff(a, b)``: the decision, the config keys to blame, and the report (text, JSON, LaTeX)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from symrope._cliutil import EXIT_PROVED, EXIT_REFUTED, EXIT_UNDECIDED
from symrope.errors import UsageError

__all__ = ["DiffReport", "diff", "VERDICTS"]

#: verdict -> exit code
VERDICTS = {"same": EXIT_PROVED, "same_up_to_basis": EXIT_PROVED, "different": EXIT_REFUTED,
            "undecided": EXIT_UNDECIDED}


def _side(encoding) -> dict:
    info = encoding.lift_info
    library = info.get("library") or {}
    side = {"name": encoding.name, "spec": info.get("spec"),
            "library": library.get("name"), "version": library.get("version"),
            "head_dim": encoding.dim, "position_dims": encoding.position_dims,
            "layout": (info.get("layout") or {}).get("text", ""),
            "settings": info.get("settings"), "config": info.get("config"),
            "hazards": [h.get("text", str(h)) if isinstance(h, dict) else str(h)
                        for h in info.get("hazards", [])],
            "notes": list(info.get("notes", []))}
    if info.get("layer_type"):
        side["layer_type"] = info["layer_type"]
    if info.get("saved"):
        side["saved"] = info["saved"]
    return side


@dataclass
class DiffReport:
    """The answer to "are A and B the same RoPE?" (``verdict`` is one of :data:`VERDICTS`)."""

    a: dict
    b: dict
    verdict: str
    basis: dict | None = None
    rounding: dict | None = None
    differences: list = field(default_factory=list)
    responsible: list = field(default_factory=list)
    responsible_why: str = ""
    counterexample: dict | None = None
    invariant: dict | None = None
    reason: str = ""
    seconds: float = 0.0
    audit: dict | None = None

    @property
    def exit_code(self) -> int:
        return VERDICTS[self.verdict]

    def to_dict(self) -> dict:
        document = {"verdict": self.verdict, "a": self.a, "b": self.b, "basis": self.basis,
                    "rounding": self.rounding,
                    "differences": [d for d in self.differences if not d.get("absorbed")],
                    "pairing": next((d for d in self.differences if d.get("absorbed")), None),
                    "responsible": self.responsible, "responsible_why": self.responsible_why,
                    "counterexample": self.counterexample, "invariant": self.invariant,
                    "reason": self.reason or None, "seconds": round(self.seconds, 3)}
        if self.audit is not None:
            document["audit"] = self.audit
        return document

    def table(self) -> str:
        lines = []
        for letter, side in (("A", self.a), ("B", self.b)):
            version = f" {side['version']}" if side.get("version") else ""
            lines.append(f"{letter}: {side['name']} [{side.get('library') or 'user code'}"
                         f"{version}; {side['layout'] or 'no rotation pairs'}]")
        lines.append(f"verdict: {self.verdict} ({self.seconds:.2f} s)")
        if self.basis:
            lines.append(f"  basis: {self.basis['text']}")
        if self.rounding:
            lines.append(f"  rounding: {self.rounding['text']}")
        for difference in self.differences:
            label = "layout" if difference.get("absorbed") else "differs"
            lines.append(f"  {label}: {difference['text']}")
        if self.verdict == "different" or self.responsible:
            blamed = ", ".join(self.responsible) or "none"
            lines.append(f"  responsible: {blamed} ({self.responsible_why})")
        if self.counterexample:
            lines.append(f"  counterexample: {self.counterexample['text']}")
        if self.invariant:
            lines.append(f"  for every basis: {self.invariant['text']}")
        if self.reason:
            lines.append(f"  reason: {self.reason}")
        if self.audit:
            lines += ["  " + line for line in self.audit["table"].splitlines()]
        for letter, side in (("A", self.a), ("B", self.b)):
            for hazard in side["hazards"][:3]:
                lines.append(f"  precision hazard ({letter}): {hazard}")
            for note in side["notes"][:4]:
                lines.append(f"  note ({letter}): {note}")
        return "\n".join(lines)


def _rounding_allowed(a: dict | None, b: dict | None) -> bool:
    """Constants that differ are rounding unless both configs say they should differ."""
    from symrope.diff._settings import differing_keys

    if a is None or b is None:
        return True
    return not differing_keys(a, b)


def diff(a, b, *, budget: float = 60.0) -> DiffReport:
    """Whether two lifted encodings are the same RoPE, decided exactly.

    Parameters
    ==========

    a, b : LiftedEncoding
        From :func:`symrope.diff.resolve` (code or a saved lift).
    budget : float
        Seconds for the exact comparison and, for a difference, its certificates.

    Returns
    =======

    DiffReport
        ``verdict`` ``same`` (every row of B is A's, exactly), ``same_up_to_basis`` (after the
        signed permutation in ``basis``), ``different`` (``differences``, a certified
        ``counterexample``, the certified trace ``invariant`` and the ``responsible`` config
        keys) or ``undecided`` (``reason``).

    Examples
    ========

    >>> import torch
    >>> from symrope.lifting import lift
    >>> from symrope.diff import diff
    >>> def half(q, k, positions, w=0.5):
    ...     angle = positions[:, None].float() * w
    ...     cos, sin = angle.cos(), angle.sin()
    ...     turn = lambda v: torch.cat((v[..., :1] * cos - v[..., 1:] * sin,
    ...                                 v[..., :1] * sin + v[..., 1:] * cos), dim=-1)
    ...     return turn(q), turn(k)
    >>> diff(lift(half, 2), lift(half, 2)).verdict
    'same'
    >>> report = diff(lift(half, 2), lift(lambda q, k, p: half(q, k, p, 0.25), 2))
    >>> report.verdict, report.differences[0]["kind"]
    ('different', 'frequency')
    """
    from symrope.diff._decide import decide
    from symrope.diff._evidence import explain
    from symrope.diff._settings import responsible

    if a.dim != b.dim:
        raise UsageError(f"A has head dimension {a.dim}, B {b.dim}: encodings of different "
                         "widths are not compared")
    if a.position_dims != b.position_dims:
        raise UsageError(f"A has {a.position_dims} position axes, B {b.position_dims}")
    start = time.monotonic()
    settings_a, settings_b = a.lift_info.get("settings"), b.lift_info.get("settings")
    allowed = _rounding_allowed(settings_a, settings_b)

    def on_difference(decision, *args):
        explain(decision, *args, rounding_allowed=allowed)

    decision = decide(a, b, rounding_allowed=allowed, budget=budget,
                      on_difference=on_difference)
    layouts = ((a.lift_info.get("layout") or {}).get("text", ""),
               (b.lift_info.get("layout") or {}).get("text", ""))
    report = DiffReport(_side(a), _side(b), decision.verdict,
                        basis=decision.basis.to_dict(layouts) if decision.basis else None,
                        rounding=decision.rounding, differences=decision.differences,
                        counterexample=decision.counterexample, invariant=decision.invariant,
                        reason=decision.reason)
    if decision.verdict == "different":
        report.responsible, report.responsible_why = responsible(settings_a, settings_b,
                                                                 decision.differences)
    report.seconds = time.monotonic() - start
    return report
