"""The exact semantics table against torch itself: each op's lifted value is torch's value.

Property-based: hypothesis draws the operands; torch computes on real tensors; the lifted op
runs on symbolic tensors holding the same exact numbers. Only cases where torch's own result is
exact are compared (integer tensors, and floats whose results are exactly representable), so
no assertion depends on a rounding quirk.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import sympy as sp

from lift_support import require_module

torch = require_module("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from symrope.lifting import _semantics as semantics  # noqa: E402
from symrope.lifting._symbolic import entries, symbolic  # noqa: E402
from symrope.lifting._trace import Trace, call_lifted, location, tracing  # noqa: E402

INTS = st.lists(st.integers(-1000, 1000), min_size=1, max_size=6)
QUARTERS = st.lists(st.integers(-4000, 4000).map(lambda n: n / 4), min_size=1, max_size=6)


def lifted(function, values, dtype):
    tensor = symbolic(np.array([sp.nsimplify(v) for v in values], dtype=object), dtype)
    return [sp.sympify(v) for v in entries(function(tensor))]


def real(function, values, dtype):
    return [sp.nsimplify(v) for v in function(torch.tensor(values, dtype=dtype)).tolist()]


@settings(max_examples=40, deadline=None)
@given(INTS, st.integers(1, 50) | st.integers(-50, -1))
def test_integer_division_remainder_and_fmod_are_torchs(values, divisor):
    for function in (lambda t: t // divisor, lambda t: torch.div(t, divisor, rounding_mode="floor"),
                     lambda t: torch.div(t, divisor, rounding_mode="trunc"),
                     lambda t: t % divisor, lambda t: torch.fmod(t, divisor),
                     lambda t: torch.remainder(t, divisor)):
        assert lifted(function, values, torch.int64) == real(function, values, torch.int64)


@settings(max_examples=40, deadline=None)
@given(QUARTERS)
def test_float_to_int_casts_and_steps_are_torchs(values):
    """Casts truncate, round ties to even (0.5 -> 0, 2.5 -> 2), floor and ceil step."""
    for function in (lambda t: t.long(), lambda t: t.int(), lambda t: t.to(torch.int64),
                     torch.round, torch.floor, torch.ceil, torch.trunc,
                     lambda t: (t * 2).long(), lambda t: t.to(torch.bool).long()):
        assert lifted(function, values, torch.float32) == real(function, values, torch.float32)


@settings(max_examples=30, deadline=None)
@given(QUARTERS, st.integers(-10, 10))
def test_comparisons_and_where_are_torchs(values, threshold):
    for function in (lambda t: torch.where(t > threshold, t, -t),
                     lambda t: t.masked_fill(t <= threshold, 7.0),
                     lambda t: ((t >= threshold) & (t != 0)).float() * t,
                     lambda t: torch.clamp(t, min=-2.0, max=threshold)):
        assert lifted(function, values, torch.float32) == real(function, values, torch.float32)


def test_complex_conj_views_and_real_parts():
    values = np.array([sp.Rational(1, 2) + 2 * sp.I, -3 - sp.I / 4], dtype=object)
    z = symbolic(values, torch.complex64)
    concrete = torch.tensor([0.5 + 2j, -3 - 0.25j], dtype=torch.complex64)
    assert [sp.nsimplify(v) for v in entries(torch.view_as_real(z.conj() * 2)).reshape(-1)] == \
        [sp.nsimplify(v) for v in torch.view_as_real(concrete.conj().resolve_conj() * 2)
         .reshape(-1).tolist()]
    assert list(entries(z.real)) == [sp.Rational(1, 2), -3]


def test_symbolic_steps_are_the_functions_they_compute():
    p = sp.Symbol("p", real=True)
    position = symbolic([p], torch.int64)
    with semantics.positions_are_integers([p]):
        assert entries((position.float() / 2).long())[0] == sp.Piecewise(
            (sp.floor(p / 2), p >= 0), (sp.ceiling(p / 2), True))
        assert entries(position.float().long())[0] == p  # an integer position is its own trunc
        assert entries(position // 3)[0] == sp.floor(p / 3)
        rounded = entries(torch.round(position.float() / 2))[0]
        assert [rounded.subs(p, k) for k in range(-3, 4)] == [-2, -1, 0, 0, 0, 1, 2]


def test_casts_of_positions_record_hazards_with_their_line():
    p = sp.Symbol("p", real=True)
    position = symbolic([p], torch.int64)
    trace = Trace(frozenset([p]), ())
    with tracing(trace):
        position.to(torch.bfloat16)
        position.half()
        (position.float() * 0.1).to(torch.bfloat16)  # an angle narrowed: 8 significant bits
        (position > 3).float()  # a 0/1 mask: exact in every float type, not a hazard
    kinds = sorted((h["kind"], h["dtype"]) for h in trace.hazards.values())
    assert kinds == [("positions", "bfloat16"), ("positions", "float16"),
                     ("positions", "float32"), ("values", "bfloat16")]
    assert all("test_lift_semantics.py:" in h["location"] for h in trace.hazards.values())
    assert {h["exact_integers"] for h in trace.hazards.values() if h["kind"] == "positions"} \
        >= {256, 2048}


def test_a_cast_with_no_line_of_the_lifted_codes_own_says_location_unknown():
    """Inside :func:`call_lifted` only torch and symrope run the cast; this test's frame, which
    called the lift, is outside it and must not be named (the console script was, before)."""
    p = sp.Symbol("p", real=True)
    trace = Trace(frozenset([p]), ())
    with tracing(trace):
        call_lifted(torch.Tensor.float, symbolic([p], torch.int64))
    (hazard,) = trace.hazards.values()
    assert hazard["location"] == "" and hazard["text"].startswith(
        "positions cast to float32 (location unknown): "), hazard


def test_a_framework_directory_does_not_swallow_a_library_whose_name_extends_it():
    """``site-packages/torch`` is a prefix of ``site-packages/torchtune``: torchtune's line is
    the code's own, torch's is not."""
    torch_dir = os.path.dirname(torch.__file__)
    library = os.path.join(torch_dir + "tune", "modules", "position_embeddings.py")
    inner = os.path.join(torch_dir, "_tensor.py")
    named = location([(inner, 1, "float"), (library, 56, "build_rope_cache")])
    # a file under the working directory is shown relative to it (CI's venv lives there)
    assert named.startswith(" at ") and named.endswith(":56"), named
    assert os.path.abspath(named[len(" at "):-len(":56")]) == os.path.abspath(library), named
    assert location([(inner, 1, "float")]) == ""


def test_a_neutral_name_maps_every_aten_op():
    from symrope.lifting._aten import ATEN

    names = {name for name in ATEN.values() if name is not None}
    assert names <= set(semantics.OPS), names - set(semantics.OPS)
