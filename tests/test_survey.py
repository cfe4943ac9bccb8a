"""``symrope survey``: the sample, the rows, the JSON, the plot, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from symrope.audit._survey import DENSE, PER_BAND, TAIL, sample_positions
from symrope.cli._survey import main
from symrope.errors import UsageError


def test_sample_is_dense_then_per_band_tail_and_random():
    positions = sample_positions(2**20 - 1, seed=3)
    assert np.array_equal(positions[:DENSE], np.arange(DENSE))
    for lo, hi in ((2**19, 2**20 - 1), (2**16, 2**17 - 1)):
        inside = positions[(positions >= lo) & (positions <= hi)]
        assert np.array_equal(inside[-TAIL:], np.arange(hi - TAIL + 1, hi + 1))
        assert TAIL < inside.size <= TAIL + PER_BAND
    assert np.array_equal(positions, sample_positions(2**20 - 1, seed=3))   # seeded


def test_survey_rows_json_and_plot(capsys, tmp_path):
    target = tmp_path / "survey.png"
    code = main(["--impls", "hf,fp64-angle", "--max-position", "70000", "--workers", "1",
                 "--json", "--plot", str(target)])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["schema"] == "symrope.survey/1"
    rows = {(row["impl"], row["dtype"]): row for row in document["rows"]}
    assert set(rows) == {(impl, dtype) for impl in ("hf", "fp64-angle") for dtype in ("bf16", "fp16", "fp32")}
    # fp16 everywhere: the fix (float64 angle) is within the tolerance at every sampled position
    assert rows[("fp64-angle", "fp16")]["safe_context"] == {"at_least": 70001, "at_most": None}
    assert rows[("fp64-angle", "fp16")]["fix"] is None
    # the float32 angle at theta 5e5 drifts past 2^-8 before 70000: a sampled range, and a fix
    hf = rows[("hf", "fp32")]
    assert hf["safe_context"]["at_least"] == DENSE and DENSE < hf["safe_context"]["at_most"] <= 70000
    assert "patch_rotary" in hf["fix"] and hf["max_abs_error_up_to"]["8192"] < 2.0**-8
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_survey_table_says_what_is_sampled(capsys):
    assert main(["--impls", "fp64-angle", "--max-position", "9000", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "all below 8192" in out and "exp(-4096 f)" in out and "none needed" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--impls", "nope"], "unknown implementation 'nope'"),
    (["--workers", "0"], "--workers"),
    (["--tolerance", "-1"], "--tolerance"),
])
def test_bad_input(argv, fragment):
    with pytest.raises(UsageError, match=fragment):
        main(argv)
