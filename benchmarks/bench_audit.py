"""Benchmarks of the precision audit (targets from issue 3), measured side by side in one run.

1. The fast reference beside mpmath and beside plain float64 ``np.cos``/``np.sin`` on the same
   angles (targets: >= 150x mpmath; within 4x of plain numpy).
2. A full default audit (HF-style model, Llama 3.1 8B schedule, bf16) over 2**20 positions x
   64 pairs, every position and pair (target: under 20 s).
3. The same audit over 10M positions, in a fresh process, with its peak memory (target: under
   1 GiB): tracemalloc's peak of Python/numpy allocations and the process's peak RSS.

4. Issue 9 (``--issue9``): the default audit (1M positions x 64 pairs) and the bulk reference
   against numpy's float64 cos + sin of the same 64M angles (targets: within 4x and 3x);
   ``--before CHECKOUT`` times another checkout's default audit in the same run.

Run: ``python benchmarks/bench_audit.py`` (add ``--quick`` for small sizes). Prints one line per
measurement and a JSON summary at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc

import mpmath
import numpy as np

from symrope.audit import AuditOptions, audit, exact_schedule
from symrope.schedules import llama31_8b


def best_of(repeats: int, function) -> float:
    """The fastest of ``repeats`` wall-clock runs (the least disturbed by other processes)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def reference_throughput(positions_count: int, mp_points: int, seed: int = 0) -> dict:
    schedule = exact_schedule(llama31_8b())
    reference, pairs = schedule.reference, schedule.reference.pairs
    rng = np.random.default_rng(seed)
    positions = np.sort(rng.integers(0, 2**20, positions_count))
    angles = positions.astype(np.float64)[:, None] * schedule.omegas[None, :]
    elements = angles.size

    fast = best_of(5, lambda: reference.cos_sin(positions))
    plain_both = best_of(5, lambda: (np.cos(angles), np.sin(angles)))
    plain_cos = best_of(5, lambda: np.cos(angles))

    rows = rng.integers(0, positions_count, mp_points)
    cols = rng.integers(0, pairs, mp_points)
    results = {}
    for bits in (113, 256):   # 113: just enough for 1e-16 at p < 2^40; 256: what the audit uses
        with mpmath.workprec(bits):
            omegas = [mpmath.mpf(o) for o in reference.omegas]
            started = time.perf_counter()
            for row, col in zip(rows, cols):
                mpmath.cos_sin(int(positions[row]) * omegas[col])
            results[bits] = (time.perf_counter() - started) / mp_points
    per_fast = fast / elements
    return {
        "elements": elements,
        "reference_ns_per_value": per_fast * 1e9,
        "np_cos_sin_ns_per_value": plain_both / elements * 1e9,
        "np_cos_ns_per_value": plain_cos / elements * 1e9,
        "mpmath_113_us_per_value": results[113] * 1e6,
        "mpmath_256_us_per_value": results[256] * 1e6,
        "speedup_vs_mpmath_113": results[113] / per_fast,
        "speedup_vs_mpmath_256": results[256] / per_fast,
        "slowdown_vs_np_cos_sin": fast / plain_both,
        "slowdown_vs_np_cos": fast / plain_cos,
    }


def one_audit(max_position: int) -> dict:
    """Runs in its own process so that peak RSS belongs to this audit alone."""
    config = llama31_8b()
    tracemalloc.start()
    started = time.perf_counter()
    cpu = time.process_time()
    result = audit("hf", config, AuditOptions(max_position=max_position, progress=False))
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"positions": max_position + 1, "pairs": 64, "seconds": seconds, "cpu_seconds": cpu,
            "tracemalloc_peak_mib": traced_peak / 2**20,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "worst_max_abs_error": result.worst("max_abs_error"),
            "safe_context": result.safe_context}


