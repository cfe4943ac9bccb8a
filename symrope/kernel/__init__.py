"""Kernel checking: theorems' checked steps re-proved by Coq (SymPy finds the proof, Coq checks it)."""

from symrope.kernel._certificate import NoCertificate, ScalarLemma, scalar_lemma
from symrope.kernel._coqc import KernelUnavailable, check_export, check_exports, find_coqc
from symrope.kernel._export import StepExport, TheoremExport, export_theorem
from symrope.kernel._translate import CoqPrinter, Untranslatable, sanitise
from symrope.kernel._summary import kernel_check, kernel_summary, mark_kernel_results

__all__ = ["export_theorem", "check_export", "check_exports", "find_coqc", "scalar_lemma",
           "sanitise", "CoqPrinter", "TheoremExport", "StepExport", "ScalarLemma",
           "Untranslatable", "NoCertificate", "KernelUnavailable", "mark_kernel_results",
           "kernel_check", "kernel_summary"]
