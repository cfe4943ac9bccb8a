"""`symrope prove` / `symrope list`: exit codes, one-line errors, the JSON schema."""

import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest
import sympy as sp

from symrope.cli import _prove as _prove_module
from symrope.cli import main
from symrope.engine import Theorem
from symrope.errors import UsageError
from symrope.linalg import rotation
from symrope.theorems import BUILTIN, THEOREM_MODULES, TheoremBuilder


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "symrope", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("args, fragment", [
    (["prove", "no_such_theorem"], "no theorem named 'no_such_theorem'"),
    (["prove", "--budget", "-1"], "--budget must be positive"),
    (["prove", "--param", "d"], "--param takes NAME=VALUE"),
    (["prove", "rope_relative", "--param", "d=abc"],
     "--param d: 'abc' is not an integer, a decimal (0.4, 1e4) or a fraction p/q"),
    (["prove", "rope_relative", "--param", "d=d"],
     "head dimension d must be an even integer >= 2, got d"),
    (["prove", "rope_relative", "--param", "theta=[1]"], "--param theta: '[1]' is not an integer"),
    (["prove", "rope_relative", "--param", "theta=1/1"], "theta must be a number > 1 or 'theta', got 1"),
    (["prove", "rope_relative", "--param", "dim=8"], "its parameters: d=64, theta=10000"),
    (["prove", "--frobnicate"], "unrecognized arguments"),
    (["frobnicate"], "unknown command"),
])
def test_bad_input_is_one_line_and_exit_2(args, fragment, capsys):
    assert main(args) == 2
    error = capsys.readouterr().err
    assert fragment in error and len(error.strip().splitlines()) == 1


def test_bad_input_from_the_console_has_no_traceback():
    result = run_cli("prove", "no_such_theorem")
    assert result.returncode == 2
    assert result.stderr.startswith("symrope prove: error: no theorem named")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_every_listed_theorem_module_exists_and_registers_theorems():
    import importlib

    for module in THEOREM_MODULES:
        imported = importlib.import_module(f"symrope.theorems.{module}")
        assert any(b.build_function.__module__ == imported.__name__ for b in BUILTIN.values()), module


def test_list_params_shows_every_theorems_parameters(capsys):
    assert main(["list", "--params"]) == 0
    out = capsys.readouterr().out
    assert "parameters: d=64, theta=10000" in out and "parameters: n=3" in out


def test_list_names_every_theorem(capsys):
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    from symrope.theorems import builtin_theorems

    for name, builder in builtin_theorems().items():
        assert re.search(rf"^{name}\s+{re.escape(builder.summary)}$", listing, re.M), name


def _register(monkeypatch, name, lhs, rhs, expect="proved"):
    def build():
        thm = Theorem(name, f"{lhs} = {rhs}")
        thm.cite("a lemma", "A. Author, Some Book (2020), Thm 1", "taken from the literature")
        thm.check(lhs, rhs, "the claim", expect=expect)
        return thm

    monkeypatch.setitem(BUILTIN, name, TheoremBuilder(name, "test theorem", build, {}, {}))


x = sp.Symbol("x", real=True)


@pytest.fixture
def builder_pids(monkeypatch, tmp_path):
    """The ids of the processes that built a theorem since the last call (each call empties it).

    ``prove -j`` proves in this process when it runs other threads (forking it would be unsafe),
    and then a ``-j`` test would pass without any worker: the tests assert where the theorems
    were built, and this fixture first waits for threads that earlier tests left to end, failing
    with their names if they do not.
    """
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    monitor = getattr(sys.modules.get("tqdm._monitor"), "TMonitor", None)
    for thread in others:
        if monitor is not None and isinstance(thread, monitor):
            # tqdm's watchdog of slow bars, left by a bar an earlier test drew through
            # transformers (test_audit_*): it ends when told, and the next bar restarts it
            thread.exit()
    deadline = time.monotonic() + 10
    for thread in others:
        thread.join(max(deadline - time.monotonic(), 0))
    running = [t.name for t in others if t.is_alive()]
    if running:
        pytest.fail(f"threads left running by earlier tests {running} make 'prove -j' prove in "
                    "this process: the -j tests cannot test worker processes")
    record = tmp_path / "builder_pids"
    real_build = _prove_module.build_theorem

    def recording(builder, params):  # inherited by the forked workers
        with open(record, "a") as file:
            file.write(f"{os.getpid()}\n")
        return real_build(builder, params)

    monkeypatch.setattr(_prove_module, "build_theorem", recording)

    def taken() -> set[int]:
        pids = {int(line) for line in record.read_text().split()} if record.exists() else set()
        record.unlink(missing_ok=True)
        return pids

    return taken


def _in_workers(pids: set[int]) -> bool:
    return bool(pids) and os.getpid() not in pids


