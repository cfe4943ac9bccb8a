"""The four assumptions decided on every pair of tokens, for code that mixes tokens.

When a lifted sequence is not the same per-token function on every token (``_lift.py``), the
score of tokens ``(i, j)`` may depend on more than ``p_i`` and ``p_j``. With ``P`` the vector
of all positions and ``F_t(P)``, ``G_t(P)`` the Jacobians of token ``t``'s ``q_rot``, ``k_rot``:

* **linearity**: every ``q_rot[t] = F_t(P) x_t`` and ``k_rot[t] = G_t(P) y_t``;
* **translation invariance**: for every pair, ``F_i(P)^T G_j(P)`` equals the transform of the
  tokens ``(0, 1)`` at positions ``P*`` = (0, ``p_j - p_i``, 0, ...): one function ``H`` of the
  offset serves every pair, whatever the other tokens' positions (a score that depends on a
  third token, on the token index or on ``max(P)`` is refuted, naming the pair);
* **identity at zero offset**: ``F_i(P)^T G_i(P) = I`` for every token;
* **continuity**: every entry of every ``F_t``, ``G_t`` in every position.

When all hold (or identity fails only by a uniform scale ``c^2 I``), the generator is read off
``H(d) = F_0^T G_1`` at ``P* = (0, d, 0, ...)``. Code that is not linear is decided on the
scalar scores ``q_rot[i]^T k_rot[j]`` instead.
"""

from __future__ import annotations

import time

import sympy as sp

from symrope.checker import (AssumptionResult, CheckReport, Clock, Discontinuity, NonlinearToken,
                             PairScore, Unclassifiable, block_claim, block_partition, combine,
                             constant_of, continuity_obstacle, decide, exact_of,
                             find_switch_discontinuity, from_relative, jacobian, methods, show,
                             symbol_name)
from symrope.engine import (PROVED, REFUTED, UNDECIDED, BudgetExhausted, UndecidedReason,
                            deadline, has_thresholds, threshold_constants, verify)
from symrope.errors import InternalError

__all__ = ["check_pairs", "pair_order", "simplest_point"]

_SMALL = (0, 1, 2, 3, 4, 5, 7)
_QUICK_PROOF = 5.0  # seconds: a direct proof attempt before a switched claim is probed
_SEARCH_LIMIT = 400


def simplest_point(difference, symbols) -> dict | None:
    """Small integer positions where ``difference`` is clearly nonzero, or None.

    The engine's counterexample may sit at ``-10^7`` or ``37/7``, where float32 code replays
    poorly; a point at small integers (or either side of a threshold of the claim, where a
    switch shows) reads better and replays exactly. Candidates are tried by increasing size;
    the caller confirms the point exactly (:func:`symrope.verify`).
    """
    import itertools

    small, switches = set(_SMALL), set()
    for constant in threshold_constants(difference):
        if abs(constant) < 2 ** 24:
            base = int(sp.floor(constant))
            switches |= {v for v in (base - 1, base, base + 1, base + 2) if v >= 0}
    symbols = list(symbols)
    # small positions first, then one position on either side of each switch, then the rest
    low = list(itertools.product(sorted(v for v in small if v <= 3), repeat=len(symbols)))
    near = [tuple(value if k == index else rest[k - (k > index)] for k in range(len(symbols)))
            for value in sorted(switches - small) for index in range(len(symbols))
            for rest in itertools.product((0, 1, 2), repeat=len(symbols) - 1)]
    wider = sorted(itertools.product(sorted(small | switches), repeat=len(symbols)),
                   key=lambda c: (max(c), sum(c), c))
    combos = list(dict.fromkeys(low + near + wider))[:_SEARCH_LIMIT]
    for combo in combos:
        point = dict(zip(symbols, map(sp.Integer, combo)))
        try:
            value = sp.N(difference.xreplace(point), 30)
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if value.is_number and not value.has(sp.nan, sp.zoo) and abs(value) > 1e-12:
            return point
    return None


