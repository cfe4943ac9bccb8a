"""``symrope survey``: the sample, the rows, the JSON, the plot, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from symrope.audit._survey import (DENSE, DTYPES, PER_BAND, TAIL, _survey_impl, sample_positions,
                                   survey)
from symrope.cli._survey import main
from symrope.errors import UsageError
from symrope.schedules import RopeConfig


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
    assert code == 0 and document["schema"] == "symrope.survey/2"
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


def test_each_row_reports_its_positions_from_the_worker():
    config = RopeConfig.from_options(head_dim=32, theta=10000)
    positions = sample_positions(20000)
    heard = []
    rows = _survey_impl("hf", config, positions, 2.0**-8, 0, lambda *update: heard.append(update))
    assert [row["dtype"] for row in rows] == list(DTYPES)
    for dtype in DTYPES:
        counts = [count for name, row_dtype, count in heard if (name, row_dtype) == ("hf", dtype)]
        assert counts[0] == 0 and counts[-1] is None            # the row says it starts, ends
        assert sum(counts[1:-1]) == positions.size and len(counts) > 3  # chunk by chunk


def test_progress_is_one_bar_per_row_on_stderr_from_the_worker_processes(capsys):
    config = RopeConfig.from_options(head_dim=32, theta=10000)
    # 21 rows: more than tqdm's fallback screen height (20), below which it would hide bars
    names = ["hf", "fp64-angle", "meta", "vllm", "llamacpp", "neox-fp16", "bf16-positions"]
    rows = survey(names, config, 9000, workers=2, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and len(rows) == 21
    for name in names:
        for dtype in DTYPES:
            assert f"{name} {dtype}" in captured.err
    assert captured.err.count("100%") >= 21 and "more hidden" not in captured.err
    # and silence without progress (the JSON path): nothing at all on stderr
    survey(names[:2], config, 9000, workers=2, progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("argv, fragment", [
    (["--impls", "nope"], "unknown implementation 'nope'"),
    (["--workers", "0"], "--workers"),
    (["--tolerance", "-1"], "--tolerance"),
])
def test_bad_input(argv, fragment):
    with pytest.raises(UsageError, match=fragment):
        main(argv)


def test_a_row_not_run_says_why_in_full_below_the_table(capsys):
    # the table cuts a reason to 60 characters; the line below it carries the whole reason, and
    # no "install" advice appears when nothing is missing (the xpos scale is refused, not absent)
    from audit_libraries import require_library

    require_library("rotary_embedding_torch")
    assert main(["--impls", "rotary-embedding-torch-xpos", "--max-position", "1048575",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    (line,) = [line for line in out.splitlines() if line.startswith("not run: ")]
    assert line.startswith("not run: rotary-embedding-torch-xpos: ") and len(line) > 100
    assert line.count("rotary-embedding-torch-xpos") == 1
    assert "pip install" not in out


def test_a_skipped_row_says_skipped_and_a_finished_bar_stops(capsys):
    from audit_libraries import require_library

    require_library("rotary_embedding_torch")
    config = RopeConfig.from_options(head_dim=32, theta=10000, rope_scaling={
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096})
    rows = survey(["rotary-embedding-torch", "hf"], config, 9000, workers=1, progress=True)
    err = capsys.readouterr().err
    assert all("skipped" in row for row in rows[:3])
    import re

    frames = [line.strip() for line in re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "\n",
                                                err.replace("\r", "\n")).splitlines() if line.strip()]

    def last_frame(row):
        return [line for line in frames if line.startswith(row)][-1]

    for dtype in DTYPES:   # no rate, no 100%: the word
        assert last_frame(f"rotary-embedding-torch {dtype}").endswith(": skipped")
        assert "%" not in last_frame(f"rotary-embedding-torch {dtype}")
    # a finished row's bar is closed with its row: its last frame is its 100%
    assert "100%" in last_frame("hf bf16")


def test_library_warnings_are_collected_and_printed_once(capsys):
    import warnings

    from symrope.audit import _survey as survey_module

    def noisy(*args, **kwargs):
        import logging
        import sys

        warnings.warn("a library's deprecation", DeprecationWarning, stacklevel=1)
        logging.getLogger("somelib").warning("skipping import of cpp extensions")
        print("raw text on stderr", file=sys.stderr)
        return [{"impl": "hf", "dtype": dtype, "skipped": "nothing run"} for dtype in DTYPES]

    original = survey_module._survey_rows
    survey_module._survey_rows = noisy
    try:
        rows = survey(["hf"], RopeConfig.from_options(head_dim=32, theta=10000), 100,
                      workers=1, progress=True)
    finally:
        survey_module._survey_rows = original
    err = capsys.readouterr().err
    assert "library's deprecation" not in err and "cpp extensions" not in err and "raw text" not in err
    assert rows[0]["library_warnings"] == ["DeprecationWarning: a library's deprecation",
                                           "somelib: skipping import of cpp extensions",
                                           "raw text on stderr"]
