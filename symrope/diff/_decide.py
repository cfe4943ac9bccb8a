"""Are two lifted encodings the same? Decided on their exact rows, never by sampling.

The question is whether one fixed change of basis of the head dimensions maps A onto B: a
signed permutation ``P`` of the content (a trained ``W_q``/``W_k`` absorbs it) and ``Q`` of the
outputs (invisible to scores) with ``q_B(P x, p) = Q q_A(x, p)`` and the same for keys, on every
token of the lifted sequence. ``P`` and ``Q`` are *proposed* from the blocks (``_reading.py``)
with float64 fingerprints, and then *decided* exactly:

* **same** / **same_up_to_basis**: every row of B equals the transformed row of A as an exact
  expression (a symbolic zero: the two trees are the same after the substitution), identity
  ``P = Q = I`` or not;
* **rounding**: the trees have the same shape and differ only in numeric constants that are
  within :data:`ROUNDING_ULPS` float32 ulps of each other (one port computes ``inv_freq`` in
  float64 and casts, another in float32) -- the verdict stays, with the planes and the largest
  difference in ulps; not when both configs are known and differ in a key that sets those
  constants (then it is a difference of configs, however small);
* **different**: no basis was found, or the rows differ beyond rounding; the verdict needs a
  certified counterexample: a score ``q_s . k_t`` of basis vectors at integer positions where
  ``|score_A - score_B|`` is enclosed away from zero (:func:`symrope.verify`), and, so that no
  signed permutation at all can make them equal, the trace ``tr F(s)^T G(t)`` (invariant under
  every orthogonal change of basis) at a point where it differs, certified the same way;
* **undecided**: neither (the code is not linear in the content, mixes tokens in a way the
  basis search does not cover, or no certificate was found within the budget).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from symrope.diff._reading import Block, Reading, numeric_block, read

__all__ = ["ROUNDING_ULPS", "Basis", "Decision", "decide", "compare_trees", "float32_ulps"]

#: Constants this many float32 ulps apart (or fewer) differ by rounding, not by encoding.
ROUNDING_ULPS = 16

_FINGERPRINT_POSITIONS = (1 / 7, 1.0, 7 / 3)
_MATCH_RTOL = 1e-4
_BIG_DIFFERENCE = 0.25  # a counterexample this clear survives a float32 replay


@dataclass
class Basis:
    """``P`` (content) and ``Q`` (outputs) as maps ``A coordinate -> (B coordinate, sign)``."""

    inputs: dict
    outputs: dict

    @property
    def identity(self) -> bool:
        return all(b == a and s == 1 for a, (b, s) in self.inputs.items()) and \
            all(b == a and s == 1 for a, (b, s) in self.outputs.items())

    @property
    def signed(self) -> bool:
        return any(s < 0 for _, s in self.inputs.values())

    @property
    def outputs_follow_inputs(self) -> bool:
        return self.outputs == self.inputs

    def to_dict(self, layouts: tuple[str, str]) -> dict:
        mapping = [[a, b, s] for a, (b, s) in sorted(self.inputs.items())]
        document = {"kind": "signed permutation" if self.signed else "permutation",
                    "content": mapping, "pattern": _pattern_text(self.inputs) or None,
                    "text": self.text(layouts)}
        if not self.outputs_follow_inputs:
            document["outputs"] = [[a, b, s] for a, (b, s) in sorted(self.outputs.items())]
        return document

    def text(self, layouts: tuple[str, str]) -> str:
        moved = [(a, b, s) for a, (b, s) in sorted(self.inputs.items()) if (b, s) != (a, 1)]
        kind = "signed permutation" if self.signed else "permutation"
        if not moved:
            head = "identity on the content"
        else:
            shown = ", ".join(f"{a} -> {'-' if s < 0 else ''}{b}" for a, b, s in moved[:4])
            more = f", ... ({len(moved)} coordinates move)" if len(moved) > 4 else ""
            head = f"{kind} of the content: coordinate {shown}{more}"
        pattern = _pattern_text(self.inputs)
        if pattern:
            head += f" ({pattern})"
        if layouts[0] != layouts[1]:
            head += f"; A: {layouts[0]}; B: {layouts[1]}"
        if not self.outputs_follow_inputs:
            head += "; the outputs are permuted differently (scores are unaffected)"
        return head + ("; W_q and W_k rows permuted by it carry a checkpoint from A to B"
                       if moved else "")


def _pattern_text(inputs: dict) -> str:
    """``(i, i + h) -> (2i, 2i + 1)``: the pairing change, when the basis is exactly that."""
    dim = len(inputs)
    if dim % 2 or dim < 2 or any(s < 0 for _, s in inputs.values()):
        return ""
    half = dim // 2
    if all(inputs.get(i, (None,))[0] == 2 * i and inputs.get(i + half, (None,))[0] == 2 * i + 1
           for i in range(half)):
        return f"rotate_half pairs (i, i + {half}) -> interleaved pairs (2i, 2i + 1)"
    if all(inputs.get(2 * i, (None,))[0] == i and inputs.get(2 * i + 1, (None,))[0] == i + half
           for i in range(half)):
        return f"interleaved pairs (2i, 2i + 1) -> rotate_half pairs (i, i + {half})"
    return ""


@dataclass
class Decision:
    """What :func:`decide` found (the report is built from it in ``_report.py``)."""

    verdict: str
    basis: Basis | None = None
    rounding: dict | None = None
    differences: list = field(default_factory=list)
    counterexample: dict | None = None
    invariant: dict | None = None
    reason: str = ""
    readings: tuple = ()
    seconds: float = 0.0


# ----------------------------------------------------------------------------- trees

def float32_ulps(a: sp.Rational, b: sp.Rational) -> float:
    """``|a - b|`` in ulps of float32 at the larger magnitude (exact arithmetic, then a float).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.diff._decide import float32_ulps
    >>> float32_ulps(sp.Rational(1), 1 + sp.Rational(1, 2**23))
    1.0
    """
    size = max(abs(a), abs(b))
    if size == 0:
        return 0.0
    exponent = math.floor(math.log2(float(size))) if float(size) > 0 else -149
    # float(size) may round up across a power of two: correct it exactly
    while sp.Integer(2) ** exponent > size:
        exponent -= 1
    while sp.Integer(2) ** (exponent + 1) <= size:
        exponent += 1
    ulp = sp.Integer(2) ** (max(exponent, -126) - 23)
    return float(abs(a - b) / ulp)


def _skeleton(expr) -> str:
    """The tree with every non-integer number replaced by ``#``: the shape constants fill."""
    numbers = {n: sp.Symbol("#") for n in expr.atoms(sp.Number) if not n.is_Integer}
    return sp.srepr(expr.xreplace(numbers)) if numbers else sp.srepr(expr)


