"""The top-level API: every re-exported name resolves, and importing symrope stays light."""

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


def test_import_symrope_does_not_import_sympy_numpy_or_torch():
    probe = "import sys, symrope; print(sorted({'sympy', 'numpy', 'torch'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "[]"
