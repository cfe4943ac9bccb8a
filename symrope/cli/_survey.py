"""``symrope survey``: every installed real RoPE implementation x {bf16, fp16, fp32}, one table.

The sampling and the process pool are :func:`symrope.audit.survey`'s (its module's docstring says
what sampling can miss); this module reads the options and prints the table or JSON.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from symrope.audit import (DEFAULT_TOLERANCE, EXPLAINING_MODELS, SURVEY_SAMPLING, plot_survey,
                           sample_positions, survey, survey_names, survey_table, surveyed_names)
from symrope._parse import integer_option, real_option
from symrope.cli._common import ArgumentParser, dump_json, output_file
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["main"]

DENSE = SURVEY_SAMPLING["dense_below"]
PER_BAND = SURVEY_SAMPLING["per_band_random"]
TAIL = SURVEY_SAMPLING["per_band_tail"]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="symrope survey",
        description="Audit every installed real RoPE implementation in bf16, fp16 and fp32 on one "
                    "schedule and print one table: safe context, max |cos/sin error| up to 8K, 128K "
                    "and 1M positions, the logit error, the dominant cause and the fix. Positions "
                    f"are sampled: all below {DENSE}, then per band its last {TAIL} and {PER_BAND} "
                    "seeded random ones.")
    parser.add_argument("--max-position", type=integer_option("--max-position", 0), default=2**20 - 1,
                        metavar="N",
                        help="last position surveyed (default 1048575)")
    parser.add_argument("--head-dim", type=integer_option("--head-dim", 1), default=128, metavar="N",
                        help="head dimension (128)")
    parser.add_argument("--theta", type=real_option("--theta", positive=True), default=500000.0,
                        metavar="T",
                        help="rope_theta (default 500000; plain RoPE, which every library expresses)")
    parser.add_argument("--impls", metavar="A,B", help=f"comma-separated (default: {', '.join(surveyed_names())})")
    parser.add_argument("--with-models", action="store_true",
                        help=f"add the built-in explanatory models ({', '.join(EXPLAINING_MODELS)})")
    parser.add_argument("--tolerance", type=real_option("--tolerance", positive=True),
                        default=DEFAULT_TOLERANCE, metavar="T",
                        help="absolute cos/sin error allowed inside the safe context (default 2^-8)")
    parser.add_argument("--workers", type=integer_option("--workers", 1), default=os.cpu_count() or 1,
                        metavar="N",
                        help="processes (default: every core)")
    parser.add_argument("--seed", type=integer_option("--seed", 0), default=0,
                        help="seed of the sampled positions (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--plot", metavar="FILE", help="write one PNG: max |err| against position, every row")
    from symrope.cli._conformance import add_options

    add_options(parser)  # --check: the conformance table of lifted transformers model types
    return parser



def main(argv: list[str]) -> int:
    """Run ``symrope survey``; returns the exit code."""
    args = _parser().parse_args(argv)
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    from symrope.cli._conformance import check_only_options, run

    if args.check:
        return run(args)
    check_only_options(args)
    if args.max_position < 0 or args.max_position > 2**32:
        raise UsageError(f"--max-position must be in 0..2^32, got {args.max_position}")
    if not (args.tolerance > 0 and np.isfinite(args.tolerance)):
        raise UsageError(f"--tolerance must be a positive number, got {args.tolerance!r}")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.plot:
        output_file(args.plot, "--plot")
    names = [n.strip() for n in args.impls.split(",")] if args.impls else list(surveyed_names())
    if args.with_models:
        names += [n for n in EXPLAINING_MODELS if n not in names]
    for name in names:
        if name not in survey_names():
            raise UsageError(f"unknown implementation {name!r} (one of: {', '.join(survey_names())})")
    config = RopeConfig.from_options(head_dim=args.head_dim, theta=args.theta)
    started = time.perf_counter()
    positions = sample_positions(args.max_position, args.seed)   # drawn once: its size is reported
    # bars on a terminal only (a log or a pipe would keep every frame), never with --json
    rows = survey(names, config, args.max_position, args.tolerance, args.workers, args.seed,
                  progress=not args.json and sys.stderr.isatty(), positions=positions)
    seconds = time.perf_counter() - started
    if args.plot:
        plot_survey(rows, args.plot, args.tolerance, config)
    if args.json:
        dump_json({"schema": "symrope.survey/2", "config": config.describe(),
                   "tolerance": args.tolerance, "max_position": args.max_position,
                   "sampled_positions": int(positions.size),
                   "sampling": dict(SURVEY_SAMPLING),
                   "seconds": round(seconds, 1), "workers": args.workers, "rows": rows})
        return 0
    print(f"symrope survey: {config.describe()}; tolerance {args.tolerance:.3g} on cos/sin; "
          f"{positions.size} positions sampled up to {args.max_position} (all below {DENSE}, per "
          f"band the last {TAIL} and {PER_BAND} random: a failing fraction f of a band is missed "
          f"with probability <= exp(-{PER_BAND} f)); {seconds:.0f} s on {args.workers} processes")
    print("\n".join(survey_table(rows, args.tolerance)))
    warned = list(dict.fromkeys(line for row in rows for line in row.get("library_warnings", [])))
    if warned:   # collected from the workers (kept out of the progress bars), printed once
        print("warnings while the rows ran (collected from the workers, printed once):")
        print("\n".join(f"  {line}" for line in warned))
    reasons = {row["impl"]: row["skipped"] for row in rows if "skipped" in row}
    for impl, reason in reasons.items():  # the table cuts reasons short (a missing library's
        # names the pip extra to install); most reasons already start with the impl's name
        print(f"not run: {reason}" if reason.startswith(impl) else f"not run: {impl}: {reason}")
    return 0