def compare_trees(a, b, pairs: list) -> bool:
    """Whether ``a`` and ``b`` are the same tree up to numeric constants; differing constants
    are appended to ``pairs`` as ``(from_a, from_b)``. Arguments of ``Add``/``Mul`` are matched
    by their shape, so SymPy's ordering of them (which can depend on the constants) is moot.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.diff._decide import compare_trees
    >>> p, x = sp.symbols("p x", real=True)
    >>> pairs = []
    >>> compare_trees(x * sp.cos(p / 8), x * sp.cos(p * sp.Rational(1, 9)), pairs), pairs
    (True, [(1/8, 1/9)])
    >>> compare_trees(x * sp.cos(p), x * sp.sin(p), [])
    False
    """
    if a == b:
        return True
    if a.is_Number and b.is_Number:
        if a.is_Integer and b.is_Integer:
            return False
        pairs.append((a, b))
        return True
    if a.func != b.func or len(a.args) != len(b.args) or not a.args:
        return False
    if isinstance(a, (sp.Add, sp.Mul)):
        left = sorted(a.args, key=_skeleton)
        right = sorted(b.args, key=_skeleton)
        if [_skeleton(u) for u in left] != [_skeleton(v) for v in right]:
            return False
        return all(compare_trees(u, v, pairs) for u, v in zip(left, right))
    if isinstance(a, sp.Piecewise):
        return all(compare_trees(u, v, pairs) for pa, pb in zip(a.args, b.args)
                   for u, v in zip(pa, pb))
    return all(compare_trees(u, v, pairs) for u, v in zip(a.args, b.args))


# ----------------------------------------------------------------------------- matching

def _values(reading: Reading, block: Block) -> np.ndarray:
    parts = [np.abs(numeric_block(reading, block, role, position)).ravel()
             for position in _FINGERPRINT_POSITIONS for role in ("q", "k")]
    return np.sort(np.concatenate(parts))


def _signed_perms(size: int):
    for perm in itertools.permutations(range(size)):
        for signs in itertools.product((1, -1), repeat=size):
            yield perm, signs


