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


def engine_rope(d: int) -> tuple[float, str]:
    """Build the three block-diagonal sides and verify the identity; seconds and verdict."""
    import sympy as sp

    from symrope import verify
    from symrope.theorems._rope import rope_blocks, rope_frequencies

    start = time.perf_counter()
    s, t = sp.symbols("s t", real=True)
    frequencies = rope_frequencies(d, 10000)
    lhs = sp.MatMul(rope_blocks(s, frequencies).T, rope_blocks(t, frequencies), evaluate=False)
    verdict = verify(lhs, rope_blocks(t - s, frequencies), budget=600)
    return time.perf_counter() - start, verdict.status


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

    start = time.perf_counter()
    difference = full(s).T * full(t) - full(t - s)
    zero = all(sp.simplify(entry) == 0 for entry in difference)
    sender.send((time.perf_counter() - start, "zero" if zero else "not reduced"))


def naive_rope(d: int, timeout: float):
    """Seconds of the naive full-matrix simplify, or None if it ran past ``timeout``."""
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
    print(f"\n{'d':>6} {'engine s':>10} {'verdict':>9} {'naive s':>10} {'naive/engine':>13}")
    naive_gave_up = False
    for d in args.sizes:
        seconds, status = engine_rope(d)
        naive = None if naive_gave_up else naive_rope(d, args.naive_timeout)
        if naive is None:
            naive_gave_up = True  # a larger d would not finish either
            naive_text, ratio = f"> {args.naive_timeout:g}", f"> {args.naive_timeout / seconds:.1f}"
        else:
            naive_text, ratio = f"{naive[0]:.2f}", f"{naive[0] / seconds:.1f}"
        target = ""
        if d == 4096:
            target = f"  (target < {LARGE_D_TARGET_S:g} s: " \
                     f"{'met' if seconds < LARGE_D_TARGET_S else 'MISSED'})"
        print(f"{d:>6} {seconds:>10.2f} {status:>9} {naive_text:>10} {ratio:>13}{target}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
