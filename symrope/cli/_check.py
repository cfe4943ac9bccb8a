"""``symrope check TARGET``: the four verdicts, counterexamples, generator and classification."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
from pathlib import Path

from symrope._cliutil import EXIT_PROVED, EXIT_REFUTED, EXIT_UNDECIDED
from symrope.cli._common import ArgumentParser, add_budget, check_budget, dump_json
from symrope.errors import UsageError

_SHORT = {"proved": "P", "refuted": "R", "undecided": "?"}


def main(argv: list[str]) -> int:
    """Run ``symrope check``; returns the exit code (0 proved, 1 refuted, 3 undecided, 2 bad input)."""
    from symrope.audit import lift_help   # the registry of real implementations names them

    parser = ArgumentParser(
        prog="symrope check",
        description="Check a positional encoding against the four assumptions (linearity, "
                    "translation invariance, identity at zero offset, continuity).")
    parser.add_argument("target", nargs="?", metavar="TARGET",
                        help="a zoo name, path/to/file.py:NAME or module:NAME")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    add_budget(parser, "seconds for the whole check (default 60)")
    parser.add_argument("--latex", metavar="FILE", help="also write the report as a LaTeX document")
    parser.add_argument("--list", action="store_true", help="list the zoo of built-in encodings")
    parser.add_argument("--zoo", action="store_true",
                        help="check every zoo encoding and print one row each, with timings")
    parser.add_argument("--impl", metavar="SPEC",
                        help=f"check real torch code instead of a TARGET: {lift_help()}, "
                             "or module:function / file.py:function with signature "
                             "(q, k, positions) -> (q_rot, k_rot)")
    parser.add_argument("--config", metavar="FILE.json",
                        help="the HF config.json for --impl hf-transformers (read offline, "
                             "through transformers' config class and its defaults)")
    parser.add_argument("--model-type", metavar="NAME",
                        help="with --impl hf-transformers (implied): that transformers model "
                             "type's default config, built offline from its config class")
    parser.add_argument("--rope-scaling", metavar="JSON",
                        help="with --config or --model-type: replace the rope parameters, e.g. "
                             "'{\"rope_type\": \"yarn\", \"factor\": 4}'")
    parser.add_argument("--tokens", type=int, default=None, metavar="N",
                        help="--impl: tokens of the symbolic sequence, each at its own position "
                             "(default 3)")
    parser.add_argument("--audit", action="store_true",
                        help="--impl: also run the precision audit of the same callable and "
                             "append its summary (safe context, worst band)")
    parser.add_argument("--max-position", type=int, default=65535, metavar="N",
                        help="with --audit: audit positions 0..N (default 65535)")
    parser.add_argument("--head-dim", type=int, metavar="N",
                        help="head dimension for --impl other than hf-transformers (default 64)")
    parser.add_argument("--position-dims", type=int, default=1, metavar="N",
                        help="position coordinates for --impl module:function (default 1)")
    args = parser.parse_args(argv)
    check_budget(args.budget)
    if args.list:
        return _list()
    if args.zoo:
        return _run_zoo(args.budget, args.json)
    if args.model_type is not None and args.impl is None:
        args.impl = "hf-transformers"
    if args.impl:
        return _run_impl(args)
    if args.config or args.head_dim is not None or args.position_dims != 1 or \
            args.rope_scaling is not None or args.tokens is not None or args.audit:
        raise UsageError("--config, --model-type, --rope-scaling, --head-dim, --position-dims, "
                         "--tokens and --audit go with --impl")
    if not args.target:
        raise UsageError("give a TARGET (a zoo name, path/to/file.py:NAME or module:NAME), "
                         "or --list")
    encoding = resolve_target(args.target)
    from symrope.checker import check

    return _print_report(check(encoding, budget=args.budget), args)


def resolve_target(target: str):
    """The :class:`Encoding` a TARGET names: a zoo entry, ``file.py:NAME`` or ``module:NAME``."""
    from symrope.checker import ZOO, Encoding, zoo_encoding

    if target in ZOO:
        return zoo_encoding(target)
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"{target!r} is neither a zoo encoding ('symrope check --list') nor "
                         "path/to/file.py:NAME or module:NAME")
    module = _load(where)
    if not hasattr(module, name):
        raise UsageError(f"{where} defines no {name!r}")
    value = getattr(module, name)
    if callable(value) and not isinstance(value, Encoding):
        try:
            value = value()
        except UsageError:
            raise
        except Exception as error:
            raise UsageError(f"{where}:{name}() raised {type(error).__name__}: {error}") from None
    if not isinstance(value, Encoding):
        raise UsageError(f"{where}:{name} is a {type(value).__name__}, not a symrope.Encoding "
                         "(or a function returning one)")
    return value


def _run_impl(args) -> int:
    """Lift real code (a library's or the user's) and check it; exit 3 when it cannot be lifted."""
    if args.target:
        raise UsageError(f"give either a TARGET ({args.target!r}) or --impl, not both")
    if args.tokens is not None and args.tokens < 1:
        raise UsageError(f"--tokens must be a positive integer, got {args.tokens}")
    if args.max_position < 0:
        raise UsageError(f"--max-position must be non-negative, got {args.max_position}")
    from symrope.lifting import LiftUndecided, check_lifted

    try:
        lifts = _lifted(args)
    except LiftUndecided as error:
        message = " ".join(str(error).split())
        print(f"symrope check: undecided: {message} (the code cannot be followed in exact "
              "semantics; no verdict)", file=sys.stderr)
        return EXIT_UNDECIDED
    except ImportError as error:
        raise UsageError(f"--impl needs torch ({error}); pip install 'symrope[frameworks]'") \
            from None
    reports = []
    for label, encoding in lifts:
        report = check_lifted(encoding, budget=args.budget, audit_spec=_audit_spec(args))
        if args.audit:
            from symrope.lifting import audit_summary

            report.audit = audit_summary(encoding, report, max_position=args.max_position)
        reports.append((label, report))
    return _print_reports(reports, args)


def _audit_spec(args) -> str:
    """What a user passes to ``symrope audit --impl`` for the same code."""
    if args.impl == "hf-transformers":
        if args.model_type:
            return f"hf-transformers --model-type {args.model_type}"
        return f"hf-transformers --config {args.config}" if args.config else "hf-transformers"
    return args.impl


def _print_reports(reports, args) -> int:
    """One report as before; several (per-layer rope, M-RoPE and its reduction) one after another."""
    from symrope._cliutil import exit_code

    if len(reports) == 1:
        return _print_report(reports[0][1], args)
    if args.latex:
        stem = Path(args.latex)
        for index, (_, report) in enumerate(reports):
            target = stem if index == 0 else stem.with_name(f"{stem.stem}-{index}{stem.suffix}")
            _write_latex(report, str(target))
    codes = [report.exit_code for _, report in reports]
    worst = exit_code({0: "proved", 1: "refuted", 3: "undecided"}[c] for c in codes)
    if args.json:
        dump_json({"verdict": {0: "proved", 1: "refuted", 3: "undecided"}[worst],
                   "reports": [dict(report.to_dict(), label=label) for label, report in reports]})
    else:
        for index, (label, report) in enumerate(reports):
            print(("" if index == 0 else "\n") + f"[{label}]")
            print(report.table())
    return worst


def _print_report(report, args) -> int:
    """The report as asked (--latex file, --json or the table); the verdict's exit code."""
    if args.latex:
        _write_latex(report, args.latex)
    if args.json:
        dump_json(report.to_dict())
    else:
        print(report.table())
    return report.exit_code


