"""``symrope diff A B``: are two real RoPE implementations the same encoding?

Each side is a spec (what ``symrope check --impl`` takes, or a port) or a saved lift
(``FILE.json`` from ``symrope lift --save``). Shared options (``--config``) apply to every side
that is code; ``--a-config`` / ``--b-config`` (and the other ``--a-``/``--b-`` options) to one.
``--pairwise SPEC...`` diffs every pair of several specs into one table (the docs' table).
"""

from __future__ import annotations

import sys
import time

from symrope._cliutil import EXIT_BAD_INPUT, EXIT_PROVED, EXIT_REFUTED, EXIT_UNDECIDED
from symrope._parse import integer_option
from symrope.cli._common import ArgumentParser, add_budget, check_budget, dump_json, output_file
from symrope.cli._lift import add_spec_options, resolve_spec, spec_help, spec_options
from symrope.errors import UsageError

__all__ = ["main"]

_KEYS = ("config", "model_type", "rope_scaling", "layer_type", "head_dim", "position_dims")


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="symrope diff",
        description="Decide exactly whether two real RoPE implementations are the same "
                    "encoding: same (exit 0), same up to a change of basis that trained W_q/W_k "
                    "absorb (exit 0), different (exit 1: what differs, a certified "
                    "counterexample, the config keys to blame) or undecided (exit 3).")
    parser.add_argument("specs", nargs="*", metavar="SPEC",
                        help=f"A and B: each {spec_help()}, or a saved lift FILE.json")
    add_spec_options(parser)
    add_spec_options(parser, "a-", "A")
    add_spec_options(parser, "b-", "B")
    parser.add_argument("--tokens", type=integer_option("--tokens", 1), metavar="N",
                        help="tokens of the symbolic sequence (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--latex", metavar="FILE", help="also write the report as LaTeX")
    parser.add_argument("--audit", action="store_true",
                        help="also run both implementations in float32 side by side per "
                             "position band (max |score difference|, first position beyond the "
                             "tolerance) and each one's own precision audit")
    parser.add_argument("--max-position", type=integer_option("--max-position", 0),
                        default=65535, metavar="N", help="with --audit: positions 0..N")
    parser.add_argument("--pairwise", action="store_true",
                        help="diff every pair of the SPECs (two or more) into one table")
    parser.add_argument("--markdown", action="store_true",
                        help="with --pairwise: print the table as Markdown")
    add_budget(parser, "seconds for each comparison (default 60)")
    return parser


def main(argv: list[str]) -> int:
    """Run ``symrope diff``; returns the exit code (0 same, 1 different, 3 undecided, 2 bad)."""
    args = _parser().parse_args(argv)
    check_budget(args.budget)
    if args.latex:
        output_file(args.latex, "--latex")
    if args.pairwise:
        return _pairwise(args)
    if len(args.specs) != 2:
        raise UsageError(f"give two implementations A and B (got {len(args.specs)}), or "
                         "--pairwise SPEC SPEC ...")
    if args.markdown:
        raise UsageError("--markdown goes with --pairwise")
    from symrope.diff import diff
    from symrope.lifting import LiftUndecided

    shared = _shared(args)
    encodings = []
    for letter, spec in zip("ab", args.specs):
        options = spec_options(args, f"{letter}-", None if _saved(spec) else shared)
        try:
            encodings.append(resolve_spec(spec, options, args.tokens))
        except LiftUndecided as error:
            print(f"symrope diff: undecided: {letter.upper()} ({spec}) cannot be lifted: "
                  f"{' '.join(str(error).split())}", file=sys.stderr)
            return EXIT_UNDECIDED
    report = diff(*encodings, budget=args.budget)
    if args.audit:
        from symrope.diff import side_by_side

        report.audit = side_by_side(*encodings, report.basis, max_position=args.max_position)
    if args.latex:
        from symrope.diff import diff_document

        _write(args.latex, diff_document(report))
    if args.json:
        dump_json(report.to_dict())
    else:
        print(report.table())
    return report.exit_code


