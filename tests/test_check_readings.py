"""What the checker reads after the four verdicts, for encodings written in SymPy.

An attention factor is named as "relative up to a uniform scale c^2" (YaRN, LongRoPE, DeepSeek
MLA), a constant position offset is a rotation plane with omega = 1, and when n-d translation
invariance fails the non-commuting generators are named as the reason (LieRE).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from symrope.checker import Encoding, ZOO, check
from symrope.linalg import rotation


@pytest.mark.parametrize("name, c2", [("yarn_attention_factor", (0.1 * math.log(4) + 1) ** 2),
                                      ("longrope_attention_factor", 7 / 6),
                                      ("deepseek_mla", (0.1 * math.log(40) + 1) ** 2)])
def test_an_attention_factor_is_a_uniform_scale_not_a_headline_refutation(name, c2):
    report = check(ZOO[name].build())
    assert report.verdicts()["identity_at_zero"] == "refuted"  # H(0) = c^2 I, not I
    assert report.verdict == "refuted" and report.scaled and report.exit_code == 0
    scale = report.uniform_scale
    assert scale["verdict"] == "proved" and float(sp.sympify(scale["c2"])) == pytest.approx(c2)
    assert report.headline == f"relative up to a uniform scale c^2 = {scale['c2_value']}"
    assert report.table().splitlines()[0].endswith(f"-> {report.headline} ({report.seconds:.2f} s)")
    rotations = scale["classification"]["p"]["rotation"]
    assert [r["frequency"] for r in rotations] == ["1"]  # the normalised encoding's plane
    assert report.generator is None  # reserved for all four proved
    assert report.to_dict()["uniform_scale"]["c2"] == scale["c2"]


def test_a_scale_that_varies_with_the_position_is_not_a_uniform_scale():
    grow = Encoding.from_matrices("grows", lambda p: (1 + p ** 2) * rotation(p),
                                  lambda p: rotation(p))
    report = check(grow)
    assert report.verdicts()["identity_at_zero"] == "refuted"
    assert not report.scaled and report.exit_code == 1
    assert report.uniform_scale is None


def test_a_constant_position_offset_is_a_rotation_plane_with_omega_one():
    report = check(ZOO["constant_offset"].build())
    assert report.verdict == "proved"
    assert report.generator["axes"][0]["blocks"][0]["matrix"] == "[[0, -1], [1, 0]]"
    assert report.classification["p"] == {"rotation": [
        {"indices": [0, 1], "eigenvalue": "I", "rate": "0", "frequency": "1",
         "jordan_chains": [1], "normal": True}]}
    shifted = check(Encoding.from_matrices("shifted", lambda p: rotation(3 * p - 2),
                                           lambda p: rotation(3 * p - 2)))
    assert [r["frequency"] for r in shifted.classification["p"]["rotation"]] == ["3"]


def test_liere_names_its_non_commuting_generators():
    report = check(ZOO["liere_so3"].build())
    translation = report.assumptions["translation_invariance"]
    assert translation.verdict == "refuted" and translation.counterexample
    assert "do not commute" in translation.evidence
    assert report.noncommuting["axes"] == ["p0", "p1"]
    commutator = sp.Matrix(sp.sympify(report.noncommuting["commutator"]))
    assert commutator != sp.zeros(3, 3)
    axial = check(ZOO["rope_2d_axial"].build())
    assert axial.noncommuting is None and axial.verdict == "proved"
