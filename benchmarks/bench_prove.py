"""Benchmark: the whole built-in suite (``symrope prove``) and the RoPE identity at large d.

Prints, from one run on this machine, side by side:

* ``symrope prove`` (every built-in theorem, default parameters, in a fresh process) with
  ``-j 1`` and ``-j 2`` (theorems proved side by side in processes), and ``--json -j 1``: wall
  time and the CPU time of the process and its workers (other processes on a shared machine
  inflate wall time, not CPU time); with ``--before CHECKOUT``, the same command of another
  checkout (no ``-j`` there) in the same run;
* what ``--json`` adds, in this process: every report's ``to_dict`` against proving it (the
  JSON printer reads a matrix product's sign from its coefficient; ``--with-sstr`` also times
  ``sympy.sstr``, which evaluates ``-M`` and inverts block-diagonal matrices to decide it);
* for ``R_d(s)^T R_d(t) = R_d(t - s)`` at d = 8, 128, 1024, 4096: the engine's time
  (block-diagonal claim, one template per frequency) beside a naive full-matrix check (build the
  explicit d x d matrices, multiply, ``simplify`` every entry of the difference) where the naive
  one finishes within its timeout, and the ratio naive / engine.

Targets: ``symrope prove`` under 15 s (issue 10, on 2 cores); ``--json`` adds under 10 %;
d = 4096 under 30 s.

Usage: ``python benchmarks/bench_prove.py [--sizes 8 128 1024 4096] [--naive-timeout 120]
[--skip-suite] [--skip-rope] [--before CHECKOUT] [--with-sstr]``
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import time

SUITE_TARGET_S = 15.0
JSON_TARGET = 0.10
LARGE_D_TARGET_S = 30.0


def whole_suite(*options: str, checkout: str | None = None) -> tuple[float, float, int]:
    """Wall and CPU seconds (the process and its workers) of ``symrope prove OPTIONS`` in a fresh
    process, and its exit code; ``checkout`` runs another source tree's symrope instead."""
    environment = dict(os.environ)
    if checkout is not None:
        environment["PYTHONPATH"] = checkout
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "symrope", "prove", *options],
                          capture_output=True, text=True, env=environment, cwd=checkout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def json_cost(with_sstr: bool) -> dict:
    """CPU seconds, in this process, of proving every built-in theorem and of ``to_dict``."""
    import sympy as sp

    from symrope.engine import _verdict
    from symrope.theorems import builtin_theorems

    started = time.process_time()
    reports = [builder.build().prove(budget=60) for builder in builtin_theorems().values()]
    costs = {"prove": time.process_time() - started}
    started = time.process_time()
    documents = [report.to_dict() for report in reports]
    costs["to_dict"] = time.process_time() - started
    if with_sstr:
        printer = _verdict.plain_text
        _verdict.plain_text = sp.sstr  # what to_dict printed with before
        try:
            started = time.process_time()
            same = [report.to_dict() for report in reports]
            costs["to_dict_sstr"] = time.process_time() - started
        finally:
            _verdict.plain_text = printer
        drop = lambda d: {k: v for k, v in d.items() if k != "seconds"}  # noqa: E731
        costs["same_text"] = all(
            [drop(step.get("evidence", {})) for step in a["steps"]] ==
            [drop(step.get("evidence", {})) for step in b["steps"]]
            for a, b in zip(documents, same))
    return costs


def engine_rope(d: int) -> tuple[float, float, str]:
    """Build the three block-diagonal sides and verify the identity: wall s, CPU s, verdict."""
    import sympy as sp

    from symrope.engine import verify
    from symrope.schedules import rope_frequencies
    from symrope.theorems._rope import rope_blocks

    start, cpu_start = time.perf_counter(), time.process_time()
    s, t = sp.symbols("s t", real=True)
    frequencies = rope_frequencies(d, 10000, evaluate=False)  # as rope_relative builds them
    lhs = sp.MatMul(rope_blocks(s, frequencies).T, rope_blocks(t, frequencies), evaluate=False)
    verdict = verify(lhs, rope_blocks(t - s, frequencies), budget=600)
    return time.perf_counter() - start, time.process_time() - cpu_start, verdict.status


