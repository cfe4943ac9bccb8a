"""One check's claims: the state of a run and how each assumption is decided.

:class:`CheckRun` holds the check's own symbols (Dummies for content and positions), the
user's vectors with their Floats read exactly and, once linearity is proved, ``F``, ``G`` and
their finest common block partition. Each assumption has a route on the matrices (``linear_*``:
block by block, or from the exponential form) and one on the score (``score_*``), and a refuted
one is phrased in the user's terms by :mod:`symrope.checker._phrasing`. The budget and the
order of the stages are :func:`symrope.checker.check`'s (``_check.py``).
"""

from __future__ import annotations

import time

import sympy as sp

from symrope._exact import read_floats_exactly
from symrope.checker._claims import Clock, decide, methods
from symrope.checker._continuity import (continuity_obstacle, continuous_extensions,
                                         defined_value, find_discontinuity, parameter_values)
from symrope.checker._counterexample import IDENTITY, SHIFTED, TRANSLATION
from symrope.checker._encoding import Encoding
from symrope.checker._exponential import (ODE_UNIQUENESS_SHORT, STRUCTURE_SHARE,
                                          Exponentials, recognise)
from symrope.checker._phrasing import (entry_discontinuity, nonlinear_content, score_discontinuity,
                                       score_on_basis, score_on_content)
from symrope.checker._report import AssumptionResult
from symrope.checker._structure import block_claim, block_partition, jacobian
from symrope.engine import PROVED, REFUTED, UNDECIDED, BudgetExhausted, UndecidedReason, deadline

__all__ = ["CheckRun", "STRUCTURE_OUT_OF_TIME"]

STRUCTURE_OUT_OF_TIME = "its time share ran out"
_RETRY_STRUCTURE_SHARE = 0.9


def _internal_vector(stem: str, dim: int) -> sp.ImmutableMatrix:
    """Content symbols of the check's own making: Dummies, so no symbol of the user's
    encoding (a parameter called ``x0``, say) can be mistaken for one."""
    return sp.ImmutableMatrix([sp.Dummy(f"{stem}{k}", real=True) for k in range(dim)])


def _internal_position(stem: str, count: int):
    """Position symbols as Dummies (a user's parameter named ``s`` or ``p`` stays itself)."""
    if count == 1:
        return sp.Dummy(stem, real=True)
    return tuple(sp.Dummy(f"{stem}{k}", real=True) for k in range(count))


def _axes(position) -> tuple:
    return position if isinstance(position, tuple) else (position,)


def _pack(symbols: tuple, template):
    return symbols if isinstance(template, tuple) else symbols[0]


