"""``symrope export coq``: per built-in theorem, its step lemmas (``NAME.v``, and
``NAME_matrices.v`` for symbolic matrix steps) and, where the theorem is stated whole in Coq,
``NAME_theorem.v``; every file compiles on its own with ``coqc``."""

from __future__ import annotations


from symrope.cli._common import ArgumentParser, output_directory
from symrope.cli._theorems import add_names, add_param, build_theorem, theorem_tasks

__all__ = ["export_main"]


def export_main(argv: list[str]) -> int:
    """``symrope export coq [NAME ...] --out DIR``: the ``.v`` files of each theorem."""
    from symrope.kernel import export_theorem

    parser = ArgumentParser(prog="symrope export",
                            description="Export built-in theorems to Coq: the checked steps as "
                                        "lemmas with proof scripts (NAME.v, NAME_matrices.v) "
                                        "and the whole theorem where it is stated in Coq "
                                        "(NAME_theorem.v).")
    parser.add_argument("system", choices=["coq"], help="the proof assistant (coq)")
    add_names(parser, "theorems (default: all)")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for the .v files")
    add_param(parser, example="d=8")
    # intermixed: "export coq --out DIR NAME" works too (plain parse_args stops at the option)
    args = parser.parse_intermixed_args(argv)
    tasks = theorem_tasks(args.names, args.param)
    out = output_directory(args.out)
    for builder, params in tasks:
        export = export_theorem(build_theorem(builder, params))
        path = out / f"{export.module}.v"
        path.write_text(export.text())
        companion = export.matrix_text()
        if companion is not None:
            (out / f"{export.module}_matrices.v").write_text(companion)
        whole = export.theorem_text()
        if whole is not None:
            (out / f"{export.module}_theorem.v").write_text(whole)
        extras = [name for name, text in ((f"{export.module}_matrices.v", companion),
                                          (f"{export.module}_theorem.v", whole)) if text]
        print(f"{path}  {export.exported}/{len(export.steps)} checked steps exported"
              + (f"; also {', '.join(extras)}" if extras else "")
              + ("" if whole else "; the whole theorem is not stated in Coq"))
    return 0


