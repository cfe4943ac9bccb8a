"""``check``: decide the four assumptions of the seed article for any user-written encoding.

Linear encodings are decided on the extracted matrices, block by block in the finest partition
in which both F and G are block diagonal (exact: only literal zeros count); anything else is
decided on the score ``query(x, s)^T key(y, t)`` for symbolic content vectors. Every verdict
comes from :func:`symrope.verify`: proved only by reduction to a literal zero, refuted only with
an exact counterexample whose difference rigorous (Arb ball) arithmetic encloses away from
zero, undecided otherwise.
"""

# Over 500 lines: one check is one object (_Run) whose stages share its symbols, matrices and
# clock; the stages and their budget stay with it.

from __future__ import annotations

import time

import sympy as sp

from symrope.engine import PROVED, REFUTED, UNDECIDED, BudgetExhausted, deadline, verify
from symrope.engine._exact import read_floats_exactly
from symrope.errors import InternalError, UsageError
from symrope.checker._claims import Clock, decide, methods
from symrope.checker._continuity import (continuity_obstacle, continuous_extensions,
                                         defined_value, find_discontinuity, symbol_name)
from symrope.checker._encoding import Encoding
from symrope.checker._exponential import (ODE_UNIQUENESS_SHORT, STRUCTURE_SHARE,
                                          Exponentials, recognise)
from symrope.checker._report import AssumptionResult, CheckReport, show
from symrope.checker._generator import Unclassifiable, generator
from symrope.checker._scale import read_after_verdicts
from symrope.checker._structure import block_claim, block_partition, jacobian

__all__ = ["check"]


def check(encoding: Encoding, budget: float = 60.0) -> CheckReport:
    """Decide linearity, translation invariance, identity at zero offset and continuity.

    Parameters
    ==========

    encoding : Encoding
    budget : float
        Seconds for the whole check. A claim still open when it runs out is ``undecided``.

    Returns
    =======

    CheckReport
        One :class:`AssumptionResult` per assumption (``proved`` / ``refuted`` with a
        counterexample in terms of positions and content vectors / ``undecided``) and, when
        all four are proved, the generator ``X = H'(0)``, the verification of
        ``H(d) = e^{dX}`` and the classification of ``X`` by its real Jordan form.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.checker import Encoding, check
    >>> R = lambda a: sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])
    >>> rope = Encoding.from_matrices("rope2", R, R)
    >>> report = check(rope)
    >>> report.verdicts()
    {'linearity': 'proved', 'translation_invariance': 'proved', 'identity_at_zero': 'proved', 'continuity': 'proved'}
    >>> report.classification["p"]["rotation"][0]["frequency"]
    '1'
    >>> skewed = Encoding.from_matrices("q_only", R, lambda p: sp.eye(2))
    >>> check(skewed).assumptions["translation_invariance"].verdict
    'refuted'

    References
    ==========

    .. [1] The seed article, "Positional encodings and group theory": the four assumptions
       force ``H(d) = e^{dX}``.
    """
    if not isinstance(encoding, Encoding):
        if callable(encoding):
            raise UsageError(
                f"check() takes an Encoding, got the plain function "
                f"{getattr(encoding, '__name__', 'function')}: wrap it, e.g. "
                f"Encoding('name', dim, query, key) with query(x, p) and key(x, p), or "
                f"Encoding.from_matrices('name', F, G); for torch code use symrope.lift")
        raise UsageError(f"check() takes an Encoding, got {type(encoding).__name__}")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
        raise UsageError(f"budget must be a positive number of seconds, got {budget!r}")
    delegated = getattr(encoding, "check_delegate", lambda budget: None)(budget)
    if delegated is not None:  # lifted code that mixes tokens: decided on every token pair
        return delegated
    clock = Clock(float(budget))
    run = _Run(encoding, clock)
    results = _decide_assumptions(run, clock)
    linearity = results[0]
    clock.share(1)
    report = CheckReport(encoding.name, encoding.dim, encoding.position_dims,
                         {r.name: r for r in results})
    read_after_verdicts(run, report)  # a uniform scale c^2 I; non-commuting generators
    if report.verdict == PROVED:
        try:
            with deadline(clock.left()):
                report.generator, report.classification = generator(run)
        except BudgetExhausted:
            report.notes.append(f"the time budget of {budget:g} s ran out while classifying "
                                "the generator")
        except Unclassifiable as reason:
            report.notes.append(f"the generator was not classified: {reason}")
    elif linearity.verdict != PROVED:
        report.notes.append("not linear: decided on the score query(x, s)^T key(y, t) for "
                            "symbolic content vectors x, y")
    report.seconds = clock.elapsed()
    return report


