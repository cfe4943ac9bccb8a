"""``symrope.testing.assert_relative`` / ``assert_precise`` as a model repo uses them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from lift_support import require_module

torch = require_module("torch")

from symrope.testing import assert_precise, assert_relative  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "test_model_rope.py"
_spec = importlib.util.spec_from_file_location("test_model_rope_example", EXAMPLE)
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)


def test_the_docs_example_test_file_passes():
    example.test_rope_is_relative()
    example.test_rope_is_precise_in_bfloat16_up_to_4k()


def test_a_cache_bug_fails_with_the_assumption_the_pair_and_the_replay():
    def keys_one_token_behind(q, k, positions):
        q_rot, _ = example.apply_rope(q, k, positions)
        _, k_rot = example.apply_rope(q, k, positions.roll(1))
        return q_rot, k_rot

    with pytest.raises(AssertionError) as failure:
        assert_relative(keys_one_token_behind, head_dim=4)
    message = str(failure.value)
    assert "translation invariance refuted" in message and "tokens (" in message
    assert "float64 replay through the real code" in message


def test_a_uniform_scale_passes_unless_forbidden():
    def scaled(q, k, positions):
        q_rot, k_rot = example.apply_rope(q, k, positions)
        return q_rot * 1.25, k_rot * 1.25

    assert_relative(scaled, head_dim=4)
    with pytest.raises(AssertionError, match="identity at zero offset refuted"):
        assert_relative(scaled, head_dim=4, allow_scale=False)


def test_code_that_cannot_be_lifted_is_an_assertion_error_not_a_pass():
    def reads_a_number(q, k, positions):
        return q * int(positions[0]), k

    with pytest.raises(AssertionError, match="could not be lifted"):
        assert_relative(reads_a_number, head_dim=2)


def test_assert_precise_names_the_first_failing_band():
    with pytest.raises(AssertionError) as failure:
        assert_precise(example.apply_rope, dtype="bf16", context=65536, tolerance=2 ** -9,
                       head_dim=8, theta=10000)
    message = str(failure.value)
    assert "first failing position" in message and "band" in message and "bf16" in message
    # the schedule can be read off the lifted code instead of given
    assert_precise(example.apply_rope, dtype="fp32", context=1024, head_dim=8)
