"""``symrope prove`` (theorems proved side by side in processes) and ``symrope list``."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from symrope._cliutil import exit_code
from symrope.cli._common import ArgumentParser, add_budget, check_budget, dump_json
from symrope.cli._theorems import (add_names, add_param, build_theorem, parameters_text,
                                   theorem_tasks)
from symrope.errors import UsageError


def prove_main(argv: list[str]) -> int:
    """Run ``symrope prove``; returns the exit code of the verdicts (bad input: UsageError)."""
    parser = ArgumentParser(prog="symrope prove", description="Prove built-in theorems.")
    add_names(parser, "theorems (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_budget(parser, "seconds allowed for each theorem (default 60)")
    add_param(parser, example="d=4096")
    parser.add_argument("--kernel", choices=["coq"], default=None,
                        help="also re-check every exportable checked step with Coq's kernel "
                             "(needs coqc; proves in this process)")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="theorems proved side by side in N processes (default: the CPUs "
                             "this process may use); -j 1 proves in this process")
    args = parser.parse_args(argv)
    check_budget(args.budget)
    jobs = default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise UsageError(f"-j must be at least 1, got {args.jobs}")
    if args.kernel:
        from symrope.kernel import find_coqc

        find_coqc()  # before any proving: a missing coqc is one line and exit code 2
    tasks = [(builder.name, params) for builder, params in theorem_tasks(args.names, args.param)]
    width = max(len(name) for name, _ in tasks)
    if args.kernel:  # the Coq export needs the theorems themselves: one process
        reports = [_prove(name, params, args.budget) for name, params in tasks]
        return _finish_with_kernel(reports, args.json, width)
    jobs = min(jobs, len(tasks))
    outcomes, started = [], time.monotonic()
    for outcome in _outcomes(tasks, args.budget, args.json, jobs):
        outcomes.append(outcome)
        if not args.json:
            _print_row(outcome, width=width, first=len(outcomes) == 1)
    if args.json:
        return _finish(outcomes, [o.document for o in outcomes])
    _print_total(outcomes, wall=time.monotonic() - started, jobs=jobs)
    return _finish(outcomes)


def default_jobs() -> int:
    """The CPUs this process may run on (``os.process_cpu_count`` where Python has it)."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        return count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


@dataclass(frozen=True)
class _Outcome:
    """What the command prints of one proof: small, so a worker process sends it back cheaply."""
    name: str
    verdict: str
    checked_steps: int
    cited_lemmas: int
    seconds: float
    explanation: str
    document: dict | None  # report.to_dict(), for --json

    @property
    def proved(self) -> bool:
        return self.verdict == "proved"  # as report.proved (no engine import for --help)

    @classmethod
    def of(cls, report, as_json: bool) -> "_Outcome":
        return cls(report.theorem.name, report.verdict, report.checked_steps,
                   report.cited_lemmas, report.seconds, report.explain(),
                   report.to_dict() if as_json else None)


def _prove(name: str, params: dict, budget: float):
    from symrope.theorems import get_theorem

    started = time.monotonic()
    report = build_theorem(get_theorem(name), params).prove(budget=budget)
    report.seconds = time.monotonic() - started  # building can be the work (numeric theorems)
    return report


def _prove_outcome(name: str, params: dict, budget: float, as_json: bool) -> _Outcome:
    """One theorem, start to finish; runs on a worker process's main thread (the engine's
    deadline is a SIGALRM, which only a main thread receives)."""
    return _Outcome.of(_prove(name, params, budget), as_json)


def _outcomes(tasks: list, budget: float, as_json: bool, jobs: int):
    """Each theorem's outcome in the order of ``tasks``, as soon as it and those before it are
    done; ``jobs`` (at most one per task) processes prove them side by side."""
    # Workers are forked: they start with SymPy and the theorem library (and any theorem
    # registered at run time) already imported. Forking a process that runs other threads can
    # deadlock a child on a lock some thread held, so such a caller proves here, one at a time.
    if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods() or \
            threading.active_count() > 1:
        for name, params in tasks:
            yield _prove_outcome(name, params, budget, as_json)
        return
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))
    try:
        futures = [pool.submit(_prove_outcome, name, params, budget, as_json)
                   for name, params in tasks]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _print_total(outcomes, wall: float | None = None, jobs: int = 1) -> None:
    total = sum(o.seconds for o in outcomes)
    proved = sum(o.proved for o in outcomes)
    # side by side the theorems' own times add up to more than the wait: say both
    waited = f" ({wall:.2f} s wall)" if wall is not None and jobs > 1 else ""
    print(f"\n{proved}/{len(outcomes)} theorems proved in {total:.2f} s{waited}")


