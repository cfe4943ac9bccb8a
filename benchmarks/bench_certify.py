"""What certified refutation costs: ``verify`` on the fuzzer corpus, this tree against a base.

``python benchmarks/bench_certify.py [N] [--base REF]`` exports ``symrope/`` of git REF (default
``main``) to a temporary folder and starts two worker processes, one importing that copy and
one importing this tree. Both decide the same N claims of the soundness fuzzer's corpus
(``tests/soundness_claims.py``, seeds 0..N-1, budget 1 s), one claim at a time and in
alternating order, so a load on this shared machine falls on both alike. Prints the median,
mean and 90th percentile of the wall time (``perf_counter``) and CPU time (``process_time``) of
one ``verify`` call for each, their ratio, and the verdict counts. Issue 18's target: the
median of this tree at most 1.25 times the base's.

Run from the repository root with ``PYTHONPATH=$PWD``; ``nice`` it on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))
from tests.soundness_jumps import JUMP_FAMILIES  # noqa: E402  (the corpus: this tree's tests)
_WARMUP = 20

_WORKER = r"""
import json, random, sys, time
import symrope
from symrope import verify
print(json.dumps(symrope.__file__), flush=True)
from tests.soundness_claims import random_claim
for line in sys.stdin:
    seed, budget = json.loads(line)
    claim = random_claim(random.Random(seed))
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        status = verify(claim.lhs, claim.rhs, assumptions=claim.assumptions, budget=budget).status
    except Exception as error:  # noqa: BLE001 - counted: the base may raise where this tree does not
        status = "exception"
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps([seed, claim.family, claim.true, status, wall, cpu]), flush=True)
"""


def _export(ref: str, into: Path) -> Path:
    """``symrope/`` of git ``ref``, unpacked under ``into``."""
    archive = subprocess.run(["git", "archive", ref, "symrope"], cwd=_ROOT, check=True,
                             capture_output=True).stdout
    with tempfile.TemporaryFile() as handle:
        handle.write(archive)
        handle.seek(0)
        with tarfile.open(fileobj=handle) as tar:
            tar.extractall(into, filter="data")
    return into


def _worker(code_root: Path) -> subprocess.Popen:
    """A worker importing ``symrope`` from ``code_root`` (its working folder, which ``-c``
    puts first on the path) and the corpus from this tree's ``tests``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(code_root), str(_ROOT)]))
    return subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env, cwd=code_root)


def _ask(worker: subprocess.Popen, seed: int, budget: float) -> list:
    worker.stdin.write(json.dumps([seed, budget]) + "\n")
    worker.stdin.flush()
    return json.loads(worker.stdout.readline())


def _summary(rows: list, column: int) -> tuple[float, float, float]:
    values = sorted(row[column] for row in rows)
    return (statistics.median(values), statistics.fmean(values),
            values[int(0.9 * (len(values) - 1))])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", type=int, nargs="?", default=1000)
    parser.add_argument("--base", default="main")
    parser.add_argument("--budget", type=float, default=1.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="symrope-base-") as folder:
        workers = {"base": _worker(_export(args.base, Path(folder))), "this tree": _worker(_ROOT)}
        for name, worker in workers.items():
            print(f"{name}: symrope from {json.loads(worker.stdout.readline())}")
        rows = {name: [] for name in workers}
        started = time.monotonic()
        try:
            for seed in range(-_WARMUP, args.claims):
                order = list(workers) if seed % 2 else list(reversed(workers))
                for name in order:
                    row = _ask(workers[name], seed % max(args.claims, 1), args.budget)
                    if seed >= 0:
                        rows[name].append(row)
        finally:
            for worker in workers.values():
                worker.stdin.close()
                worker.wait()
    print(f"{args.claims} fuzzer claims (seeds 0..{args.claims - 1}), budget {args.budget:g} s, "
          f"base {args.base}, {time.monotonic() - started:.0f} s in all")
    print(f"{'':10} {'median ms':>10} {'mean ms':>9} {'p90 ms':>8}   {'cpu median':>10} "
          f"{'cpu mean':>9}   verdicts")
    medians = {}
    for name, found in rows.items():
        wall, cpu = _summary(found, 4), _summary(found, 5)
        medians[name] = (wall[0], cpu[0])
        counts = {}
        for row in found:
            key = f"{'true' if row[2] else 'false'} {row[3]}"
            counts[key] = counts.get(key, 0) + 1
        print(f"{name:10} {wall[0] * 1e3:10.2f} {wall[1] * 1e3:9.2f} {wall[2] * 1e3:8.2f}   "
              f"{cpu[0] * 1e3:10.2f} {cpu[1] * 1e3:9.2f}   "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    base, this = medians["base"], medians["this tree"]
    print(f"median ratio (this tree / base): wall {this[0] / base[0]:.3f}, "
          f"cpu {this[1] / base[1]:.3f} (target <= 1.25)")
    # The corpus before issue 18 (its nine families) alone, where the base raises nothing
    newer = {name for family in JUMP_FAMILIES for name in _family_names(family)}
    older = {name: [row for row in found if row[1] not in newer] for name, found in rows.items()}
    if all(older.values()):
        wall = {name: _summary(found, 4)[0] for name, found in older.items()}
        cpu = {name: _summary(found, 5)[0] for name, found in older.items()}
        print(f"the older families alone ({len(older['base'])} claims): median wall "
              f"{wall['base'] * 1e3:.2f} / {wall['this tree'] * 1e3:.2f} ms, ratio "
              f"{wall['this tree'] / wall['base']:.3f}; cpu ratio "
              f"{cpu['this tree'] / cpu['base']:.3f}")
    return 0


def _family_names(family) -> set:
    """The family names one generator of ``tests/soundness_jumps.py`` gives its claims."""
    import random

    rng = random.Random(0)
    return {family(rng).family for _ in range(200)}


if __name__ == "__main__":
    sys.exit(main())
