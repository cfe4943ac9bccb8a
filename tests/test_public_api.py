"""The top-level API: every re-exported name resolves, and importing symrope stays light."""

import ast
import importlib
import importlib.util
import subprocess
import sys

import symrope


def test_every_public_name_is_the_object_its_home_module_defines():
    needs_torch = {"lift", "check_lifted"}
    have_torch = importlib.util.find_spec("torch") is not None
    for name, home in symrope._EXPORTS.items():
        if name in needs_torch and not have_torch:
            continue  # resolved lazily; only importing torch code needs torch
        assert getattr(symrope, name) is getattr(importlib.import_module(home), name), name
    assert set(symrope.__all__) == {"__version__", "UsageError", "InternalError",
                                    *symrope._EXPORTS}
    for subpackage in ("audit", "checker", "latex", "schedules", "linalg", "kernel"):
        importlib.import_module(f"symrope.{subpackage}")  # must not shadow a top-level name
    if have_torch:  # importing the subpackage must not replace the function symrope.lift
        importlib.import_module("symrope.lifting")
        assert callable(symrope.lift) and symrope.lift.__name__ == "lift"
    assert symrope.verify.__module__.startswith("symrope.engine")
    assert symrope.Encoding.__name__ == "Encoding" and symrope.check.__name__ == "check"
    assert symrope.PROVED == "proved" and symrope.REFUTED == "refuted"


def loaded_by_import(module: str, watched: set[str]) -> list[str]:
    """Which of ``watched`` a fresh interpreter has in sys.modules after ``import module``."""
    probe = f"import sys, {module}; print(sorted({sorted(watched)!r} & sys.modules.keys()))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return ast.literal_eval(result.stdout.strip())


def test_import_symrope_does_not_import_sympy_numpy_or_torch():
    assert loaded_by_import("symrope", {"sympy", "numpy", "torch"}) == []


def test_the_command_line_package_is_light_and_every_command_resolves():
    # the dispatcher imports a command's module only when that command runs
    assert loaded_by_import("symrope.cli", {"sympy", "numpy", "torch"}) == []
    from symrope.cli import COMMANDS

    for name, (module, function, _) in COMMANDS.items():
        assert module.startswith("symrope.cli._"), name  # commands live in the top layer
        assert callable(getattr(importlib.import_module(module), function)), name


def test_import_symrope_latex_does_not_import_the_checker():
    # the encoding-check document (and with it the checker, numpy and the zoo) loads on first use
    assert loaded_by_import("symrope.latex", {"symrope.checker", "numpy"}) == []
    from symrope.latex import check_report_document

    assert check_report_document.__module__ == "symrope.latex._check"


def test_latex_of_engine_objects_goes_through_the_latex_layer():
    import sympy as sp

    from symrope.latex import latex, verdict_latex

    x = sp.Symbol("x", real=True)
    verdict = symrope.verify(sp.cos(x) ** 2 + sp.sin(x) ** 2, 1)
    assert latex(verdict) == verdict_latex(verdict) and r"\text{proved" in latex(verdict)
    # without the latex layer SymPy's own printer has nothing to typeset a verdict with
    assert sp.latex(verdict) != latex(verdict)
