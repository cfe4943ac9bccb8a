"""The default audit against numpy's float64 cos + sin of the same angles (issue 19's target: 4x).

What is timed, each in a fresh process, alternated, twice (two rounds side by side):

* the floor: numpy's float64 ``cos`` and ``sin`` of the audit's angles ``p * omega`` (every
  position ``0..2^20 - 1`` x Llama 3.1 8B's 64 pairs, 64M angles), in chunks of 65536 rows;
* the default audit: what ``symrope audit`` runs with no arguments -- the real transformers
  ``LlamaRotaryEmbedding`` where transformers is installed (else the built-in model ``hf``),
  Llama 3.1 8B in bf16, every position and pair, through :func:`symrope.audit.audit` (the
  command adds the reference's certificate and the suggested fix's re-audit, timed apart).

Both modes: **one core** (``taskset``-style affinity to one CPU for the floor and the audit
alike) and **all cores** (no affinity: the audit's worker threads and numpy's single thread).
Ratios are audit / floor of the same round, wall clock and CPU seconds.

Run: ``python benchmarks/bench_audit_default.py`` (``--quick``: 2^18 positions). One line per
measurement, then a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

_FLOOR = """
import json, sys, time
import numpy as np
from symrope.audit import exact_schedule
from symrope.schedules import llama31_8b
top, chunk = int(sys.argv[1]), 65536
omegas = exact_schedule(llama31_8b()).omegas
started, cpu = time.perf_counter(), time.process_time()
for start in range(0, top + 1, chunk):
    angle = np.arange(start, min(start + chunk, top + 1), dtype=np.float64)[:, None] * omegas[None, :]
    np.cos(angle)
    np.sin(angle)
print(json.dumps({"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu}))
"""

_AUDIT = """
import json, sys, time
from symrope.audit import AuditOptions, audit
from symrope.schedules import llama31_8b
top = int(sys.argv[1])
config = llama31_8b()
try:                    # the registry of implementations (issue 21)
    from symrope.audit import default_implementation, resolve_implementation
    name, note = default_implementation()
    impl = resolve_implementation(name, config)
except ImportError:     # an older checkout: the command line resolved the names
    from symrope.cli._audit import resolve_impl
    try:
        from symrope.cli._audit import default_impl
        name, note = default_impl()
    except ImportError:     # a checkout from before issue 19: its default was the model hf
        name = "hf"
    impl = resolve_impl(name, None, config)
if name == "hf-transformers":
    config = impl.rope_config
started, cpu = time.perf_counter(), time.process_time()
result = audit(impl, config, AuditOptions(max_position=top, progress=False))
print(json.dumps({"seconds": time.perf_counter() - started, "cpu_seconds": time.process_time() - cpu,
                  "impl": name, "safe_context": result.safe_context}))
"""

_COMMAND = ["-m", "symrope", "audit", "--json"]


def _run(code: list[str], one_core: bool, checkout: str | None = None) -> dict:
    """A fresh process (of ``checkout``'s symrope, default this one), pinned to one CPU when
    asked; its last stdout line is a JSON record."""
    def pin():
        if one_core:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    root = checkout or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    # cwd: ``python -c`` puts the current folder first on sys.path, so it picks the checkout
    output = subprocess.run([sys.executable, *code], check=True, capture_output=True, text=True,
                            env=env, cwd=root, preexec_fn=pin).stdout
    return json.loads(output.strip().splitlines()[-1])


def _timed_command(top: int) -> dict:
    """The whole ``symrope audit`` (certificate and fix included), wall seconds."""
    import time

    started = time.perf_counter()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, *_COMMAND, "--max-position", str(top)], check=True,
                   capture_output=True, env=dict(os.environ, PYTHONPATH=root))
    return {"seconds": time.perf_counter() - started}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2^18 positions (a smoke run)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds side by side (default 2)")
    parser.add_argument("--before", metavar="CHECKOUT",
                        help="also time that checkout's default audit in each round")
    args = parser.parse_args()
    top = 2**18 - 1 if args.quick else 2**20 - 1
    summary = {"positions": top + 1, "pairs": 64, "load_average_before": os.getloadavg(),
               "cpus": len(os.sched_getaffinity(0)), "rounds": []}
    for round_number in range(1, args.rounds + 1):
        for mode, one_core in (("one core", True), ("all cores", False)):
            floor = _run(["-c", _FLOOR, str(top)], one_core)
            audited = _run(["-c", _AUDIT, str(top)], one_core)
            record = {"round": round_number, "mode": mode, "floor": floor, "audit": audited,
                      "wall_ratio": audited["seconds"] / floor["seconds"],
                      "cpu_ratio": audited["cpu_seconds"] / floor["cpu_seconds"],
                      "load_average": os.getloadavg()[0]}
            if args.before:
                old = _run(["-c", _AUDIT, str(top)], one_core, args.before)
                record.update(before=old, before_wall_ratio=old["seconds"] / floor["seconds"],
                              before_cpu_ratio=old["cpu_seconds"] / floor["cpu_seconds"])
            summary["rounds"].append(record)
            print(f"round {round_number}, {mode:9}: numpy cos+sin {floor['seconds']:.2f} s wall "
                  f"({floor['cpu_seconds']:.2f} s cpu); default audit ({audited['impl']}) "
                  f"{audited['seconds']:.2f} s wall ({audited['cpu_seconds']:.2f} s cpu): "
                  f"{record['wall_ratio']:.2f}x wall, {record['cpu_ratio']:.2f}x cpu "
                  f"(target <= 4x); load {record['load_average']:.1f}", flush=True)
            if args.before:
                print(f"           before ({args.before}): default audit ({record['before']['impl']}) "
                      f"{record['before']['seconds']:.2f} s wall ({record['before']['cpu_seconds']:.2f} s "
                      f"cpu): {record['before_wall_ratio']:.2f}x wall, "
                      f"{record['before_cpu_ratio']:.2f}x cpu", flush=True)
    command = _timed_command(top)
    summary["command_seconds"] = command["seconds"]
    print(f"the whole command (symrope audit --json: certificate, audit, suggested fix's "
          f"re-audit): {command['seconds']:.2f} s wall")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