def _saved(spec: str) -> bool:
    from symrope.diff import is_saved_lift

    return is_saved_lift(spec)


def _shared(args) -> dict:
    shared = {key: getattr(args, key) for key in _KEYS}
    if all(_saved(spec) for spec in args.specs) and any(v is not None for v in shared.values()):
        raise UsageError("every side is a saved lift: --config, --model-type, --rope-scaling, "
                         "--layer-type, --head-dim and --position-dims do not apply")
    return shared


def _write(path: str, text: str) -> None:
    from pathlib import Path

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def _pairwise(args) -> int:
    """Every pair of the specs, one row each: verdict, basis, what differs, keys to blame."""
    from symrope.diff import diff

    if len(args.specs) < 2:
        raise UsageError("--pairwise needs two or more SPECs")
    if args.audit or args.latex:
        raise UsageError("--audit and --latex go with one pair A B, not --pairwise")
    if any(getattr(args, f"{side}_{key}") is not None for side in "ab" for key in _KEYS):
        raise UsageError("--a-... and --b-... options go with one pair A B; --pairwise takes "
                         "the shared options")
    shared = _shared(args)
    start = time.monotonic()
    lifted, failed = {}, {}
    for spec in dict.fromkeys(args.specs):
        began = time.monotonic()
        try:
            options = spec_options(args, "", None if _saved(spec) else shared)
            if _saved(spec):
                options = {}
            lifted[spec] = (resolve_spec(spec, options, args.tokens), time.monotonic() - began)
        except Exception as error:  # noqa: BLE001 - a library that does not run here is a row
            failed[spec] = f"{type(error).__name__}: {' '.join(str(error).split())[:200]}"
    rows = []
    specs = list(lifted)
    for i, first in enumerate(specs):
        for second in specs[i + 1:]:
            report = diff(lifted[first][0], lifted[second][0], budget=args.budget)
            rows.append((first, second, report))
    total = time.monotonic() - start
    if args.json:
        dump_json({"pairs": [dict(r.to_dict(), a_spec=a, b_spec=b) for a, b, r in rows],
                   "lift_seconds": {s: round(t, 2) for s, (_, t) in lifted.items()},
                   "not_run": failed, "seconds": round(total, 2)})
    else:
        print(_pairwise_table(rows, lifted, failed, total, args.markdown))
    codes = {r.exit_code for _, _, r in rows}
    if failed and not rows:
        return EXIT_BAD_INPUT
    return EXIT_UNDECIDED if EXIT_UNDECIDED in codes else \
        (EXIT_REFUTED if EXIT_REFUTED in codes else EXIT_PROVED)


def _what_differs(report) -> str:
    if report.verdict == "different":
        parts = [d["text"].split(" (")[0] for d in report.differences if not d.get("absorbed")]
        return "; ".join(dict.fromkeys(parts)) or "-"
    if report.verdict == "undecided":
        return report.reason
    return report.rounding["text"].split(":")[0] if report.rounding else "-"


def _basis(report) -> str:
    if not report.basis:
        return "identity" if report.verdict == "same" else "-"
    moved = sum(1 for a, b, s in report.basis["content"] if (a, s) != (b, 1))
    return report.basis.get("pattern") or f"{report.basis['kind']} of {moved} coordinates"


def _pairwise_table(rows, lifted, failed, total, markdown: bool) -> str:
    header = ["A", "B", "verdict", "basis", "what differs", "responsible", "seconds"]
    body = [[a, b, r.verdict, _basis(r), _what_differs(r), ", ".join(r.responsible) or "-",
             f"{r.seconds:.2f}"] for a, b, r in rows]
    lines = []
    if markdown:
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                  for row in body]
    else:
        lines.append("  ".join(header))
        lines += ["  ".join(row) for row in body]
    lines.append("")
    lines.append("lifted: " + ", ".join(f"{spec} ({seconds:.1f} s)"
                                        for spec, (_, seconds) in lifted.items()))
    for spec, why in failed.items():
        lines.append(f"not run: {spec}: {why}")
    lines.append(f"total: {total:.1f} s")
    return "\n".join(lines)