def pair_order(tokens: int) -> list[tuple[int, int]]:
    """Every ordered pair, neighbours first (where a shifted index or a flip shows soonest).

    Examples
    ========

    >>> from symrope.lifting._pairs import pair_order
    >>> pair_order(3)
    [(0, 1), (1, 0), (1, 2), (2, 1), (0, 2), (2, 0), (0, 0), (1, 1), (2, 2)]
    """
    off = sorted(((i, j) for i in range(tokens) for j in range(tokens) if i != j),
                 key=lambda ij: (abs(ij[0] - ij[1]), min(ij), ij[0] > ij[1]))
    return off + [(i, i) for i in range(tokens)]


def check_pairs(encoding, budget: float = 60.0) -> CheckReport:
    """The four assumptions of a lifted sequence encoding, decided on every token pair."""
    clock = Clock(float(budget))
    run = _PairRun(encoding, clock)
    clock.share(5)
    results = [run.linearity()]
    for stages_left, step in zip((4, 3, 2), (run.translation, run.identity, run.continuity)):
        clock.share(stages_left)
        results.append(step())
    clock.share(1)
    report = CheckReport(encoding.name, encoding.dim, encoding.position_dims,
                         {r.name: r for r in results})
    verdicts = report.verdicts()
    if verdicts["identity_at_zero"] == REFUTED and run.F is not None:
        scale = run.uniform_scale()
        report.uniform_scale = scale if scale.get("c2") else None
    scaled = bool(report.uniform_scale) and report.uniform_scale["verdict"] == PROVED
    if run.F is not None and verdicts["translation_invariance"] == PROVED and \
            verdicts["continuity"] == PROVED and (verdicts["identity_at_zero"] == PROVED or scaled):
        try:
            with deadline(clock.left()):
                found = run.generator(exact_of(report.uniform_scale["c2"]) if scaled
                                      else sp.Integer(1))
                if scaled:  # the normalised encoding's: kept beside the scale (see _scale.py)
                    report.uniform_scale["generator"], report.uniform_scale["classification"] = \
                        found
                else:
                    report.generator, report.classification = found
        except BudgetExhausted:
            report.notes.append(f"the time budget of {budget:g} s ran out while classifying "
                                "the generator")
        except Unclassifiable as reason:
            report.notes.append(f"the generator was not classified: {reason}")
    report.seconds = clock.elapsed()
    return report


