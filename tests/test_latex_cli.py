"""``symrope latex``: files written, PDFs compiled, exit codes, one-line errors."""

from __future__ import annotations

import pytest
import sympy as sp

from symrope.engine import Theorem
from symrope.errors import UsageError
from symrope.cli._latex import main
from symrope.theorems import BUILTIN, TheoremBuilder, builtin_theorems
from test_latex_support import pdf_text, require_tool


def _tiny(n=3):
    x = sp.Symbol("x", real=True)
    thm = Theorem(f"tiny {n}% demo", f"(x + 1)^{n} expands", hypotheses=["x real"])
    thm.check((x + 1) ** n, sp.expand((x + 1) ** n), "binomial theorem")
    return thm


def _false():
    x = sp.Symbol("x", real=True)
    thm = Theorem("tiny_false", "sin(2x) = 2 sin(x)")
    thm.check(sp.sin(2 * x), 2 * sp.sin(x), "wrong on purpose")
    return thm


@pytest.fixture
def registry(monkeypatch):
    builtin_theorems()  # load the library first, so the demo theorems are simply added
    monkeypatch.setitem(BUILTIN, "tiny_demo", TheoremBuilder("tiny_demo", "a demo", _tiny,
                                                             {"n": 3}, {}))
    monkeypatch.setitem(BUILTIN, "tiny_false", TheoremBuilder("tiny_false", "a false demo",
                                                              _false, {}, {}))


def test_writes_one_document_per_theorem_and_a_combined_one(tmp_path, registry, capsys):
    assert main(["tiny_demo", "--out", str(tmp_path), "--all", "--param", "n=4"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["symrope-derivations.tex",
                                                          "tiny_demo.tex"]
    tex = (tmp_path / "tiny_demo.tex").read_text()
    assert r"tiny 4\% demo" in tex and r"\texttt{n=4}" in tex
    assert "proved, 1 checked step, 0 cited lemmas" in capsys.readouterr().out


def test_pdf_is_compiled_and_reported(tmp_path, registry, capsys):
    require_tool("pdflatex")
    assert main(["tiny_demo", "--out", str(tmp_path), "--pdf"]) == 0
    pdf = tmp_path / "tiny_demo.pdf"
    assert pdf.exists() and str(pdf) in capsys.readouterr().out
    assert "tiny3%demo" in "".join(pdf_text(pdf).split())


def test_exit_code_follows_the_verdict(tmp_path, registry):
    assert main(["tiny_false", "--out", str(tmp_path)]) == 1
    assert "FAILED: refuted" in (tmp_path / "tiny_false.tex").read_text()


@pytest.mark.parametrize("argv, message", [
    (["no_such_theorem"], "no theorem named 'no_such_theorem'"),
    (["tiny_demo", "--param", "n"], "--param takes NAME=VALUE"),
    (["tiny_demo", "--param", "zz=1"], "has no parameter"),
    (["tiny_demo", "--budget", "0"], "--budget must be positive"),
    (["tiny_demo", "--bogus"], "unrecognized arguments"),
])
def test_bad_input_is_a_one_line_usage_error(tmp_path, registry, argv, message):
    with pytest.raises(UsageError, match=message):
        main([*argv, "--out", str(tmp_path)])


def test_pdf_without_pdflatex_is_a_clear_error(tmp_path, registry, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    with pytest.raises(UsageError, match="pdflatex is not installed"):
        main(["tiny_demo", "--out", str(tmp_path), "--pdf"])
    assert (tmp_path / "tiny_demo.tex").exists()  # the .tex is still written


def test_the_console_script_prints_one_line_on_bad_input(tmp_path):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "symrope", "latex", "no_such_theorem",
                             "--out", str(tmp_path)], capture_output=True, text=True,
                            cwd=str(tmp_path.parent))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "no theorem named" in result.stderr


def test_kernel_coq_marks_the_steps_coq_checked(tmp_path, registry, capsys):
    # the "+ Coq" margin mark and the summary's count come from symrope.kernel's summary API
    require_tool("coqc")
    assert main(["tiny_demo", "--out", str(tmp_path), "--kernel", "coq"]) == 0
    tex = (tmp_path / "tiny_demo.tex").read_text()
    assert r"\stepmark{$\checkmark$ checked + Coq}" in tex
    assert "Coq kernel & 1 of 1 non-trivial steps kernel-checked" in tex
    assert "1/1 non-trivial steps kernel-checked by Coq" in capsys.readouterr().out


def test_kernel_coq_without_coqc_is_a_one_line_error(tmp_path, registry, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    with pytest.raises(UsageError, match="coqc"):
        main(["tiny_demo", "--out", str(tmp_path), "--kernel", "coq"])
    assert not (tmp_path / "tiny_demo.tex").exists()  # refused before any proving