def _naive(d: int, sender) -> None:  # pragma: no cover - runs in a child process
    import sympy as sp

    s, t = sp.symbols("s t", real=True)

    def full(position):
        matrix = sp.zeros(d)
        for i in range(d // 2):
            angle = position * sp.Integer(10000) ** sp.Rational(-2 * i, d)
            matrix[2 * i:2 * i + 2, 2 * i:2 * i + 2] = sp.Matrix(
                [[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])
        return matrix

    start, cpu_start = time.perf_counter(), time.process_time()
    difference = full(s).T * full(t) - full(t - s)
    zero = all(sp.simplify(entry) == 0 for entry in difference)
    sender.send((time.perf_counter() - start, time.process_time() - cpu_start,
                 "zero" if zero else "not reduced"))


def naive_rope(d: int, timeout: float):
    """(wall s, CPU s, outcome) of the naive full-matrix simplify; None past ``timeout``."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_naive, args=(d, sender), daemon=True)
    child.start()
    outcome = receiver.recv() if receiver.poll(timeout) else None
    if child.is_alive():
        child.kill()
    child.join()
    return outcome


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 128, 1024, 4096])
    parser.add_argument("--naive-timeout", type=float, default=120.0)
    parser.add_argument("--skip-suite", action="store_true")
    parser.add_argument("--skip-rope", action="store_true")
    parser.add_argument("--before", metavar="CHECKOUT",
                        help="also time 'symrope prove' of another source tree (no -j there)")
    parser.add_argument("--with-sstr", action="store_true",
                        help="also time to_dict printed with sympy.sstr (slow: a minute or more)")
    args = parser.parse_args(argv)
    print(f"# machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    if not args.skip_suite:
        runs = [("prove -j 1", ("-j", "1")), ("prove -j 2", ("-j", "2")),
                ("prove --json -j 1", ("--json", "-j", "1"))]
        if args.before:
            runs = [("before: prove", ()), ("before: prove --json", ("--json",))] + runs
        print(f"\n{'command':<22} {'wall s':>8} {'CPU s':>8} {'exit':>5}")
        measured = {}
        for label, options in runs:
            checkout = args.before if label.startswith("before") else None
            wall, cpu, code = whole_suite(*options, checkout=checkout)
            measured[label] = (wall, cpu)
            print(f"{label:<22} {wall:>8.2f} {cpu:>8.2f} {code:>5}", flush=True)
        best = min(measured["prove -j 1"][0], measured["prove -j 2"][0])
        print(f"fastest whole suite {best:.2f} s wall (target < {SUITE_TARGET_S:g} s: "
              f"{'met' if best < SUITE_TARGET_S else 'MISSED'}); -j 2 / -j 1 wall "
              f"{measured['prove -j 2'][0] / measured['prove -j 1'][0]:.2f}; --json / table "
              f"CPU {measured['prove --json -j 1'][1] / measured['prove -j 1'][1]:.3f}")
    costs = json_cost(args.with_sstr)
    share = costs["to_dict"] / costs["prove"]
    print(f"\nin this process: proving {costs['prove']:.2f} s CPU, to_dict {costs['to_dict']:.2f} s "
          f"CPU: --json adds {100 * share:.1f} % (target < {100 * JSON_TARGET:g} %: "
          f"{'met' if share < JSON_TARGET else 'MISSED'})")
    if "to_dict_sstr" in costs:
        print(f"to_dict printed with sympy.sstr: {costs['to_dict_sstr']:.2f} s CPU "
              f"({costs['to_dict_sstr'] / costs['to_dict']:.0f}x); same text: {costs['same_text']}")
    if args.skip_rope:
        return 0
    print("\nR_d(s)^T R_d(t) = R_d(t - s), theta = 10000 (seconds; CPU beside wall, since a "
          "shared machine inflates wall time)")
    print(f"{'d':>6} {'engine wall':>12} {'engine CPU':>11} {'verdict':>8} {'naive wall':>11} "
          f"{'naive CPU':>10} {'naive/engine (CPU)':>19}")
    naive_gave_up = False
    for d in args.sizes:
        wall, cpu, status = engine_rope(d)
        naive = None if naive_gave_up else naive_rope(d, args.naive_timeout)
        if naive is None:
            naive_gave_up = True  # a larger d would not finish either
            naive_wall = naive_cpu = f"> {args.naive_timeout:g}"
            ratio = f"> {args.naive_timeout / wall:.1f} (wall)"
        else:
            naive_wall, naive_cpu = f"{naive[0]:.2f}", f"{naive[1]:.2f}"
            ratio = f"{naive[1] / cpu:.2f}"
        target = ""
        if d == 4096:
            target = f"  target < {LARGE_D_TARGET_S:g} s: " \
                     f"{'met' if wall < LARGE_D_TARGET_S else 'MISSED'} (wall)"
        print(f"{d:>6} {wall:>12.2f} {cpu:>11.2f} {status:>8} {naive_wall:>11} {naive_cpu:>10} "
              f"{ratio:>19}{target}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
