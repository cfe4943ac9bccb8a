"""``symrope survey --check``: the conformance table of every transformers rotary model type.

The work is :func:`symrope.lifting.conformance`; this module reads the options the
survey command hands over and prints the table, one JSON document, or a Markdown page.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from symrope.cli._common import dump_json
from symrope.errors import UsageError

__all__ = ["add_options", "run"]


def add_options(parser) -> None:
    """The options of ``symrope survey --check`` (the survey's own parser wires them in)."""
    parser.add_argument("--check", action="store_true",
                        help="instead of the precision survey: lift and check every transformers "
                             "model type with a rotary class (symrope check --model-type NAME) "
                             "and print the conformance table")
    parser.add_argument("--model-types", metavar="A,B",
                        help="with --check: only these model types (default: all of them)")
    parser.add_argument("--markdown", metavar="FILE.md",
                        help="with --check: also write the table as a Markdown page")
    parser.add_argument("--check-budget", type=float, default=None, metavar="S",
                        help="with --check: seconds per check (default 120: a loaded machine "
                             "must not turn a head_dim 256 proof into 'undecided')")


_CHECK_ONLY = {"model_types": "--model-types", "markdown": "--markdown",
               "check_budget": "--check-budget"}


def check_only_options(args) -> None:
    """Options of the conformance table given without ``--check`` are a mistake, not ignored."""
    given = [flag for name, flag in _CHECK_ONLY.items() if getattr(args, name) is not None]
    if given:
        raise UsageError(f"{', '.join(given)} only go with --check")


def run(args) -> int:
    """Run the conformance table with the parsed survey arguments; exit 0 (a table is no verdict)."""
    from symrope.lifting import (conformance, conformance_counts, conformance_markdown,
                                 conformance_table)

    if args.check_budget is None:
        args.check_budget = 120.0
    if args.check_budget <= 0:
        raise UsageError(f"--check-budget must be positive, got {args.check_budget}")
    if args.markdown and not Path(args.markdown).resolve().parent.is_dir():
        raise UsageError(f"--markdown {args.markdown!r}: its folder does not exist")
    names = None
    if args.model_types:
        from symrope.audit import rope_model_types

        names = [n.strip() for n in args.model_types.split(",") if n.strip()]
        known = set(rope_model_types())
        unknown = [n for n in names if n not in known]
        if unknown:
            raise UsageError(f"not a transformers model type with a rotary class: "
                             f"{', '.join(unknown)}")
    started = time.perf_counter()
    rows = conformance(names, workers=args.workers, budget=args.check_budget,
                       progress=not args.json)
    seconds = time.perf_counter() - started
    summary = conformance_counts(rows)
    if args.markdown:
        Path(args.markdown).write_text(conformance_markdown(rows, seconds, args.workers, _versions()),
                                       encoding="utf-8")
    if args.json:
        dump_json({"schema": "symrope.conformance/1", "versions": _versions(),
                   "workers": args.workers, "seconds": round(seconds, 1), "counts": summary,
                   "rows": rows})
        return 0
    print("\n".join(conformance_table(rows)))
    print(f"\n{summary['model_types']} model types: {summary['decided']} decided, "
          f"{summary['exit_3']} exit 3 ("
          + "; ".join(f"{k}: {v}" for k, v in summary["exit_3_by_reason"].items())
          + f"); {seconds:.0f} s on {args.workers} processes ({os.cpu_count()} cores)")
    return 0


def _versions() -> str:
    import torch
    import transformers

    from symrope._version import __version__

    return (f"symrope {__version__}, transformers {transformers.__version__}, "
            f"torch {torch.__version__}")
