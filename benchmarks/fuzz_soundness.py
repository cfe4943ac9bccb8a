"""Differential soundness fuzzer, long run: ``python benchmarks/fuzz_soundness.py N``.

Decides N random claims whose truth is known by construction (``tests/soundness_claims.py``,
with issue 18's families in ``tests/soundness_jumps.py``) with ``symrope.verify`` and prints
counts: false refuted / undecided / proved, true proved / undecided / refuted, counterexamples
not confirmed by the independent re-check (``tests/soundness_helpers.py``: mpmath at 120 and
240 digits, and every function of a real claim real-valued at the point), exceptions, and
time, overall and per family. Every unsound
outcome is printed with its seed, so it can be replayed with ``--seed-start SEED N=1``.

Run from the repository root with ``PYTHONPATH=$PWD``. Options: ``--budget`` seconds per claim
(default 1), ``--seed-start`` (default 0), ``--progress`` (print counts every K claims),
``--jobs`` (worker processes), ``--watchdog`` (CPU seconds after which a claim, engine and
re-check together, is abandoned and counted as "overran": a hang is a finding too).
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the claims live in this tree's tests
from symrope import verify  # noqa: E402
from tests.soundness_claims import random_claim  # noqa: E402
from tests.soundness_helpers import in_real_domain, refutes  # noqa: E402

_ORDER = ["false refuted", "false undecided", "false proved", "true proved", "true undecided",
          "true refuted", "unconfirmed counterexample", "exception", "overran"]
_UNSOUND = {"false proved", "true refuted", "unconfirmed counterexample", "exception"}


class _Overran(BaseException):
    """Raised by the CPU-time watchdog (SIGPROF, so the engine's own SIGALRM budget is untouched)."""


def _on_watchdog(signum, frame):
    raise _Overran()


def judge(claim, budget: float) -> tuple[str, str]:
    """(outcome, detail) for one claim."""
    try:
        verdict = verify(claim.lhs, claim.rhs, assumptions=claim.assumptions, budget=budget)
    except Exception as error:  # counted and printed: any exception is a finding
        return "exception", f"{type(error).__name__}: {error}"
    outcome = f"{'true' if claim.true else 'false'} {verdict.status}"
    if verdict.refuted:
        try:
            confirmed = refutes(claim.lhs, claim.rhs, verdict.counterexample)
        except Exception as error:  # the re-check itself failed: report, do not hide
            return "unconfirmed counterexample", f"re-check raised {error!r}"
        if not confirmed and claim.true is False:
            return "unconfirmed counterexample", verdict.explain()
        try:
            inside = in_real_domain(claim.lhs, claim.rhs, verdict.counterexample)
        except Exception as error:  # noqa: BLE001 - reported, like the re-check's own failure
            return "unconfirmed counterexample", f"domain re-check raised {error!r}"
        if not inside:
            return "unconfirmed counterexample", f"outside the real domain: {verdict.explain()}"
    return outcome, verdict.explain()


def _judge_seed(task) -> tuple:
    seed, budget, watchdog = task
    claim = random_claim(random.Random(seed))
    began = time.monotonic()
    signal.signal(signal.SIGPROF, _on_watchdog)
    signal.setitimer(signal.ITIMER_PROF, watchdog)
    try:
        outcome, detail = judge(claim, budget)
    except _Overran:
        outcome, detail = "overran", f"more than {watchdog:g} CPU seconds"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return (seed, claim.family, claim.true, outcome, detail, time.monotonic() - began,
            str(claim.lhs)[:200], str(claim.rhs)[:200])


def _line(counts, total) -> str:
    return ", ".join(f"{key} {counts[key]} ({counts[key] / max(total, 1):.2%})" for key in _ORDER)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", type=int)
    parser.add_argument("--budget", type=float, default=1.0)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--progress", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--watchdog", type=float, default=60.0)
    args = parser.parse_args(argv)
    counts, families = collections.Counter(), collections.defaultdict(collections.Counter)
    seconds = collections.Counter()
    start = time.monotonic()
    tasks = [(seed, args.budget, args.watchdog)
             for seed in range(args.seed_start, args.seed_start + args.claims)]
    pool = multiprocessing.get_context("fork").Pool(args.jobs) if args.jobs > 1 else None
    results = pool.imap_unordered(_judge_seed, tasks, chunksize=8) if pool else map(_judge_seed,
                                                                                   tasks)
    truths = collections.Counter()
    for done, (seed, family, true, outcome, detail, spent, lhs, rhs) in enumerate(results,
                                                                                start=1):
        truths[true] += 1
        seconds[family] += spent
        counts[outcome] += 1
        families[family][outcome] += 1
        if outcome in _UNSOUND or outcome == "overran":
            print(f"{'UNSOUND' if outcome in _UNSOUND else 'OVERRAN'} seed {seed} {family} "
                  f"{outcome}: {lhs} = {rhs}: {detail[:300]}", flush=True)
        if args.progress and done % args.progress == 0:
            print(f"[{done} claims, {time.monotonic() - start:.0f} s] {_line(counts, done)}",
                  flush=True)
    if pool:
        pool.close()
    total = args.claims
    elapsed = time.monotonic() - start
    # every claim of each truth, whatever became of it (an exception, an unconfirmed
    # counterexample of a true claim outside its domain, an overrun) is in its denominator
    false_claims, true_claims = truths[False], truths[True]
    print(f"claims {total} (false {false_claims}, true {true_claims}), budget "
          f"{args.budget:g} s per claim, seeds {args.seed_start}..{args.seed_start + total - 1}")
    print(_line(counts, total))
    if false_claims:
        print(f"false claims refuted: {counts['false refuted'] / false_claims:.2%}")
    if true_claims:
        print(f"true claims proved: {counts['true proved'] / true_claims:.2%}")
    print(f"time {elapsed:.1f} s ({elapsed / max(total, 1):.3f} s per claim)")
    for family in sorted(families):
        row = families[family]
        print(f"  {family:30s} n={sum(row.values()):6d} {seconds[family] / sum(row.values()):.3f} s/claim "
              + ", ".join(f"{k} {v}" for k, v in sorted(row.items())))
    return 1 if any(counts[k] for k in _UNSOUND) else 0


if __name__ == "__main__":
    sys.exit(main())
