"""The proof-suite plugin: proof files are collected without SymPy, failures show evidence."""

import subprocess
import sys
import textwrap

PROOF_FILE = textwrap.dedent('''
    import sympy as sp
    from symrope.engine import Theorem
    from symrope.testing import proof

    x = sp.Symbol("x", real=True)

    @proof(k=[1, 2])
    def double_angle(k):
        thm = Theorem("double_angle", "sin(2kx) = 2 sin(kx) cos(kx)")
        thm.check(sp.sin(2 * k * x), 2 * sp.sin(k * x) * sp.cos(k * x), "angle addition")
        return thm

    @proof
    def wrong_sign():
        thm = Theorem("wrong_sign", "cos(a+b) = cos a cos b + sin a sin b (false)")
        a, b = sp.symbols("a b", real=True)
        thm.check(sp.cos(a + b), sp.cos(a) * sp.cos(b) + sp.sin(a) * sp.sin(b), "a slip")
        return thm
''')


def test_proof_items_pass_and_fail_with_their_counterexample(pytester):
    pytester.makepyfile(my_proofs=PROOF_FILE)
    result = pytester.runpytest("--symrope-proofs", "my_proofs.py")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*expected proved, got refuted*", "*refuted*a = *b = *"])


def test_collection_does_not_import_sympy(tmp_path):
    (tmp_path / "proofs").mkdir()
    (tmp_path / "proofs" / "rope.py").write_text(PROOF_FILE)
    probe = ("import sys, pytest; pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider', "
             "'--symrope-proofs', 'proofs']); "
             "print('SYMPY' if 'sympy' in sys.modules else 'LIGHT')")
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert "double_angle[k=1]" in result.stdout and "wrong_sign" in result.stdout
    assert result.stdout.strip().endswith("LIGHT")


def test_plugin_is_inert_unless_a_project_opts_in(pytester):
    """Installed symrope must not collect another project's proof_*.py files."""
    pytester.makepyfile(proof_things=PROOF_FILE)
    result = pytester.runpytest("proof_things.py")
    result.assert_outcomes()  # nothing collected: no ini option, no --symrope-proofs
    pytester.makeini("[pytest]\nsymrope_proof_files = proof_*.py\n")
    result = pytester.runpytest("proof_things.py")
    result.assert_outcomes(passed=2, failed=1)


def test_a_foreign_decorator_named_proof_is_not_collected(pytester):
    pytester.makepyfile(my_proofs="""
        def proof(function):
            return function

        @proof
        def not_a_theorem():
            raise AssertionError("must never run")
    """)
    result = pytester.runpytest("--symrope-proofs", "my_proofs.py")
    result.assert_outcomes()
