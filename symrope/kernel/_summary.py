"""What the ``--kernel coq`` option of ``symrope prove`` and the LaTeX derivation need: check
exports with Coq, summarise them as JSON, mark the checked steps on a report.

Coverage is counted honestly: a step that is a reflexivity after build-time evaluation
(``trivial``) is counted apart and never as kernel coverage; the whole theorem is ``checked``
only when its statement, defined in Coq, compiled with nothing assumed beyond Coq's real
numbers and the file's named hypotheses (:mod:`symrope.kernel._whole`).
"""

from __future__ import annotations

from collections.abc import Iterable

from symrope.engine import ProofReport, Theorem
from symrope.kernel._coqc import check_exports
from symrope.kernel._export import TheoremExport, export_theorem
from symrope.kernel._whole import whole_theorem

__all__ = ["kernel_check", "kernel_summary", "mark_kernel_results", "theorem_summary"]


def kernel_check(theorems: Iterable[Theorem]) -> tuple[list[TheoremExport], float]:
    """Export and check ``theorems`` with Coq; returns ``(exports, coqc seconds)``."""
    exports = [export_theorem(t) for t in theorems]
    return exports, check_exports(exports)


def theorem_summary(export: TheoremExport) -> dict:
    """The whole theorem in Coq: status, where, what it says and what it rests on."""
    whole, stated = export.whole, whole_theorem(export.name)
    if whole is None or stated is None:
        return {"theorem": "not stated", "hypotheses": []}
    out = {"theorem": whole.status, "file": f"symrope/kernel/coq/{stated.source}",
           "statement": stated.statement, "coq_theorems": list(whole.statements),
           "hypotheses": [h.to_dict() for h in whole.hypotheses],
           "variables": list(whole.variables),
           "premises": (f"satisfiable (Coq witness: {whole.witness})" if whole.witness else
                        "no hypotheses" if not whole.hypotheses else
                        "not shown satisfiable in Coq (the analytic ones hold for the real "
                        "matrix exponential, cited)"),
           "assumptions": list(whole.axioms)}
    if whole.detail:
        out["detail"] = whole.detail
    return out


def kernel_summary(export: TheoremExport) -> dict:
    """The ``"kernel"`` entry of a theorem in ``symrope prove --json``."""
    return {"system": "coq", **theorem_summary(export),
            "nontrivial_checked": export.nontrivial_checked, "nontrivial": export.nontrivial,
            "trivial": export.trivial,
            "refuted_steps": sum(1 for s in export.steps if s.expects_refuted),
            "exported": export.exported, "checked_steps": len(export.steps),
            "steps": [s.to_dict() for s in export.steps]}


def mark_kernel_results(report: ProofReport, export: TheoremExport) -> None:
    """Record on each step result of ``report`` what Coq made of it, and on the report the
    whole theorem's Coq statement and hypotheses (the LaTeX derivation prints both).

    A step's ``kernel`` is ``"checked"`` only for a non-trivial step Coq accepted; a trivial
    one (a reflexivity after build-time evaluation) is ``"trivial"``, never marked as
    kernel-checked.
    """
    by_index = {s.index: s for s in export.steps}
    for index, result in enumerate(report.results):
        step = by_index.get(index)
        kernel = step.kernel if step is not None else None
        if kernel == "checked" and step.trivial:
            kernel = "trivial"
        result.kernel = kernel
    report.kernel_theorem = theorem_summary(export)
