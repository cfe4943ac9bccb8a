"""Shared pieces of the LaTeX tests: pdflatex/pdftotext availability and a sample theorem.

Named ``test_latex_support`` only so that it sits with the tests it serves; it holds no tests.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import sympy as sp
from ci_support import missing

from symrope.engine import Theorem


def require_tool(name: str) -> str:
    """The tool's path; skip when it is missing (outside CI); fail when it is missing under CI."""
    path = shutil.which(name)
    if path is None:
        missing(f"{name} is not installed", ".ci/run must install it")
    return path


def pdf_text(pdf: Path) -> str:
    require_tool("pdftotext")
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout


_WORD_BOX = re.compile(r'<word xMin="[0-9.]+" yMin="([0-9.]+)" xMax="[0-9.]+" yMax="([0-9.]+)">'
                       r'([^<]*)</word>')
_SIX_POINT = r"""\documentclass[11pt]{article}
\usepackage{amsmath,amssymb}
\begin{document}
{\tiny six} \textit{\tiny six} $x_{a_{b}} y^{c^{d}} \scriptscriptstyle abc + \alpha\beta$
\end{document}
"""


def word_heights(pdf: Path) -> list[tuple[float, str]]:
    """``(height in pt, word)`` of every word ``pdftotext -bbox`` finds in ``pdf``."""
    require_tool("pdftotext")
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True,
                         capture_output=True, text=True).stdout
    return [(float(bottom) - float(top), html.unescape(word))
            for top, bottom, word in _WORD_BOX.findall(out)]


def six_point_height(tmp_path: Path) -> float:
    """The smallest word height ``pdftotext -bbox`` reports for text set at 6 pt in the
    derivations' fonts (Computer Modern text and math at 11 pt): a word lower than this is
    smaller than 6 pt."""
    from symrope.latex import compile_pdf

    tex = tmp_path / "six_point.tex"
    tex.write_text(_SIX_POINT)
    heights = [height for height, word in word_heights(compile_pdf(tex, tmp_path))
               if word in ("six", "b", "d", "abc+", "αβ")]
    assert len(heights) >= 4, heights
    return min(heights)


def squeeze(text: str) -> str:
    """Text without any whitespace: line breaks in the PDF must not hide a match."""
    return "".join(text.split())


def rotation(angle):
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def rope_sample(d: int = 16, name: str = "rope_sample") -> Theorem:
    """A small RoPE derivation with every kind of step: definitions, a d x d block claim
    shown by ``display``, a cited lemma, and a claim the theorem states is false."""
    s, t, p = sp.symbols("s t p", real=True)
    omegas = [sp.Integer(10000) ** (-sp.Rational(2 * i, d)) for i in range(d // 2)]

    def rope(position):
        return sp.BlockDiagMatrix(*[rotation(position * w) for w in omegas])

    thm = Theorem(name, f"R_d(s)^T R_d(t) = R_d(t - s) for RoPE with d = {d}",
                  hypotheses=["s, t real positions", "omega_i = theta^(-2i/d), theta = 10000"],
                  statement_latex=r"R_d(s)^\top R_d(t) = R_d(t-s)")
    thm.define("R_d(p)", rope(p), "one rotation block per pair of coordinates")
    thm.check(rotation(s).T * rotation(t), rotation(t - s), "angle addition, one block")
    thm.check(sp.block_collapse(rope(s).T * rope(t)), rope(t - s),
              "block by block: each block is the identity above",
              display=(r"R_d(s)^\top R_d(t)",
                       r"\operatorname{diag}\bigl(R((t-s)\omega_0), \ldots, "
                       r"R((t-s)\omega_{d/2-1})\bigr)"))
    thm.cite("a continuous one-parameter subgroup of GL(n) is differentiable",
             "Lean Mathlib OneParameterSubgroup.existsUnique_generator "
             "(Mathlib/Analysis/Normed/Algebra/OneParameterSubgroup.lean)",
             "continuity suffices for a generator")
    thm.check(rotation(s) * rotation(t).T, rotation(t - s), "a tempting but wrong rearrangement",
              expect="refuted")
    return thm
