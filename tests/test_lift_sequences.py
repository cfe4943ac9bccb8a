"""Issue 17's reproductions as tests: the verdict each torch function must get, run as it is.

The functions are ``tests/data/lift/issue17.py`` (what a user writes); each is lifted on a
symbolic sequence of 3 tokens at independent positions. Integer casts must be refuted with a
float64 replay; code that mixes positions across tokens must be refuted naming the token pair;
correct code must be proved and agree with the real code on left-padded, packed and offset
position ids; casts of positions to narrow floats must be reported as hazards with their line.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import sympy as sp

from lift_support import require_module

torch = require_module("torch")

from symrope.cli import main as symrope_main  # noqa: E402
from symrope.lifting import check_lifted, lift  # noqa: E402

FILE = Path(__file__).parent / "data" / "lift" / "issue17.py"
_spec = importlib.util.spec_from_file_location("issue17", FILE)
issue17 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(issue17)

P, R = "proved", "refuted"


def verdicts(report) -> tuple:
    return tuple(r.verdict for r in report.assumptions.values())


def checked(name, head_dim=4):
    return check_lifted(lift(getattr(issue17, name), head_dim=head_dim))


def replay_agrees(result):
    replay = result.counterexample["float64_replay"]
    assert replay["agrees"], replay
    return replay


@pytest.mark.parametrize("name", ["interpolation_long", "interpolation_floor_div",
                                  "interpolation_round", "angle_bucket"])
def test_integer_casts_and_steps_are_refuted_on_translation_and_continuity(name):
    report = checked(name)
    assert verdicts(report) == (P, R, P, R), report.table()
    translation = report.assumptions["translation_invariance"]
    replay = replay_agrees(translation)
    # small integer positions: the real float32 code shows the same jump in float64
    assert abs(replay["score_at_s_t"] - replay["score_at_0_t_minus_s"]) > 1e-6
    assert sp.sympify(translation.counterexample["s"]).is_integer
    assert "jump" in report.assumptions["continuity"].counterexample["summary"]


def test_round_is_decided_within_seconds_not_undecided():
    report = checked("interpolation_round")
    assert report.assumptions["translation_invariance"].seconds < 30


@pytest.mark.parametrize("name, pair", [("key_positions_flipped", [1, 0]),
                                        ("cache_offset_on_q_only", [0, 1]),
                                        ("gather_by_wrong_index", [1, 0])])
def test_code_that_mixes_tokens_is_refuted_naming_the_pair(name, pair):
    report = checked(name)
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == R, report.table()
    counterexample = translation.counterexample
    assert counterexample["pair"] == pair
    assert f"tokens ({pair[0]}, {pair[1]})" in counterexample["summary"]
    replay = replay_agrees(translation)
    assert abs(replay["score"] - replay["reference_score"]) > 1e-6
    assert not report.lift["sequence"].startswith("checked on 3 tokens")


def test_positions_rebased_to_the_first_token_are_relative_within_the_call_not_nope():
    report = checked("rebased_to_first_token")
    assert report.verdict == P, report.table()
    assert "rotation" in report.classification["p"] and "zero" not in report.classification["p"]
    assert "reads the position of token 0" in report.lift["sequence"]


@pytest.mark.parametrize("name", ["rope", "rope_complex_conj"])
def test_correct_code_is_proved_and_matches_the_real_code_on_any_position_ids(name):
    encoding = lift(getattr(issue17, name), head_dim=4)
    assert check_lifted(encoding).verdict == P
    assert encoding.per_token
    rows = encoding.rows
    for position_ids in ([0, 0, 1], [5, 0, 1], [1000, 1001, 1002]):  # left-padded, packed, decode
        q = torch.randn(1, 1, 3, 4, dtype=torch.float64)
        k = torch.randn(1, 1, 3, 4, dtype=torch.float64)
        q_rot, k_rot = encoding.function(q, k, torch.tensor(position_ids))
        mapping = {s: v for t, axes in enumerate(rows.p) for s, v in zip(axes, [position_ids[t]])}
        for t in range(3):
            mapping.update(zip(rows.x[t], map(sp.nsimplify, q[0, 0, t].tolist())))
            mapping.update(zip(rows.y[t], map(sp.nsimplify, k[0, 0, t].tolist())))
        exact_q = [[float(e.xreplace(mapping)) for e in row] for row in rows.q]
        exact_k = [[float(e.xreplace(mapping)) for e in row] for row in rows.k]
        # float32 code against its exact semantics: agreement to float32 rounding
        assert torch.allclose(q_rot[0, 0], torch.tensor(exact_q, dtype=q_rot.dtype), atol=1e-4)
        assert torch.allclose(k_rot[0, 0], torch.tensor(exact_k, dtype=k_rot.dtype), atol=1e-4)


@pytest.mark.parametrize("name, dtype, limit", [("positions_fp16", "float16", 2048),
                                                ("positions_bf16", "bfloat16", 256)])
def test_narrow_position_casts_are_hazards_with_file_and_line(name, dtype, limit):
    report = checked(name)
    assert report.verdict == P  # exact semantics: the cast is the identity ...
    hazards = [h for h in report.hazards if h["dtype"] == dtype]
    assert len(hazards) == 1  # ... and is reported where the verdict is
    hazard = hazards[0]
    assert hazard["exact_integers"] == limit and hazard["kind"] == "positions"
    line = next(n for n, text in enumerate(FILE.read_text().splitlines(), 1)
                if f"def {name}" in text) + 2
    assert hazard["location"].endswith(f"issue17.py:{line}")
    assert f"exact integers only up to {limit}" in report.table()


def test_check_json_and_audit_of_the_same_callable(capsys):
    spec = f"{FILE}:positions_bf16"
    assert symrope_main(["check", "--impl", spec, "--head-dim", "4", "--json", "--audit",
                         "--max-position", "4095"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert any(h["dtype"] == "bfloat16" and "symrope audit --impl" in h["text"]
               for h in document["hazards"])
    audit = document["audit"]
    assert audit["first_failure"] is not None and 256 < audit["first_failure"] <= 512
    assert audit["safe_context"] == audit["first_failure"]
    # the same function is accepted by symrope audit itself (the check signature)
    assert symrope_main(["audit", "--impl", spec, "--head-dim", "4", "--max-position", "1023",
                         "--no-fix", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["first_failure"] == \
        audit["first_failure"]


def test_conj_is_lifted_and_the_cli_exit_codes(capsys):
    assert symrope_main(["check", "--impl", f"{FILE}:rope_complex_conj", "--head-dim", "4"]) == 0
    assert symrope_main(["check", "--impl", f"{FILE}:key_positions_flipped",
                         "--head-dim", "4"]) == 1
    out = capsys.readouterr().out
    assert "tokens (1, 0)" in out and "mixes positions across tokens" in out


@pytest.mark.parametrize("order, role", [
    ((0, 1, 2), "k"), ((0, 2, 1), "k"), ((1, 0, 2), "k"), ((1, 2, 0), "k"), ((2, 0, 1), "k"),
    ((2, 1, 0), "k"), ((1, 2, 0), "q")])
def test_every_gather_of_positions_is_proved_only_when_it_is_the_identity(order, role):
    """All six orders of 3 tokens on the key (and one on the query): the truth is known."""
    index = torch.tensor(order)

    def gathered(q, k, positions):
        moved = positions[index]
        if role == "q":
            return issue17._rope(q, moved), issue17._rope(k, positions)
        return issue17._rope(q, positions), issue17._rope(k, moved)

    report = check_lifted(lift(gathered, head_dim=2))
    if order == (0, 1, 2):
        assert report.verdict == P
        return
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == R, report.table()
    i, j = translation.counterexample["pair"]
    assert f"tokens ({i}, {j})" in translation.counterexample["summary"]
    assert translation.counterexample["float64_replay"]["agrees"]
