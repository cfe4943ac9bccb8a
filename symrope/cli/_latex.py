"""``symrope latex``: write (and optionally compile) LaTeX derivations of built-in theorems."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from symrope._cliutil import exit_code
from symrope.cli._common import ArgumentParser, add_budget, check_budget, output_directory
from symrope.cli._theorems import add_names, add_param, build_theorem, theorem_tasks

COMBINED_NAME = "symrope-derivations"


def _file_stem(name: str) -> str:
    """A file name from a theorem name: letters, digits, '-' and '_' only."""
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    return stem.strip("_") or "theorem"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _kernel_summaries(reports) -> list[dict]:
    """Coq's verdict on each report's exportable steps, with the margin marks set."""
    from symrope.kernel import kernel_check, kernel_summary, mark_kernel_results

    exports, _ = kernel_check([r.theorem for r in reports])
    for report, export in zip(reports, exports):
        mark_kernel_results(report, export)
    return [kernel_summary(export) for export in exports]


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="symrope latex",
        description="Write standalone LaTeX derivations of built-in theorems: statement, "
                    "hypotheses, each step with its justification and a margin mark "
                    "(machine-checked, definition or cited), and a closing summary.")
    add_names(parser, "theorems to render (default: all; see 'symrope list')")
    parser.add_argument("--out", default=".", metavar="DIR",
                        help="directory for the .tex (and .pdf) files (default: .)")
    parser.add_argument("--all", action="store_true",
                        help=f"also write one combined document, {COMBINED_NAME}.tex")
    parser.add_argument("--pdf", action="store_true",
                        help="compile each document with pdflatex and report the PDF paths")
    add_budget(parser, "seconds allowed for proving each theorem (default 60)")
    add_param(parser, example="d=128")
    parser.add_argument("--kernel", choices=["coq"], default=None,
                        help="also re-check every exportable checked step with Coq's kernel "
                             "(needs coqc): those steps are marked '+ Coq' in the margin and "
                             "counted in the summary")
    return parser


def main(argv: list[str]) -> int:
    """Entry point of ``symrope latex``; returns 0 when every theorem was proved."""
    args = _parser().parse_args(argv)
    check_budget(args.budget)
    from symrope.latex import combined_document, compile_pdf, theorem_document

    if args.kernel:
        from symrope.kernel import find_coqc

        find_coqc()  # before any proving: a missing coqc is one line and exit code 2
    tasks = theorem_tasks(args.names, args.param)
    out_dir = output_directory(args.out)

    reports = [build_theorem(builder, params).prove(budget=args.budget)
               for builder, params in tasks]
    kernels = _kernel_summaries(reports) if args.kernel else [None] * len(reports)
    written = []
    for (builder, _), report, kernel in zip(tasks, reports, kernels):
        path = out_dir / f"{_file_stem(builder.name)}.tex"
        path.write_text(theorem_document(report, kernel), encoding="utf-8")
        written.append(path)
        coq = (f", {kernel['nontrivial_checked']}/{kernel['nontrivial']} non-trivial steps "
               f"kernel-checked by Coq, whole theorem {kernel['theorem']}" if kernel else "")
        print(f"{path}  ({report.verdict}, {_plural(report.checked_steps, 'checked step')}, "
              f"{_plural(report.cited_lemmas, 'cited lemma')}{coq})", flush=True)
    if args.all:
        path = out_dir / f"{COMBINED_NAME}.tex"
        path.write_text(combined_document(reports, kernels), encoding="utf-8")
        written.append(path)
        print(f"{path}  (all {len(reports)} theorems)", flush=True)

    if args.pdf:
        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=4) as pool:  # each pdflatex is its own process
            pdfs = list(pool.map(lambda p: compile_pdf(p, out_dir), written))
        for pdf in pdfs:
            print(f"{out_dir / pdf.name}", flush=True)  # as the .tex paths above: under --out
        print(f"compiled {_plural(len(pdfs), 'PDF')} in {time.monotonic() - start:.1f} s")

    return exit_code(r.verdict for r in reports)
