"""How long lifting and checking the real HF Llama rotary code takes, stage by stage.

Target: HF Llama 3.1 (head_dim 128, llama3 schedule) lifted and checked in under 30 s on the
shared 2-core machine. Stages: importing the model's modeling module (transformers' cost, not
symrope's), ``lift_hf`` (running the real rotary class and ``apply_rotary_pos_emb`` on
SymPy tensors), then each assumption of ``check_lifted`` and the generator.

Measured side by side in the same run, on the same head_dim:

- ``typed``: the same encoding typed by hand with ``Encoding.from_matrices`` and the module's
  exact float32 frequencies (rationals with power-of-two denominators): the checker's cost for
  these numbers, without the lift;
- ``schedule``: the same layout with the *exact* schedule frequencies (``theta^(-2i/d)`` with
  llama3's factors, irrational powers): what the checker costs when its engine can prove one
  template for all blocks.

The ratio ``typed / schedule`` shows how much of the check time is due to rational
frequencies (each block proved on its own) rather than to the lift.

Run: ``python benchmarks/bench_lift.py [--hidden-size 4096] [--heads 32]``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import sympy as sp

CONFIG = Path(__file__).resolve().parents[1] / "tests" / "data" / "audit" / "llama31_8b_config.json"


def _rotate_half_matrix(frequencies):
    half = len(frequencies)

    def matrix(p):
        entries = {}
        for i, omega in enumerate(frequencies):
            c, s = sp.cos(omega * p), sp.sin(omega * p)
            entries.update({(i, i): c, (i, i + half): -s, (i + half, i): s,
                            (i + half, i + half): c})
        return sp.ImmutableSparseMatrix(2 * half, 2 * half, entries)
    return matrix


def _timed_check(encoding, budget):
    from symrope.checker import check

    start = time.perf_counter()
    report = check(encoding, budget=budget)
    return time.perf_counter() - start, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden-size", type=int, default=4096)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--budget", type=float, default=600.0)
    args = parser.parse_args()
    config = json.loads(CONFIG.read_text())
    config.update(hidden_size=args.hidden_size, num_attention_heads=args.heads)

    start = time.perf_counter()
    import transformers.models.llama.modeling_llama  # noqa: F401 - the library's import cost
    imported = time.perf_counter() - start

    from symrope.checker import Encoding
    from symrope.lifting import check_lifted, lift_hf
    from symrope.schedules import RopeConfig, inv_freq

    start = time.perf_counter()
    encoding = lift_hf(config)
    lifted = time.perf_counter() - start
    start = time.perf_counter()
    report = check_lifted(encoding, budget=args.budget)
    checked = time.perf_counter() - start
    per_assumption = {name: r.seconds for name, r in report.assumptions.items()}
    generator = checked - sum(per_assumption.values())

    print(f"HF Llama 3.1 rotary, head_dim {encoding.dim}: verdict {report.verdict}")
    print(f"  import modeling_llama     {imported:8.2f} s  (transformers, not symrope)")
    print(f"  lift (real code on SymPy) {lifted:8.2f} s")
    for name, seconds in per_assumption.items():
        print(f"  check: {name:<19}{seconds:8.2f} s  ({report.assumptions[name].verdict})")
    print(f"  check: generator + rest   {generator:8.2f} s")
    total = lifted + checked
    print(f"  lift + check              {total:8.2f} s  (target 30 s: "
          f"{'met' if total < 30 else 'NOT met'})")

    module_frequencies = [sp.Rational(float(v)) for v in lift_hf_inv_freq(config)]
    exact = inv_freq(RopeConfig.from_hf(config), "sympy")
    typed_seconds, typed = _timed_check(Encoding.from_matrices(
        "typed", _rotate_half_matrix(module_frequencies), _rotate_half_matrix(module_frequencies)),
        args.budget)
    schedule_seconds, scheduled = _timed_check(Encoding.from_matrices(
        "schedule", _rotate_half_matrix(exact), _rotate_half_matrix(exact)), args.budget)
    print(f"  typed by hand, float32 frequencies:  {typed_seconds:8.2f} s ({typed.verdict})")
    print(f"  typed by hand, exact schedule:       {schedule_seconds:8.2f} s ({scheduled.verdict})")
    print(f"  ratio lifted check / typed (same numbers): {checked / typed_seconds:6.2f}")
    print(f"  ratio typed float32 / exact schedule:      {typed_seconds / schedule_seconds:6.2f}")


def lift_hf_inv_freq(config: dict):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    values = {k: v for k, v in config.items() if k != "model_type"}
    return LlamaRotaryEmbedding(LlamaConfig(**values)).inv_freq.tolist()


if __name__ == "__main__":
    main()
