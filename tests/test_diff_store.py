"""Saved lifts are data: a hostile or malformed file is refused with one line, exit 2, and runs
nothing; a real lift survives the round trip exactly. Also the command lines ``symrope lift``
and ``symrope diff`` (exit codes, --json, --latex, bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp
from lift_support import require_module

from symrope.cli import main
from symrope.errors import UsageError
from symrope.lifting._store import FORMAT, LIMITS, expressions_to_table, table_to_expressions

DATA = Path(__file__).parent / "data"
SAVED = DATA / "diff" / "llama31_transformers_5.0.0.json"
USER = str(DATA / "diff" / "user_rope.py")


def _document(nodes, rows=None, **extra) -> dict:
    """A one-token, head_dim-1 saved lift whose q and k are node 0 (unless ``rows``)."""
    document = {"format": FORMAT, "name": "planted", "spec": "planted", "head_dim": 1,
                "position_dims": 1, "tokens": 1, "library": {"name": "x", "version": None},
                "settings": None, "config": None, "lift_info": {}, "nodes": nodes,
                "rows": rows or {"q": [[len(nodes) - 1]], "k": [[len(nodes) - 1]]}}
    document.update(extra)
    return document


@pytest.fixture
def refused(tmp_path, capsys, monkeypatch):
    """Write a file, diff it against the saved Llama 3.1 lift; assert one line, exit 2, and that
    the marker file a payload would create does not exist and SymPy's parser never ran."""
    import sympy.parsing.sympy_parser as sympy_parser

    parsed = []
    original = sympy_parser.parse_expr
    monkeypatch.setattr(sympy_parser, "parse_expr",
                        lambda text, *a, **k: parsed.append(text) or original(text, *a, **k))
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "marker"

    def check(content, expected: str) -> str:
        path = tmp_path / "hostile.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content if isinstance(content, str) else json.dumps(content))
        capsys.readouterr()
        code = main(["diff", str(path), str(SAVED)])
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert code == 2, err
        assert len(lines) == 1 and "Traceback" not in err, err
        assert expected in lines[0], lines[0]
        assert "nothing was run" in lines[0] or "cannot read" in lines[0]
        assert not marker.exists() and parsed == []
        return lines[0]

    return check, marker


PAYLOAD = "__import__('os').system('touch marker')"


def test_a_node_outside_the_allowlist_is_refused(refused):
    check, _ = refused
    check(_document([["Symbol", "_lift_p0_0"], ["Function", 0]]), "'Function' is not an allowed")
    check(_document([["Symbol", "_lift_p0_0"], [PAYLOAD, 0]]), "is not an allowed node")
    check(_document([["Symbol", "_lift_p0_0"], ["Lambda", 0, 0]]), "is not an allowed node")


def test_strings_that_sympify_would_evaluate_are_refused(refused):
    check, marker = refused
    check(_document([["Symbol", PAYLOAD]]), "is not one of the lift's")
    check(_document([["Integer", PAYLOAD]]), "decimal digit string")
    check(_document([["Rational", "1", "2**2**2**2"]]), "decimal digit string")
    check(_document([["Symbol", "_lift_p0_0 + 1"]]), "is not one of the lift's")
    check(_document([["Integer", "1"]], name="\x1b[2J" + PAYLOAD), "control characters")
    assert not marker.exists()


def test_a_deep_tree_is_refused_without_recursion(refused):
    check, _ = refused
    deep = "[" * 10**6 + "]" * 10**6
    check('{"format": "symrope.lift/1", "nodes": ' + deep + "}", "nested")
    chain = [["Symbol", "_lift_p0_0"]] + [["cos", i] for i in range(LIMITS["depth"] + 5)]
    check(_document(chain), "nested")
    check(_document([["Integer", "1"]] * (LIMITS["nodes"] + 1)), "at most")


def test_numbers_that_would_take_forever_are_refused(refused):
    check, _ = refused
    check(_document([["Integer", "10"], ["Integer", "1000000000"], ["Pow", 0, 1]]),
          "too large to evaluate")
    big = [["Integer", "9" * LIMITS["digits"]]]
    big += [["Mul", len(big) - 1 + i, len(big) - 1 + i] for i in range(3)]
    check(_document(big), "digits")
    check(_document([["Integer", "9" * (LIMITS["digits"] + 5)]]), "decimal digit string")