def _lifted(args) -> list:
    """``[(label, encoding)]``: one lift, or one per layer type / M-RoPE view of an HF model."""
    from symrope.lifting import IMPLS, lift, lift_hf_all, lift_impl

    spec = args.impl
    tokens = {} if args.tokens is None else {"tokens": args.tokens}
    scaling = _rope_scaling(args.rope_scaling)
    if spec == "hf-transformers":
        if args.head_dim is not None or args.position_dims != 1:
            raise UsageError("--head-dim and --position-dims do not apply to hf-transformers: "
                             "the config sets them")
        if args.model_type is not None and args.config:
            raise UsageError("give either --config or --model-type, not both")
        if args.model_type is None and not args.config:
            raise UsageError("--impl hf-transformers needs --config FILE.json or --model-type "
                             "NAME")
        config = _read_json(args.config) if args.config else None
        return lift_hf_all(config, model_type=args.model_type, rope_scaling=scaling, **tokens)
    if args.model_type is not None or scaling is not None:
        raise UsageError("--model-type and --rope-scaling go with --impl hf-transformers")
    if spec in IMPLS:
        if args.position_dims != 1:
            raise UsageError(f"--position-dims applies only to module:function, not {spec}")
        if args.config:
            raise UsageError(f"--config applies only to --impl hf-transformers, not {spec}")
        return [(spec, lift_impl(spec, head_dim=args.head_dim))]
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"unknown --impl {spec!r}: one of {', '.join(IMPLS)}, or "
                         "module:function / file.py:function")
    if args.config:
        raise UsageError("--config applies only to --impl hf-transformers")
    module = _load(where)
    if not hasattr(module, name):
        raise UsageError(f"{where} defines no {name!r}")
    head_dim = 64 if args.head_dim is None else args.head_dim
    if head_dim < 1 or args.position_dims < 1:
        raise UsageError("--head-dim and --position-dims must be positive")
    return [(spec, lift(getattr(module, name), head_dim, position_dims=args.position_dims,
                        name=f"{where}:{name}", **tokens))]


