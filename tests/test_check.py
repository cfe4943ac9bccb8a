"""The checker's API: bad definitions, verdicts with replayable counterexamples, the report."""

import pytest
import sympy as sp

from symrope.checker import Encoding, check
from symrope.checker._continuity import continuity_obstacle, find_discontinuity
from symrope.checker._structure import block_partition
from symrope.errors import UsageError


def rotation(a):
    return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])


def rotate(x, p):
    return rotation(p) * x


# ------------------------------------------------------------------ bad definitions
@pytest.mark.parametrize("build, message", [
    (lambda: Encoding("e", 0, rotate, rotate), "dim must be a positive integer"),
    (lambda: Encoding("e", 2, rotate, 3), "key must be a callable"),
    (lambda: Encoding("", 2, rotate, rotate), "non-empty name"),
    (lambda: Encoding("e", 2, rotate, rotate, position_dims=0), "position_dims"),
    (lambda: Encoding.from_matrices("e", lambda p: sp.Matrix([[1, p]]), rotation),
     "F(p) must be a square matrix, got shape 1x2"),
    (lambda: Encoding.from_matrices("e", rotation, lambda p: sp.eye(3)),
     "F(p) is 2x2 but G(p) is 3x3"),
    (lambda: Encoding.from_matrices("e", rotation, lambda p: 1 / 0), "G(p) raised ZeroDivisionError"),
    (lambda: Encoding.from_matrices("e", rotation, lambda p: "I"), "must return a SymPy matrix"),
])
def test_bad_definitions_are_named_usage_errors(build, message):
    with pytest.raises(UsageError, match="encoding 'e'" if "name" not in message else message) as info:
        build()
    assert message in str(info.value)


@pytest.mark.parametrize("query, message", [
    (lambda x, p: sp.Matrix([x[0]]), "shape 1x1, expected 2x1"),
    (lambda x, p: x.T, "row vector"),
    (lambda x, p: x[5], "raised IndexError"),
    (lambda x, p: None, "must return a SymPy matrix, got NoneType"),
])
def test_functions_returning_the_wrong_thing_are_named(query, message):
    with pytest.raises(UsageError, match="encoding 'broken'") as info:
        check(Encoding("broken", 2, query, rotate))
    assert message in str(info.value)


def test_check_rejects_a_non_encoding_and_a_bad_budget():
    with pytest.raises(UsageError, match="takes an Encoding"):
        check(rotate)
    with pytest.raises(UsageError, match="budget"):
        check(Encoding("e", 2, rotate, rotate), budget=0)


# ------------------------------------------------------------------ verdicts and evidence
def test_general_solution_with_a_non_orthogonal_c_is_relative_but_not_a_rotation():
    # G = C e^{pX}, F = C^{-T} e^{-pX^T} (the design notes' general solution), C not orthogonal
    C = sp.Matrix([[2, 1], [0, 1]])
    G = lambda p: C * rotation(p)
    F = lambda p: C.inv().T * rotation(p)
    report = check(Encoding.from_matrices("general", F, G))
    assert report.verdict == "proved"
    (plane,) = report.classification["p"]["rotation"]
    assert plane["frequency"] == "1"


def test_translation_counterexample_replays_through_the_users_functions():
    report = check(Encoding.from_matrices("swap", lambda p: rotation(p).T, rotation))
    found = report.assumptions["translation_invariance"].counterexample
    s, t = found.positions["s"].exact, found.positions["t"].exact
    i, j = found.x, found.y  # basis vectors e_i, e_j, as indices
    score = lambda a, b: (rotation(a).T[:, i]).dot(rotation(b)[:, j])  # query R(a)^T e_i
    assert found.score.exact.equals(score(s, t))
    assert found.to_dict()["x"] == f"e_{i}" and found["score_at_s_t"] == found.score  # the JSON
    assert sp.N(score(s, t) - score(0, t - s)) != 0
    # R(s)^T... the transpose mistake scores R(s + t): it is refuted at equal positions too
    assert report.assumptions["identity_at_zero"].verdict == "refuted"


def test_nonlinear_encoding_is_decided_on_the_score():
    def add(x, p):
        return sp.Matrix([x[0] + sp.cos(p), x[1] + sp.sin(p)])

    report = check(Encoding("added", 2, add, add))
    linearity = report.assumptions["linearity"]
    assert linearity.verdict == "refuted" and linearity.counterexample.role == "query"
    translation = report.assumptions["translation_invariance"].counterexample
    # the counterexample's two scores really differ for the stated x, y, s, t
    x, y = (sp.Matrix([v.exact for v in vector]) for vector in (translation.x, translation.y))
    s, t = translation.positions["s"].exact, translation.positions["t"].exact
    assert sp.N(add(x, s).dot(add(y, t)) - add(x, 0).dot(add(y, t - s))) != 0
    assert report.assumptions["continuity"].verdict == "proved"
    assert report.exit_code == 1


