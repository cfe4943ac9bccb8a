"""MLX's compiled ``mx.fast.rope`` and mlx-lm's rope classes: audit per dtype (safe context,
worst band) and the relation to transformers' rope lifted to exact semantics.

    python benchmarks/bench_audit_mlx.py [--max-position N]
"""

from __future__ import annotations

import argparse
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-position", type=int, default=131071)
    args = parser.parse_args(argv)
    from symrope.audit import AuditOptions, audit, build_library
    from symrope.audit._mlx_relate import reference_planes, relate
    from symrope.lifting import check_lifted, lift_hf
    from symrope.schedules import RopeConfig, llama31_8b

    plain = RopeConfig.from_options(head_dim=128, theta=500000)
    rows = [("mlx-fast-rope", plain, {}), ("mlx-fast-rope-traditional", plain, {}),
            ("mlx-lm", llama31_8b(), {}),
            ("mlx-lm", RopeConfig.from_options(head_dim=128, theta=10000, rope_scaling={
                "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
                max_position_embeddings=131072), {})]
    print(f"{'implementation':<28} {'schedule':<8} {'seconds':>7}  safe context bf16 / fp16 / fp32 "
          f"(positions 0..{args.max_position}); worst max|err| fp32")
    for name, config, options in rows:
        start = time.perf_counter()
        results = [audit(build_library(name, config, **options), config,
                         AuditOptions(max_position=args.max_position, dtype=dtype, progress=False))
                   for dtype in ("bf16", "fp16", "fp32")]
        print(f"{name:<28} {config.rope_type:<8} {time.perf_counter() - start:7.1f}  "
              + " / ".join(str(r.safe_context) for r in results)
              + f"; {results[-1].worst('max_abs_error'):.3g}")
    start = time.perf_counter()
    reference = check_lifted(lift_hf({"model_type": "llama", "head_dim": 128, "hidden_size": 4096,
                                      "num_attention_heads": 32, "rope_theta": 500000.0}))
    planes = reference_planes(reference, 128)
    print(f"\nreference: transformers LlamaRotaryEmbedding (head_dim 128, theta 500000) lifted "
          f"and {reference.verdict} in {time.perf_counter() - start:.1f} s")
    for name, options, label in (("mlx-fast-rope", {}, "mx.fast.rope traditional=False"),
                                 ("mlx-fast-rope-traditional", {}, "mx.fast.rope traditional=True"),
                                 ("mlx-fast-rope", {"base": 10000.0}, "mx.fast.rope base=10000")):
        for dtype in ("bf16", "fp32"):
            print()
            print(relate(build_library(name, plain, **options), planes, label, dtype,
                         min(args.max_position, 65535)).text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
