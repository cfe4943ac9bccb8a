"""Counterexamples as typed records: a refuted assumption's witness, in the user's terms.

Each kind is a dataclass whose fields hold what was found: exact values as
:class:`~symrope.checker.Shown` strings (the value in ``.exact``), basis vectors as their
index, token pairs as integers. ``to_dict()`` is what ``symrope check --json`` prints, its keys
in the report's order; a counterexample also reads as that mapping (``example["summary"]``), so
code written against the JSON reads the object unchanged. Readers in the same process (the
lift's float64 replay, the LaTeX report, tests) read the fields, never the strings back.

====================  =====================================================================
kind                  where it comes from
====================  =====================================================================
``NonlinearContent``  ``q(a x + b y, p) != a q(x, p) + b q(y, p)`` at an exact point
``NonlinearToken``    a lifted token whose Jacobian still depends on its content
``ScoreOnBasis``      a linear encoding's score on basis vectors ``e_i``, ``e_j``
``ScoreOnContent``    a score decided for symbolic content vectors (not linear, or on the score)
``PairScore``         a lifted sequence's score of a token pair (``pair``, ``positions``)
``Discontinuity``     a jump, pole or oscillation of an entry or of the score
====================  =====================================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from symrope.checker._shown import BasisVector, Shown

__all__ = ["Counterexample", "NonlinearContent", "NonlinearToken", "ScoreOnBasis",
           "ScoreOnContent", "PairScore", "Discontinuity", "TRANSLATION", "SHIFTED", "IDENTITY",
           "CONTENT_WORDS"]

# What a score counterexample compares the score at its point with.
TRANSLATION = "translation"  # the score at (0, t - s)
SHIFTED = "shifted"          # the score at (s + u, t + u): F(0) is undefined as written
IDENTITY = "identity"        # x^T y, at equal positions


@dataclass(eq=False)
class Counterexample(Mapping):
    """Why an assumption fails: ``summary`` (one line, in words and numbers) and the exact
    point and values of the kind (a subclass)."""

    summary: str

    def _entries(self) -> dict:
        return {}

    def to_dict(self) -> dict:
        """The JSON form (``symrope check --json``)."""
        return {"summary": self.summary, **self._entries()}

    def __getitem__(self, key: str):
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


@dataclass(eq=False)
class NonlinearContent(Counterexample):
    """``role(a x + b y, p) != a role(x, p) + b role(y, p)``: the point and the failing
    ``component`` (counted from 0), with the certified size of the difference."""

    role: str
    a: Shown
    b: Shown
    p: Shown
    x: list
    y: list
    component: int
    difference: str
    certificate: dict | None

    def _entries(self) -> dict:
        return {"role": self.role, "a": self.a, "b": self.b, "p": self.p, "x": self.x,
                "y": self.y, "component": self.component, "difference": self.difference,
                "certificate": self.certificate}


@dataclass(eq=False)
class NonlinearToken(Counterexample):
    """A lifted token whose output's Jacobian in its content still depends on the content."""

    token: int

    def _entries(self) -> dict:
        return {"token": self.token}


_BASIS_KEYS = {TRANSLATION: ("score_at_s_t", "score_at_0_t_minus_s"),
               SHIFTED: ("score_at_s_t", "score_at_s_plus_u_t_plus_u"),
               IDENTITY: ("score", "x_dot_y")}


@dataclass(eq=False)
class ScoreOnBasis(Counterexample):
    """The score ``q(e_x, s)^T k(e_y, t)`` of a linear encoding at an exact point (``positions``:
    ``s``, ``t`` and ``u``, or ``p``), against what it must equal (``compared_with``:
    :data:`TRANSLATION`, :data:`SHIFTED` or :data:`IDENTITY`). A lift adds the token ``pair``
    its float64 replay ran on and the replay itself."""

    compared_with: str
    positions: dict
    score: Shown
    expected: Shown
    x: int
    y: int
    parameters: dict = field(default_factory=dict)
    certificate: dict | None = None
    pair: list | None = None
    float64_replay: dict | None = None

    def _entries(self) -> dict:
        here, there = _BASIS_KEYS[self.compared_with]
        out = {**self.positions, here: self.score, there: self.expected,
               "x": BasisVector(self.x), "y": BasisVector(self.y),
               "parameters": self.parameters, "certificate": self.certificate}
        if self.pair is not None:
            out["pair"] = self.pair
        if self.float64_replay is not None:
            out["float64_replay"] = self.float64_replay
        return out