def test_rope_written_as_functions_is_proved_through_extracted_matrices():
    def turn(x, p):
        return sp.Matrix([sp.cos(p) * x[0] - sp.sin(p) * x[1], sp.sin(p) * x[0] + sp.cos(p) * x[1]])

    report = check(Encoding("rope_functions", 2, turn, turn))
    assert report.generator["axes"][0]["blocks"][0]["matrix"] == \
        "[[0, -1], [1, 0]]"
    assert report.verdict == "proved" and report.exit_code == 0


def test_discontinuities_are_located_exactly():
    p = sp.Symbol("p", real=True)
    jump = find_discontinuity(sp.cos(sp.floor(p / 3) / 10), [p], {})
    assert (jump.kind, jump.position[p], jump.left, jump.right) == ("jump", 3, 1, sp.cos(sp.Rational(1, 10)))
    pole = find_discontinuity(sp.exp(p) / (p - 2), [p], {})
    assert (pole.kind, pole.position[p]) == ("pole", 2)
    step = find_discontinuity(sp.Piecewise((p, p < 1), (p + 1, True)), [p], {})
    assert (step.left, step.right) == (1, 2)
    # the continuous extension convention: a removable point is no discontinuity...
    assert find_discontinuity(sp.sin(p) / p, [p], {}) is None
    # ...but a point with no limit at all is
    hole = find_discontinuity(sp.cos(1 / p), [p], {})
    assert hole.kind == "undefined" and hole.value is None


def test_continuity_by_structure_needs_known_signs():
    p = sp.Symbol("p", real=True)
    theta = sp.Symbol("theta", positive=True)
    assert continuity_obstacle(theta ** (-p) * sp.cos(p) + sp.sqrt(p ** 2 + 1), [p]) is None
    assert continuity_obstacle(1 / (p ** 2 + 1), [p]) is None
    assert continuity_obstacle(1 / p, [p]) == 1 / p
    assert continuity_obstacle(sp.sign(p) * p ** 2, [p]) == sp.sign(p)


def test_floor_bucketed_continuity_counterexample_is_the_first_integer():
    report = check(Encoding.from_matrices("bucket", lambda p: rotation(sp.floor(p) / 10),
                                          lambda p: rotation(sp.floor(p) / 10)))
    found = report.assumptions["continuity"].counterexample
    assert found["kind"] == "jump" and found["position"] == {"p": "1"}
    left, right = sp.sympify(found["left_limit"]), sp.sympify(found["right_limit"])
    # an entry of R(floor(p)/10): cos or +-sin of 0 below p = 1, of 1/10 above
    assert {abs(left), abs(right)} in ({1, sp.cos(sp.Rational(1, 10))}, {0, sp.sin(sp.Rational(1, 10))})


def test_unknown_continuity_is_undecided_not_proved():
    odd = lambda p: sp.Matrix([[sp.exp(sp.sign(p) * p ** 2 - p * sp.Abs(p))]])  # = 1, but says sign
    report = check(Encoding.from_matrices("odd", odd, odd), budget=30)
    assert report.assumptions["continuity"].verdict == "undecided"
    assert report.verdict == "undecided" and report.exit_code == 3


def test_block_partition_uses_only_literal_zeros():
    F = sp.Matrix([[1, 2, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 5, 1]])
    G = sp.eye(4)
    assert block_partition(4, F, G).groups == ((0, 1), (2, 3))
    G[1, 2] = sp.Symbol("a")
    assert block_partition(4, F, G).groups == ((0, 1, 2, 3),)


def test_report_dict_has_the_documented_schema():
    report = check(Encoding.from_matrices("q_only", rotation, lambda p: sp.eye(2)))
    document = report.to_dict()
    assert document["encoding"] == "q_only"
    assert set(document["assumptions"]) == {"linearity", "translation_invariance",
                                            "identity_at_zero", "continuity"}
    for value in document["assumptions"].values():
        assert {"verdict", "counterexample"} <= set(value)
    assert document["generator"] is None and document["classification"] is None
    assert "counterexample: s = " in report.table()


@pytest.mark.parametrize("angle, kind, where", [
    (lambda p: sp.Piecewise((p, p < 2), (p + 1, True)), "jump", "2"),
    (lambda p: p * sp.sign(p - 3), "value", "3"),  # cos is even: only the value at 3 jumps
    (lambda p: p + 1 / (p - 5), "undefined", "5"),  # cos(p + 1/(p - 5)): no limit at all
    (lambda p: sp.ceiling(2 * p) / 3, "jump", "1/2"),
])
def test_continuity_refuted_at_the_exact_point(angle, kind, where):
    report = check(Encoding.from_matrices("broken", lambda p: rotation(angle(p)),
                                          lambda p: rotation(angle(p))))
    found = report.assumptions["continuity"].counterexample
    assert report.assumptions["continuity"].verdict == "refuted"
    assert found["kind"] == kind and found["position"] == {"p": where}