def _finish(outcomes: list, documents: list[dict] | None = None) -> int:
    """How ``symrope prove`` ends: with ``documents``, printed as one JSON document; without, why
    each theorem not proved is not (on stderr). Returns the exit code of the verdicts of
    ``outcomes`` (reports serve as well when ``documents`` are given)."""
    if documents is not None:
        dump_json({"theorems": documents})
    else:
        for outcome in outcomes:
            if not outcome.proved:
                print(outcome.explanation, file=sys.stderr)
    return exit_code(o.verdict for o in outcomes)


def _finish_with_kernel(reports, as_json: bool, width: int) -> int:
    from symrope.kernel import kernel_check, mark_kernel_results

    exports, kernel_seconds = kernel_check([r.theorem for r in reports])  # one per report
    for report, export in zip(reports, exports):
        mark_kernel_results(report, export)
    if as_json:
        return _finish(reports, [_with_kernel(r, e) for r, e in zip(reports, exports)])
    outcomes = [_Outcome.of(r, as_json=False) for r in reports]
    for number, (outcome, export) in enumerate(zip(outcomes, exports)):
        _print_row(outcome, width=width, first=number == 0, kernel=export)
    _print_total(outcomes)
    print(_kernel_total(exports, kernel_seconds))
    return _finish(outcomes)


def _kernel_total(exports, seconds: float) -> str:
    """The closing lines of ``--kernel coq``: whole theorems, then steps, trivial ones apart."""
    whole = [e for e in exports if e.theorem_status == "checked"]
    analytic = sum(len(e.whole.analytic) for e in whole)
    checked = sum(e.nontrivial_checked for e in exports)
    nontrivial = sum(e.nontrivial for e in exports)
    trivial = sum(e.trivial for e in exports)
    rejected = [e.name for e in exports if e.theorem_status == "rejected"]
    lines = [f"Coq kernel (coqc {seconds:.1f} s):",
             f"  whole theorems kernel-checked: {len(whole)}/{len(exports)} (on {analytic} "
             "analytic hypotheses; --json lists them)",
             f"  non-trivial steps kernel-checked: {checked}/{nontrivial}",
             f"  trivial steps, not counted (a reflexivity after build-time evaluation): {trivial}"]
    if rejected:
        lines.append(f"  whole theorem rejected by coqc: {', '.join(rejected)}")
    return "\n".join(lines)


def _with_kernel(report, export) -> dict:
    from symrope.kernel import kernel_summary

    document = report.to_dict()
    document["kernel"] = kernel_summary(export)
    return document


def _kernel_columns(export) -> str:
    """``theorem`` (whole: checked / not stated / rejected, with its analytic hypotheses),
    ``steps`` (non-trivial steps kernel-checked / non-trivial steps) and ``trivial``."""
    status = export.theorem_status
    if status == "checked" and export.whole.analytic:
        status = f"checked+{len(export.whole.analytic)}h"
    steps = f"{export.nontrivial_checked}/{export.nontrivial}"
    return f"  {status:<12} {steps:>7} {export.trivial:>7}"


def _print_row(outcome: _Outcome, width: int, first: bool, kernel=None) -> None:
    width = max(width, len("theorem"))
    extra = f"  {'coq theorem':<12} {'steps':>7} {'trivial':>7}" if kernel is not None else ""
    if first:
        print(f"{'theorem':<{width}}  {'verdict':<10} {'checked':>7} {'cited':>5} {'time':>8}"
              f"{extra}")
        print("-" * (width + 34 + len(extra)))
    column = _kernel_columns(kernel) if kernel is not None else ""
    print(f"{outcome.name:<{width}}  {outcome.verdict:<10} {outcome.checked_steps:>7} "
          f"{outcome.cited_lemmas:>5} {outcome.seconds:>7.2f}s{column}", flush=True)


def list_main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="symrope list", description="List the built-in theorems.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--params", action="store_true",
                        help="show each theorem's parameters and their defaults (--param NAME=VALUE)")
    args = parser.parse_args(argv)
    from symrope.theorems import builtin_theorems

    theorems = builtin_theorems()
    if args.json:
        dump_json({"theorems": [{"name": b.name, "summary": b.summary,
                                 "defaults": {k: str(v) for k, v in b.defaults.items()}}
                                for b in theorems.values()]})
        return 0
    width = max((len(n) for n in theorems), default=10)
    for builder in theorems.values():
        print(f"{builder.name:<{width}}  {builder.summary}")
        if args.params:
            print(f"{'':<{width}}  parameters: {parameters_text(builder)}")
    return 0