class _PairRun:
    """Symbols, the tokens' matrices and the claims of one sequence check."""

    def __init__(self, encoding, clock: Clock):
        rows = encoding.rows
        self.encoding, self.clock, self.rows = encoding, clock, rows
        self.tokens, self.dim = rows.tokens, encoding.dim
        self.positions = rows.positions()
        self.Q = [sp.ImmutableMatrix(r) for r in rows.q]
        self.K = [sp.ImmutableMatrix(r) for r in rows.k]
        self.F = self.G = self.blocks = None

    def _decide(self, lhs, rhs, expand: bool = False):
        lhs, rhs = _folded(lhs), _folded(rhs)
        if has_thresholds(lhs, rhs) and not expand:
            # a switched schedule: the claim often holds piece by piece (cos^2 + sin^2 on each
            # side of the switch); try the proof before the probe across scales, which
            # evaluates such claims slowly at large positions
            quick = verify(lhs, rhs, budget=min(self.clock.left(), _QUICK_PROOF))
            if quick.proved:
                return quick
        return decide(lhs, rhs, self.clock, expand, self.positions)

    def _star(self, i: int, j: int) -> dict:
        """Positions P* of tokens (0, 1) at the offset of (i, j); every other token at 0."""
        offsets = [b - a for a, b in zip(self.rows.p[i], self.rows.p[j])]
        mapping = {}
        for t, axes in enumerate(self.rows.p):
            for axis, symbol in enumerate(axes):
                mapping[symbol] = offsets[axis] if t == 1 else sp.Integer(0)
        return mapping

    # ---------------------------------------------------------------- linearity
    def linearity(self) -> AssumptionResult:
        start = time.monotonic()
        Fs, Gs, verdicts, structural = [], [], [], True
        for t in range(self.tokens):
            for vector, symbols, out in ((self.Q[t], self.rows.x[t], Fs),
                                         (self.K[t], self.rows.y[t], Gs)):
                J = jacobian(vector, sp.ImmutableMatrix(symbols))
                if set(J.free_symbols) & set(symbols):
                    return self._not_linear(start, verdicts, t)
                if _vanishes_at_zero(vector, symbols):
                    out.append(J)  # gradient free of x and f(0) = 0: f(x) = J x
                    continue
                structural = False
                verdict = self._decide(vector, sp.ImmutableMatrix(J * sp.ImmutableMatrix(symbols)),
                                       expand=True)
                verdicts.append(verdict)
                if not verdict.proved:
                    return self._not_linear(start, verdicts, t, verdict)
                out.append(J)
        self.F, self.G = Fs, Gs
        self.blocks = block_partition(self.dim, *Fs, *Gs)
        how = ("each output vanishes at zero content and its Jacobian in the content is free of "
               "the content, so it equals that Jacobian times the content"
               if structural else methods(verdicts))
        return AssumptionResult(
            "linearity", PROVED,
            f"on each of the {self.tokens} tokens, q_rot = F_t(P) x_t and k_rot = G_t(P) y_t "
            f"with F_t, G_t free of the content ({how}); {len(self.blocks)} diagonal block(s)",
            verdicts=verdicts, seconds=time.monotonic() - start)

    def _not_linear(self, start, verdicts, token, verdict=None) -> AssumptionResult:
        status = REFUTED if verdict is None or verdict.refuted else UNDECIDED
        reason = (f"token {token}'s output is not linear in its content vector" if status == REFUTED
                  else verdict.reason)
        counterexample = None
        if status == REFUTED:
            counterexample = NonlinearToken(f"token {token}: the Jacobian of its output in its "
                                            "content still depends on the content", token)
        return AssumptionResult("linearity", status, reason, counterexample, verdicts,
                                time.monotonic() - start,
                                undecided_reason=None if verdict is None else
                                verdict.undecided_reason)

    # ---------------------------------------------------------------- claims on pairs
    def _pair_matrix(self, i, j):
        return [f.T * g for f, g in zip(self.blocks.restrict(self.F[i]),
                                        self.blocks.restrict(self.G[j]))]

    def _pair_scalar(self, i, j):
        canonical = {**dict(zip(self.rows.x[i], self.rows.x[0])),
                     **dict(zip(self.rows.y[j], self.rows.y[1 % self.tokens]))}
        return sp.expand((self.Q[i].T * self.K[j])[0, 0].xreplace(canonical))

    def translation(self) -> AssumptionResult:
        start = time.monotonic()
        linear = self.F is not None
        reference = (self._pair_matrix(0, 1 % self.tokens) if linear
                     else self._pair_scalar(0, 1 % self.tokens))
        verdicts = []
        for i, j in pair_order(self.tokens):
            star = self._star(i, j)
            if linear:
                lhs = block_claim(self._pair_matrix(i, j))
                rhs = block_claim([sp.ImmutableMatrix(h.xreplace(star)) for h in reference])
            else:
                lhs, rhs = self._pair_scalar(i, j), reference.xreplace(star)
            verdict = self._decide(lhs, rhs)
            verdicts.append(verdict)
            if verdict.refuted:
                counterexample = self._pair_counterexample(verdict, i, j, star, lhs, rhs)
                return AssumptionResult(
                    "translation_invariance", REFUTED,
                    f"the score of tokens ({i}, {j}) depends on more than p_{j} - p_{i}",
                    counterexample, verdicts, time.monotonic() - start)
            if verdict.undecided:
                return AssumptionResult("translation_invariance", UNDECIDED,
                                        f"tokens ({i}, {j}): {verdict.reason}", None, verdicts,
                                        time.monotonic() - start,
                                        undecided_reason=verdict.undecided_reason)
        pairs = len(verdicts)
        return AssumptionResult(
            "translation_invariance", PROVED,
            f"for all {pairs} token pairs (i, j), the score is the score of tokens (0, 1) at "
            f"positions (0, p_j - p_i, 0...): one H(p_j - p_i) for every pair, whatever the "
            f"other tokens' positions ({methods(verdicts)})", None, verdicts,
            time.monotonic() - start)

    def identity(self) -> AssumptionResult:
        start = time.monotonic()
        verdicts = []
        for i in range(self.tokens):
            if self.F is not None:
                blocks = self._pair_matrix(i, i)
                lhs = block_claim(blocks)
                rhs = block_claim([sp.eye(b.shape[0]) for b in blocks])
            else:
                lhs = sp.expand((self.Q[i].T * self.K[i])[0, 0])
                rhs = sp.expand((sp.ImmutableMatrix(self.rows.x[i]).T *
                                 sp.ImmutableMatrix(self.rows.y[i]))[0, 0])
            verdict = self._decide(lhs, rhs)
            verdicts.append(verdict)
            if verdict.refuted:
                counterexample = self._identity_counterexample(verdict, i, lhs, rhs)
                return AssumptionResult("identity_at_zero", REFUTED,
                                        f"H(0) != I: token {i} against itself does not score "
                                        "x^T y", counterexample, verdicts,
                                        time.monotonic() - start)
            if verdict.undecided:
                return AssumptionResult("identity_at_zero", UNDECIDED,
                                        f"token {i}: {verdict.reason}", None, verdicts,
                                        time.monotonic() - start,
                                        undecided_reason=verdict.undecided_reason)
        return AssumptionResult("identity_at_zero", PROVED,
                                f"F_i(P)^T G_i(P) = I for each of the {self.tokens} tokens "
                                f"({methods(verdicts)})", None, verdicts,
                                time.monotonic() - start)

    def continuity(self) -> AssumptionResult:
        start = time.monotonic()
        entries = []
        sources = ([("F", t, m) for t, m in enumerate(self.F)] +
                   [("G", t, m) for t, m in enumerate(self.G)]) if self.F is not None else \
            [("q_rot", t, m) for t, m in enumerate(self.Q)] + \
            [("k_rot", t, m) for t, m in enumerate(self.K)]
        for name, t, matrix in sources:
            for index, value in enumerate(matrix):
                obstacle = continuity_obstacle(value, self.positions)
                if obstacle is not None:
                    entries.append((name, t, divmod(index, matrix.shape[1]), value, obstacle))
        if not entries:
            return AssumptionResult("continuity", PROVED, "every entry of every token's "
                                    "transform is a composition of functions continuous on R",
                                    seconds=time.monotonic() - start)
        try:
            with deadline(self.clock.left()):
                for name, t, (row, col), value, _ in entries:
                    finding = find_switch_discontinuity(value, self.positions,
                                                        self.clock.left())
                    if finding is not None:
                        return AssumptionResult(
                            "continuity", REFUTED, "a token's transform is not continuous in "
                            "the positions", _token_discontinuity(t, name, row, col, finding),
                            seconds=time.monotonic() - start)
        except BudgetExhausted:
            pass
        name, t, (row, col), _, obstacle = entries[0]
        reason = UndecidedReason.CONTINUITY_UNKNOWN
        return AssumptionResult("continuity", UNDECIDED,
                                reason.text(where=f"token {t}: {name}[{row}, {col}]",
                                            obstacle=sp.sstr(obstacle)),
                                seconds=time.monotonic() - start, undecided_reason=reason)

    # ---------------------------------------------------------------- counterexamples
    def _named_positions(self, point) -> list:
        return [tuple(point.get(s, sp.Integer(0)) for s in axes) for axes in self.rows.p]

    def _entry(self, verdict) -> tuple[int, int]:
        entry = verdict.entry or (0, 0)
        if len(entry) == 3:  # (block, row, column) of a BlockDiagMatrix claim
            return self.blocks.original_index(*entry)
        return self.blocks.from_block_order(*entry)

    def _pair_counterexample(self, verdict, i, j, star, lhs, rhs) -> PairScore:
        point = dict(verdict.counterexample or {})
        for symbol in self.positions:
            point.setdefault(symbol, sp.Integer(0))
        positions = self._named_positions(point)
        at_star = [tuple(star[s].xreplace(point) for s in axes) for axes in self.rows.p]
        if self.F is not None:
            a, b = self._entry(verdict)
            pair = (self.F[i].T * self.G[j])[a, b]
            reference = (self.F[0].T * self.G[1 % self.tokens])[a, b]
            small = simplest_point(pair - reference.xreplace(star), self.positions)
            if small is not None:
                point = small
                positions = self._named_positions(point)
                at_star = [tuple(star[s].xreplace(point) for s in axes) for axes in self.rows.p]
            here = pair.xreplace(point)
            there = reference.xreplace(
                {s: v for s, v in zip(self.positions, [c for axes in at_star for c in axes])})
            contents = f"x = e_{a} in token {i}'s query, y = e_{b} in token {j}'s key"
            basis = (a, b)
        else:
            here, there = lhs.xreplace(point), rhs.xreplace(point)
            contents = "content " + ", ".join(f"{symbol_name(k)} = {show(v)}"
                                              for k, v in point.items()
                                              if k not in self.positions)
            basis = (None, None)
        confirm = verify(here, there, budget=self.clock.left())
        if not confirm.refuted:
            raise InternalError(f"{self.encoding.name}: the counterexample for tokens ({i}, {j}) "
                                "did not replay exactly")
        shown = _positions_text(positions)
        summary = (f"tokens ({i}, {j}) at positions {shown}, {contents}: score {_number(here)}; "
                   f"tokens (0, 1) at the same offset p_{j} - p_{i}, positions "
                   f"{_positions_text(at_star)}: score {_number(there)}; "
                   f"{confirm.certified_gap('difference')}")
        return PairScore(summary, [i, j], _json_positions(positions), show(here), show(there),
                         confirm.details.get("certificate"), reference_pair=[0, 1 % self.tokens],
                         reference_positions=_json_positions(at_star), x=basis[0], y=basis[1])

    def _identity_counterexample(self, verdict, i, lhs, rhs) -> PairScore:
        point = dict(verdict.counterexample or {})
        for symbol in self.positions:
            point.setdefault(symbol, sp.Integer(0))
        positions = self._named_positions(point)
        if self.F is not None:
            a, b = self._entry(verdict)
            there = sp.Integer(int(a == b))
            small = simplest_point((self.F[i].T * self.G[i])[a, b] - there, self.positions)
            if small is not None:
                point = small
                positions = self._named_positions(point)
            here = (self.F[i].T * self.G[i])[a, b].xreplace(point)
            basis, contents = (a, b), f"x = e_{a}, y = e_{b}"
        else:
            here, there = lhs.xreplace(point), rhs.xreplace(point)
            basis, contents = (None, None), "the content of the counterexample"
        # the point may have moved to small integers: refuted there too, certified, or an error
        confirm = verify(here, there, budget=self.clock.left())
        if not confirm.refuted:
            raise InternalError(f"{self.encoding.name}: the counterexample for token {i} "
                                "did not replay exactly")
        summary = (f"token {i} against itself at positions {_positions_text(positions)}, "
                   f"{contents}: score {_number(here)} but x^T y = {show(there)}; "
                   f"{confirm.certified_gap('difference')}")
        return PairScore(summary, [i, i], _json_positions(positions), show(here), show(there),
                         confirm.details.get("certificate"), x=basis[0], y=basis[1])

    # ---------------------------------------------------------------- after the four
    def uniform_scale(self) -> dict:
        """Whether ``F_i^T G_i = c^2 I`` for one constant ``c^2`` on every token."""
        first = self._pair_matrix(0, 0)
        c2 = constant_of(first, self.positions)
        if c2 is None:
            return {"verdict": UNDECIDED, "reason": UndecidedReason.NOT_A_UNIFORM_SCALE.text()}
        verdicts = []
        for i in range(self.tokens):
            blocks = self._pair_matrix(i, i)
            verdicts.append(self._decide(block_claim(blocks),
                                         block_claim([c2 * sp.eye(b.shape[0]) for b in blocks])))
        status = combine(verdicts)
        return {"verdict": status, "c2": show(c2), "c2_value": f"{float(sp.N(c2, 20)):.6g}",
                "evidence": (f"F_i(P)^T G_i(P) = c^2 I with c^2 = {show(c2)} on every token "
                             f"({methods(verdicts)})") if status == PROVED else
                "; ".join(v.explain() for v in verdicts if not v.proved)}

    def generator(self, c2):
        axes = len(self.rows.p[0])
        offsets = tuple(sp.Dummy(f"d{k}" if axes > 1 else "d", real=True) for k in range(axes))
        mapping = {}
        for t, symbols in enumerate(self.rows.p):
            for axis, symbol in enumerate(symbols):
                mapping[symbol] = offsets[axis] if t == 1 else sp.Integer(0)
        H = [sp.ImmutableMatrix((h.xreplace(mapping) / c2).applyfunc(sp.expand))
             for h in self._pair_matrix(0, 1 % self.tokens)]
        names = [f"p{k}" if axes > 1 else "p" for k in range(axes)]
        return from_relative(H, offsets, names, self.blocks.groups,
                             lambda lhs, rhs, expand=False: self._decide(lhs, rhs, expand))