class CheckRun:
    """The state of one check: symbols, the user's vectors, and (when linear) F, G and blocks."""

    def __init__(self, encoding: Encoding, clock: Clock):
        self.encoding, self.clock = encoding, clock
        dim = encoding.dim
        self.x, self.y = _internal_vector("x", dim), _internal_vector("y", dim)
        self.p, self.s, self.t, self.u = (_internal_position(n, encoding.position_dims)
                                          for n in ("p", "s", "t", "u"))
        # every position symbol of every claim (probed across scales when a claim is open)
        self.positions = [a for position in (self.p, self.s, self.t, self.u)
                          for a in _axes(position)]
        self.shifted = False  # translation stated as score(s, t) = score(s + u, t + u)
        self.F = self.G = self.blocks = None
        self._exponentials = None  # F = e^{p.A}, G = e^{p.B} and A^T = -B, once decided
        self._structure_share = STRUCTURE_SHARE

    def structure_proved(self) -> bool:
        """Whether F = e^{p.A}, G = e^{p.B} with A^T = -B has been proved (on the matrices)."""
        return self._exponentials is not None and self._exponentials.proved

    def forget_structure(self) -> None:
        """Drop an exponential form that ran out of time, so a longer share recognises it anew
        (and, having failed for time once, with nearly all of that share)."""
        if self._exponentials is not None and not self._exponentials.proved:
            if self._exponentials.reason == STRUCTURE_OUT_OF_TIME:
                self._structure_share = _RETRY_STRUCTURE_SHARE
            self._exponentials = None

    # ---------------------------------------------------------------- helpers
    def _encode(self, role, x, position) -> sp.ImmutableMatrix:
        """The user's vector with its Floats read exactly *before* the check multiplies it out:
        a product of Floats (F^T G, the score) would otherwise round before ``verify`` sees it."""
        return read_floats_exactly(self.encoding.encode(role, x, position))[0]

    def _verify(self, lhs, rhs, expand: bool = False):
        return decide(lhs, rhs, self.clock, expand, self.positions)

    def _plus_u(self, position):
        return self.plus(position, self.u)

    @staticmethod
    def plus(position, offset):
        """``position + offset``, axis by axis (a tuple for several axes)."""
        return _pack(tuple(a + b for a, b in zip(_axes(position), _axes(offset))), position)

    @staticmethod
    def minus(t, s):
        """``t - s``, axis by axis, shaped like ``s``."""
        return _pack(tuple(b - a for a, b in zip(_axes(s), _axes(t))), s)

    def _defined_at_zero(self, *sides) -> bool:
        """Direct substitution of position 0 gives finite values (no 0/0, no 1/0)."""
        zero = dict(zip(_axes(self.p), _axes(self.zero())))
        return all(defined_value(side, zero) is not None for side in sides)

    def _at(self, matrix, position, values) -> sp.ImmutableMatrix:
        mapping = dict(zip(_axes(position), _axes(values)))
        return sp.ImmutableMatrix(matrix.xreplace(mapping))

    def score(self, x, s, y, t):
        """The user's score ``query(x, s)^T key(y, t)``, Floats read exactly."""
        q = self._encode("query", x, s)
        k = self._encode("key", y, t)
        return sp.expand((q.T * k)[0, 0]) if self.encoding.dim <= 16 else (q.T * k)[0, 0]

    def _offset(self):
        return self.minus(self.t, self.s)

    def zero(self):
        """Position 0 (a tuple of zeros for several axes)."""
        return _pack(tuple(sp.Integer(0) for _ in _axes(self.s)), self.s)

    def point(self, verdict, names) -> dict:
        """The counterexample's values for the named position symbols (tuples for N-d)."""
        point = verdict.counterexample or {}
        found = {}
        for name in names:
            symbols = _axes(getattr(self, name))
            values = tuple(point.get(sym, sp.Integer(0)) for sym in symbols)
            found[name] = _pack(values, getattr(self, name))
        return found

    def parameters(self, verdict) -> dict:
        """Values the counterexample gives to the encoding's own symbols (a symbolic theta...)."""
        known = set(self.positions)
        return {k: v for k, v in (verdict.counterexample or {}).items() if k not in known}

    # ---------------------------------------------------------------- linearity
    def linearity(self) -> AssumptionResult:
        start = time.monotonic()
        verdicts, matrices = [], {}
        for role, name in (("query", "F"), ("key", "G")):
            vector = self._encode(role, self.x, self.p)
            J = jacobian(vector, self.x)
            if set(J.free_symbols) & set(self.x):
                matrices = None
                break
            verdict = self._verify(vector, sp.ImmutableMatrix(J * self.x), expand=True)
            verdicts.append(verdict)
            if not verdict.proved:
                matrices = None
                break
            matrices[name] = J
        if matrices:
            self.F, self.G = matrices["F"], matrices["G"]
            self.blocks = block_partition(self.encoding.dim, self.F, self.G)
            sizes = sorted({len(g) for g in self.blocks.groups})
            return AssumptionResult(
                "linearity", PROVED,
                f"query = F(p) x and key = G(p) x with F, G free of x "
                f"({methods(verdicts)}); {len(self.blocks)} diagonal block(s) of size "
                f"{'/'.join(map(str, sizes))}", verdicts=verdicts,
                seconds=time.monotonic() - start,
                proof={"route": "matrices", "blocks": len(self.blocks), "sizes": sizes,
                       "methods": _method_list(verdicts)})
        return self._linearity_claim(start, verdicts)

    def _linearity_claim(self, start, verdicts) -> AssumptionResult:
        a, b = sp.Dummy("a", real=True), sp.Dummy("b", real=True)
        undecided = None
        for role in ("query", "key"):
            combined = self._encode(role, a * self.x + b * self.y, self.p)
            separate = a * self._encode(role, self.x, self.p) + \
                b * self._encode(role, self.y, self.p)
            verdict = self._verify(combined, sp.ImmutableMatrix(separate))
            verdicts.append(verdict)
            if verdict.refuted:
                return AssumptionResult(
                    "linearity", REFUTED, f"{role} is not linear in its content vector",
                    nonlinear_content(self, verdict, role, a, b), verdicts,
                    time.monotonic() - start)
            if not verdict.proved:
                undecided = undecided or verdict
        if undecided is None:
            return AssumptionResult("linearity", PROVED,
                                    f"q(a x + b y) = a q(x) + b q(y) ({methods(verdicts[-2:])})",
                                    verdicts=verdicts, seconds=time.monotonic() - start,
                                    proof={"route": "superposition",
                                           "methods": _method_list(verdicts[-2:])})
        return AssumptionResult("linearity", UNDECIDED, undecided.reason, verdicts=verdicts,
                                seconds=time.monotonic() - start,
                                undecided_reason=undecided.undecided_reason)

    # ---------------------------------------------------------------- linear path
    def _block_claim(self, build_lhs, build_rhs):
        Fb, Gb = self.blocks.restrict(self.F), self.blocks.restrict(self.G)
        left = [build_lhs(f, g) for f, g in zip(Fb, Gb)]
        right = [build_rhs(f, g) for f, g in zip(Fb, Gb)]
        return self._verify(block_claim(left), block_claim(right))

    def entry(self, verdict) -> tuple[int, int]:
        """The (row, column) of ``F``, ``G`` where a block claim failed."""
        entry = verdict.entry or (0, 0)
        if len(entry) == 3:  # (block, row, column) of a BlockDiagMatrix claim
            return self.blocks.original_index(*entry)
        return self.blocks.from_block_order(*entry)

    def basis(self, index: int) -> sp.ImmutableMatrix:
        return sp.ImmutableMatrix(self.encoding.dim, 1, lambda i, j: int(i == index))

    def exponentials(self) -> Exponentials:
        """Whether F = e^{p.A}, G = e^{p.B} with A_k^T = -B_k (decided once, then reused).

        Up to ``STRUCTURE_SHARE`` of the current stage: these claims are in one position and
        small, and when they do not all hold the expansion path needs the rest of the stage.
        """
        if self._exponentials is None:
            budget = max(self.clock.left() * self._structure_share, 1.0)
            clock = Clock(budget)

            # recognise reads only .proved: a threshold claim is still probed first (a quick
            # refutation ends the recognition early), an undecided one is not probed after
            def decide_within(lhs, rhs, expand):
                return decide(lhs, rhs, clock, expand, self.positions, probe_undecided=False)

            try:
                with deadline(budget):
                    self._exponentials = recognise(self.blocks.restrict(self.F),
                                                   self.blocks.restrict(self.G),
                                                   _axes(self.p), decide_within)
            except BudgetExhausted:
                self._exponentials = Exponentials(reason=STRUCTURE_OUT_OF_TIME)
        return self._exponentials

    def _structural_result(self, name: str, conclusion: str, start) -> AssumptionResult | None:
        """The assumption proved from the exponential form, or None (the expansion path then)."""
        found = self.exponentials()
        if not found.proved:
            return None
        one = len(_axes(self.p)) == 1
        evidence = (f"{conclusion}, since F(p) = exp({'pA' if one else 'p.A'}), G(p) = "
                    f"exp({'pB' if one else 'p.B'}) (checked: " + "; ".join(found.facts)
                    + f"; cited: {ODE_UNIQUENESS_SHORT}), {len(self.blocks)} block(s) "
                    f"({methods(found.verdicts)})")
        rewrites = [key for prefix, key in (("sinc(", "sinc"), ("|", "abs"),
                                            ("F continuous", "extension"),
                                            ("G continuous", "extension"))
                    if any(fact.startswith(prefix) for fact in found.facts)]
        proof = {"route": "exponential", "axes": len(_axes(self.p)), "blocks": len(self.blocks),
                 "shared": "G = F" in found.facts, "rewrites": list(dict.fromkeys(rewrites)),
                 "cited": [ODE_UNIQUENESS_SHORT], "methods": _method_list(found.verdicts)}
        return AssumptionResult(name, PROVED, evidence, verdicts=found.verdicts,
                                seconds=time.monotonic() - start, proof=proof)

    def linear_translation(self) -> AssumptionResult:
        start = time.monotonic()
        one = len(_axes(self.p)) == 1
        structural = self._structural_result(
            "translation_invariance", "F(s)^T G(t) = exp(-sB) exp(tB) = exp((t - s)B)" if one
            else "F(s)^T G(t) = exp(-s.B) exp(t.B) = exp((t - s).B)", start)
        if structural is not None:
            return structural
        s, t, offset, zero = self.s, self.t, self._offset(), self.zero()
        self.shifted = not self._defined_at_zero(self.F, self.G)
        if self.shifted:  # F(0) undefined as written: never evaluate there
            verdict = self._block_claim(
                lambda f, g: self._at(f, self.p, s).T * self._at(g, self.p, t),
                lambda f, g: (self._at(f, self.p, self._plus_u(s)).T *
                              self._at(g, self.p, self._plus_u(t))))
            proved = (f"F(s)^T G(t) = F(s + u)^T G(t + u) for all s, t, u (F(0) is undefined "
                      f"as written, so no claim evaluates it), {len(self.blocks)} block(s)")
        else:
            verdict = self._block_claim(
                lambda f, g: self._at(f, self.p, s).T * self._at(g, self.p, t),
                lambda f, g: self._at(f, self.p, zero).T * self._at(g, self.p, offset))
            proved = f"F(s)^T G(t) = F(0)^T G(t - s) = H(t - s), {len(self.blocks)} block(s)"
        evidence = proved if verdict.proved else verdict.explain()
        counterexample = None
        if verdict.refuted:
            counterexample = score_on_basis(self, verdict,
                                            SHIFTED if self.shifted else TRANSLATION)
            evidence = "the score depends on the positions, not only on t - s"
        return AssumptionResult("translation_invariance", verdict.status,
                                _proved_evidence(verdict, evidence), counterexample, [verdict],
                                time.monotonic() - start,
                                _block_proof(verdict, len(self.blocks), self.shifted),
                                verdict.undecided_reason)

    def linear_identity(self) -> AssumptionResult:
        start = time.monotonic()
        structural = self._structural_result(
            "identity_at_zero", "F(p)^T G(p) = exp(-pB) exp(pB) = I"
            if len(_axes(self.p)) == 1 else "F(p)^T G(p) = exp(-p.B) exp(p.B) = I", start)
        if structural is not None:
            return structural
        verdict = self._block_claim(lambda f, g: f.T * g, lambda f, g: sp.eye(f.shape[0]))
        counterexample, evidence = None, "F(p)^T G(p) = I"
        if verdict.refuted:
            counterexample = score_on_basis(self, verdict, IDENTITY)
            evidence = "H(0) != I: at equal positions the score is not x^T y"
        return AssumptionResult("identity_at_zero", verdict.status,
                                _proved_evidence(verdict, evidence), counterexample, [verdict],
                                time.monotonic() - start,
                                _block_proof(verdict, len(self.blocks), False),
                                verdict.undecided_reason)

    def linear_continuity(self) -> AssumptionResult:
        start = time.monotonic()
        axes = list(_axes(self.p))
        obstacles = []
        for name, matrix in (("F", self.F), ("G", self.G)):
            for (i, j), value in sorted(matrix.todok().items(), key=lambda item: item[0]):
                obstacle = continuity_obstacle(value, axes)
                if obstacle is not None:
                    obstacles.append((name, i, j, value, obstacle))
        if not obstacles:
            return AssumptionResult("continuity", PROVED,
                                    "every entry of F and G is a composition of functions "
                                    "continuous on R", seconds=time.monotonic() - start,
                                    proof={"route": "composition", "of": "entries"})
        for name, i, j, value, _obstacle in obstacles:
            fixed = parameter_values(value, axes)
            finding = find_discontinuity(value, axes, fixed, budget=self.clock.left())
            if finding is not None:
                return AssumptionResult(
                    "continuity", REFUTED, f"{name}(p) is not continuous in the position",
                    entry_discontinuity(name, i, j, finding), seconds=time.monotonic() - start)
        extended = self._extension_evidence([value for _, _, _, value, _ in obstacles], axes)
        if extended is not None:
            return AssumptionResult("continuity", PROVED,
                                    "continuous extension: every entry of F and G is a "
                                    "composition of continuous functions except at "
                                    + extended, seconds=time.monotonic() - start,
                                    proof={"route": "extension", "of": "entries"})
        name, i, j, _, obstacle = obstacles[0]
        reason = UndecidedReason.CONTINUITY_UNKNOWN
        return AssumptionResult("continuity", UNDECIDED,
                                reason.text(where=f"{name}(p)[{i}, {j}]",
                                            obstacle=sp.sstr(obstacle)),
                                seconds=time.monotonic() - start, undecided_reason=reason)

    def _extension_evidence(self, entries, axes) -> str | None:
        """Every entry's continuous extension proved continuous (one position axis only)."""
        if len(axes) != 1:
            return None
        return continuous_extensions(entries, axes[0], budget=min(self.clock.left(), 10))

    # ---------------------------------------------------------------- score path
    def score_translation(self) -> AssumptionResult:
        start = time.monotonic()
        lhs = self.score(self.x, self.s, self.y, self.t)
        rhs = self.score(self.x, self.zero(), self.y, self._offset())
        self.shifted = defined_value(rhs, {}) is None
        if self.shifted:  # undefined at 0 as written: never evaluate there
            rhs = self.score(self.x, self._plus_u(self.s), self.y, self._plus_u(self.t))
        verdict = self._verify(lhs, rhs)
        counterexample = None
        if verdict.refuted:
            counterexample = score_on_content(
                self, verdict, SHIFTED if self.shifted else TRANSLATION, lhs, rhs,
                ["s", "t", "u"] if self.shifted else ["s", "t"])
        return AssumptionResult("translation_invariance", verdict.status,
                                _proved_evidence(verdict, "q(x, s)^T k(y, t) = q(x, s + u)^T "
                                                 "k(y, t + u) for all x, y, s, t, u"
                                                 if self.shifted else
                                                 "q(x, s)^T k(y, t) = q(x, 0)^T "
                                                 "k(y, t - s) for all x, y"
                                                 if verdict.proved else
                                                 "the score depends on the positions, not only "
                                                 "on t - s"),
                                counterexample, [verdict], time.monotonic() - start,
                                _score_proof(verdict, self.shifted), verdict.undecided_reason)

    def score_identity(self) -> AssumptionResult:
        start = time.monotonic()
        lhs = self.score(self.x, self.p, self.y, self.p)
        rhs = (self.x.T * self.y)[0, 0]
        verdict = self._verify(lhs, rhs)
        counterexample = None
        if verdict.refuted:
            counterexample = score_on_content(self, verdict, IDENTITY, lhs, rhs, ["p"])
        return AssumptionResult("identity_at_zero", verdict.status,
                                _proved_evidence(verdict, "q(x, p)^T k(y, p) = x^T y"
                                                 if verdict.proved else
                                                 "at equal positions the score is not x^T y"),
                                counterexample, [verdict], time.monotonic() - start,
                                _score_proof(verdict, False), verdict.undecided_reason)

    def score_continuity(self) -> AssumptionResult:
        start = time.monotonic()
        axes = list(_axes(self.s)) + list(_axes(self.t))
        score = self.score(self.x, self.s, self.y, self.t)
        obstacle = continuity_obstacle(score, axes)
        if obstacle is None:
            return AssumptionResult("continuity", PROVED, "the score is a composition of "
                                    "functions continuous on R", seconds=time.monotonic() - start,
                                    proof={"route": "composition", "of": "score"})
        dim = self.encoding.dim
        for contents in (([1] * dim, [1] * dim), ([1] + [0] * (dim - 1), [1] + [0] * (dim - 1)),
                         ([sp.Rational(k + 2, 3) for k in range(dim)],
                          [sp.Rational(5 - k, 4) for k in range(dim)])):
            fixed = {**dict(zip(self.x, contents[0])), **dict(zip(self.y, contents[1]))}
            line = score.xreplace(fixed)
            finding = find_discontinuity(line, axes, parameter_values(line, axes),
                                         budget=self.clock.left())
            if finding is not None:
                return AssumptionResult(
                    "continuity", REFUTED, "the score is not continuous in the positions",
                    score_discontinuity(finding, contents), seconds=time.monotonic() - start)
        reason = UndecidedReason.CONTINUITY_UNKNOWN
        return AssumptionResult("continuity", UNDECIDED,
                                reason.text(where="the score", obstacle=sp.sstr(obstacle)),
                                seconds=time.monotonic() - start, undecided_reason=reason)


def _method_list(verdicts) -> list[str]:
    return [method for method in methods(verdicts).split("; ") if method]


def _block_proof(verdict, blocks: int, shifted: bool) -> dict | None:
    """How a block-by-block claim was proved, as data (None unless proved)."""
    if not verdict.proved:
        return None
    return {"route": "blocks", "blocks": blocks, "shifted": shifted,
            "methods": _method_list([verdict])}


def _score_proof(verdict, shifted: bool) -> dict | None:
    if not verdict.proved:
        return None
    return {"route": "score", "shifted": shifted, "methods": _method_list([verdict])}


def _proved_evidence(verdict, text: str) -> str:
    if verdict.proved:
        return f"{text} ({methods([verdict])})"
    if verdict.undecided:
        return verdict.reason
    return text