def _local_map(ra: Reading, a: Block, rb: Reading, b: Block):
    """Local ``(sigma, s, tau, t)`` with ``M_B[tau r, sigma c] = t_r s_c M_A[r, c]`` for F and G
    at every fingerprint position, preferring ``tau = sigma`` (outputs follow the content)."""
    mats = [(numeric_block(ra, a, role, x), numeric_block(rb, b, role, x))
            for x in _FINGERPRINT_POSITIONS for role in ("q", "k")]
    size = a.size
    if size > 3:
        candidates = [(tuple(range(size)), (1,) * size)]
    else:
        candidates = list(_signed_perms(size))

    def fits(sigma, s, tau, t):
        for ma, mb in mats:
            permuted = mb[np.ix_(tau, sigma)] * np.outer(t, s)
            if not np.allclose(permuted, ma, rtol=_MATCH_RTOL, atol=1e-9):
                return False
        return True

    same_coordinates = a.inputs == a.outputs and b.inputs == b.outputs
    for sigma, s in candidates:
        if same_coordinates and fits(sigma, s, sigma, s):
            return sigma, s, sigma, s
    for sigma, s in candidates:
        for tau, t in candidates:
            if fits(sigma, s, tau, t):
                return sigma, s, tau, t
    return None


def match(ra: Reading, rb: Reading):
    """``(basis or None, matched [(A block, B block)], unmatched A blocks, unmatched B blocks)``."""
    keyed = sorted(((_values(ra, block), block) for block in ra.blocks),
                   key=lambda item: float(item[0].sum()))
    keys = np.array([float(values.sum()) for values, _ in keyed])
    used: set[int] = set()
    matched, unmatched_b = [], []
    inputs, outputs = {}, {}
    for b in rb.blocks:
        values_b = _values(rb, b)
        key = float(values_b.sum())
        low, high = np.searchsorted(keys, [key - 1e-4 * abs(key) - 1e-8,
                                           key + 1e-4 * abs(key) + 1e-8])
        found = None
        for index in range(low, high):
            values_a, a = keyed[index]
            if index in used or a.size != b.size or len(a.outputs) != len(b.outputs) or \
                    values_a.shape != values_b.shape or \
                    not np.allclose(values_a, values_b, rtol=_MATCH_RTOL, atol=1e-9):
                continue
            local = _local_map(ra, a, rb, b)
            if local is not None:
                found = (index, a, local)
                break
        if found is None:
            unmatched_b.append(b)
            continue
        index, a, (sigma, s, tau, t) = found
        used.add(index)
        matched.append((a, b))
        for c, (target, sign) in enumerate(zip(sigma, s)):
            inputs[a.inputs[c]] = (b.inputs[target], sign)
        for r, (target, sign) in enumerate(zip(tau, t)):
            outputs[a.outputs[r]] = (b.outputs[target], sign)
    unmatched_a = [block for index, (_, block) in enumerate(keyed) if index not in used]
    complete = not unmatched_a and not unmatched_b and len(inputs) == ra.dim
    return (Basis(inputs, outputs) if complete else None), matched, unmatched_a, unmatched_b


def fallback_basis(ra: Reading, rb: Reading, matched, unmatched_a, unmatched_b) -> Basis:
    """A full basis for counterexamples: the matched blocks' maps, the rest plane by plane in
    layout order, leftover coordinates in order."""
    inputs, outputs = {}, {}
    for a, b in matched:
        local = _local_map(ra, a, rb, b)
        sigma, s, tau, t = local
        for c, (target, sign) in enumerate(zip(sigma, s)):
            inputs[a.inputs[c]] = (b.inputs[target], sign)
        for r, (target, sign) in enumerate(zip(tau, t)):
            outputs[a.outputs[r]] = (b.outputs[target], sign)
    rest_b = sorted(unmatched_b, key=lambda blk: (blk.kind != "rotation", blk.plane or 0,
                                                  blk.inputs))
    rest_a = sorted(unmatched_a, key=lambda blk: (blk.kind != "rotation", blk.plane or 0,
                                                  blk.inputs))
    for a, b in zip(rest_a, rest_b):
        for u, v in zip(a.inputs, b.inputs):
            inputs.setdefault(u, (v, 1))
        for u, v in zip(a.outputs, b.outputs):
            outputs.setdefault(u, (v, 1))
    for mapping in (inputs, outputs):
        free = [c for c in range(rb.dim) if c not in {v for v, _ in mapping.values()}]
        for coordinate in range(ra.dim):
            if coordinate not in mapping and free:
                mapping[coordinate] = (free.pop(0), 1)
    return Basis(inputs, outputs)


# ----------------------------------------------------------------------------- exact rows

def _transformed_rows(enc_a, enc_b, basis: Basis, tokens: int):
    """Pairs ``(A row transformed into B's basis, B row)`` for every token, role and output."""
    rows_a, rows_b = enc_a.rows, enc_b.rows
    inverse_out = {b: (a, s) for a, (b, s) in basis.outputs.items()}
    for t in range(tokens):
        for role, content_a, content_b in (("q", rows_a.x[t], rows_b.x[t]),
                                           ("k", rows_a.y[t], rows_b.y[t])):
            substitution = {content_a[a]: sign * content_b[b]
                            for a, (b, sign) in basis.inputs.items()}
            source = getattr(rows_a, role)[t]
            target = getattr(rows_b, role)[t]
            for u, expr_b in enumerate(target):
                o, sign = inverse_out[u]
                yield t, role, o, u, sign * source[o].xreplace(substitution), expr_b


