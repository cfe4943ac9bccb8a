"""``symrope check``: targets, exit codes (0 proved, 1 refuted, 3 undecided, 2 bad input), JSON."""

import json
import textwrap

import pytest

from symrope.cli._check import main
from symrope.cli import main as symrope_main

USER_FILE = textwrap.dedent('''
    import sympy as sp
    from symrope.checker import Encoding

    def _turn(x, p):
        c, s = sp.cos(p / 2), sp.sin(p / 2)
        return sp.Matrix([c * x[0] - s * x[1], s * x[0] + c * x[1]])

    mine = Encoding("mine", 2, _turn, _turn)
    broken = Encoding("broken", 2, _turn, lambda x, p: sp.Matrix([x[0] * p, x[1]]))
    odd = Encoding.from_matrices("odd", *[lambda p: sp.Matrix([[sp.exp(sp.sign(p) * p**2 - p * sp.Abs(p))]])] * 2)
    not_an_encoding = 42

    def built():
        return mine
''')


@pytest.fixture()
def user_file(tmp_path):
    path = tmp_path / "my_encoding.py"
    path.write_text(USER_FILE)
    return path


def test_file_target_all_proved_exits_0_and_prints_the_table(user_file, capsys):
    assert main([f"{user_file}:mine"]) == 0
    out = capsys.readouterr().out
    assert "mine: dim 2, 1 position axis -> proved" in out
    assert "rotation planes (1): omega = 1/2 on [0, 1]" in out


def test_function_returning_an_encoding_is_accepted(user_file, capsys):
    assert main([f"{user_file}:built"]) == 0


def test_refuted_exits_1_with_json_schema(user_file, capsys):
    assert main([f"{user_file}:broken", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["encoding"] == "broken"
    assumptions = document["assumptions"]
    assert list(assumptions) == ["linearity", "translation_invariance", "identity_at_zero",
                                 "continuity"]
    assert assumptions["translation_invariance"]["verdict"] == "refuted"
    assert "s" in assumptions["translation_invariance"]["counterexample"]
    assert document["generator"] is None and document["classification"] is None


def test_undecided_exits_3(user_file, capsys):
    assert main([f"{user_file}:odd", "--budget", "30"]) == 3


def test_module_target(user_file, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(user_file.parent))
    assert main(["my_encoding:mine", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["classification"]["p"]["rotation"][0][
        "frequency"] == "1/2"


def test_zoo_target_and_list(capsys):
    assert main(["q_rotated_only"]) == 1
    assert "counterexample: s = " in capsys.readouterr().out
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out
    assert "liere_so3" in listing and "rope_d64" in listing


@pytest.mark.parametrize("argv, message", [
    (["no_such_encoding"], "neither a zoo encoding"),
    (["missing_file.py:X"], "no such file"),
    (["no_such_module_xyz:X"], "cannot import no_such_module_xyz"),
    (["{file}:nothing"], "defines no 'nothing'"),
    (["{file}:not_an_encoding"], "is a int, not a symrope.Encoding"),
    (["rope", "--budget", "-1"], "--budget must be positive"),
    ([], "give a TARGET"),
])
def test_bad_input_exits_2_with_one_line(argv, message, user_file, capsys):
    argv = [a.replace("{file}", str(user_file)) for a in argv]
    assert symrope_main(["check", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_latex_output_is_written(user_file, tmp_path, capsys):
    target = tmp_path / "report.tex"
    assert main([f"{user_file}:mine", "--latex", str(target)]) == 0
    tex = target.read_text()
    assert "\\begin{document}" in tex and "mine" in tex


def _console_block(text: str, command: str) -> list[str]:
    """The lines a docs ``console`` block shows after ``$ command``, up to the next prompt."""
    lines = text.splitlines()
    start = lines.index(f"$ {command}") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("$ "))
    return lines[start:end]


@pytest.mark.parametrize("name, code", [("draft", 1), ("my_encoding", 0)])
def test_docs_page_shows_the_real_output(name, code, capsys):
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "check.md").read_text()
    target = f"docs/examples/my_encoding.py:{name}"
    assert main([str(root / "docs" / "examples" / "my_encoding.py") + f":{name}"]) == code
    timing = re.compile(r" \([0-9.]+ s\)$")
    printed = [timing.sub("", line) for line in capsys.readouterr().out.splitlines()]
    shown = [timing.sub("", line) for line in _console_block(page, f"symrope check {target}")]
    assert printed == shown


def test_docs_page_python_example_runs():
    import doctest
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "check.md").read_text()
    page = page.replace("```", "\n")  # fences end the expected output
    test = doctest.DocTestParser().get_doctest(page, {}, "check.md", "docs/check.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).attempted >= 5
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("argv, message", [
    (["rope", "--audit"], "go with --impl"),
    (["rope", "--tokens", "4"], "go with --impl"),
    (["--model-type", "phi", "--config", "x.json"], "either --config or --model-type"),
    (["--impl", "hf-transformers"], "needs --config FILE.json or --model-type"),
    (["--impl", "torchtune", "--rope-scaling", "{}"], "go with --impl hf-transformers"),
    (["--model-type", "phi", "--rope-scaling", "not json"], "--rope-scaling is not valid JSON"),
    (["--impl", "x.py:f", "--tokens", "0"], "--tokens must be a positive integer"),
])
def test_lift_options_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert symrope_main(["check", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_per_layer_rope_prints_one_report_per_layer_type(tmp_path, capsys):
    pytest.importorskip("transformers")
    config = tmp_path / "gemma3.json"
    config.write_text(json.dumps({"model_type": "gemma3_text", "head_dim": 8, "hidden_size": 64,
                                  "num_attention_heads": 8}))
    assert main(["--impl", "hf-transformers", "--config", str(config), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "proved"
    assert [r["label"] for r in document["reports"]] == ["layer type full_attention",
                                                         "layer type sliding_attention"]
    assert main(["--impl", "hf-transformers", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "[layer type full_attention]" in out and "[layer type sliding_attention]" in out


def test_survey_check_conformance_rows_counts_and_markdown(tmp_path, capsys):
    pytest.importorskip("transformers")
    page = tmp_path / "conformance.md"
    assert symrope_main(["survey", "--check", "--model-types", "phi,qwen2_vl_vision",
                         "--workers", "1", "--json", "--markdown", str(page)]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["model_type"]: row for row in document["rows"]}
    assert rows["phi"]["verdict"] == "proved" and rows["phi"]["rotary"] == "32/64"
    assert rows["qwen2_vl_vision"]["exit_code"] == 3 and "encoder" in rows["qwen2_vl_vision"][
        "reason"]
    assert document["counts"]["decided"] == 1 and document["counts"]["exit_3"] == 1
    text = page.read_text()
    assert "| phi |" in text and "- decided: 1; exit 3" in text
    assert symrope_main(["survey", "--check", "--model-types", "no_such_type"]) == 2


def test_docs_page_attention_factor_block_is_the_real_output(capsys):
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "check.md").read_text()
    assert main(["yarn_attention_factor"]) == 0  # relative up to a uniform scale: exit 0
    timing = re.compile(r" \([0-9.]+ s\)$")
    printed = [timing.sub("", line) for line in capsys.readouterr().out.splitlines()]
    block = _console_block(page, "symrope check yarn_attention_factor")
    shown = [timing.sub("", line) for line in block[:block.index("```")]]
    assert printed == shown