_ORDER = ("linearity", "translation_invariance", "identity_at_zero", "continuity")
# A stage's own work (building its claims: a Jacobian, an expanded score) is interrupted this
# long after its share ends; the engine calls inside it keep to the share itself.
_STAGE_GRACE = 2.0
# A stage decided again takes 80% of what is left (whatever it does not use passes on); the
# rest is kept for the stages after it and the generator.
_RETRY_STAGES = 1.25
_STRUCTURE_OUT_OF_TIME = "its time share ran out"
_RETRY_STRUCTURE_SHARE = 0.9


def _decide_assumptions(run: "_Run", clock: Clock) -> list[AssumptionResult]:
    """The four assumptions, within the budget, in two passes.

    First pass: each stage gets an equal share of what is left among the stages still to run
    (four assumptions, then the generator), so time a stage does not use passes on and one
    slow claim cannot starve the others. Second pass: a stage that ran out of its share (it is
    undecided and used all of it) is decided again with the time the others left unused, and so
    is any undecided stage once a retry has proved the exponential form (which decides it at
    once); when a retry proves linearity, the stages decided on the score meanwhile are decided
    again on the matrices (a verdict already proved or refuted stands).
    """
    shares, results = {}, {}

    def attempt(name, step, stages_left):
        shares[name] = clock.share(stages_left)
        results[name] = _stage(name, step, clock)
        return results[name]

    attempt("linearity", run.linearity, 5)
    steps = _steps(run, clock, results["linearity"].verdict == PROVED)
    for stages_left, name in zip((4, 3, 2), _ORDER[1:]):
        attempt(name, steps[name], stages_left)
    if _cut_short(results["linearity"], shares["linearity"], clock):
        if attempt("linearity", run.linearity, 2).verdict == PROVED:  # half: the rest follows
            steps = _steps(run, clock, True)
            for name in _ORDER[1:]:  # the score's verdicts were cut short by the same stage
                if results[name].verdict == UNDECIDED:
                    shares[name] = 0.0
    for name in _ORDER[1:]:
        if results[name].verdict == UNDECIDED and (
                shares[name] == 0.0 or _cut_short(results[name], shares[name], clock)
                or run.structure_proved()):  # a retry proved F = e^{pA}: the rest follows
            run.forget_structure()  # recognised again with the longer share
            attempt(name, steps[name], _RETRY_STAGES)
    return [results[name] for name in _ORDER]


def _steps(run: "_Run", clock: Clock, linear: bool) -> dict:
    if linear:
        return {"translation_invariance": run.linear_translation,
                "identity_at_zero": run.linear_identity,
                "continuity": lambda: _bounded(run.linear_continuity, clock)}
    return {"translation_invariance": run.score_translation,
            "identity_at_zero": run.score_identity,
            "continuity": lambda: _bounded(run.score_continuity, clock)}


def _cut_short(result: AssumptionResult, share: float, clock: Clock) -> bool:
    """Undecided after using (nearly) all its share, when a retry would get a longer one."""
    retry = clock.remaining() / _RETRY_STAGES
    return result.verdict == UNDECIDED and result.seconds >= 0.9 * share and \
        retry > max(share, 1.0)


