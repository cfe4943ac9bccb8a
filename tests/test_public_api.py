"""The top-level API: every re-exported name resolves, and importing symrope stays light."""

import subprocess
import sys

import symrope


def test_every_public_name_resolves():
    for name in symrope.__all__:
        assert getattr(symrope, name) is not None, name
    assert callable(symrope.check) and callable(symrope.verify) and callable(symrope.audit)


def test_import_symrope_does_not_import_sympy_numpy_or_torch():
    probe = "import sys, symrope; print(sorted({'sympy', 'numpy', 'torch'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "[]"