def _folded(side):
    """Sums and products of ``Piecewise`` folded into one ``Piecewise`` per entry (the pieces
    of a switched schedule, ``cos(a)^2 + sin(a)^2`` on each side of the switch, then reduce)."""
    if isinstance(side, sp.BlockDiagMatrix):
        return sp.BlockDiagMatrix(*[_folded(sp.ImmutableMatrix(b)) for b in side.diag])
    if isinstance(side, sp.MatrixBase):
        return side.applyfunc(_folded) if side.has(sp.Piecewise) else side
    return sp.piecewise_fold(side) if isinstance(side, sp.Basic) and side.has(sp.Piecewise) \
        else side


def _vanishes_at_zero(vector, symbols) -> bool:
    zero = {s: sp.Integer(0) for s in symbols}
    return all(entry.xreplace(zero) == 0 for entry in vector)


def _token_discontinuity(token: int, name: str, row: int, col: int, finding) -> Discontinuity:
    where = ", ".join(f"{symbol_name(k)} = {show(v)}" for k, v in finding.position.items())
    summary = (f"token {token}: {name}[{row}, {col}] has a {finding.kind} at {where}: limit "
               f"from below {show(finding.left)}, from above {show(finding.right)}")
    return Discontinuity(summary, finding.kind, {symbol_name(k): show(v) for k, v in
                                                 finding.position.items()},
                         show(finding.left), show(finding.right), token=token)


def _positions_text(positions) -> str:
    values = [show(axes[0]) if len(axes) == 1 else "(" + ", ".join(map(show, axes)) + ")"
              for axes in positions]
    return "(" + ", ".join(values) + ")"


def _json_positions(positions) -> list:
    return [show(axes[0]) if len(axes) == 1 else [show(v) for v in axes] for axes in positions]


def _number(value) -> str:
    return sp.sstr(sp.N(value, 12))