# The two values a score on content compares, in words (its summary) and as JSON keys.
CONTENT_WORDS = {TRANSLATION: ("score at (s, t)", "score at (0, t - s)"),
                 SHIFTED: ("score at (s, t)", "score at (s + u, t + u)"),
                 IDENTITY: ("score at (p, p)", "x^T y")}
_CONTENT_KEYS = {test: tuple(w.replace(" ", "_") for w in words)
                 for test, words in CONTENT_WORDS.items()}


@dataclass(eq=False)
class ScoreOnContent(Counterexample):
    """The score for exact content vectors ``x``, ``y`` (entries as :class:`Shown`) at exact
    ``positions``, against what it must equal (``compared_with``, as for
    :class:`ScoreOnBasis`)."""

    compared_with: str
    x: list
    y: list
    score: Shown
    expected: Shown
    certificate: dict | None
    positions: dict

    def _entries(self) -> dict:
        here, there = _CONTENT_KEYS[self.compared_with]
        return {"x": self.x, "y": self.y, here: self.score, there: self.expected,
                "certificate": self.certificate, **self.positions}


@dataclass(eq=False)
class PairScore(Counterexample):
    """A lifted sequence's score of the token ``pair`` (query token, key token) at every
    token's ``positions``, against the tokens ``reference_pair`` at ``reference_positions``
    (translation: the same offset) or against ``x^T y`` (identity: ``reference_pair`` None).
    ``x``, ``y`` are basis indices when the code is linear, else None."""

    pair: list
    positions: list
    score: Shown
    expected: Shown
    certificate: dict | None
    reference_pair: list | None = None
    reference_positions: list | None = None
    x: int | None = None
    y: int | None = None
    float64_replay: dict | None = None

    def _entries(self) -> dict:
        out = {"pair": self.pair, "positions": self.positions}
        if self.reference_pair is not None:
            out.update(reference_pair=self.reference_pair,
                       reference_positions=self.reference_positions, score=self.score,
                       reference_score=self.expected)
        else:
            out.update(score=self.score, x_dot_y=self.expected)
        out["certificate"] = self.certificate
        if self.x is not None:
            out.update(x=BasisVector(self.x), y=BasisVector(self.y))
        if self.float64_replay is not None:
            out["float64_replay"] = self.float64_replay
        return out


@dataclass(eq=False)
class Discontinuity(Counterexample):
    """A ``kind`` of discontinuity (``jump``, ``pole``, ...) at ``position``, with the one-sided
    limits. Of an entry ``entry`` (0-based) of the matrix ``matrix`` (``F`` or ``G``, with its
    ``value`` there), of a lifted ``token``'s transform, or of the score for the content
    vectors ``x``, ``y``."""

    kind: str
    position: dict
    left_limit: Shown
    right_limit: Shown
    matrix: str | None = None
    entry: list | None = None
    value: Shown | None = None
    token: int | None = None
    x: list | None = None
    y: list | None = None

    def _entries(self) -> dict:
        out = {}
        if self.matrix is not None:
            out.update(matrix=self.matrix, entry=self.entry)
        if self.token is not None:
            out["token"] = self.token
        out.update(kind=self.kind, position=self.position)
        if self.x is not None:
            out.update(x=self.x, y=self.y)
        out.update(left_limit=self.left_limit, right_limit=self.right_limit)
        if self.matrix is not None:
            out["value"] = self.value
        return out