def exact_agreement(enc_a, enc_b, basis: Basis, rounding_allowed: bool, ra: Reading,
                    budget_end: float):
    """``(status, rounding, mismatch)``: ``"equal"``, ``"rounding"`` or ``"differs"``."""
    from symrope.engine import verify

    tokens = min(enc_a.rows.tokens, enc_b.rows.tokens)
    rounding_pairs = []   # (A output, a, b)
    for t, role, o, u, expected, actual in _transformed_rows(enc_a, enc_b, basis, tokens):
        if expected == actual:
            continue
        pairs: list = []
        if compare_trees(expected, actual, pairs):
            close = [(a, b) for a, b in pairs if a != b]
            if rounding_allowed and all(float32_ulps(a, b) <= ROUNDING_ULPS for a, b in close):
                rounding_pairs += [(o, a, b) for a, b in close]
                continue
            return "differs", None, {"token": t, "role": role, "output": u}
        left = max(1.0, budget_end - time.monotonic())
        verdict = verify(expected, actual, budget=min(10.0, left))
        if verdict.status == "proved":
            continue
        return "differs", None, {"token": t, "role": role, "output": u}
    if not rounding_pairs:
        return "equal", None, None
    return "rounding", _rounding_summary(rounding_pairs, ra), None


def _rounding_summary(pairs, ra: Reading) -> dict:
    plane_of = {}
    for block in ra.planes:
        for o in block.outputs:
            plane_of[o] = block.plane
    planes = sorted({plane_of[o] for o, _, _ in pairs if o in plane_of})
    worst = max(float32_ulps(a, b) for _, a, b in pairs)
    constants = len({(a, b) for _, a, b in pairs})
    text = (f"{constants} constant(s) differ by at most {worst:g} float32 ulp(s)"
            + (f", on plane(s) {_ranges(planes)}" if planes else "")
            + ": float rounding of the code that computed them, not a difference of encoding "
              "('--audit' measures what it costs)")
    return {"dtype": "float32", "max_ulps": worst, "planes": planes, "constants": constants,
            "text": text}


def _ranges(values: list[int]) -> str:
    if not values:
        return ""
    runs, start, previous = [], values[0], values[0]
    for value in values[1:] + [None]:
        if value is not None and value == previous + 1:
            previous = value
            continue
        runs.append(f"{start}" if start == previous else f"{start}..{previous}")
        if value is not None:
            start = previous = value
    return ", ".join(runs)


# ----------------------------------------------------------------------------- decide

def decide(enc_a, enc_b, *, rounding_allowed: bool = True, budget: float = 60.0,
           on_difference=None) -> Decision:
    """Decide A vs B (see the module's docstring). ``on_difference(decision, ra, rb, basis)``
    fills the differences, counterexample and invariant of a ``different`` verdict
    (``_evidence.py``)."""
    start = time.monotonic()
    end = start + budget
    if enc_a.dim != enc_b.dim or enc_a.position_dims != enc_b.position_dims:
        raise ValueError("dimensions differ")  # the caller turned this into a usage error
    ra, rb = read(enc_a), read(enc_b)
    decision = Decision("undecided", readings=(ra, rb))
    if not ra.linear or not rb.linear:
        side = "A" if not ra.linear else "B"
        decision.reason = (f"{side} is not a linear map of the content "
                           f"({(ra if side == 'A' else rb).reason}): diff compares linear "
                           "encodings")
        decision.seconds = time.monotonic() - start
        return decision
    basis, matched, unmatched_a, unmatched_b = match(ra, rb)
    if basis is not None:
        status, rounding, mismatch = exact_agreement(enc_a, enc_b, basis, rounding_allowed, ra,
                                                     end)
        if status != "differs":
            decision.verdict = "same" if basis.identity else "same_up_to_basis"
            decision.basis = None if basis.identity else basis
            decision.rounding = rounding
            decision.seconds = time.monotonic() - start
            return decision
        decision.reason = (f"the rows differ at token {mismatch['token']}'s {mismatch['role']} "
                           f"output {mismatch['output']} in the basis the blocks match with")
    full = basis or fallback_basis(ra, rb, matched, unmatched_a, unmatched_b)
    if on_difference is not None:
        on_difference(decision, enc_a, enc_b, ra, rb, full, matched, unmatched_a, unmatched_b,
                      end)
    decision.seconds = time.monotonic() - start
    return decision