def _rope_scaling(text: str | None) -> dict | None:
    import json

    if text is None:
        return None
    try:
        scaling = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"--rope-scaling is not valid JSON: {error.msg}") from None
    if not isinstance(scaling, dict):
        raise UsageError(f"--rope-scaling must be a JSON object, got {text!r}")
    return scaling


def _read_json(path: str) -> dict:
    import json

    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"{path} is not valid JSON: {error.msg} (line {error.lineno})") from None
    if not isinstance(document, dict):
        raise UsageError(f"{path} must hold a JSON object (an HF config)")
    return document


def _load(where: str):
    try:
        if where.endswith(".py") or "/" in where or "\\" in where:
            path = Path(where)
            if not path.is_file():
                raise UsageError(f"no such file: {where}")
            spec = importlib.util.spec_from_file_location(f"_symrope_user_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        return importlib.import_module(where)
    except UsageError:
        raise
    except ModuleNotFoundError as error:
        raise UsageError(f"cannot import {where}: {error}") from None
    except Exception as error:  # the user's file failed while importing
        raise UsageError(f"importing {where} raised {type(error).__name__}: {error}") from None


def _write_latex(report, path: str) -> None:
    try:
        from symrope.latex import check_report_document
    except ImportError as error:
        raise UsageError(f"--latex needs the LaTeX renderer (symrope.latex), which is not "
                         f"available here: {error}") from None
    try:
        Path(path).write_text(check_report_document(report), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def _list() -> int:
    from symrope.checker import ZOO

    print(f"{'name':<24} {'expected L T I C':<17} description")
    for entry in ZOO.values():
        verdicts = " ".join(_SHORT[v] for v in entry.expected)
        print(f"{entry.name:<24} {verdicts:<17} {entry.description}")
    print("\nL linearity, T translation invariance, I identity at zero offset, C continuity; "
          "P proved, R refuted")
    return EXIT_PROVED


def _run_zoo(budget: float, as_json: bool) -> int:
    from symrope.checker import ZOO, check

    rows, failures = [], 0
    if not as_json:
        print(f"{'name':<24} {'L T I C':<9} {'expected':<9} {'seconds':>8}  generator")
    for entry in ZOO.values():
        start = time.monotonic()
        report = check(entry.build(), budget=budget)
        seconds = time.monotonic() - start
        got = report.verdicts()
        matches = got == entry.expected_verdicts
        failures += not matches
        summary = _classification_summary(report)
        rows.append({"name": entry.name, "verdicts": got, "expected": entry.expected_verdicts,
                     "matches": matches, "seconds": round(seconds, 3), "generator": summary})
        if not as_json:
            print(f"{entry.name:<24} {' '.join(_SHORT[v] for v in got.values()):<9} "
                  f"{'ok' if matches else 'MISMATCH':<9} {seconds:8.2f}  {summary}")
            sys.stdout.flush()
    if as_json:
        dump_json({"zoo": rows})
    return EXIT_PROVED if failures == 0 else EXIT_REFUTED


def _classification_summary(report) -> str:
    if not report.classification:
        return "-"
    parts = []
    for axis, groups in report.classification.items():
        kinds = ", ".join(f"{len(items) if kind != 'zero' else sum(i['count'] for i in items)} "
                          f"{kind.replace('_', ' ')}" for kind, items in groups.items())
        parts.append(kinds if len(report.classification) == 1 else f"{axis}: {kinds}")
    if report.generator.get("commute"):
        parts.append(f"commute {report.generator['commute']['verdict']}")
    if report.generator["pure_rotation"]["verdict"] == "proved":
        parts.append("skew")
    return "; ".join(parts)
