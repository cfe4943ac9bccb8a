"""The generator stage read off without the exponential recognition (its fallback path)."""

from unittest import mock

import sympy as sp

from symrope.checker import Encoding, check
from symrope.checker._run import CheckRun
from symrope.checker._continuity import value_at_origin
from symrope.checker._exponential import Exponentials
from symrope.linalg import rotation


def _without_recognition(run):
    return Exponentials(reason="disabled by the test")


def _rope_2d(p):
    a, b = p
    return sp.diag(rotation(a + b), rotation(2 * a - b))


def test_two_axis_generators_are_read_with_every_offset_at_zero():
    # H(d) = diag(R(d0 + d1), R(2 d0 - d1)): X_0 = dH/dd0 at d = (0, 0) is diag(J, 2J) and
    # X_1 = diag(J, -J), J = [[0, -1], [1, 0]]. Setting only d_k to 0 left sin(d1) in X_0, and
    # H(d) = exp(d.X) came out refuted though all four assumptions are proved.
    encoding = Encoding.from_matrices("rope_2d", _rope_2d, _rope_2d, position_dims=2)
    with mock.patch.object(CheckRun, "exponentials", _without_recognition):
        report = check(encoding, budget=60)
    assert set(report.verdicts().values()) == {"proved"}
    assert report.generator["exponential"]["verdict"] == "proved"
    J = sp.Matrix([[0, -1], [1, 0]])
    expected = {"p0": [J, 2 * J], "p1": [J, -J]}
    for axis in report.generator["axes"]:
        blocks = [sp.Matrix(sp.sympify(b["matrix"])) for b in axis["blocks"]]
        assert all(not b.free_symbols for b in blocks), blocks  # no offset symbol d_k left
        assert blocks == expected[axis["axis"]]
    assert report.generator["pure_rotation"]["verdict"] == "proved"
    assert report.generator["commute"]["verdict"] == "proved"


def test_value_at_origin_sets_every_axis_and_extends_one_axis_by_its_limit():
    a, b = sp.symbols("a b", real=True)
    p = sp.Symbol("p", real=True)
    assert value_at_origin(sp.Matrix([[sp.sin(a + b), sp.cos(b)]]), (a, b)) == \
        sp.Matrix([[0, 1]])
    assert value_at_origin(sp.Matrix([[sp.sin(p) / p]]), (p,)) == sp.Matrix([[1]])
    assert value_at_origin(sp.Matrix([[sp.cos(p) / p]]), (p,)) is None
    assert value_at_origin(sp.Matrix([[1 / (a ** 2 + b ** 2)]]), (a, b)) is None
