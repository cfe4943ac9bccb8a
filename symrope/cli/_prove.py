"""``symrope prove`` and ``symrope list``."""

from __future__ import annotations

import sys
import time

from symrope.cli._common import ArgumentParser, dump_json, exit_code
from symrope.errors import UsageError



def parse_parameter(text: str) -> tuple[str, object]:
    """``NAME=VALUE``: a Python literal (12, 0.4, True, 'x'), a bare word (a symbolic name such as
    ``theta`` or a kind such as ``repeated``), or a SymPy expression such as ``10**4`` or ``1/2``."""
    import ast

    import sympy as sp

    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise UsageError(f"--param takes NAME=VALUE, got {text!r}")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        pass
    if value.isidentifier():
        return name, value
    try:
        return name, sp.sympify(value)
    except (sp.SympifyError, SyntaxError, TypeError):
        raise UsageError(f"--param {name}: cannot read {value!r} as a number or expression") from None


def prove_main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="symrope prove", description="Prove built-in theorems.")
    parser.add_argument("names", nargs="*", metavar="NAME", help="theorems (default: all)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds allowed for each theorem (default 60)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                        help="override a parameter of the named theorems, e.g. --param d=4096")
    parser.add_argument("--kernel", choices=["coq"], default=None,
                        help="also re-check every exportable checked step with Coq's kernel "
                             "(needs coqc)")
    args = parser.parse_args(argv)
    if args.budget <= 0:
        raise UsageError(f"--budget must be positive, got {args.budget}")
    if args.kernel:
        from symrope.kernel import find_coqc

        find_coqc()  # before any proving: a missing coqc is one line and exit code 2
    from symrope.theorems import builtin_theorems, get_theorem

    builders = [get_theorem(n) for n in args.names] if args.names else \
        list(builtin_theorems().values())
    overrides = dict(parse_parameter(p) for p in args.param)
    reports = []
    for builder in builders:
        params = {k: v for k, v in overrides.items() if k in builder.defaults}
        if args.names and set(overrides) - set(builder.defaults):
            raise UsageError(f"theorem {builder.name} has no parameter(s) "
                             f"{', '.join(sorted(set(overrides) - set(builder.defaults)))}; "
                             f"its parameters: {_parameters_text(builder)}")
        started = time.monotonic()
        report = _build(builder, params).prove(budget=args.budget)
        report.seconds = time.monotonic() - started  # building can be the work (numeric theorems)
        reports.append(report)
        if not args.json and not args.kernel:
            _print_row(report, width=max(len(b.name) for b in builders), first=len(reports) == 1)
    kernel, kernel_seconds = {}, 0.0
    if args.kernel:
        from symrope.kernel._summary import kernel_check

        exports, kernel_seconds = kernel_check([r.theorem for r in reports])
        kernel = dict(zip((id(r) for r in reports), exports))
    if args.json:
        dump_json({"theorems": [_with_kernel(r, kernel.get(id(r))) for r in reports]})
    else:
        width = max(len(b.name) for b in builders)
        for number, report in enumerate(reports if args.kernel else []):
            _print_row(report, width=width, first=number == 0, kernel=kernel[id(report)])
        total = sum(r.seconds for r in reports)
        proved = sum(r.proved for r in reports)
        print(f"\n{proved}/{len(reports)} theorems proved in {total:.2f} s")
        if args.kernel:
            exports = list(kernel.values())
            checked = sum(e.checked for e in exports)
            steps = sum(len(e.steps) for e in exports)
            print(f"Coq kernel: {checked}/{steps} checked steps kernel-checked "
                  f"(coqc {kernel_seconds:.1f} s)")
        for report in reports:
            if not report.proved:
                print(report.explain(), file=sys.stderr)
    return exit_code(r.verdict for r in reports)


def _parameters_text(builder) -> str:
    return ", ".join(f"{k}={v}" for k, v in builder.defaults.items()) or "none"


def _build(builder, params: dict):
    """Build with the user's parameters; a value the theorem cannot take is bad input (exit 2)."""
    if not params:
        return builder.build()
    try:
        return builder.build(**params)
    except UsageError:
        raise
    except (ValueError, TypeError, ArithmeticError, AttributeError) as error:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise UsageError(f"theorem {builder.name} cannot take {given} "
                         f"({type(error).__name__}: {error}); its parameters and defaults: "
                         f"{_parameters_text(builder)}") from None


def _with_kernel(report, export) -> dict:
    document = report.to_dict()
    if export is not None:
        from symrope.kernel._summary import kernel_summary

        document["kernel"] = kernel_summary(export)
    return document


def _print_row(report, width: int, first: bool, kernel=None) -> None:
    width = max(width, len("theorem"))
    extra = f" {'coq':>7}" if kernel is not None else ""
    if first:
        print(f"{'theorem':<{width}}  {'verdict':<10} {'checked':>7} {'cited':>5} {'time':>8}"
              f"{extra}")
        print("-" * (width + 34 + len(extra)))
    column = f" {f'{kernel.checked}/{len(kernel.steps)}':>7}" if kernel is not None else ""
    print(f"{report.theorem.name:<{width}}  {report.verdict:<10} {report.checked_steps:>7} "
          f"{report.cited_lemmas:>5} {report.seconds:>7.2f}s{column}", flush=True)


def list_main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="symrope list", description="List the built-in theorems.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--params", action="store_true",
                        help="show each theorem's parameters and their defaults (--param NAME=VALUE)")
    args = parser.parse_args(argv)
    from symrope.theorems import builtin_theorems

    theorems = builtin_theorems()
    if args.json:
        dump_json({"theorems": [{"name": b.name, "summary": b.summary,
                                 "defaults": {k: str(v) for k, v in b.defaults.items()}}
                                for b in theorems.values()]})
        return 0
    width = max((len(n) for n in theorems), default=10)
    for builder in theorems.values():
        print(f"{builder.name:<{width}}  {builder.summary}")
        if args.params:
            print(f"{'':<{width}}  parameters: {_parameters_text(builder)}")
    return 0
