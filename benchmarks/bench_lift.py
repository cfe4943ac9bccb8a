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

The lift runs a whole sequence (3 tokens at independent positions, issue 17); ``--tokens 1``
beside it, in the same run, is what one token costs: the sequence must not make the check slow
at head_dim 128 (correct code is reduced to one per-token encoding before the checker runs).

``--reproductions`` instead runs issue 17's reproductions through the command line of the tree
on ``PYTHONPATH`` (so an older checkout can be measured the same way) and prints one row each:
exit code, the four verdicts, seconds, and the first line of what went wrong.

Run: ``python benchmarks/bench_lift.py [--hidden-size 4096] [--heads 32] [--reproductions]``.
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
    parser.add_argument("--reproductions", action="store_true",
                        help="issue 17's reproductions through the CLI instead")
    args = parser.parse_args()
    if args.reproductions:
        return reproductions()
    config = json.loads(CONFIG.read_text())
    config.update(hidden_size=args.hidden_size, num_attention_heads=args.heads)

    start = time.perf_counter()
    import transformers.models.llama.modeling_llama  # noqa: F401 - the library's import cost
    imported = time.perf_counter() - start

    from symrope.checker import Encoding
    from symrope.lifting import check_lifted, lift_hf
    from symrope.schedules import RopeConfig, inv_freq

    timings = {1: [], 3: []}
    for tokens in (3, 1, 3, 1):  # alternated, twice each, the fastest kept: a shared machine
        start = time.perf_counter()
        encoding = lift_hf(config, tokens=tokens)
        lifted = time.perf_counter() - start
        start = time.perf_counter()
        report = check_lifted(encoding, budget=args.budget)
        timings[tokens].append((lifted, time.perf_counter() - start, encoding, report))
    lifted_one, checked_one = (min(t[k] for t in timings[1]) for k in (0, 1))
    lifted, checked = (min(t[k] for t in timings[3]) for k in (0, 1))
    encoding, report = timings[3][-1][2], timings[3][-1][3]
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
    print(f"  one token instead of {encoding.rows.tokens}: lift {lifted_one:.2f} s, check "
          f"{checked_one:.2f} s; ratio (sequence / one token) lift {lifted / lifted_one:.2f}, "
          f"check {checked / checked_one:.2f}")

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


REPRODUCTIONS = ("rope", "rope_complex_conj", "interpolation_long", "interpolation_floor_div",
                  "interpolation_round", "angle_bucket", "key_positions_flipped",
                  "rebased_to_first_token", "cache_offset_on_q_only", "gather_by_wrong_index",
                  "positions_fp16", "positions_bf16")
_SMALL = {"hidden_size": 64, "num_attention_heads": 8}
CONFIGS = {
    "gemma3": {"model_type": "gemma3"}, "gptj": {"model_type": "gptj"},
    "llama4": {"model_type": "llama4"}, "stablelm": {"model_type": "stablelm"},
    "phi": {"model_type": "phi"}, "qwen2_vl": {"model_type": "qwen2_vl"},
    "qwen2_5_vl": {"model_type": "qwen2_5_vl"}, "qwen3_vl": {"model_type": "qwen3_vl"},
    "cohere": {"model_type": "cohere"},
    "llama-yarn": {"model_type": "llama", **_SMALL, "max_position_embeddings": 16384,
                   "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                    "original_max_position_embeddings": 4096}},
    "phi3-longrope": {"model_type": "phi3", **_SMALL, "max_position_embeddings": 16384,
                      "original_max_position_embeddings": 4096,
                      "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0] * 4,
                                       "long_factor": [2.0] * 4}},
    "llama-dynamic": {"model_type": "llama", **_SMALL, "max_position_embeddings": 4096,
                      "rope_scaling": {"rope_type": "dynamic", "factor": 4.0}},
}


def reproductions() -> None:
    """Issue 17's reproductions through ``python -m symrope check`` (any checkout's CLI)."""
    import os
    import subprocess
    import sys
    import tempfile

    functions = Path(__file__).resolve().parents[1] / "tests" / "data" / "lift" / "issue17.py"

    def run(argv):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "symrope", "check", *argv, "--json",
                               "--budget", "120"], capture_output=True, text=True, timeout=900,
                              env=dict(os.environ))
        seconds = time.perf_counter() - start
        verdicts, what = "-", ""
        if done.stdout.strip().startswith("{"):
            document = json.loads(done.stdout)
            reports = document.get("reports") or [document]
            verdicts = " / ".join("".join(a["verdict"][0].upper().replace("U", "?")
                                          for a in r["assumptions"].values()) for r in reports)
            what = "; ".join(r.get("headline", r["verdict"]) for r in reports)
            hazards = sum(len(r.get("hazards") or []) for r in reports)
            what += f"; {hazards} hazard(s)" if hazards else ""
        else:
            lines = done.stderr.strip().splitlines() or ["(no output)"]
            what = ("TRACEBACK " if "Traceback" in done.stderr else "") + lines[-1][:160]
        return done.returncode, verdicts, seconds, what

    print(f"{'reproduction':<26}{'exit':>5}  {'L T I C':<12}{'seconds':>8}  result")
    rows = [(name, ["--impl", f"{functions}:{name}", "--head-dim", "8"])
            for name in REPRODUCTIONS]
    folder = tempfile.mkdtemp()
    for name, config in CONFIGS.items():
        path = Path(folder) / f"{name}.json"
        path.write_text(json.dumps(config))
        rows.append((name, ["--impl", "hf-transformers", "--config", str(path)]))
    for name, argv in rows:
        code, verdicts, seconds, what = run(argv)
        print(f"{name:<26}{code:>5}  {verdicts:<12}{seconds:8.1f}  {what}", flush=True)


def lift_hf_inv_freq(config: dict):
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    values = {k: v for k, v in config.items() if k != "model_type"}
    return LlamaRotaryEmbedding(LlamaConfig(**values)).inv_freq.tolist()


if __name__ == "__main__":
    main()
