"""User implementations: table and apply functions, numpy and torch, and one-line errors."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from audit_libraries import require_library
from symrope.audit._user import load_user_impl
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

FIXTURES = Path(__file__).parent / "data" / "audit" / "user_impls.py"
CONFIG = RopeConfig.from_options(head_dim=64, theta=10000)
POSITIONS = np.array([0, 1, 2, 1000, 65_537, 1_000_003])


def spec(name: str) -> str:
    return f"{FIXTURES}:{name}"


def reference_fp32():
    """The correctly rounded float32 cos/sin of the fixtures' own float32 angles: what the loader
    must hand back whatever layout a function returns (the fixtures' numpy pow and cos are
    within an ulp of this on any CPU; the model's inv_freq may differ from theirs by one)."""
    import importlib.util

    spec_ = importlib.util.spec_from_file_location("_user_impls_fixture", FIXTURES)
    fixture = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(fixture)
    angle = fixture._angles32(POSITIONS).astype(np.float64)
    return np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)


@pytest.mark.parametrize("name", ["per_pair_table", "hf_duplicated_table"])
def test_numpy_table_functions_in_both_layouts(name):
    impl = load_user_impl(spec(name))
    assert impl.kind == "table"
    cos, sin = impl.table(POSITIONS, CONFIG)
    assert cos.shape == (len(POSITIONS), 32) and cos.dtype == np.float32
    expected_cos, expected_sin = reference_fp32()
    # numpy's float32 cos is not torch's or ours; all are within 2 float32 ulps of each other
    assert np.max(np.abs(cos - expected_cos)) <= 2 * 2.0**-24
    assert np.max(np.abs(sin - expected_sin)) <= 2 * 2.0**-24


def test_complex_table_and_module_colon_function(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES.parent))
    impl = load_user_impl("user_impls:complex_table")
    cos, sin = impl.table(POSITIONS, CONFIG)
    assert cos.dtype == np.float32 and cos.shape == (len(POSITIONS), 32)
    assert np.allclose(cos ** 2 + sin ** 2, 1, atol=1e-6)


def test_rotate_half_apply_function_recovers_its_table():
    impl = load_user_impl(spec("rotate_half_apply"))
    assert impl.kind == "apply"
    cos, sin = impl.table(POSITIONS, CONFIG)
    assert impl.pairing == "rotate_half"
    expected_cos, expected_sin = reference_fp32()
    assert np.max(np.abs(cos - expected_cos)) <= 2 * 2.0**-24
    assert np.max(np.abs(sin - expected_sin)) <= 2 * 2.0**-24


def test_torch_functions_are_read_without_symrope_importing_torch():
    torch = require_library("torch")
    table = load_user_impl(spec("torch_bf16_table"))
    cos, sin = table.table(POSITIONS, CONFIG)
    assert cos.dtype == ml_dtypes.bfloat16 and cos.shape == (len(POSITIONS), 32)
    # the fixtures' own float32 angle (torch's pow, which may differ from numpy's or the exact
    # value by an ulp on some CPUs), correctly rounded: torch's fp32 cos is within 1 ulp of it,
    # so the bf16 table is the same almost always and never a bf16 step apart
    inv_freq = (1.0 / (10000.0 ** (torch.arange(0, 64, 2, dtype=torch.float) / 64))).numpy()
    angle = (POSITIONS.astype(np.float32)[:, None] * inv_freq[None, :]).astype(np.float64)
    expected_cos = np.cos(angle).astype(np.float32)
    bf16 = expected_cos.astype(ml_dtypes.bfloat16)
    assert np.mean(cos == bf16) > 0.98
    assert np.max(np.abs(cos.astype(np.float64) - bf16.astype(np.float64))) <= 2.0**-8

    apply = load_user_impl(spec("interleaved_torch_apply"))
    cos, sin = apply.table(POSITIONS, CONFIG, "fp32")
    assert apply.pairing == "interleaved"
    assert np.max(np.abs(cos - expected_cos)) <= 2 * 2.0**-24
    assert torch.__name__ == "torch"


def test_symrope_audit_user_module_does_not_import_torch():
    import subprocess

    code = ("import sys, numpy as np\n"
            "from symrope.audit._user import load_user_impl\n"
            "from symrope.schedules import RopeConfig\n"
            f"impl = load_user_impl({spec('per_pair_table')!r})\n"
            "impl.table(np.arange(4), RopeConfig.from_options(head_dim=64))\n"
            "print('torch' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("name, message", [
    ("raises", "raised RuntimeError: CUDA out of memory"),
    ("wrong_shape", "returned cos of shape (6, 7); expected (6, 32) or (6, 64)"),
    ("not_a_pair", "must return (cos, sin) or a complex array, got a ndarray"),
    ("nan_table", "returned a non-finite cos (nan) at position 1000003, pair 3"),
    ("scrambled_apply", "rotated channel 0 at position 1 into channels [63]"),
    ("NOT_CALLABLE", "is not callable (it is a int)"),
    ("missing_function", "has no function 'missing_function'"),
])
def test_bad_user_functions_get_one_line_errors(name, message):
    with pytest.raises(UsageError) as info:
        load_user_impl(spec(name)).table(POSITIONS, CONFIG)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("bad_spec, message", [
    ("no_colon_here", "is neither a built-in model nor MODULE:FUNCTION"),
    ("not_a_module_xyz:f", "cannot import module 'not_a_module_xyz'"),
    ("missing/file.py:f", "no such file 'missing/file.py'"),
    ("json:", "expected MODULE:FUNCTION or FILE.py:FUNCTION"),
])
def test_bad_specs(bad_spec, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        load_user_impl(bad_spec)


def test_bad_positions_are_refused_before_calling_user_code():
    impl = load_user_impl(spec("raises"))
    with pytest.raises(UsageError, match="positions must be >= 0, got -4"):
        impl.table(np.array([-4]), CONFIG)
