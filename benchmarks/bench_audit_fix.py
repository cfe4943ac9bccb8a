"""Cost of the fix: the rotary module's forward before and after ``patch_rotary``, side by side.

Llama 3.1 8B's ``LlamaRotaryEmbedding`` (transformers, built offline), ``x`` in bf16, position
ids ``0..8191`` (one sequence of 8192 tokens): the best of ``--repeats`` forward calls of the
plain module, then of the same module patched to float64 angles, alternated so that machine load
hits both alike. Prints both times, their ratio, and the error each leaves at the last position.

Run: ``python benchmarks/bench_audit_fix.py`` (``--seq 131072`` for a longer sequence).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from symrope.audit import exact_schedule
from symrope.audit import hf_transformers_impl
from symrope.audit.fix import patch_rotary
from symrope.schedules import llama31_8b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seq", type=int, default=8192)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = llama31_8b()
    module = hf_transformers_impl(dict(config.hf_dict(), model_type="llama")).module
    x = torch.zeros(1, dtype=torch.bfloat16)
    ids = torch.arange(args.seq)[None]
    exact_cos, _, _ = exact_schedule(config).reference.cos_sin(np.arange(args.seq))
    patch = patch_rotary(module)
    patched_forward = module.forward
    patch.undo()

    def run(forward):
        started = time.perf_counter()
        with torch.no_grad():
            cos, _ = forward(x, ids)
        return time.perf_counter() - started, cos

    plain_times, fixed_times = [], []
    for _ in range(args.repeats):
        seconds, plain_cos = run(module.forward)
        plain_times.append(seconds)
        seconds, fixed_cos = run(patched_forward)
        fixed_times.append(seconds)

    def error(cos):
        return float(np.abs(cos[0, :, :64].float().double().numpy() - exact_cos).max())

    summary = {"seq": args.seq, "dtype": "bf16", "threads": 1,
               "plain_ms": min(plain_times) * 1e3, "fixed_ms": min(fixed_times) * 1e3,
               "ratio_fixed_over_plain": min(fixed_times) / min(plain_times),
               "plain_max_abs_error": error(plain_cos), "fixed_max_abs_error": error(fixed_cos)}
    print(f"LlamaRotaryEmbedding forward, {args.seq} positions, bf16 out, 1 thread: plain "
          f"{summary['plain_ms']:.2f} ms, patched (float64 angle) {summary['fixed_ms']:.2f} ms: "
          f"{summary['ratio_fixed_over_plain']:.2f}x")
    print(f"max |cos - exact| over the sequence: plain {summary['plain_max_abs_error']:.3g}, "
          f"patched {summary['fixed_max_abs_error']:.3g}")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
