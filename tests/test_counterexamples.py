"""Typed counterexamples and undecided reasons: every field reaches the JSON, every code is right.

A counterexample is a dataclass whose ``to_dict()`` is ``symrope check --json``'s; a field the
JSON forgets, or a basis vector that loses its coordinate, would pass every test that only
reads the fields. An undecided verdict carries an :class:`~symrope.engine.UndecidedReason`
whose code a machine reads instead of the prose; a wrong code would pass every test that only
reads the prose. The kinds are found by walking the class tree, so a new kind is tested here by
being written.
"""

import dataclasses
import json
import pickle
import string

import pytest
import sympy as sp

from symrope.checker import BasisVector, Counterexample, Encoding, check
from symrope.checker._report import AssumptionResult
from symrope.engine import PROVED, REFUTED, UNDECIDED, Theorem, UndecidedReason

KINDS = sorted(Counterexample.__subclasses__(), key=lambda kind: kind.__name__)
# What a score is compared with (translation, shifted, identity) picks the JSON keys: a switch,
# not a value of its own.
_SWITCHES = {"compared_with"}


class _Marker(str):
    """A value no code would make up: found in the JSON only if the field was put there."""


def _filled(kind, compared_with=None):
    """An instance of ``kind`` with a distinct marker in every field, and the markers."""
    values, markers = {}, []
    for number, field in enumerate(dataclasses.fields(kind)):
        kind_of = str(field.type)
        if field.name in _SWITCHES:
            values[field.name] = compared_with
        elif kind_of.startswith("int"):
            values[field.name] = 1000 + number  # basis coordinates and token indices
            markers.append(values[field.name])
        elif kind_of.startswith("dict"):
            marker = _Marker(f"<{field.name}>")
            values[field.name] = {f"{field.name}_key": marker}
            markers.append(marker)
        elif kind_of.startswith("list"):
            marker = _Marker(f"<{field.name}>")
            values[field.name] = [marker]
            markers.append(marker)
        else:
            values[field.name] = _Marker(f"<{field.name}>")
            markers.append(values[field.name])
    return kind(**values), markers


def _switch_values(kind) -> list:
    from symrope.checker._counterexample import IDENTITY, SHIFTED, TRANSLATION

    names = {field.name for field in dataclasses.fields(kind)}
    return [TRANSLATION, SHIFTED, IDENTITY] if names & _SWITCHES else [None]


def _everything_in(value) -> list:
    """Every value inside a JSON document (nested dicts and lists), a basis vector as its
    coordinate too."""
    found = [value]
    if isinstance(value, dict):
        for inner in value.values():
            found += _everything_in(inner)
    elif isinstance(value, list):
        for inner in value:
            found += _everything_in(inner)
    elif isinstance(value, BasisVector):
        found.append(value.coordinate)
    return found


def test_the_kinds_are_the_documented_six():
    assert {kind.__name__ for kind in KINDS} >= {"NonlinearContent", "NonlinearToken",
                                                  "ScoreOnBasis", "ScoreOnContent", "PairScore",
                                                  "Discontinuity"}


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.__name__)
def test_every_field_of_every_kind_reaches_its_json(kind):
    for compared_with in _switch_values(kind):
        example, markers = _filled(kind, compared_with)
        document = example.to_dict()
        assert next(iter(document)) == "summary"
        inside = _everything_in(document)
        missing = [m for m in markers if not any(m is v or (type(m) is int and v == m)
                                                 for v in inside)]
        assert not missing, f"{kind.__name__} ({compared_with}) leaves {missing} out of its JSON"
        # it reads as its JSON, key for key and in order
        assert list(example) == list(document) and len(example) == len(document)
        assert all(example[key] is document[key] or example[key] == document[key]
                   for key in document)


def test_the_score_keys_follow_what_the_score_is_compared_with():
    from symrope.checker import ScoreOnBasis

    def keys(compared_with):
        example = ScoreOnBasis("s", compared_with, {"s": "1", "t": "2"}, "3", "4", 0, 1)
        return [key for key in example.to_dict() if key.startswith(("score", "x_dot"))]

    assert keys("translation") == ["score_at_s_t", "score_at_0_t_minus_s"]
    assert keys("shifted") == ["score_at_s_t", "score_at_s_plus_u_t_plus_u"]
    assert keys("identity") == ["score", "x_dot_y"]
    with pytest.raises(KeyError):
        keys("rotation")  # not a comparison the checker makes: never silently some keys


