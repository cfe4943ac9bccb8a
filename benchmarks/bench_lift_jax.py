"""Lift and check a head_dim-128 JAX RoPE (target: under 30 s), and with ``--table`` the JAX
libraries installed here: lifted verdict, then the audit's safe context per dtype.

    python benchmarks/bench_lift_jax.py              # a user's JAX rope (jax only)
    python benchmarks/bench_lift_jax.py --table      # + gemma, keras-hub-jax, sglang-jax, maxtext

Run the table in an environment that has the libraries (``.venv-ci-jaxlibs``; keras-hub-jax
needs ``KERAS_BACKEND=jax``). Positions 0..--max-position, tolerance 2^-8 for every dtype.
"""

from __future__ import annotations

import argparse
import sys
import time

import jax.numpy as jnp

TARGET_SECONDS = 30.0


def rope(q, k, positions):
    d = q.shape[-1]
    inv = 1.0 / (500000.0 ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
    angle = jnp.einsum("s,f->sf", positions.astype(jnp.float32), inv)
    cos, sin = jnp.cos(angle), jnp.sin(angle)

    def turn(x):
        a, b = jnp.split(x, 2, axis=-1)
        return jnp.concatenate([a * cos - b * sin, b * cos + a * sin], -1)
    return turn(q), turn(k)


def lift_and_check(function, head_dim, name):
    from symrope.lifting import check_lifted, lift

    start = time.perf_counter()
    report = check_lifted(lift(function, head_dim, name=name))
    return report, time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--max-position", type=int, default=131071)
    args = parser.parse_args(argv)
    report, seconds = lift_and_check(rope, 128, "jax rope (head_dim 128)")
    print(f"lift + check, JAX rope head_dim 128: {report.verdict} in {seconds:.1f} s "
          f"(target {TARGET_SECONDS:.0f} s): {'ok' if seconds < TARGET_SECONDS else 'SLOW'}")
    if not args.table:
        return 0 if seconds < TARGET_SECONDS else 1
    from symrope.audit import AuditOptions, audit, build_library, libraries
    from symrope.audit._arrays import JaxLibrary
    from symrope.schedules import RopeConfig

    print(f"\n{'implementation':<16} {'lifted':<8} {'lift s':>6}  safe context (bf16 / fp16 / fp32), "
          f"positions 0..{args.max_position}")
    rows = [(name, library) for library in libraries() if issubclass(library, JaxLibrary)
            for name in (library.name, *library.variants)]
    for name, library in rows:
        reason = None if library.installed() else "not installed here"
        reason = reason or library.unavailable_here()
        if reason:
            print(f"{name:<16} {reason}")
            continue
        theta = 1_000_000 if name.startswith("sglang") else 10000
        config = RopeConfig.from_options(head_dim=128, theta=theta)
        try:
            impl = build_library(name, config)
        except Exception as error:  # noqa: BLE001 - one row says why
            print(f"{name:<16} {type(error).__name__}: {error}")
            continue
        report, seconds = lift_and_check(impl.lift_function(), 128, name)
        safe = [audit(impl, config, AuditOptions(max_position=args.max_position, dtype=dtype,
                                                 progress=False)).safe_context
                for dtype in ("bf16", "fp16", "fp32")]
        print(f"{name:<16} {report.verdict:<8} {seconds:6.1f}  {' / '.join(map(str, safe))}"
              f"   (theta {theta})")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
