"""Run ``coqc`` on exported theorems, with a timeout, and read back which steps it accepted.

Two kinds of file: the step lemmas (below) and, for each theorem stated whole in Coq, its
whole-theorem file (:func:`symrope.kernel._whole.check_whole`); all of them are compiled side by
side, one ``coqc`` process per file, at most one per CPU.

All theorems are checked in one file (one ``Module`` per theorem, the preamble once): loading
Coq's ``Reals`` costs more than most theorems' lemmas, so one ``coqc`` process does the whole
library. ``coqc`` stops at the first error, so a rejected step is dropped and the file checked
again without it, until ``coqc`` accepts what is left: a step is ``checked`` only when the file
that contains it compiled, every lemma ending in ``Qed``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from symrope.errors import UsageError
from symrope.kernel._certificate import PRELUDE
from symrope.kernel._export import TheoremExport
from symrope.kernel._whole import check_whole, whole_theorem
from symrope.kernel._matrices import MATRIX_PRELUDE, MATRIX_SECTION, MATRIX_SECTION_END

__all__ = ["KernelUnavailable", "find_coqc", "check_exports", "COQ_INSTALL_HINT"]

COQ_INSTALL_HINT = "install Coq 8.16 or later (Debian/Ubuntu: apt-get install " \
                   "--no-install-recommends coq)"
_ERROR_LINE = re.compile(r'File "[^"]*", line (\d+)')
_STEP_MARK = re.compile(r"\(\* step (\d+): ")
_MODULE_MARK = re.compile(r"Module (\w+)\.")


class KernelUnavailable(UsageError):
    """``coqc`` is not installed: one line saying what to install (exit code 2)."""


def find_coqc() -> str:
    """The path of ``coqc``, or :class:`KernelUnavailable`."""
    path = shutil.which("coqc")
    if path is None:
        raise KernelUnavailable(f"--kernel coq needs coqc, which is not on PATH: {COQ_INSTALL_HINT}")
    return path


def _compile(coqc: str, path: Path, timeout: float) -> tuple[bool, str]:
    try:
        done = subprocess.run([coqc, "-q", "-w", "-notation-overridden,-ambiguous-paths",
                               path.name], cwd=path.parent, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, f"coqc ran past {timeout:g} s"
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def _combined(exports, keep, matrices: bool) -> str:
    prelude = MATRIX_PRELUDE if matrices else PRELUDE
    parts = ["(* symrope: kernel check of several theorems, one Module each. *)", prelude]
    for export in exports:
        body = export.body(only=keep[export.module], matrices=matrices)
        if matrices:
            body = MATRIX_SECTION + body + MATRIX_SECTION_END
        parts += [f"Module {export.module}.", body, f"End {export.module}.", ""]
    return "\n".join(parts)


def mathcomp_available(coqc: str) -> bool:
    """Whether MathComp's matrices (Debian: libcoq-mathcomp-algebra) are installed for coqc."""
    try:
        where = subprocess.run([coqc, "-where"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return (Path(where.stdout.strip()) / "user-contrib" / "mathcomp" / "algebra").is_dir()


def _blame(text: str, message: str):
    """(module, step index) of the lemma at the error's line, or None."""
    match = _ERROR_LINE.search(message)
    if not match:
        return None
    module = step = None
    for number, content in enumerate(text.splitlines(), start=1):
        if number > int(match.group(1)):
            break
        if _MODULE_MARK.match(content):
            module, step = _MODULE_MARK.match(content).group(1), None
        elif _STEP_MARK.match(content):
            step = int(_STEP_MARK.match(content).group(1))
    return None if module is None or step is None else (module, step)


def _one_line(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    error = next((line for line in lines if line.startswith("Error")), lines[-1] if lines else "")
    return error[:200]


def check_exports(exports: Iterable[TheoremExport], directory: Path | None = None, *,
                  timeout: float = 300.0, whole: bool = True) -> float:
    """Check every exported step of ``exports`` with ``coqc``; mark each checked or rejected.

    The scalar lemmas (Coq's ``Reals``) and the symbolic matrix lemmas (MathComp) are two files,
    ``symrope_kernel_check.v`` and ``symrope_kernel_matrices.v`` in ``directory`` (a temporary
    one by default); with ``whole=True`` each theorem stated whole in Coq is compiled too (its
    :attr:`~symrope.kernel._export.TheoremExport.whole` gets the verdict). The files are
    checked side by side. Returns the wall-clock seconds.
    """
    coqc = find_coqc()
    exports = list(exports)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="symrope-coq-") as scratch:
        where = Path(directory) if directory is not None else Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        matrix_steps = [s for e in exports for s in e.steps if s.exported and s.matrix_lemmas]
        has_mathcomp = mathcomp_available(coqc)
        jobs = [lambda: _check_loop(coqc, exports, where / "symrope_kernel_check.v", False,
                                    timeout)]
        if matrix_steps and has_mathcomp:
            jobs.append(lambda: _check_loop(coqc, exports, where / "symrope_kernel_matrices.v",
                                            True, timeout))
        else:
            for step in matrix_steps:
                step.kernel = "not checked"
                step.detail = "MathComp is not installed (Debian: libcoq-mathcomp-algebra)"
        if whole:
            for export in exports:
                jobs += _whole_jobs(coqc, export, where, timeout, has_mathcomp)
        workers = max(1, min(len(jobs), os.cpu_count() or 1))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(lambda job: job(), jobs))
    return time.monotonic() - started


def _whole_jobs(coqc, export: TheoremExport, where: Path, timeout: float, has_mathcomp: bool):
    stated = whole_theorem(export.name)
    if stated is None or export.whole is None:
        return []
    if "From mathcomp" in (export.theorem_text() or "") and not has_mathcomp:
        export.whole.status = "not checked"
        export.whole.detail = "MathComp is not installed (Debian: libcoq-mathcomp-algebra)"
        return []

    def job():
        directory = where / f"whole_{export.module}"
        export.whole = check_whole(coqc, stated, timeout=timeout, directory=directory)
    return [job]


def _check_loop(coqc, exports, path: Path, matrices: bool, timeout: float) -> None:
    def relevant(step):
        return step.exported and bool(step.matrix_lemmas) == matrices

    keep = {e.module: {s.index for s in e.steps if relevant(s)} for e in exports}
    by_module = {e.module: e for e in exports}
    spent = 0.0
    while True:
        text = _combined(exports, keep, matrices)
        path.write_text(text)
        started = time.monotonic()
        ok, message = _compile(coqc, path, max(timeout - spent, 1.0))
        spent += time.monotonic() - started
        blamed = None if ok else _blame(text, message)
        if ok or blamed is None or blamed[1] not in keep.get(blamed[0], ()):
            for export in exports:
                for step in export.steps:
                    if step.index in keep[export.module]:
                        step.kernel = "checked" if ok else "rejected"
                        step.detail = None if ok else _one_line(message)
            return
        module, index = blamed
        step = next(s for s in by_module[module].steps if s.index == index)
        step.kernel, step.detail = "rejected", _one_line(message)
        keep[module].discard(index)


def check_export(export: TheoremExport, directory: Path | None = None, *,
                 timeout: float = 300.0) -> float:
    """:func:`check_exports` for one theorem."""
    return check_exports([export], directory, timeout=timeout)
