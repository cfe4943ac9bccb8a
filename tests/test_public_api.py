"""The top-level API: every re-exported name resolves, and importing symrope stays light."""

import importlib
import subprocess
import sys

import symrope


def test_every_public_name_resolves():
    for name in symrope.__all__:
        assert getattr(symrope, name) is not None, name
    assert callable(symrope.check) and callable(symrope.verify)
    for subpackage in ("audit", "checker", "latex", "schedules", "linalg"):
        importlib.import_module(f"symrope.{subpackage}")  # must not shadow a top-level name
    assert callable(symrope.check) and symrope.Encoding.__name__ == "Encoding"


def test_import_symrope_does_not_import_sympy_numpy_or_torch():
    probe = "import sys, symrope; print(sorted({'sympy', 'numpy', 'torch'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "[]"
