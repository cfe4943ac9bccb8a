"""Compile a derivation with pdflatex and read its log (errors, overfull boxes)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from symrope.errors import UsageError

__all__ = ["compile_pdf", "pdflatex_available", "latex_errors", "overfull_boxes",
           "PDFLATEX_COMMAND"]

PDFLATEX_COMMAND = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape"]
_TIMEOUT_SECONDS = 180
_OVERFULL = re.compile(r"^Overfull \\hbox \(([0-9.]+)pt too wide\)", re.MULTILINE)


def pdflatex_available() -> bool:
    """Whether a ``pdflatex`` executable is on ``PATH``."""
    return shutil.which("pdflatex") is not None


def latex_errors(log: str) -> list[str]:
    """The error lines (``! ...``) of a LaTeX log, in order.

    A line the log wrapped may start with ``!`` too (text such as ``k!``, overfull box
    contents): an error is a ``!`` line that TeX follows, within a few lines, with where it
    stopped (``l.NN``) or a fatal-error note.

    Examples
    ========

    >>> from symrope.latex import latex_errors
    >>> latex_errors("! Undefined control sequence.\\nl.12 \\foo\\n")
    ['! Undefined control sequence.']
    >>> latex_errors("[]\\OT1/cmtt/m/n/10.95 (phi J)^k / k\\n! = C_12(phi) I\\n []\\n")
    []
    """
    lines = log.splitlines()
    return [line for index, line in enumerate(lines) if line.startswith("! ") and
            any(_STOPPED.match(after) for after in lines[index + 1:index + 12])]


_STOPPED = re.compile(r"l\.\d+|<\*>|<argument>|<to be read again>|<inserted text>|!  ==> Fatal|"
                      r"Emergency stop")


def overfull_boxes(log: str) -> list[float]:
    """How far (in pt) each overfull ``\\hbox`` of a LaTeX log sticks out past its line."""
    return [float(amount) for amount in _OVERFULL.findall(log)]


def _needs_rerun(log: str) -> bool:
    return "Rerun to get" in log or "Label(s) may have changed" in log or \
        "No file" in log and ".toc" in log


def compile_pdf(tex_path: str | Path, out_dir: str | Path | None = None) -> Path:
    r"""Compile ``tex_path`` with ``pdflatex`` into ``out_dir``; return the PDF's path.

    Runs ``pdflatex -interaction=nonstopmode -halt-on-error -no-shell-escape`` (a second time
    when the table of contents or references need it).

    Parameters
    ==========

    tex_path : str or Path
        The ``.tex`` file.
    out_dir : str or Path, optional
        Where the PDF and the log go (default: beside the ``.tex`` file).

    Raises
    ======

    UsageError
        When pdflatex is not installed, or compilation fails (the message quotes the first
        LaTeX error line and names the log file).
    """
    tex_path = Path(tex_path).resolve()
    if not tex_path.is_file():
        raise UsageError(f"no LaTeX file at {tex_path}")
    out_dir = Path(out_dir).resolve() if out_dir is not None else tex_path.parent
    out_dir.mkdir(parents=True, exist_ok=True)
    executable = shutil.which("pdflatex")
    if executable is None:
        raise UsageError("pdflatex is not installed, so the PDF cannot be built (the .tex file "
                         f"{tex_path} is written; install it with e.g. 'apt-get install "
                         "texlive-latex-base')")
    log_path = out_dir / (tex_path.stem + ".log")
    for _ in range(3):
        try:
            subprocess.run([executable, *PDFLATEX_COMMAND[1:], f"-output-directory={out_dir}",
                            tex_path.name], cwd=tex_path.parent, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=_TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            raise UsageError(f"pdflatex took more than {_TIMEOUT_SECONDS} s on {tex_path}") from None
        log = log_path.read_text(encoding="latin-1") if log_path.exists() else ""
        errors = latex_errors(log)
        if errors:
            raise UsageError(f"pdflatex failed on {tex_path.name}: {errors[0][2:].strip()} "
                             f"(see {log_path})")
        if not _needs_rerun(log):
            break
    pdf_path = out_dir / (tex_path.stem + ".pdf")
    if not pdf_path.exists():
        raise UsageError(f"pdflatex wrote no PDF for {tex_path.name} (see {log_path})")
    return pdf_path