def test_exit_codes_follow_the_verdicts(monkeypatch, capsys):
    _register(monkeypatch, "t_true", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    _register(monkeypatch, "t_false", sp.sin(2 * x), 2 * sp.sin(x))
    _register(monkeypatch, "t_hard", _Slow(x), sp.Integer(1))  # undecided at any speed
    _register(monkeypatch, "t_states_falsity", sp.sin(2 * x), 2 * sp.sin(x), expect="refuted")
    assert main(["prove", "t_true"]) == 0
    assert main(["prove", "t_states_falsity"]) == 0  # the theorem *says* the claim is false
    assert main(["prove", "t_false"]) == 1
    assert main(["prove", "t_true", "t_hard", "--budget", "0.5"]) == 3
    assert main(["prove", "t_hard", "t_false", "--budget", "0.5"]) == 1  # refuted wins


def test_json_document(monkeypatch, capsys):
    _register(monkeypatch, "t_true", sp.cos(2 * x), 1 - 2 * sp.sin(x) ** 2)
    assert main(["prove", "t_true", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (theorem,) = document["theorems"]
    assert theorem["name"] == "t_true" and theorem["verdict"] == "proved"
    assert theorem["seconds"] >= 0
    kinds = [(step["kind"], step["verdict"]) for step in theorem["steps"]]
    assert kinds == [("cited", "cited"), ("checked", "proved")]
    assert all("claim" in step for step in theorem["steps"])


def test_python_dash_m_and_version():
    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.strip()


def test_param_values_are_numbers_constants_or_allowed_words(capsys):
    from fractions import Fraction

    from symrope.cli._theorems import parameter_value, parse_parameter
    from symrope.theorems import get_theorem

    assert parse_parameter("n=12") == ("n", "12")
    group, skew = [get_theorem("group_law")], [get_theorem("skew_blocks_rational")]
    assert parameter_value("n", "12", group) == 12
    assert parameter_value("n", "n", group) == sp.Symbol("n")   # its own symbol, never parsed
    assert parameter_value("explicit", "True", [get_theorem("skew_blocks_axis")]) is True
    assert parameter_value("kind", "repeated", skew) == "repeated"   # a word-valued parameter
    assert parameter_value("theta", "1e4", [get_theorem("rope_relative")]) == 10000
    assert parameter_value("gamma", "2/5", [get_theorem("xpos_damped_rotation")]) == Fraction(2, 5)
    # an expression is not a value: nothing is evaluated (10**4 was sympify'd, i.e. eval'd)
    with pytest.raises(UsageError, match="is not an integer"):
        parameter_value("theta", "10**4", [get_theorem("rope_relative")])
    assert main(["prove", "group_law", "--param", "n=2"]) == 0


def _rows(text: str) -> list[str]:
    """The table without its time column and total (times differ from run to run)."""
    return [re.sub(r"\s+\d+\.\d+s$", "", line) for line in text.splitlines()
            if line and not line.endswith(" s") and " theorems proved in " not in line]


def test_jobs_give_the_same_rows_in_the_same_order_and_exit_code(monkeypatch, capsys,
                                                                  builder_pids):
    _register(monkeypatch, "t_true", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    _register(monkeypatch, "t_false", sp.sin(2 * x), 2 * sp.sin(x))
    _register(monkeypatch, "t_double", sp.cos(2 * x), 1 - 2 * sp.sin(x) ** 2)
    names = ["t_false", "t_true", "t_double"]
    assert main(["prove", *names, "-j", "1"]) == 1
    one = capsys.readouterr()
    assert builder_pids() == {os.getpid()}
    assert main(["prove", *names, "-j", "3"]) == 1
    three = capsys.readouterr()
    assert _in_workers(builder_pids())
    assert _rows(one.out) == _rows(three.out)
    assert [row.split()[0] for row in _rows(three.out)[2:]] == names
    assert "2/3 theorems proved" in three.out
    assert re.search(r"theorems proved in \d+\.\d+ s \(\d+\.\d+ s wall\)$", three.out.strip())
    seconds = re.compile(r"\d+\.\d+ s\)")
    assert one.err.startswith("t_false: refuted")
    assert seconds.sub("", three.err) == seconds.sub("", one.err)


class _Slow(sp.Function):
    """A function whose numeric value takes 30 s: only a deadline ends a claim that needs it
    (a timing-free way to exhaust a budget: no machine is fast enough to finish first)."""

    def _eval_evalf(self, prec):
        time.sleep(30)
        return sp.Float(1, prec)


def test_the_deadline_holds_in_worker_processes(monkeypatch, capsys, builder_pids):
    # the engine's deadline is a SIGALRM: it fires only on a main thread, so each theorem must
    # run on its worker's main thread; deciding _Slow(x) = 1 needs a 30 s evaluation
    _register(monkeypatch, "t_true", sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1))
    _register(monkeypatch, "t_hard", _Slow(x), sp.Integer(1))
    started = time.monotonic()
    assert main(["prove", "t_hard", "t_true", "--budget", "0.5", "-j", "2"]) == 3
    assert time.monotonic() - started < 20
    assert "t_hard: undecided" in capsys.readouterr().err
    assert _in_workers(builder_pids())


def test_json_is_the_same_document_with_jobs(monkeypatch, capsys, builder_pids):
    _register(monkeypatch, "t_true", sp.cos(2 * x), 1 - 2 * sp.sin(x) ** 2)
    _register(monkeypatch, "t_false", sp.sin(2 * x), 2 * sp.sin(x))

    def without_seconds(value):
        if isinstance(value, dict):
            return {k: without_seconds(v) for k, v in value.items() if k != "seconds"}
        return [without_seconds(v) for v in value] if isinstance(value, list) else value

    documents, pids = [], {}
    for jobs in ("1", "2"):
        assert main(["prove", "t_true", "t_false", "--json", "-j", jobs]) == 1
        documents.append(without_seconds(json.loads(capsys.readouterr().out)))
        pids[jobs] = builder_pids()
    assert pids["1"] == {os.getpid()} and _in_workers(pids["2"])
    assert documents[0] == documents[1]
    assert [t["name"] for t in documents[1]["theorems"]] == ["t_true", "t_false"]


def test_a_bad_parameter_from_a_worker_is_one_line_and_exit_2(capsys, builder_pids):
    # d=d passes the parser (a parameter may be its own symbol) and the theorem refuses it
    assert main(["prove", "rope_relative", "schedule_keeps_relative", "--param", "d=d",
                 "-j", "2"]) == 2
    error = capsys.readouterr().err
    assert "d must be an even integer" in error and len(error.strip().splitlines()) == 1
    assert _in_workers(builder_pids())


def test_jobs_must_be_positive(capsys):
    assert main(["prove", "-j", "0"]) == 2
    assert "-j must be at least 1" in capsys.readouterr().err


def test_json_text_of_matrix_products_is_sstrs_without_inverting(monkeypatch):
    # sympy.sstr decides a matrix product's sign by building -M, which inverts every
    # BlockDiagMatrix under an Inverse; the JSON printer must give the same text without that
    from sympy.matrices.expressions.blockmatrix import BlockDiagMatrix

    from symrope.engine._verdict import _show, plain_text

    s, t = sp.symbols("s t", real=True)
    A, B = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    block = rotation(s)
    diagonal = BlockDiagMatrix(block, block.subs(s, t))
    cases = [-2 * A * (A + B).T, A * B - B * A, sp.Inverse(diagonal) * diagonal.T,
             -sp.Inverse(diagonal) * diagonal, sp.I * A * B, -sp.I * A, (A * B) ** 2,
             sp.Matrix([[s, -t], [t, s]]).tolist(), sp.sin(s) ** 2 - 1]
    for case in cases:
        assert plain_text(case) == sp.sstr(case), case

    def no_inverse(self, *args, **kwargs):
        raise AssertionError("printing inverted a block-diagonal matrix")

    product = sp.MatMul(sp.Inverse(diagonal), diagonal.T, evaluate=False)
    expected = sp.sstr(product)
    monkeypatch.setattr(BlockDiagMatrix, "_eval_inverse", no_inverse)
    with pytest.raises(AssertionError, match="inverted"):
        sp.sstr(product)  # the cost this printer avoids (so this test can fail)
    assert _show(product, limit=10**6) == expected and "**(-1)*" in expected


def test_jobs_prove_in_other_processes_and_one_job_in_this_one():
    # in a fresh interpreter: a process that already runs other threads (as this test process
    # may, after earlier tests) proves in-process by design, since forking it is unsafe
    import textwrap

    script = textwrap.dedent("""
        import contextlib, io, json, os, sys
        import sympy as sp
        from symrope.cli import main
        from symrope.engine import Theorem
        from symrope.theorems import BUILTIN, TheoremBuilder
        x = sp.Symbol("x", real=True)

        def build(name):
            def builder():
                thm = Theorem(name, f"built in process {os.getpid()}")
                thm.check(sp.sin(x) ** 2 + sp.cos(x) ** 2, sp.Integer(1), "Pythagoras")
                return thm
            return TheoremBuilder(name, name, builder, {}, {})

        BUILTIN["t_where"], BUILTIN["t_other"] = build("t_where"), build("t_other")
        where = {}
        for jobs in ("1", "2"):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert main(["prove", "t_where", "t_other", "--json", "-j", jobs]) == 0
            statement = json.loads(out.getvalue())["theorems"][0]["statement"]
            where[jobs] = int(statement.rsplit(" ", 1)[1])
        print(where["1"] == os.getpid(), where["2"] != os.getpid())
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["True", "True"]


@pytest.mark.parametrize("command", [["prove"], ["latex", "--out", "{tmp}"],
                                     ["export", "coq", "--out", "{tmp}"]])
def test_prove_latex_and_export_read_parameters_alike(command, tmp_path, capsys):
    # one parser and one check for all three: an unknown name lists the theorem's parameters,
    # a value the theorem cannot take is one line (exit 2), never a traceback
    argv = [part.format(tmp=tmp_path) for part in command]
    assert main([*argv, "rope_relative", "--param", "dim=8"]) == 2
    err = capsys.readouterr().err
    assert "no parameter(s) dim; its parameters: d=64, theta=10000" in err
    assert main([*argv, "rope_relative", "--param", "d=d"]) == 2
    err = capsys.readouterr().err
    assert "d must be an even integer >= 2, got d" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