@pytest.mark.parametrize("coordinate", [0, 3, 12, 127])
def test_a_basis_vector_is_e_i_and_keeps_i(coordinate):
    vector = BasisVector(coordinate)
    assert vector == f"e_{coordinate}" and vector.coordinate == coordinate
    assert json.dumps(vector) == f'"e_{coordinate}"'
    assert pickle.loads(pickle.dumps(vector)).coordinate == coordinate
    # a str still: its methods are str's (an attribute named .index would shadow str.index)
    assert vector.index("_") == 1 and vector.upper() == f"E_{coordinate}"


def test_a_real_refutation_is_typed_and_its_basis_vectors_are_its_indices():
    from symrope.checker import ScoreOnBasis

    rotation = lambda p: sp.Matrix([[sp.cos(p), -sp.sin(p)], [sp.sin(p), sp.cos(p)]])  # noqa: E731
    report = check(Encoding.from_matrices("swap", lambda p: rotation(p).T, rotation), budget=60)
    found = report.assumptions["translation_invariance"]
    assert found.verdict == REFUTED and isinstance(found.counterexample, ScoreOnBasis)
    example = found.counterexample
    assert example.compared_with == "translation" and {"s", "t"} <= set(example.positions)
    document = report.to_dict()["assumptions"]["translation_invariance"]["counterexample"]
    assert document["x"] == f"e_{example.x}" and document["y"] == f"e_{example.y}"
    assert json.loads(json.dumps(document, default=str)) == json.loads(
        json.dumps(example.to_dict(), default=str))


# ------------------------------------------------------------------------ undecided reasons

def _fields(reason) -> set:
    return {name.split(":")[0] for _, name, _, _ in string.Formatter().parse(reason.template)
            if name}


@pytest.mark.parametrize("reason", list(UndecidedReason), ids=lambda reason: reason.name)
def test_each_reason_round_trips_by_code_and_says_each_of_its_facts(reason):
    assert UndecidedReason(reason.value) is reason and reason.value == reason.name.lower()
    facts = {name: 7 if name in {"budget", "exit_code"} else f"<{name}>"
             for name in _fields(reason)}
    text = reason.text(**facts)
    assert all(str(value) in text for value in facts.values())
    for name in facts:  # a missing fact is an error, never a sentence with a hole
        with pytest.raises(KeyError):
            reason.text(**{k: v for k, v in facts.items() if k != name})


def test_the_checker_json_carries_the_code_only_when_undecided():
    reason = UndecidedReason.CONTINUITY_UNKNOWN
    prose = reason.text(where="F(p)", obstacle="sign(p)")
    undecided = AssumptionResult("continuity", UNDECIDED, prose,
                                 undecided_reason=reason).to_dict()
    assert undecided["reason_code"] == "continuity_unknown" and undecided["evidence"] == prose
    assert "reason_code" not in AssumptionResult("continuity", PROVED, "it holds",
                                                 undecided_reason=reason).to_dict()


def test_an_unknown_continuity_is_undecided_with_its_code():
    odd = lambda p: sp.Matrix([[sp.exp(sp.sign(p) * p ** 2 - p * sp.Abs(p))]])  # noqa: E731
    report = check(Encoding.from_matrices("odd", odd, odd), budget=30)
    continuity = report.assumptions["continuity"]
    assert continuity.verdict == UNDECIDED
    assert continuity.undecided_reason is UndecidedReason.CONTINUITY_UNKNOWN
    assert report.to_dict()["assumptions"]["continuity"]["reason_code"] == "continuity_unknown"


def test_a_step_that_assumes_its_claim_and_one_on_contradictory_premises_have_their_codes():
    x = sp.Symbol("x", real=True)
    A, B = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    circular = Theorem("circular", "sin x = cos x, because sin x = cos x")
    circular.check(sp.sin(x), sp.cos(x), "assumed", assumptions=[sp.Eq(sp.sin(x), sp.cos(x))])
    vacuous = Theorem("vacuous", "from I = 0 and AB = 0, AB = I")
    vacuous.check(A * B, sp.Identity(2), "contradictory premises",
                  assumptions=[sp.Eq(sp.Identity(2), sp.ZeroMatrix(2, 2)),
                               sp.Eq(A * B, sp.ZeroMatrix(2, 2))])
    for theorem, reason in [(circular, UndecidedReason.ASSUMES_ITS_CLAIM),
                            (vacuous, UndecidedReason.PREMISES_UNSATISFIED)]:
        (result,) = theorem.prove().results
        assert result.verdict.undecided_reason is reason, result.verdict.reason
        assert result.verdict.to_dict()["reason_code"] == reason.value

