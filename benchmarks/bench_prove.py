"""Benchmark: the whole built-in suite (``symrope prove``) and the RoPE identity at large d.

Prints, from one run on this machine:

* the wall time of ``symrope prove`` (every built-in theorem, default parameters), and the CPU
  time it used (other processes on a shared machine inflate wall time, not CPU time);
* for ``R_d(s)^T R_d(t) = R_d(t - s)`` at d = 8, 128, 1024, 4096: the engine's time
  (block-diagonal claim, one template per frequency) beside a naive full-matrix check (build the
  explicit d x d matrices, multiply, ``simplify`` every entry of the difference) where the naive
  one finishes within its timeout, and the ratio naive / engine.

Targets: ``symrope prove`` under 20 s; d = 4096 under 30 s.

Usage: ``python benchmarks/bench_prove.py [--sizes 8 128 1024 4096] [--naive-timeout 120]``
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import time

SUITE_TARGET_S = 20.0
LARGE_D_TARGET_S = 30.0


def whole_suite() -> tuple[float, float, int]:
    """Wall and CPU seconds of ``symrope prove`` in a fresh process, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "symrope", "prove"], capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    sys.stdout.write(done.stdout)
    return wall, cpu, done.returncode


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
    args = parser.parse_args(argv)
    print(f"# machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    if not args.skip_suite:
        wall, cpu, code = whole_suite()
        print(f"\nsymrope prove: {wall:.2f} s wall, {cpu:.2f} s CPU, exit code {code} "
              f"(target < {SUITE_TARGET_S:g} s: {'met' if wall < SUITE_TARGET_S else 'MISSED'})")
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
