"""``symrope.lift`` on the user's own torch code: exact semantics, layouts, honest limits, CLI."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
import sympy as sp

from lift_support import require_module

torch = require_module("torch")

from symrope.cli._check import main  # noqa: E402
from symrope.cli import main as symrope_main  # noqa: E402
from symrope.errors import UsageError  # noqa: E402
from symrope.lifting import LiftUndecided, check_lifted, lift  # noqa: E402
from symrope.lifting._symbolic import entries, exact, symbolic  # noqa: E402

USER_FILE = textwrap.dedent('''
    import torch

    def half_rope(q, k, positions):
        half = q.shape[-1] // 2
        inv_freq = 1.0 / (10000 ** (torch.arange(0, half).float() / half))
        angle = positions[:, None].float() * inv_freq
        cos, sin = angle.cos(), angle.sin()
        def turn(x):
            a, b = x[..., :half], x[..., half:]
            return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
        return turn(q), turn(k)

    def meta_llama(q, k, positions):
        # Meta's complex form: polar + view_as_complex
        dim = q.shape[-1]
        freqs = 1.0 / (10000.0 ** (torch.arange(0, dim, 2).float() / dim))
        freqs_cis = torch.polar(torch.ones(positions.shape[0], dim // 2),
                                torch.outer(positions.float(), freqs))
        def turn(x):
            xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
            return torch.view_as_real(xc * freqs_cis).flatten(3).type_as(x)
        return turn(q), turn(k)

    def q_only(q, k, positions):
        rotated, _ = half_rope(q, k, positions)
        return rotated, k

    def branchy(q, k, positions):
        if positions[0] > 100:
            return q, k
        return half_rope(q, k, positions)

    def reads_number(q, k, positions):
        return q * int(positions[0]), k

    def cumulative(q, k, positions):
        return q * torch.cumsum(positions.float(), 0)[:, None], k

    def one_argument(q):
        return q

    def wrong_shape(q, k, positions):
        return q[..., :1], k
''')


@pytest.fixture()
def user_file(tmp_path):
    path = tmp_path / "user_rope.py"
    path.write_text(USER_FILE)
    return path


def load(user_file, name):
    namespace = {}
    exec(compile(user_file.read_text(), str(user_file), "exec"), namespace)
    return namespace[name]


def test_floats_are_the_exact_rationals_of_their_bits_and_views_write_through():
    value = exact(torch.tensor([0.1], dtype=torch.float32))[0]
    assert value == sp.Rational(13421773, 134217728) and value != sp.Rational(1, 10)
    assert exact(torch.tensor([0.1], dtype=torch.bfloat16))[0] == sp.Rational(205, 2048)
    x = symbolic(sp.symbols("a0:4", real=True))
    out = torch.empty_like(x)
    out[::2] = x[1::2]  # a write through a view reaches the base
    out[1::2] = -x[::2]
    a = sp.symbols("a0:4", real=True)
    assert entries(out).tolist() == [a[1], -a[0], a[3], -a[2]]
    p = sp.Symbol("p", real=True)
    assert entries(symbolic([p]).float() * 0.5).tolist() == [p / 2]  # casts are identities


def test_user_rotate_half_and_meta_complex_form_are_proved(user_file):
    half = lift(load(user_file, "half_rope"), head_dim=8)
    assert half.lift_info["layout"]["text"] == "rotate_half pairs (i, i + 4) for i = 0..3"
    report = check_lifted(half)
    assert report.verdict == "proved"
    frequencies = sorted((sp.sympify(r["frequency"]) for r in report.classification["p"]["rotation"]),
                         reverse=True)
    float32 = [sp.Rational(float(v)) for v in 1.0 / (10000 ** (torch.arange(0, 4).float() / 4))]
    assert frequencies == float32  # the code's float32 frequencies, exactly
    meta = lift(load(user_file, "meta_llama"), head_dim=8)
    assert meta.lift_info["layout"]["kind"] == "interleaved"
    assert check_lifted(meta).verdict == "proved"


def test_counterexample_is_replayed_through_the_real_code_in_float64(user_file):
    report = check_lifted(lift(load(user_file, "q_only"), head_dim=4))
    result = report.assumptions["translation_invariance"]
    assert result.verdict == "refuted"
    replay = result.counterexample["float64_replay"]
    assert replay["agrees"]
    assert replay["score_at_s_t"] != pytest.approx(replay["score_at_0_t_minus_s"], abs=1e-3)
    assert "float64 replay through the real code" in result.counterexample["summary"]


def test_a_branch_on_a_symbolic_value_is_followed_both_ways_and_named(user_file):
    encoding = lift(load(user_file, "branchy"), head_dim=4)
    (taken,) = encoding.lift_info["branches"]
    assert taken["location"].startswith(str(user_file)) and "> 100" in taken["condition"]
    report = check_lifted(encoding)
    assert report.assumptions["translation_invariance"].verdict == "refuted"
    assert any("branches on the positions at" in note for note in report.notes)


def test_reading_a_symbolic_value_as_a_number_names_the_line(user_file):
    with pytest.raises(LiftUndecided, match=r"reads a symbolic value as a Python number .* at "
                                            r".*user_rope.py:\d+"):
        lift(load(user_file, "reads_number"), head_dim=4)


def test_unsupported_op_is_named(user_file):
    with pytest.raises(LiftUndecided, match="aten.cumsum") as info:
        lift(load(user_file, "cumulative"), head_dim=4)
    assert info.value.op == "aten.cumsum"


def test_contract_violations_are_usage_errors(user_file):
    with pytest.raises(UsageError, match="must take \\(q, k, positions\\)"):
        lift(load(user_file, "one_argument"), head_dim=4)
    with pytest.raises(UsageError, match="returned q_rot of shape \\(1, 1, 3, 1\\)"):
        lift(load(user_file, "wrong_shape"), head_dim=4)


def test_cli_user_function_exit_codes_and_one_line_errors(user_file, capsys):
    assert main(["--impl", f"{user_file}:half_rope", "--head-dim", "4"]) == 0
    out = capsys.readouterr().out
    assert "rotate_half pairs (i, i + 2)" in out and "symrope audit" in out
    assert main(["--impl", f"{user_file}:q_only", "--head-dim", "4", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["lift"]["layout"]["kind"] == "rotate_half"
    replay = document["assumptions"]["translation_invariance"]["counterexample"]["float64_replay"]
    assert replay["agrees"] is True
    for name, code, needle in (("reads_number", 3, "user_rope.py:"),
                               ("cumulative", 3, "aten.cumsum"),
                               ("one_argument", 2, "must take"), ("wrong_shape", 2, "shape"),
                               ("missing", 2, "defines no 'missing'")):
        assert symrope_main(["check", "--impl", f"{user_file}:{name}", "--head-dim", "4"]) == code
        captured = capsys.readouterr()
        assert needle in captured.err and len(captured.err.strip().splitlines()) == 1
        assert "Traceback" not in captured.err
    assert symrope_main(["check", "--impl", "jax"]) == 2
    assert "unknown --impl 'jax'" in capsys.readouterr().err
    assert symrope_main(["check", "rope", "--head-dim", "4"]) == 2


def test_missing_library_exits_2_naming_the_extra(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "torchtune.modules", None)  # as if not installed
    assert symrope_main(["check", "--impl", "torchtune"]) == 2
    err = capsys.readouterr().err
    assert "symrope[frameworks]" in err and len(err.strip().splitlines()) == 1


def test_symbolic_index_into_a_table_is_undecided():
    table = torch.arange(10).float().cos()
    p = sp.Symbol("p", real=True)
    with pytest.raises(LiftUndecided, match="table lookup at a symbolic position"):
        table[symbolic([p], dtype=torch.int64)]
    assert np.array_equal(entries(table[torch.tensor([2])]), [sp.Rational(float(table[2]))])


def test_float_casts_are_identities_and_each_is_a_hazard_with_its_line():
    def bf16_rope(q, k, positions):
        inv_freq = torch.tensor([1.0, 0.01], dtype=torch.bfloat16)  # a bf16 buffer
        angle = positions.to(torch.bfloat16)[:, None] * inv_freq  # positions cast to bf16
        cos, sin = angle.cos(), angle.sin()

        def turn(x):
            a, b = x[..., :2], x[..., 2:]
            return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
        return turn(q), turn(k)

    report = check_lifted(lift(bf16_rope, head_dim=4))
    assert report.verdict == "proved"  # exact semantics: the bf16 rounding of p is not modelled
    planes = {tuple(r["indices"]): sp.sympify(r["frequency"])
              for r in report.classification["p"]["rotation"]}
    assert planes[(1, 3)] == sp.Rational(41, 4096)  # bf16(0.01), exactly
    assert any("casts between float types are identities" in note for note in report.notes)
    (hazard,) = report.hazards  # ... but where it bites is said beside the verdict
    assert hazard["dtype"] == "bfloat16" and hazard["exact_integers"] == 256
    assert "test_lift.py:" in hazard["location"] and "symrope audit" in hazard["text"]


def test_round_in_lifted_code_ties_to_even_as_torch_does():
    """torch.round sends 2.5 to 2 and -0.5 to 0; the exact semantics must agree on every tie."""
    halves = [sp.Rational(k, 2) for k in range(-9, 10)]
    values = torch.tensor([float(h) for h in halves], dtype=torch.float64)
    lifted = entries(torch.round(symbolic(np.array(halves, dtype=object), torch.float64)))
    assert [int(v) for v in lifted] == [int(v) for v in torch.round(values).tolist()]


def test_without_torch_the_lifting_says_which_extra_to_install():
    import subprocess
    import sys
    code = ("import sys; sys.modules['torch'] = None\n"
            "import symrope\n"
            "try:\n    symrope.lift(lambda q, k, p: (q, k), 4)\n"
            "except ImportError as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert "pip install 'symrope[torch]'" in result.stdout, result.stderr[-2000:]


def test_code_that_ignores_its_positions_is_nope_and_says_so():
    def ignores(q, k, positions):
        return q * 2, k / 2

    encoding = lift(ignores, head_dim=2)
    assert encoding.lift_info["sequence"].startswith("no output depends on the positions")
    report = check_lifted(encoding)
    assert report.verdict == "proved" and set(report.classification["p"]) == {"zero"}


def test_importing_the_lifting_imports_no_framework():
    import subprocess
    import sys
    code = ("import sys, symrope.lifting, symrope.testing\n"
            "from symrope.testing import assert_relative, assert_precise\n"
            "print(sorted(m for m in ('torch', 'transformers', 'jax') if m in sys.modules))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.strip() == "[]", result.stderr[-2000:]


def test_docs_lift_page_shows_the_real_output(monkeypatch, capsys):
    """Every ``$ symrope check`` block of docs/lift.md is what the command prints today."""
    import re
    import shlex
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)  # hazards name files relative to the working directory
    lines = (root / "docs" / "lift.md").read_text().splitlines()
    timing = re.compile(r" \([0-9.]+ s\)$")
    commands = [i for i, line in enumerate(lines) if line.startswith("$ symrope check ")]
    assert len(commands) >= 4
    for start in commands:
        end = next(i for i in range(start + 1, len(lines))
                   if lines[i].startswith("$ ") or lines[i] == "```")
        code = symrope_main(shlex.split(lines[start][2:])[1:])
        printed = [timing.sub("", line) for line in capsys.readouterr().out.splitlines()]
        assert printed == [timing.sub("", line) for line in lines[start + 1:end]], lines[start]
        if lines[end] == "$ echo $?":
            assert code == int(lines[end + 1])


def test_a_moved_counterexample_carries_the_certificate_of_its_own_point():
    # the lift moves counterexamples to small integer positions; the certificate (an
    # enclosure of |difference|) must be the new point's, never the one the checker first found
    import torch

    from symrope.checker import PairScore, ScoreOnBasis
    from symrope.lifting import check_lifted, lift

    def keys_flipped(q, k, positions):
        def turn(v, p):
            angle = p[:, None].float()
            return torch.cat((v[..., :1] * angle.cos() - v[..., 1:] * angle.sin(),
                              v[..., :1] * angle.sin() + v[..., 1:] * angle.cos()), -1)
        return turn(q, positions), turn(k, positions.flip(0))

    def q_only(q, k, positions):
        angle = positions[:, None].float()
        return torch.cat((q[..., :1] * angle.cos() - q[..., 1:] * angle.sin(),
                          q[..., :1] * angle.sin() + q[..., 1:] * angle.cos()), -1), k

    checked = 0
    for function in (keys_flipped, q_only):
        report = check_lifted(lift(function, head_dim=2))
        for result in report.assumptions.values():
            example = result.counterexample
            if not isinstance(example, (ScoreOnBasis, PairScore)):
                continue
            here, there = float(example.score.exact), float(example.expected.exact)
            certificate = example.certificate
            assert certificate and certificate["excludes_zero"]
            assert float(certificate["lower_bound"]) <= abs(here - there) * (1 + 1e-9)
            assert abs(here - there) <= float(certificate["upper_bound"]) * (1 + 1e-9)
            checked += 1
    assert checked >= 3
