"""What the ``--kernel coq`` option of ``symrope prove`` and the LaTeX margin marks need: check
exports with Coq, summarise them as JSON, mark the checked steps on a report."""

from __future__ import annotations

from collections.abc import Iterable

from symrope.engine import ProofReport, Theorem
from symrope.kernel._coqc import check_exports
from symrope.kernel._export import TheoremExport, export_theorem

__all__ = ["kernel_check", "kernel_summary", "mark_kernel_results"]


def kernel_check(theorems: Iterable[Theorem]) -> tuple[list[TheoremExport], float]:
    """Export and check ``theorems`` with Coq; returns ``(exports, coqc seconds)``."""
    exports = [export_theorem(t) for t in theorems]
    return exports, check_exports(exports)


def kernel_summary(export: TheoremExport) -> dict:
    """The ``"kernel"`` entry of a theorem in ``symrope prove --json``."""
    return {"system": "coq", "checked": export.checked, "exported": export.exported,
            "checked_steps": len(export.steps),
            "trivial": sum(1 for s in export.steps if s.trivial and s.kernel == "checked"),
            "steps": [s.to_dict() for s in export.steps]}


def mark_kernel_results(report: ProofReport, export: TheoremExport) -> None:
    """Record on each step result of ``report`` whether Coq checked it (the LaTeX derivation
    marks those steps "checked + Coq" in the margin)."""
    by_index = {s.index: s.kernel for s in export.steps}
    for index, result in enumerate(report.results):
        result.kernel = by_index.get(index)