def _stage(name: str, step, clock: Clock) -> AssumptionResult:
    """One stage, never past its share by more than ``_STAGE_GRACE`` (nor past the budget)."""
    start = time.monotonic()
    try:
        with deadline(min(clock.left(), clock.remaining()) + _STAGE_GRACE):
            return step()
    except BudgetExhausted:
        return AssumptionResult(name, UNDECIDED, "its time share ran out while its claims were "
                                "built, before any was decided (no points were sampled)",
                                seconds=time.monotonic() - start)


def _bounded(decide, clock) -> AssumptionResult:
    """Continuity searches call SymPy's solver and limits: keep them inside the budget."""
    start = time.monotonic()
    try:
        with deadline(clock.left()):
            return decide()
    except BudgetExhausted:
        return AssumptionResult("continuity", UNDECIDED, "the time budget ran out while "
                                "searching for a discontinuity",
                                seconds=time.monotonic() - start)


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


class _Run:
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
            if self._exponentials.reason == _STRUCTURE_OUT_OF_TIME:
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
        return _pack(tuple(a + b for a, b in zip(_axes(position), _axes(self.u))), position)

    def _defined_at_zero(self, *sides) -> bool:
        """Direct substitution of position 0 gives finite values (no 0/0, no 1/0)."""
        zero = dict(zip(_axes(self.p), _axes(self._zero())))
        return all(defined_value(side, zero) is not None for side in sides)

    def _at(self, matrix, position, values) -> sp.ImmutableMatrix:
        mapping = dict(zip(_axes(position), _axes(values)))
        return sp.ImmutableMatrix(matrix.xreplace(mapping))

    def _score(self, x, s, y, t):
        q = self._encode("query", x, s)
        k = self._encode("key", y, t)
        return sp.expand((q.T * k)[0, 0]) if self.encoding.dim <= 16 else (q.T * k)[0, 0]

    def _offset(self):
        return _pack(tuple(b - a for a, b in zip(_axes(self.s), _axes(self.t))), self.s)

    def _zero(self):
        return _pack(tuple(sp.Integer(0) for _ in _axes(self.s)), self.s)

    def _point(self, verdict, names) -> dict:
        """The counterexample's values for the named position symbols (tuples for N-d)."""
        point = verdict.counterexample or {}
        found = {}
        for name in names:
            symbols = _axes(getattr(self, name))
            values = tuple(point.get(sym, sp.Integer(0)) for sym in symbols)
            found[name] = _pack(values, getattr(self, name))
        return found

    def _parameters(self, verdict, known) -> dict:
        """Values the counterexample gives to the encoding's own symbols (a symbolic theta...)."""
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
                point = verdict.counterexample
                x = [point.get(v, 0) for v in self.x]
                y = [point.get(v, 0) for v in self.y]
                position = self._point(verdict, ["p"])["p"]
                row = verdict.entry[0] if verdict.entry else 0
                summary = (f"{role}(a x + b y, p) != a {role}(x, p) + b {role}(y, p) at a = "
                           f"{show(point.get(a, 0))}, b = {show(point.get(b, 0))}, p = "
                           f"{show(position)}, x = {_vector(x)}, y = {_vector(y)} (component "
                           f"{row}; {verdict.certified_gap('difference')})")
                return AssumptionResult(
                    "linearity", REFUTED, f"{role} is not linear in its content vector",
                    {"summary": summary, "role": role, "a": show(point.get(a, 0)),
                     "b": show(point.get(b, 0)), "p": show(position), "x": [show(v) for v in x],
                     "y": [show(v) for v in y], "component": row,
                     "difference": verdict.difference[1],
                     "certificate": verdict.details.get("certificate")},
                    verdicts, time.monotonic() - start)
            if not verdict.proved:
                undecided = undecided or verdict
        if undecided is None:
            return AssumptionResult("linearity", PROVED,
                                    f"q(a x + b y) = a q(x) + b q(y) ({methods(verdicts[-2:])})",
                                    verdicts=verdicts, seconds=time.monotonic() - start,
                                    proof={"route": "superposition",
                                           "methods": _method_list(verdicts[-2:])})
        return AssumptionResult("linearity", UNDECIDED, undecided.reason, verdicts=verdicts,
                                seconds=time.monotonic() - start)

    # ---------------------------------------------------------------- linear path
    def _block_claim(self, build_lhs, build_rhs):
        Fb, Gb = self.blocks.restrict(self.F), self.blocks.restrict(self.G)
        left = [build_lhs(f, g) for f, g in zip(Fb, Gb)]
        right = [build_rhs(f, g) for f, g in zip(Fb, Gb)]
        return self._verify(block_claim(left), block_claim(right))

    def _entry(self, verdict) -> tuple[int, int]:
        entry = verdict.entry or (0, 0)
        if len(entry) == 3:  # (block, row, column) of a BlockDiagMatrix claim
            return self.blocks.original_index(*entry)
        return self.blocks.from_block_order(*entry)

    def _basis(self, index: int) -> sp.ImmutableMatrix:
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
                self._exponentials = Exponentials(reason=_STRUCTURE_OUT_OF_TIME)
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
        s, t, offset, zero = self.s, self.t, self._offset(), self._zero()
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
            counterexample = self._score_counterexample(verdict, "translation")
            evidence = "the score depends on the positions, not only on t - s"
        return AssumptionResult("translation_invariance", verdict.status,
                                _proved_evidence(verdict, evidence), counterexample, [verdict],
                                time.monotonic() - start,
                                _block_proof(verdict, len(self.blocks), self.shifted))

    def _score_counterexample(self, verdict, kind) -> dict:
        """Re-evaluate the user's own functions at the refuting point, on basis vectors."""
        i, j = self._entry(verdict)
        x, y = self._basis(i), self._basis(j)
        parameters = self._parameters(verdict, set(_axes(self.s)) | set(_axes(self.t)) |
                                      set(_axes(self.p)) | set(_axes(self.u)))
        if kind == "translation" and self.shifted:
            point = self._point(verdict, ["s", "t", "u"])
            s, t, u = point["s"], point["t"], point["u"]
            moved = [_pack(tuple(a + b for a, b in zip(_axes(v), _axes(u))), v) for v in (s, t)]
            here = self._score(x, s, y, t).xreplace(parameters)
            there = self._score(x, moved[0], y, moved[1]).xreplace(parameters)
            summary = (f"s = {show(s)}, t = {show(t)}, u = {show(u)}, x = e_{i}, y = e_{j}: "
                       f"score {_number(here)} at (s, t) but {_number(there)} at "
                       f"(s + u, t + u)")
            values = {"s": show(s), "t": show(t), "u": show(u), "score_at_s_t": show(here),
                      "score_at_s_plus_u_t_plus_u": show(there)}
        elif kind == "translation":
            point = self._point(verdict, ["s", "t"])
            s, t = point["s"], point["t"]
            shifted_t = _pack(tuple(b - a for a, b in zip(_axes(s), _axes(t))), s)
            here = self._score(x, s, y, t).xreplace(parameters)
            there = self._score(x, self._zero(), y, shifted_t).xreplace(parameters)
            summary = (f"s = {show(s)}, t = {show(t)}, x = e_{i}, y = e_{j}: score "
                       f"{_number(here)} at (s, t) but {_number(there)} at (0, t - s)")
            values = {"s": show(s), "t": show(t), "score_at_s_t": show(here),
                      "score_at_0_t_minus_s": show(there)}
        else:
            p = self._point(verdict, ["p"])["p"]
            here = self._score(x, p, y, p).xreplace(parameters)
            there = sp.Integer(int(i == j))
            summary = (f"p = {show(p)}, x = e_{i}, y = e_{j}: query(x, p)^T key(y, p) = "
                       f"{_number(here)} but x^T y = {there}")
            values = {"p": show(p), "score": show(here), "x_dot_y": show(there)}
        confirm = verify(here, there, budget=self.clock.left())
        if not confirm.refuted:  # the engine's point, replayed through the user's functions
            raise InternalError(f"encoding {self.encoding.name!r}: the engine's counterexample "
                                f"did not replay through the user's functions: {summary}")
        return {"summary": f"{summary}; {verdict.certified_gap('difference')}", **values,
                "x": f"e_{i}", "y": f"e_{j}",
                "parameters": {str(k): show(v) for k, v in parameters.items()},
                "certificate": verdict.details.get("certificate")}

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
            counterexample = self._score_counterexample(verdict, "identity")
            evidence = "H(0) != I: at equal positions the score is not x^T y"
        return AssumptionResult("identity_at_zero", verdict.status,
                                _proved_evidence(verdict, evidence), counterexample, [verdict],
                                time.monotonic() - start,
                                _block_proof(verdict, len(self.blocks), False))

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
            fixed = _parameter_values(value, axes)
            finding = find_discontinuity(value, axes, fixed, budget=self.clock.left())
            if finding is not None:
                role = "query" if name == "F" else "key"
                summary = (f"{name}(p)[{i}, {j}] ({role}) has a {finding.kind} at "
                           + ", ".join(f"{symbol_name(k)} = {show(v)}"
                                       for k, v in finding.position.items())
                           + f": limit from below {show(finding.left)}, from above "
                           f"{show(finding.right)}, value "
                           f"{'undefined' if finding.value is None else show(finding.value)}")
                return AssumptionResult(
                    "continuity", REFUTED, f"{name}(p) is not continuous in the position",
                    {"summary": summary, "matrix": name, "entry": [i, j], "kind": finding.kind,
                     "position": {symbol_name(k): show(v) for k, v in finding.position.items()},
                     "left_limit": show(finding.left), "right_limit": show(finding.right),
                     "value": None if finding.value is None else show(finding.value)},
                    seconds=time.monotonic() - start)
        extended = self._extension_evidence([value for _, _, _, value, _ in obstacles], axes)
        if extended is not None:
            return AssumptionResult("continuity", PROVED,
                                    "continuous extension: every entry of F and G is a "
                                    "composition of continuous functions except at "
                                    + extended, seconds=time.monotonic() - start,
                                    proof={"route": "extension", "of": "entries"})
        name, i, j, _, obstacle = obstacles[0]
        return AssumptionResult("continuity", UNDECIDED,
                                f"{name}(p)[{i}, {j}] contains {sp.sstr(obstacle)}, whose "
                                "continuity symrope cannot establish, and no discontinuity was "
                                "found at its candidate points", seconds=time.monotonic() - start)

    def _extension_evidence(self, entries, axes) -> str | None:
        """Every entry's continuous extension proved continuous (one position axis only)."""
        if len(axes) != 1:
            return None
        return continuous_extensions(entries, axes[0], budget=min(self.clock.left(), 10))

    # ---------------------------------------------------------------- score path
    def score_translation(self) -> AssumptionResult:
        start = time.monotonic()
        lhs = self._score(self.x, self.s, self.y, self.t)
        rhs = self._score(self.x, self._zero(), self.y, self._offset())
        self.shifted = defined_value(rhs, {}) is None
        if self.shifted:  # undefined at 0 as written: never evaluate there
            rhs = self._score(self.x, self._plus_u(self.s), self.y, self._plus_u(self.t))
        verdict = self._verify(lhs, rhs)
        counterexample = None
        if verdict.refuted:
            names = ["s", "t", "u"] if self.shifted else ["s", "t"]
            point = self._point(verdict, names)
            counterexample = self._content_counterexample(
                verdict, ", ".join(f"{n} = {show(point[n])}" for n in names), lhs, rhs,
                "score at (s, t)", "score at (s + u, t + u)" if self.shifted else
                "score at (0, t - s)")
            counterexample.update({n: show(point[n]) for n in names})
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
                                _score_proof(verdict, self.shifted))

    def _content_counterexample(self, verdict, where, lhs, rhs, left_name, right_name) -> dict:
        point = verdict.counterexample
        x = [point.get(v, sp.Integer(0)) for v in self.x]
        y = [point.get(v, sp.Integer(0)) for v in self.y]
        here, there = lhs.xreplace(point), rhs.xreplace(point)
        summary = (f"{where}, x = {_vector(x)}, y = {_vector(y)}: {left_name} {_number(here)} "
                   f"but {right_name} {_number(there)}; {verdict.certified_gap('difference')}")
        return {"summary": summary, "x": [show(v) for v in x], "y": [show(v) for v in y],
                left_name.replace(" ", "_"): show(here), right_name.replace(" ", "_"): show(there),
                "certificate": verdict.details.get("certificate")}

    def score_identity(self) -> AssumptionResult:
        start = time.monotonic()
        lhs = self._score(self.x, self.p, self.y, self.p)
        rhs = (self.x.T * self.y)[0, 0]
        verdict = self._verify(lhs, rhs)
        counterexample = None
        if verdict.refuted:
            p = self._point(verdict, ["p"])["p"]
            counterexample = self._content_counterexample(verdict, f"p = {show(p)}", lhs, rhs,
                                                          "score at (p, p)", "x^T y")
            counterexample["p"] = show(p)
        return AssumptionResult("identity_at_zero", verdict.status,
                                _proved_evidence(verdict, "q(x, p)^T k(y, p) = x^T y"
                                                 if verdict.proved else
                                                 "at equal positions the score is not x^T y"),
                                counterexample, [verdict], time.monotonic() - start,
                                _score_proof(verdict, False))

    def score_continuity(self) -> AssumptionResult:
        start = time.monotonic()
        axes = list(_axes(self.s)) + list(_axes(self.t))
        score = self._score(self.x, self.s, self.y, self.t)
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
            finding = find_discontinuity(line, axes, _parameter_values(line, axes),
                                         budget=self.clock.left())
            if finding is not None:
                summary = ("the score has a " + finding.kind + " at "
                           + ", ".join(f"{symbol_name(k)} = {show(v)}"
                                       for k, v in finding.position.items())
                           + f" for x = {_vector(contents[0])}, y = {_vector(contents[1])}: "
                           f"limit from below {show(finding.left)}, from above "
                           f"{show(finding.right)}")
                return AssumptionResult(
                    "continuity", REFUTED, "the score is not continuous in the positions",
                    {"summary": summary, "kind": finding.kind,
                     "position": {symbol_name(k): show(v) for k, v in finding.position.items()},
                     "x": [show(v) for v in contents[0]], "y": [show(v) for v in contents[1]],
                     "left_limit": show(finding.left), "right_limit": show(finding.right)},
                    seconds=time.monotonic() - start)
        return AssumptionResult("continuity", UNDECIDED,
                                f"the score contains {sp.sstr(obstacle)}, whose continuity symrope "
                                "cannot establish, and no discontinuity was found at its "
                                "candidate points", seconds=time.monotonic() - start)

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


_PARAMETER_CANDIDATES = (sp.Rational(3, 2), sp.Integer(2), sp.Rational(-3, 2), sp.Integer(-2),
                         sp.Integer(1), sp.Integer(0), sp.Rational(1, 2) + sp.I)


def _parameter_values(expr, positions) -> dict:
    """Exact values for the encoding's own symbols (a symbolic theta), respecting assumptions.

    A value that breaks a parameter's assumptions (3/2 for a negative one) would make any
    discontinuity found there a statement about another encoding; such a parameter stays
    symbolic instead.
    """
    values = {}
    for symbol in getattr(expr, "free_symbols", set()) - set(positions):
        for value in _PARAMETER_CANDIDATES:
            if all(getattr(value, f"is_{fact}", None) == expected
                   for fact, expected in symbol.assumptions0.items() if fact != "commutative"):
                values[symbol] = value
                break
    return values


def _number(value) -> str:
    return sp.sstr(sp.N(value, 12))


def _vector(values) -> str:
    values = [show(v) for v in values]
    if len(values) > 6:
        return "[" + ", ".join(values[:4]) + f", ... ({len(values)} entries)]"
    return "[" + ", ".join(values) + "]"
