"""Kernel check of the whole built-in library with Coq: time and coverage, beside SymPy's time.

Run from the repository root (needs ``coqc``; MathComp for the symbolic matrix steps)::

    PYTHONPATH=$PWD python benchmarks/bench_kernel.py

Prints per theorem the kernel-checked / checked steps, then the seconds SymPy took to prove the
library, to export it to Coq, and coqc's wall-clock time, measured in this one run. The target
(issue 11) is the kernel check of the whole library under 60 s.
"""

from __future__ import annotations

import os
import time


def main() -> None:
    from symrope.kernel import check_exports, export_theorem
    from symrope.theorems import builtin_theorems

    builders = list(builtin_theorems().values())
    started = time.monotonic()
    cpu_started = os.times()
    theorems = [b.build() for b in builders]
    reports = [t.prove() for t in theorems]
    sympy_seconds = time.monotonic() - started
    started = time.monotonic()
    exports = [export_theorem(t) for t in theorems]
    export_seconds = time.monotonic() - started
    coqc_seconds = check_exports(exports)
    children = os.times()
    coqc_cpu = (children.children_user + children.children_system
                - cpu_started.children_user - cpu_started.children_system)

    width = max(len(e.name) for e in exports)
    print(f"{'theorem':<{width}}  {'coq':>6} {'trivial':>7} {'lemmas':>6}  not exported (first reason)")
    checked = steps = trivial = 0
    for export in exports:
        lemmas = sum(len(s.lemmas) + len(s.matrix_lemmas) for s in export.steps)
        flat = sum(1 for s in export.steps if s.trivial and s.kernel == "checked")
        reason = next((s.reason or s.detail for s in export.steps if s.kernel != "checked"), "")
        print(f"{export.name:<{width}}  {f'{export.checked}/{len(export.steps)}':>6} {flat:>7} "
              f"{lemmas:>6}  {(reason or '')[:70]}")
        checked, steps, trivial = checked + export.checked, steps + len(export.steps), \
            trivial + flat
    proved = sum(r.proved for r in reports)
    print(f"\nlibrary: {checked}/{steps} checked steps kernel-checked ({trivial} of them compare "
          f"sides SymPy had already made identical); {proved}/{len(reports)} theorems proved")
    print(f"SymPy build + prove: {sympy_seconds:6.1f} s")
    print(f"export to Coq:       {export_seconds:6.1f} s")
    print(f"coqc (wall):         {coqc_seconds:6.1f} s   (CPU {coqc_cpu:.1f} s; target < 60 s)")
    print(f"ratio coqc / SymPy:  {coqc_seconds / sympy_seconds:6.2f}")


if __name__ == "__main__":
    main()
