"""Every zoo encoding gets exactly the verdicts it must get, and the generator it must have."""

import pytest

from symrope.checker import ZOO, check


@pytest.fixture(scope="module")
def reports():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = check(ZOO[name].build(), budget=120)
        return cache[name]

    return get


@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_entry_gets_its_expected_verdicts(name, reports):
    report = reports(name)
    assert report.verdicts() == ZOO[name].expected_verdicts
    for result in report.assumptions.values():
        if result.verdict == "refuted":
            assert result.counterexample and result.counterexample["summary"]
    assert (report.generator is not None) == (report.verdict == "proved")


def _kinds(report, axis="p"):
    return {kind: items for kind, items in report.classification[axis].items()}


def test_rope_d64_is_32_rotation_planes_with_the_rope_frequencies(reports):
    report = reports("rope_d64")
    rotations = _kinds(report)["rotation"]
    assert len(rotations) == 32 and set(_kinds(report)) == {"rotation"}
    assert [r["indices"] for r in rotations[:2]] == [[0, 1], [2, 3]]
    assert rotations[0]["frequency"] == "1" and rotations[16]["frequency"] == "1/100"
    assert report.generator["pure_rotation"]["verdict"] == "proved"
    assert report.generator["exponential"]["verdict"] == "proved"


def test_xpos_is_damped_rotations_with_log_zeta_over_512_rates(reports):
    import sympy as sp

    from symrope.checker._zoo import xpos_scales

    damped = _kinds(reports("xpos"))["damped_rotation"]
    zeta = xpos_scales(8)
    assert len(damped) == 4
    # H(d) = zeta^(-d/512) R(d omega): the rate is -ln(zeta_i)/512 (> 0: zeta_i < 1)
    for item, z in zip(damped, zeta):
        assert sp.simplify(sp.sympify(item["rate"]) + sp.log(z) / 512) == 0
    assert reports("xpos").generator["pure_rotation"]["verdict"] == "refuted"


@pytest.mark.parametrize("name, kinds", [
    ("nope", {"zero"}), ("pure_decay", {"decay"}), ("nilpotent_shear", {"nilpotent_shear"}),
    ("alibi", {"zero", "nilpotent_shear"}), ("jordan_block", {"jordan"}),
    ("partial_rotary", {"rotation", "zero"}), ("non_normal_rotation", {"rotation"})])
def test_generator_classification(name, kinds, reports):
    assert set(_kinds(reports(name))) == kinds


def test_non_normal_generator_is_flagged_and_not_skew(reports):
    report = reports("non_normal_rotation")
    (plane,) = _kinds(report)["rotation"]
    assert plane["frequency"] == "2" and plane["normal"] is False
    assert report.generator["pure_rotation"]["verdict"] == "refuted"


def test_jordan_block_has_one_chain_of_length_two_at_minus_half(reports):
    (block,) = _kinds(reports("jordan_block"))["jordan"]
    assert block["eigenvalue"] == "-1/2" and block["jordan_chains"] == [2]


def test_two_dimensional_generators_commute(reports):
    for name in ("rope_2d_axial", "rope_2d_mixed"):
        report = reports(name)
        assert report.generator["commute"]["verdict"] == "proved"
        assert set(report.classification) == {"p0", "p1"}
    axial = reports("rope_2d_axial").classification
    # axial: x turns only the first half of the pairs, y only the second half
    assert [r["indices"] for r in axial["p0"]["rotation"]] == [[0, 1], [2, 3]]
    assert [z["indices"] for z in axial["p0"]["zero"]] == [[4, 5], [6, 7]]


def test_liere_counterexample_is_a_pair_of_2d_positions(reports):
    counterexample = reports("liere_so3").assumptions["translation_invariance"].counterexample
    import sympy as sp

    assert counterexample["s"].startswith("(") and counterexample["t"].startswith("(")
    # the two scores are exact expressions whose values really differ (at 30 digits)
    at_s_t = sp.sympify(counterexample["score_at_s_t"]).evalf(30)
    at_0_t_minus_s = sp.sympify(counterexample["score_at_0_t_minus_s"]).evalf(30)
    assert abs(at_s_t - at_0_t_minus_s) > sp.Float("1e-6")


@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_check_report_compiles_as_a_derivation(name, reports, tmp_path):
    """`symrope check NAME --latex`: compiles without errors or overfull boxes and reads as
    mathematics (no JSON, no ASCII carets), with the counterexample's numbers when refuted."""
    from symrope.latex import check_report_document, compile_pdf, latex_errors, overfull_boxes
    from test_latex_support import pdf_text, require_tool, squeeze

    require_tool("pdflatex")
    report = reports(name)
    path = tmp_path / f"{name}.tex"
    path.write_text(check_report_document(report), encoding="utf-8")
    pdf = compile_pdf(path, tmp_path)
    log = (tmp_path / f"{name}.log").read_text(encoding="latin-1")
    assert latex_errors(log) == [] and overfull_boxes(log) == []
    text = pdf_text(pdf)
    for artefact in ("{'", "':", "**", "^T", "!=", "x_dot_y", "score_at", "seconds"):
        assert artefact not in text, (artefact, text)
    flat = squeeze(text)
    for assumption, result in report.assumptions.items():
        assert f"{result.verdict}" in flat
        if result.verdict == "refuted" and assumption != "continuity":
            # the exact point is typeset, and the score values are shown as decimals too
            assert "≈" in text or "=" in text
            point = result.counterexample
            for key in ("s", "t", "p"):
                if key in point and "/" in point[key] and "(" not in point[key]:
                    numerator = point[key].split("/")[0].lstrip("-")
                    assert numerator in flat
    if report.generator:
        assert "Generator" in text and "Classification" in text
