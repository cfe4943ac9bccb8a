"""How long ``symrope check`` takes on RoPE, with and without the block structure.

Target: RoPE at d = 64 (theta = 10000, interleaved pairs) checked in under 20 s. The checker
splits F and G into the finest common block-diagonal partition before deciding anything; this
script measures, in the same run, the same check with that split disabled (one dense block),
and prints the ratio. Up to d = 64 the engine's own entrywise splitting and constant templates
keep the dense check competitive (the split saves the dense symbolic products); above 64 the
engine rejects explicit claims, so the split is what makes the check possible at all.

Run: ``python benchmarks/bench_check.py [--dims 8 16 32 64] [--dense-dims 8 16]``.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import sympy as sp

from symrope.checker import Encoding, check
from symrope.checker import _check as checker
from symrope.checker._structure import Blocks
from symrope.checker._zoo import rope_frequencies, rotate_pairs


def rope(d: int) -> Encoding:
    omega = rope_frequencies(d, 10000)

    def encode(x, p):
        return rotate_pairs(x, [p * w for w in omega])

    return Encoding(f"rope_d{d}", d, encode, encode)


def timed_check(d: int, dense: bool) -> tuple[float, dict]:
    sp.core.cache.clear_cache()
    encoding = rope(d)
    start = time.perf_counter()
    if dense:
        one_block = lambda dim, *matrices: Blocks((tuple(range(dim)),))  # noqa: E731
        with mock.patch.object(checker, "block_partition", one_block):
            report = check(encoding, budget=600)
        if "too large" in str(report.assumptions["translation_invariance"].evidence):
            return float("nan"), {}
    else:
        report = check(encoding, budget=600)
    return time.perf_counter() - start, report.verdicts()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[8, 16, 32, 64, 128])
    parser.add_argument("--dense-dims", type=int, nargs="+", default=[8, 16, 32, 64, 128])
    args = parser.parse_args()
    check(rope(2))  # warm-up: imports and SymPy's caches of the rewrite machinery
    print(f"{'d':>4} {'blocks (s)':>11} {'dense (s)':>10} {'dense/blocks':>13}  verdicts")
    for d in args.dims:
        seconds, verdicts = timed_check(d, dense=False)
        dense_cell, ratio_cell = "-", "-"
        if d in args.dense_dims:
            dense_seconds, dense_verdicts = timed_check(d, dense=True)
            if dense_verdicts:
                dense_cell = f"{dense_seconds:10.2f}"
                ratio_cell = f"{dense_seconds / seconds:12.1f}x"
                assert dense_verdicts == verdicts, (dense_verdicts, verdicts)
            else:
                dense_cell, ratio_cell = "too large", "-"
        status = "all proved" if set(verdicts.values()) == {"proved"} else verdicts
        print(f"{d:>4} {seconds:11.2f} {dense_cell:>10} {ratio_cell:>13}  {status}")
    print("target: d = 64 under 20 s")


if __name__ == "__main__":
    main()