def audit_in_subprocess(max_position: int) -> dict:
    output = subprocess.run([sys.executable, __file__, "--one-audit", str(max_position)],
                            check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def issue9_ratios(max_position: int, before: str | None, repeats: int = 2) -> dict:
    """Issue 9's targets, side by side in this run: numpy's float64 cos + sin of the audit's
    angles (``p * omega`` for every position and pair, in the audit's chunks of 8192 positions),
    the bulk reference on the same positions, and the default audit (hf model, bf16) -- in fresh
    processes, without tracemalloc (it traces every allocation, which costs the audit time), the
    best of ``repeats`` runs as for numpy; ``before`` (another checkout's root) adds that
    checkout's default audit, run alternately with this one's."""
    schedule = exact_schedule(llama31_8b())
    chunk = 8192

    def numpy_cos_sin():
        for start in range(0, max_position + 1, chunk):
            stop = min(start + chunk, max_position + 1)
            angle = np.arange(start, stop, dtype=np.float64)[:, None] * schedule.omegas[None, :]
            np.cos(angle)
            np.sin(angle)

    def reference():
        for start in range(0, max_position + 1, chunk):
            schedule.reference.cos_sin(np.arange(start, min(start + chunk, max_position + 1)))

    numpy_seconds = best_of(3, numpy_cos_sin)
    reference_seconds = best_of(3, reference)
    cpu = time.process_time()
    numpy_cos_sin()
    numpy_cpu = time.process_time() - cpu
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs: dict[str, list[dict]] = {"after": [], "before": []}
    for _ in range(repeats):
        runs["after"].append(timed_default_audit(here, max_position))
        if before:
            runs["before"].append(timed_default_audit(before, max_position))
    after = min(runs["after"], key=lambda run: run["seconds"])
    record = {"values": (max_position + 1) * 64, "numpy_cos_sin_seconds": numpy_seconds,
              "reference_seconds": reference_seconds, "audit_seconds": after["seconds"],
              "audit_cpu_seconds": after["cpu_seconds"], "numpy_cos_sin_cpu_seconds": numpy_cpu,
              "audit_cpu_over_numpy_cpu": after["cpu_seconds"] / numpy_cpu,
              "reference_over_numpy": reference_seconds / numpy_seconds,
              "audit_over_numpy": after["seconds"] / numpy_seconds, "audit_runs": runs["after"]}
    if before:
        old = min(runs["before"], key=lambda run: run["seconds"])
        record.update(before_checkout=before, before_audit_seconds=old["seconds"],
                      before_audit_cpu_seconds=old["cpu_seconds"],
                      before_audit_over_numpy=old["seconds"] / numpy_seconds,
                      before_audit_cpu_over_numpy_cpu=old["cpu_seconds"] / numpy_cpu,
                      before_audit_runs=runs["before"])
    return record


def timed_default_audit(checkout: str, max_position: int) -> dict:
    """Wall and CPU seconds of the default audit of ``checkout``'s symrope, in a fresh process."""
    env = dict(os.environ, PYTHONPATH=checkout)
    output = subprocess.run([sys.executable, "-c", _TIMED_AUDIT, str(max_position)], check=True,
                            capture_output=True, text=True, env=env, cwd=checkout).stdout
    return json.loads(output.strip().splitlines()[-1])


_TIMED_AUDIT = """
import json, sys, time
from symrope.audit import AuditOptions, audit
from symrope.schedules import llama31_8b
started, cpu = time.perf_counter(), time.process_time()
audit("hf", llama31_8b(), AuditOptions(max_position=int(sys.argv[1]), progress=False))
print(json.dumps({"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--issue9", action="store_true",
                        help="only issue 9's ratios: default audit and reference against numpy")
    parser.add_argument("--before", metavar="CHECKOUT",
                        help="with --issue9: also time the default audit of another checkout")
    parser.add_argument("--one-audit", type=int, metavar="MAX_POSITION", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_audit is not None:
        print(json.dumps(one_audit(args.one_audit)))
        return 0
    if args.issue9:
        record = issue9_ratios(2**16 - 1 if args.quick else 2**20 - 1, args.before)
        print(f"{record['values']} values (positions x 64 pairs): numpy float64 cos + sin "
              f"{record['numpy_cos_sin_seconds']:.2f} s; bulk reference {record['reference_seconds']:.2f} s "
              f"= {record['reference_over_numpy']:.2f}x (target <= 3x); default audit "
              f"{record['audit_seconds']:.2f} s wall ({record['audit_cpu_seconds']:.2f} s cpu) = "
              f"{record['audit_over_numpy']:.2f}x (target <= 4x); in CPU seconds "
              f"{record['audit_cpu_over_numpy_cpu']:.2f}x numpy's {record['numpy_cos_sin_cpu_seconds']:.2f} s")
        if args.before:
            print(f"  before ({args.before}): default audit {record['before_audit_seconds']:.2f} s wall "
                  f"({record['before_audit_cpu_seconds']:.2f} s cpu) = {record['before_audit_over_numpy']:.2f}x; "
                  f"in CPU seconds {record['before_audit_cpu_over_numpy_cpu']:.2f}x")
        print(json.dumps(record, indent=2))
        return 0

    summary = {"cpus": os.cpu_count(), "numpy": np.__version__, "mpmath": mpmath.__version__}
    sizes = (512, 200, 2**16 - 1, 2**18 - 1) if args.quick else (8192, 2000, 2**20 - 1, 10**7 - 1)

    ref = reference_throughput(sizes[0], sizes[1])
    summary["reference"] = ref
    print(f"reference: {ref['reference_ns_per_value']:.1f} ns per (cos, sin) value "
          f"over {ref['elements']} values")
    print(f"  vs mpmath cos_sin at 113 bits ({ref['mpmath_113_us_per_value']:.1f} us): "
          f"{ref['speedup_vs_mpmath_113']:.0f}x faster   (target >= 150x)")
    print(f"  vs mpmath cos_sin at 256 bits ({ref['mpmath_256_us_per_value']:.1f} us): "
          f"{ref['speedup_vs_mpmath_256']:.0f}x faster")
    print(f"  vs plain float64 np.cos + np.sin on the same angles: "
          f"{ref['slowdown_vs_np_cos_sin']:.2f}x slower   (target <= 4x)")
    print(f"  vs plain float64 np.cos alone: {ref['slowdown_vs_np_cos']:.2f}x slower")

    for label, top in (("full", sizes[2]), ("long", sizes[3])):
        record = audit_in_subprocess(top)
        summary[f"audit_{label}"] = record
        print(f"audit hf bf16, {record['positions']} positions x 64 pairs: {record['seconds']:.1f} s "
              f"wall, {record['cpu_seconds']:.1f} s cpu; peak tracemalloc "
              f"{record['tracemalloc_peak_mib']:.0f} MiB, peak RSS {record['peak_rss_mib']:.0f} MiB")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
