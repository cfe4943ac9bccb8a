"""``symrope audit`` end to end: exit codes, one-line errors, the JSON schema, the plot."""

import json
import math
import textwrap

import pytest

from audit_libraries import require_library
from symrope.cli import main

SMALL = ["--max-position", "2047"]


def run(capsys, *argv):
    code = main(["audit", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, *fragments):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("symrope audit: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    source = textwrap.dedent('''
        import numpy as np

        def good(positions):
            angle = positions[:, None] * 10000.0 ** (-np.arange(4) / 4)
            return np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)

        def raises(positions):
            raise RuntimeError("kernel exploded")

        def wrong_shape(positions):
            return np.ones((len(positions), 3)), np.zeros((len(positions), 3))

        def has_nan(positions):
            cos, sin = good(positions)
            cos[-1, 2] = np.nan
            return cos, sin
    ''')
    (tmp_path / "my_rope.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_rope"


@pytest.mark.parametrize("argv, fragments", [
    (["--head-dim", "63"], ["head_dim", "63"]),
    (["--theta", "0"], ["--theta", "positive"]),
    (["--theta", "-5"], ["--theta", "positive"]),
    (["--max-position", "-5"], ["--max-position", "-5"]),
    (["--max-position", "1.5"], ["--max-position", "1.5"]),
    (["--positions", "3,1.5"], ["--positions", "1.5"]),
    (["--positions", "-3"], ["--positions", "-3"]),
    (["--max-position", str(2**33)], ["--max-position", "--positions"]),
    (["--positions", str(2**53)], ["--positions", "exceeds"]),
    (["--rope-scaling", '{"rope_type": "nope", "factor": 2}'], ["rope type", "nope"]),
    (["--rope-scaling", "{not json"], ["--rope-scaling", "JSON"]),
    (["--impl", "no-such-model"], ["unknown implementation", "no-such-model"]),
    (["--impl", "hf-transformers", "--model-type", "bert"], ["not a RoPE config", "bert"]),
    (["--dtype", "fp8"], ["--dtype", "fp8"]),
    (["--config", "/no/such/config.json"], ["/no/such/config.json"]),
    (["--tolerance", "0"], ["--tolerance"]),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, fragments):
    if "not a RoPE config" in fragments:  # judged by transformers' own config classes
        require_library("transformers")
    code, out, err = run(capsys, *argv)
    assert out == ""
    assert_one_line_error(code, err, *fragments)


@pytest.mark.parametrize("function, fragments", [
    ("raises", ["raised RuntimeError", "kernel exploded"]),
    ("wrong_shape", ["shape"]),
    ("has_nan", ["nan"]),
])
def test_bad_user_functions_exit_2_with_one_line(capsys, user_module, function, fragments):
    code, out, err = run(capsys, "--impl", f"{user_module}:{function}", "--head-dim", "8", *SMALL)
    assert_one_line_error(code, err, *fragments)


def test_user_function_is_audited(capsys, user_module):
    code, out, err = run(capsys, "--impl", f"{user_module}:good", "--head-dim", "8", "--json", *SMALL)
    assert code == 0, err
    document = json.loads(out)
    assert document["impl"] == f"{user_module}:good" and document["dtype"] == "fp32"
    assert 0 < document["bands"][-1]["max_abs_error"] < 1e-4


def test_json_schema(capsys):
    code, out, err = run(capsys, "--json", "--compare", "meta", "llamacpp", *SMALL)
    assert code == 0, err
    document = json.loads(out)
    assert document["schema"] == "symrope.audit/3"
    for key in ("impl", "dtype", "bands", "frequency_error", "safe_context", "seed", "versions",
                "reference", "compare", "fix", "tolerance", "config", "explanation"):
        assert key in document
    # the default audit: the real class where transformers is installed, else its model
    import importlib.util

    installed = all(importlib.util.find_spec(m) for m in ("torch", "transformers"))
    assert document["impl"] == ("hf-transformers" if installed else "hf")
    assert document["dtype"] == "bf16" and document["notes"] == ([] if installed else document["notes"])
    assert document["config"].startswith("llama3 RoPE, head_dim 128, theta 500000")
    bands = document["bands"]
    assert bands[0]["lo"] == 0 and bands[-1]["hi"] == 2047
    for band in bands:
        for key in ("lo", "hi", "max_abs_error", "correct_bits", "phase_noise",
                    "invariance_violation", "dominant"):
            assert key in band
    assert document["reference"]["certified_max_error"] <= 2.5e-16
    assert document["reference"]["certified_max_position"] >= 2**40
    assert [entry["impl"] for entry in document["compare"]] == ["meta", "llamacpp"]
    # within the tolerance everywhere (bf16's cast error 2^-9 < 2^-8): no fix is suggested
    assert document["fix"] is None and "within the tolerance" in document["fix_note"]
    assert document["tolerance"] == 2.0**-8 and "bits" in document["columns"]
    assert {"numpy", "mpmath", "ml_dtypes", "symrope"} <= set(document["versions"])


def test_table_names_the_dominant_component_and_the_fix(capsys):
    code, out, err = run(capsys, "--impl", "bf16-positions", *SMALL)
    assert code == 0, err
    assert "dominant" in out and "why: " in out
    assert "suggested fix: hf (bf16)" in out and "x smaller" in out
    assert "reference error <=" in out and "certified" in out
    assert "tolerance 0.00391 absolute on cos/sin" in out
    assert "correct bits, -log2(max|err|)" in out


def test_a_failing_band_is_never_inside_the_safe_context(capsys):
    # The far positions fail (cos off by ~2 in bf16) and nothing below them was audited: the
    # safe context cannot reach them (it was reported as 999999999000 before).
    code, out, err = run(capsys, "--positions", "999999999000..1000000000000", "--json", "--no-fix")
    assert code == 0, err
    document = json.loads(out)
    assert document["safe_context"] == 0 and document["first_failure"] == 999999999000
    for band in document["bands"]:
        if band["max_abs_error"] > document["tolerance"]:
            assert document["safe_context"] <= band["hi"]
        assert band["correct_bits"] == pytest.approx(-math.log2(band["max_abs_error"]))


def test_compare_names_each_implementation_once(capsys):
    code, out, err = run(capsys, "--impl", "hf", "--compare", "hf", "meta", "meta", "--json",
                         "--no-fix", *SMALL)
    assert code == 0, err
    document = json.loads(out)
    assert [entry["impl"] for entry in document["compare"]] == ["meta"]


def test_fix_is_not_suggested_when_it_does_not_help(capsys):
    # fp16 everywhere fails from position ~1000; its suggested fix (hf in fp16) helps there. In
    # fp32 the hf path is within tolerance, so nothing is suggested and no "smaller" is printed.
    code, out, err = run(capsys, "--dtype", "fp32", *SMALL)
    assert code == 0, err
    assert "suggested fix" not in out and "no fix suggested" in out and "smaller" not in out


def test_help_says_what_each_column_is(capsys):
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "correct bits, -log2(max|err|)" in out and "logit err:" in out and "2^-8 = 0.0039" in out


def test_flags_build_the_schedule(capsys):
    code, out, err = run(capsys, "--head-dim", "64", "--theta", "10000", "--rope-scaling",
                         '{"rope_type": "linear", "factor": 4}', "--json", "--no-fix", *SMALL)
    assert code == 0, err
    document = json.loads(out)
    assert document["config"].startswith("linear RoPE, head_dim 64, theta 10000")
    assert len(document["frequency_error_per_pair"]) == 32 and document["fix"] is None


def test_config_file(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000.0,
                                "partial_rotary_factor": 0.5}))
    # the built-in model reads partial rotary from the config ...
    code, out, err = run(capsys, "--impl", "hf", "--config", str(path), "--json", "--positions",
                         "0,5,100..200", "--no-fix")
    assert code == 0, err
    document = json.loads(out)
    assert "rotary_dim 64" in document["config"] and document["positions"] == 103
    # ... the real LlamaRotaryEmbedding ignores it for rope type default: audited as it builds
    # its table (all 128 channels), and the header says so
    require_library("transformers")
    code, out, err = run(capsys, "--config", str(path), "--positions", "0,5,100..200", "--no-fix")
    assert code == 0, err
    assert "x 64 pairs" in out and "ignores partial_rotary_factor 0.5" in " ".join(out.split())


def test_plot_writes_a_png(capsys, tmp_path):
    target = tmp_path / "audit.png"
    code, out, err = run(capsys, "--plot", str(target), "--compare", "meta", *SMALL)
    assert code == 0, err
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert target.stat().st_size > 10_000


def test_plot_into_a_missing_folder_is_a_usage_error(capsys, tmp_path):
    code, out, err = run(capsys, "--plot", str(tmp_path / "nope" / "a.png"), *SMALL)
    assert_one_line_error(code, err, "nope")


def test_real_transformers_class_through_the_cli(capsys, tmp_path):
    require_library("torch")
    require_library("transformers")
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
                                "rope_theta": 10000.0, "max_position_embeddings": 4096}))
    code, out, err = run(capsys, "--impl", "hf-transformers", "--config", str(path), "--compare", "hf",
                         "--dtype", "fp32", "--json", "--no-fix", *SMALL)
    assert code == 0, err
    document = json.loads(out)
    assert document["impl"] == "hf-transformers" and document["dtype"] == "fp32"
    # the step-by-step model of the same code path must measure the same table
    real = [band["max_abs_error"] for band in document["bands"]]
    modelled = [band["max_abs_error"] for band in document["compare"][0]["bands"]]
    assert real == pytest.approx(modelled, rel=0.05)



def test_fix_that_only_repeats_the_cast_error_is_not_suggested(capsys):
    # At a tolerance of 1e-6 the bf16 table fails everywhere; the float64 angle cast to bf16
    # fails just the same (the cast is the error), so it is not suggested as a fix.
    code, out, err = run(capsys, "--tolerance", "1e-6", *SMALL)
    assert code == 0, err
    assert "suggested fix" not in out and "does not lengthen the safe context nor gain a correct bit" in " ".join(out.split())


def test_json_writes_non_finite_numbers_as_null_with_a_companion(capsys):
    # fp16 positions overflow to inf beyond 65504: the last band's errors are infinite
    code, out, err = run(capsys, "--impl", "neox-fp16", "--head-dim", "64", "--max-position",
                         "70000", "--json", "--no-fix")
    assert code == 0, err
    assert "Infinity" not in out and "NaN" not in out
    document = json.loads(out)        # strict JSON

    def strings_outside_companions(value, key=""):
        if isinstance(value, dict):
            return [s for k, v in value.items() if not k.endswith("_nonfinite")
                    for s in strings_outside_companions(v, k)]
        if isinstance(value, list):
            return [s for v in value for s in strings_outside_companions(v, key)]
        return [value] if value in ("inf", "-inf", "nan") else []

    assert strings_outside_companions(document) == []
    last = document["bands"][-1]
    assert last["max_abs_error"] is None and last["max_abs_error_nonfinite"] == "inf"
    assert last["nonfinite"] > 0
    first = document["bands"][0]
    assert isinstance(first["max_abs_error"], float) and "max_abs_error_nonfinite" not in first
