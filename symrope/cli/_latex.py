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
    return parser


def main(argv: list[str]) -> int:
    """Entry point of ``symrope latex``; returns 0 when every theorem was proved."""
    args = _parser().parse_args(argv)
    check_budget(args.budget)
    from symrope.latex import combined_document, compile_pdf, theorem_document

    tasks = theorem_tasks(args.names, args.param)
    out_dir = output_directory(args.out)

    reports, written = [], []
    for builder, params in tasks:
        report = build_theorem(builder, params).prove(budget=args.budget)
        reports.append(report)
        path = out_dir / f"{_file_stem(builder.name)}.tex"
        path.write_text(theorem_document(report), encoding="utf-8")
        written.append(path)
        print(f"{path}  ({report.verdict}, {report.checked_steps} checked steps, "
              f"{report.cited_lemmas} cited lemmas)", flush=True)
    if args.all:
        path = out_dir / f"{COMBINED_NAME}.tex"
        path.write_text(combined_document(reports), encoding="utf-8")
        written.append(path)
        print(f"{path}  (all {len(reports)} theorems)", flush=True)

    if args.pdf:
        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=4) as pool:  # each pdflatex is its own process
            pdfs = list(pool.map(lambda p: compile_pdf(p, out_dir), written))
        for pdf in pdfs:
            print(f"{out_dir / pdf.name}", flush=True)  # as the .tex paths above: under --out
        print(f"compiled {len(pdfs)} PDF(s) in {time.monotonic() - start:.1f} s")

    return exit_code(r.verdict for r in reports)