def test_malformed_files_are_one_line(refused):
    check, _ = refused
    check(b"\xff\xfe not text", "not UTF-8")
    check("{not json", "not JSON")
    check({"format": "pickle"}, "no \"format\"")
    check('{"format": "symrope.lift/1", "x": NaN}', "unreadable JSON")
    check(_document([["Integer", "1"]], head_dim=0), "'head_dim' must be an integer")
    check(_document([["Integer", "1"]], rows={"q": [[5]], "k": [[0]]}), "indices of nodes")
    check(_document([["Symbol", "_lift_x0_7"]]), "outside the lift's")
    check(_document([["Symbol", "_lift_p0_0"], ["cos", 1]]), "earlier nodes")
    check(_document([["Symbol", "_lift_p0_0"], ["StrictLessThan", 0, 0]]), "not an expression")


def test_a_real_lift_survives_the_round_trip_exactly():
    from symrope.diff import load_lift

    loaded = load_lift(str(SAVED))
    table, roots = expressions_to_table([row for role in (loaded.rows.q, loaded.rows.k)
                                         for token in role for row in token])
    again = table_to_expressions(table, roots, "again")
    assert again == [row for role in (loaded.rows.q, loaded.rows.k) for token in role
                     for row in token]
    assert loaded.rows.per_token and loaded.dim == 128
    p = sp.Symbol("_lift_p0_0", real=True)
    assert loaded.rows.q[0][0] == sp.Symbol("_lift_x0_0", real=True) * sp.cos(p) - \
        sp.Symbol("_lift_x0_64", real=True) * sp.sin(p)


def test_only_the_lifts_symbols_can_be_saved():
    with pytest.raises(UsageError, match="only the lift's own symbols"):
        expressions_to_table([sp.Symbol("theta")])


# ----------------------------------------------------------------------------- command lines

def test_lift_save_then_diff_the_file(tmp_path, capsys):
    require_module("torch")
    saved = tmp_path / "mine.json"
    assert main(["lift", f"{USER}:llama_rope", "--head-dim", "8", "--save", str(saved)]) == 0
    assert "8 nodes" not in capsys.readouterr().out  # the summary names the real node count
    assert main(["diff", str(saved), f"{USER}:llama_rope", "--b-head-dim", "8", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "same" and document["a"]["saved"]["path"] == str(saved)
    code = main(["diff", str(saved), f"{USER}:llama_rope_shifted", "--b-head-dim", "8",
                 "--latex", str(tmp_path / "report.tex")])
    out = capsys.readouterr().out
    assert code == 1 and "verdict: different" in out and "frequency index shifted by 1" in out
    tex = (tmp_path / "report.tex").read_text()
    assert tex.startswith(r"\documentclass") and "Counterexample" in tex


@pytest.mark.parametrize("argv, expected", [
    (["diff", "a:b"], "give two implementations"),
    (["diff", f"{USER}:llama_rope", f"{USER}:llama_rope", "--head-dim", "8",
      "--b-head-dim", "16"], "head dimension 8, B 16"),
    (["diff", str(SAVED), str(SAVED), "--config", "x.json"], "every side is a saved lift"),
    (["diff", "hf-transformers", str(SAVED)], "needs --config"),
    (["diff", str(SAVED), "no-such-library"], "unknown implementation"),
    (["lift", f"{USER}:llama_rope", "--save", "out.txt"], "must end in .json"),
    (["diff", "--pairwise", str(SAVED)], "two or more"),
])
def test_bad_input_is_one_line_exit_2(argv, expected, capsys, tmp_path, monkeypatch):
    require_module("torch")
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0], err


def test_pairwise_prints_one_row_per_pair(capsys):
    require_module("torch")
    code = main(["diff", "--pairwise", f"{USER}:llama_rope", f"{USER}:llama_rope_one_ulp",
                 f"{USER}:llama_rope_shifted", "--head-dim", "8", "--markdown"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(f"| {USER}")]
    assert code == 1 and len(rows) == 3
    assert "| same |" in rows[0] and "1 constant(s) differ by at most 1 float32 ulp" in rows[0]
    assert any("| different |" in row and "frequency index" in row for row in rows)
