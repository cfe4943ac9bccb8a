"""How long ``symrope check`` takes on RoPE, with and without the block structure.

Target: RoPE at d = 64 (theta = 10000, interleaved pairs) checked in under 20 s. The checker
splits F and G into the finest common block-diagonal partition before deciding anything; this
script measures, in the same run, the same check with that split disabled (one dense block),
and prints the ratio. Up to d = 64 the engine's own entrywise splitting and constant templates
keep the dense check competitive (the split saves the dense symbolic products); above 64 the
engine rejects explicit claims, so the split is what makes the check possible at all.

A second table times two ordinary inputs whose ``F(s)^T G(t)`` is hard to expand -- ComRoPE's
product ``exp(pA) exp(3pB)`` of commuting 4x4 skew generators, and a Rodrigues-form so(3)
rotation with ``|p|`` in denominators -- at budgets of 20 s and 60 s, with the checker's
exponential recognition (``F(0) = I``, ``F' = F'(0) F``, ``A^T = -B``) and, in the same run,
without it (the expansion path alone). Target: all four assumptions decided well within 20 s.

Run: ``python benchmarks/bench_check.py [--dims 8 16 32 64] [--dense-dims 8 16]
[--ordinary-budgets 20 60]``.
"""

from __future__ import annotations

import argparse
import time
from unittest import mock

import sympy as sp

from symrope.checker import Encoding, check
from symrope.checker import _check as checker
from symrope.checker._exponential import Exponentials
from symrope.checker._structure import Blocks
from symrope.schedules import rope_frequencies
from symrope.linalg import quaternion_multiplication, rotate_pairs


def rope(d: int) -> Encoding:
    omega = rope_frequencies(d, 10000)

    def encode(x, p):
        return rotate_pairs(x, [p * w for w in omega])

    return Encoding(f"rope_d{d}", d, encode, encode)


def ordinary_encodings() -> list[Encoding]:
    # ComRoPE: left multiplication by i + 2j and right multiplication by k commute
    A = quaternion_multiplication([0, 1, 2, 0])
    B = quaternion_multiplication([0, 0, 0, 1], "right")
    K = sp.Matrix([[0, -3, 2], [3, 0, -1], [-2, 1, 0]])

    def comrope(p):
        return (p * A).exp() * (3 * p * B).exp()

    def rodrigues(p):
        theta = sp.sqrt(14 * p ** 2)  # |p| sqrt(14): 0/0 at p = 0 as written
        return sp.eye(3) + sp.sin(theta) / theta * p * K + \
            (1 - sp.cos(theta)) / theta ** 2 * (p * K) ** 2

    return [Encoding.from_matrices("comrope_product", comrope, comrope),
            Encoding.from_matrices("rodrigues_so3", rodrigues, rodrigues)]


def _without_structure(run):
    return Exponentials(reason="disabled by the benchmark")


def timed_ordinary(encoding: Encoding, budget: float, structure: bool) -> tuple[float, dict]:
    sp.core.cache.clear_cache()
    start = time.perf_counter()
    if structure:
        report = check(encoding, budget=budget)
    else:
        with mock.patch.object(checker._Run, "exponentials", _without_structure):
            report = check(encoding, budget=budget)
    return time.perf_counter() - start, report.verdicts()


def _short(verdicts: dict) -> str:
    if set(verdicts.values()) == {"proved"}:
        return "all proved"
    return ", ".join(f"{k.split('_')[0]}: {v}" for k, v in verdicts.items() if v != "proved")


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
    parser.add_argument("--ordinary-budgets", type=float, nargs="*", default=[20, 60])
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
    if not args.ordinary_budgets:
        return
    print(f"\n{'encoding':<16} {'budget':>6} {'structure (s)':>14} {'expansion (s)':>14} "
          f"{'ratio':>7}  verdicts with structure | expansion only")
    for encoding in ordinary_encodings():
        for budget in args.ordinary_budgets:
            fast, verdicts = timed_ordinary(encoding, budget, structure=True)
            slow, slow_verdicts = timed_ordinary(encoding, budget, structure=False)
            print(f"{encoding.name:<16} {budget:>6g} {fast:14.2f} {slow:14.2f} "
                  f"{slow / fast:6.1f}x  {_short(verdicts)} | {_short(slow_verdicts)}")
    print("target: every assumption decided, well within a 20 s budget")


if __name__ == "__main__":
    main()