def test_a_pole_in_an_entry_is_refuted_as_a_pole():
    scaled = lambda p: rotation(p) * (1 + 1 / (p - 5))  # noqa: E731
    found = check(Encoding.from_matrices("pole", scaled, scaled)).assumptions["continuity"]
    assert found.verdict == "refuted"
    assert found.counterexample["kind"] == "pole" and found.counterexample["position"] == {"p": "5"}


def test_nonlinear_score_discontinuity_is_found_with_content_vectors():
    def bucketed(x, p):
        return sp.Matrix([x[0] + sp.floor(p), x[1]])

    report = check(Encoding("bucket_added", 2, bucketed, bucketed))
    continuity = report.assumptions["continuity"]
    assert continuity.verdict == "refuted" and continuity.counterexample["kind"] == "jump"
    assert "x" in continuity.counterexample and "position" in continuity.counterexample


def test_top_level_check_is_the_function_whatever_was_imported_first():
    import symrope
    import symrope.cli._check  # noqa: F401 - importing the package must not shadow the name

    report = symrope.check(symrope.Encoding.from_matrices("r", rotation, rotation))
    assert report.verdict == "proved"


def test_classification_of_growth_long_jordan_chains_and_unknown_signs():
    from symrope.checker._classify import classify_block

    (growth,) = classify_block(sp.Matrix([[sp.Rational(1, 3)]]), (0,))
    assert growth["kind"] == "growth" and growth["rate"] == sp.Rational(1, 3)
    (chain,) = classify_block(sp.Matrix([[0, 1, 0], [0, 0, 1], [0, 0, 0]]), (0, 1, 2))
    assert chain["kind"] == "nilpotent_shear" and chain["chains"] == [3]
    mixed = classify_block(sp.Matrix([[2, 1, 0], [0, 2, 0], [0, 0, 2]]), (0, 1, 2))
    assert [(m["kind"], m["chains"]) for m in mixed] == [("jordan", [2, 1])]
    a = sp.Symbol("a", real=True)
    (unknown,) = classify_block(sp.Matrix([[a]]), (0,))
    assert unknown["kind"] == "exponential"  # the sign of a is not known: no decay/growth claim


def test_zoo_command_reports_mismatches(monkeypatch, capsys):
    from symrope.checker import _zoo
    from symrope.cli._check import main

    import symrope.checker

    def use_zoo(zoo):  # the command reads the public name; _zoo's is the one zoo_encoding reads
        monkeypatch.setattr(_zoo, "ZOO", zoo)
        monkeypatch.setattr(symrope.checker, "ZOO", zoo)

    small = {name: _zoo.ZOO[name] for name in ("nope", "q_rotated_only")}
    use_zoo(small)
    assert main(["--zoo"]) == 0
    out = capsys.readouterr().out
    assert "nope" in out and "4 zero; skew" in out and "P R R P" in out
    wrong = _zoo.ZooEntry("nope", "NoPE, wrongly expected refuted", small["nope"].build,
                          ("refuted",) * 4)
    use_zoo({"nope": wrong})
    assert main(["--zoo"]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_sinc_claims_extend_by_continuity_only_when_the_zeros_are_thin():
    from symrope.checker._claims import Clock, _verify_through_sinc
    from symrope.engine import verify

    p = sp.Symbol("p", real=True)
    claim = (sp.Matrix([[sp.sinc(p) * p]]), sp.Matrix([[sp.sin(p)]]))
    proved = _verify_through_sinc(*claim, verify(*claim, budget=5), Clock(20))
    assert proved.proved and proved.method.startswith("sinc(u) = sin(u)/u")
    # exp(p) never vanishes, but exp(p)**2 is not a polynomial: the density argument declines
    thick = (sp.Matrix([[sp.sinc(sp.exp(p)) * sp.exp(p)]]), sp.Matrix([[sp.sin(sp.exp(p))]]))
    assert _verify_through_sinc(*thick, verify(*thick, budget=5), Clock(20)) is None


def test_a_plain_function_gets_a_message_that_says_how_to_wrap_it():
    import sympy as sp

    from symrope import check
    from symrope.errors import UsageError

    def rotate(x, p):
        return sp.Matrix([x[0], x[1]])

    with pytest.raises(UsageError, match=r"plain function rotate: wrap it, e\.g\. Encoding"):
        check(rotate)


def test_unpacking_a_one_axis_position_names_position_dims():
    import sympy as sp

    from symrope import Encoding, check
    from symrope.errors import UsageError

    def two_d(x, p):
        a, b = p
        return sp.Matrix([sp.cos(a) * x[0] - sp.sin(b) * x[1], sp.sin(a) * x[0] + sp.cos(b) * x[1]])

    with pytest.raises(UsageError, match="pass position_dims=2"):
        check(Encoding("two_d", 2, two_d, two_d))
