"""Random claims whose truth is known by construction, for the differential soundness fuzzer.

True claims come from valid rewrites of random expression trees (expand, factor, cancel, trig
addition formulas, exp laws, square roots of squares of positive things, transposes of
products, rotation products, block-diagonal RoPE); false ones from provable perturbations (an
exact offset as small as 1e-40 * s, a flipped sign, sin and cos swapped, branch-cut
"identities", one perturbed entry of a big matrix, one perturbed frequency). Constants include
Floats that are exactly representable (0.5, -0.75) and Floats that are not (0.1, 1e-40, 1e20);
symbols are named like what the engine and checker use internally (c_0, C0, _x, x0, p, s, t...).

Float truth is about the binary values: a true claim's right side is a rewrite of the *exact*
left side (or built only from Floats whose arithmetic is exact), and Float arithmetic that
rounds ("float_expand") is decided by comparing canonical polynomials of the exact values.
Issue 18's families (jumps at hidden zeros, lcm grids, far thresholds, one-point differences,
mismatched partitions, real domains) are in ``tests/soundness_jumps.py``. Nothing here calls
symrope.
"""

from __future__ import annotations

import random

import sympy as sp

from symrope.linalg import rotation

from tests.soundness_helpers import Claim, _exact
from tests.soundness_jumps import JUMP_FAMILIES, JUMP_WEIGHTS

# Names the engine or checker create (or used to), and look-alikes.
NAMES = ["c_0", "c_1", "c_2", "C0", "C1", "_x", "_c_0", "Dummy_0", "x0", "y0", "x1", "p", "s",
         "t", "d", "a", "b", "x", "u", "v", "theta", "omega"]

_EXACT_FLOATS = [0.5, -0.75, 1.5, 0.25, -2.0, 0.125, 3.0]
_INEXACT_FLOATS = [0.1, 0.3, -0.7, 1e-3, 1 / 3, 2.2, 1e20, 1e-40]
_TINY = [sp.Rational(1, 10**40), sp.Float(1e-40), sp.Rational(1, 2**80), sp.Float(2.0**-60)]


def _symbol(rng: random.Random, exclude=(), positive: bool = False):
    names = [n for n in NAMES if n not in exclude]
    name = rng.choice(names)
    facts = {"positive": True} if positive else {"real": True}
    return sp.Dummy(name, **facts) if rng.random() < 0.15 else sp.Symbol(name, **facts)


def _symbols(rng, count, positive=False):
    chosen = rng.sample(NAMES, count)
    return [sp.Symbol(n, positive=True) if positive else sp.Symbol(n, real=True) for n in chosen]


def _constant(rng: random.Random, exact_floats_only: bool = False):
    kind = rng.random()
    if kind < 0.3:
        return sp.Integer(rng.choice([-3, -2, -1, 1, 2, 3, 5]))
    if kind < 0.55:
        return sp.Rational(rng.choice([-7, -3, -1, 1, 2, 5, 11]), rng.choice([2, 3, 7, 10, 1000]))
    if kind < 0.75 or exact_floats_only:
        return sp.Float(rng.choice(_EXACT_FLOATS))
    return sp.Float(rng.choice(_INEXACT_FLOATS))


def _polynomial(rng, symbols, depth: int, exact_floats_only=False):
    """A random tree of sums, products and small powers."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(symbols) if rng.random() < 0.6 else _constant(rng, exact_floats_only)
    op = rng.random()
    left = _polynomial(rng, symbols, depth - 1, exact_floats_only)
    right = _polynomial(rng, symbols, depth - 1, exact_floats_only)
    if op < 0.45:
        return left + right
    if op < 0.85:
        return left * right
    return left ** rng.choice([2, 3])


def _nonzero_witness(rng, symbols):
    """A provably nonzero function: its value at some real point is nonzero."""
    s = rng.choice(symbols)
    return rng.choice([
        rng.choice(_TINY) * s,            # 1e-40 * s: zero only at s = 0
        rng.choice(_TINY),                # a tiny constant
        2 * s ** rng.choice([1, 2]),      # a flipped term
        sp.sin(s),
        sp.Integer(1),
    ])


def _linear(rng, symbol, exact_floats_only=False, offset=True):
    """c * symbol + d with c != 0 (so it takes every real value).

    SymPy adds the constant terms of two such sums (and evaluates exp(Float + x) as
    Float * exp(x)) when it builds a function of them, rounding Floats before the claim is
    read: a claim that would meet there gets a rational offset or none.
    """
    c = _constant(rng, exact_floats_only)
    if not offset or rng.random() >= 0.6:
        return c * symbol
    d = _constant(rng, exact_floats_only)
    if offset == "rational":
        d = sp.Rational(rng.choice([-7, -1, 1, 3]), rng.choice([1, 2, 5, 9]))
    return c * symbol + d


def polynomial_rewrite(rng) -> Claim:
    symbols = _symbols(rng, rng.choice([1, 2, 3]))
    tree = _polynomial(rng, symbols, rng.choice([2, 3]))
    rewrite = rng.choice([sp.expand, sp.factor, lambda e: sp.cancel(sp.together(e))])
    rhs = rewrite(_exact(tree))
    if rng.random() < 0.5:
        return Claim(tree, rhs, True, "polynomial_rewrite")
    # Unevaluated: a Float witness must not be rounded into a like term before it is read.
    perturbed = sp.Add(rhs, _nonzero_witness(rng, symbols), evaluate=False)
    return Claim(tree, perturbed, False, "polynomial_perturbed")


def float_expand(rng) -> Claim:
    """Float arithmetic as SymPy does it (it may round): truth from exact canonical forms."""
    symbols = _symbols(rng, rng.choice([1, 2]))
    tree = _polynomial(rng, symbols, 3)
    rounded = sp.expand(tree)
    truth = sp.expand(_exact(tree) - _exact(rounded)) == 0
    return Claim(tree, rounded, truth, "float_expand")


def trig_addition(rng) -> Claim:
    u, v = _symbols(rng, 2)
    A, B = _linear(rng, u), _linear(rng, v, offset=False)  # one constant term: no Float sum
    total = A + B
    kind = rng.random()
    if kind < 0.25:
        return Claim(sp.sin(total), sp.sin(A) * sp.cos(B) + sp.cos(A) * sp.sin(B), True,
                     "trig_addition")
    if kind < 0.5:
        return Claim(sp.cos(total), sp.cos(A) * sp.cos(B) - sp.sin(A) * sp.sin(B), True,
                     "trig_addition")
    if kind < 0.75:  # sin and cos swapped: that is cos(A - B)
        return Claim(sp.sin(total), sp.cos(A) * sp.cos(B) + sp.sin(A) * sp.sin(B), False,
                     "trig_swapped")
    return Claim(sp.sin(total), sp.sin(A) * sp.cos(B) - sp.cos(A) * sp.sin(B), False,
                 "trig_sign_flipped")


def exp_laws(rng) -> Claim:
    u, v = _symbols(rng, 2)
    kind = rng.random()
    # SymPy combines exp(A)*exp(B) and exp(A)**k on construction: only Floats whose
    # arithmetic is exact may meet there; inexact ones only in the false exp(A + B) claim.
    exact = kind < 0.5 or kind >= 0.75
    A = _linear(rng, u, exact, offset="rational")
    B = _linear(rng, v, exact, offset=False)
    total = A + B
    if kind < 0.3:
        return Claim(sp.exp(A) * sp.exp(B), sp.exp(total), True, "exp_product")
    if kind < 0.5:
        k = rng.choice([2, 3, -1])
        return Claim(sp.exp(A) ** k, sp.exp(sp.Mul(k, _exact(A))), True, "exp_power")
    if kind < 0.75:
        return Claim(sp.exp(total), sp.exp(A) + sp.exp(B), False, "exp_sum")
    return Claim(sp.exp(A) * sp.exp(B), sp.exp(total) + rng.choice(_TINY) * sp.exp(A), False,
                 "exp_tiny")


def branch_cuts(rng) -> Claim:
    u, v = _symbols(rng, 2)
    A = _linear(rng, u)
    q = sp.Symbol(rng.choice(NAMES), positive=True)
    kind = rng.randrange(9)
    if kind == 0:
        return Claim(sp.sqrt(A**2), A, False, "sqrt_square_real")
    if kind == 1:
        return Claim(sp.sqrt(A**2), sp.Abs(A), True, "sqrt_square_abs")
    if kind == 2:
        positive = rng.choice([sp.exp(A), A**2 + 1, q * sp.Rational(3, 2), q + sp.Float(0.1)])
        return Claim(sp.sqrt(positive**2), positive, True, "sqrt_square_positive")
    # For real u, v the product rules hold wherever every function is real-valued (the claim's
    # domain: see soundness_jumps.real_domains); over C they fail at u = v = -1.
    z, w = sp.Symbol(rng.choice(["z", "u", "c_0"])), sp.Symbol(rng.choice(["w", "v", "C1"]))
    if kind == 3:
        return Claim(sp.log(z * w), sp.log(z) + sp.log(w), False, "log_product_complex")
    if kind == 4:
        return Claim(sp.sqrt(z * w), sp.sqrt(z) * sp.sqrt(w), False, "sqrt_product_complex")
    if kind == 5:
        return Claim(sp.atan2(v, u), sp.atan(v / u), False, "atan2_real")
    if kind == 6:  # exp(Float + x) is evaluated as Float * exp(x) on construction: no Float offset
        A = _linear(rng, u, offset="rational")
        return Claim(sp.log(sp.exp(A)), _exact(A), True, "log_exp_real")
    if kind == 7:
        return Claim(sp.log(q * sp.Rational(5, 2)), sp.log(q) + sp.log(sp.Rational(5, 2)), True,
                     "log_product_positive")
    return Claim(sp.sqrt(A**2 * q**2), sp.Abs(A) * q, True, "sqrt_square_mixed")


def _random_matrix(rng, rows, cols, symbols, exact_floats_only=True):
    return sp.ImmutableMatrix(rows, cols, lambda i, j: _polynomial(rng, symbols, 2,
                                                                   exact_floats_only))


def matrix_transpose(rng) -> Claim:
    symbols = _symbols(rng, 2)
    n, m, k = (rng.choice([1, 2, 3]) for _ in range(3))
    A, B = _random_matrix(rng, n, m, symbols), _random_matrix(rng, m, k, symbols)
    # Unevaluated products: the Floats are multiplied only after they are read exactly.
    lhs = sp.Transpose(sp.MatMul(A, B, evaluate=False))
    rhs = sp.MatMul(B.T, A.T, evaluate=False)
    if rng.random() < 0.5:
        return Claim(lhs, rhs, True, "matrix_transpose")
    i, j = rng.randrange(k), rng.randrange(n)
    bump = sp.ImmutableMatrix(k, n, lambda a, b: _nonzero_witness(rng, symbols)
                              if (a, b) == (i, j) else 0)
    return Claim(lhs, sp.MatAdd(rhs, bump, evaluate=False), False, "matrix_transpose_perturbed")


def rotation_product(rng) -> Claim:
    u, v = _symbols(rng, 2)
    A, B = _linear(rng, u), _linear(rng, v, offset=False)
    lhs = sp.MatMul(rotation(A), rotation(B), evaluate=False)
    if rng.random() < 0.5:
        return Claim(lhs, rotation(A + B), True, "rotation_product")
    # An exact tiny u**2: no like term it could be rounded into.
    tiny = rng.choice([sp.Rational(1, 10**40), sp.Rational(1, 2**80)])
    return Claim(lhs, rotation(A + B + tiny * u**2), False, "rotation_product_perturbed")


def block_rope(rng) -> Claim:
    s, t = _symbols(rng, 2)
    count = rng.choice([3, 4, 6])
    pool = [sp.Rational(1, 10**i) for i in range(1, 6)] + [sp.Float(0.1), sp.Float(0.5),
                                                          sp.Float(1e-3), sp.Float(0.3)]
    frequencies = [rng.choice(pool) for _ in range(count)]

    def rope(position, omegas):
        return sp.BlockDiagMatrix(*[rotation(w * position) for w in omegas])

    lhs = sp.MatMul(rope(s, frequencies).T, rope(t, frequencies), evaluate=False)
    if rng.random() < 0.5:
        return Claim(lhs, rope(t - s, frequencies), True, "block_rope")
    wrong = list(frequencies)
    k = rng.randrange(count)
    wrong[k] = _exact(wrong[k]) + rng.choice([sp.Rational(1, 10**40), sp.Rational(1, 7)])
    return Claim(lhs, rope(t - s, wrong), False, "block_rope_perturbed")


def template_collision(rng) -> Claim:
    """The issue's pattern: entries x (-c - k) (sin(k)^2 + cos(k)^2 - 1), one of them off."""
    x = sp.Symbol(rng.choice(NAMES), real=True)
    c = sp.Symbol(rng.choice([n for n in NAMES if n != x.name]), real=True)
    n = rng.choice([3, 4, 7])
    k = [[sp.Rational(1, 14 + n * i + j) for j in range(n)] for i in range(n)]
    M = sp.Matrix(n, n, lambda i, j: x * (-c - k[i][j]) * (sp.sin(k[i][j]) ** 2
                                                           + sp.cos(k[i][j]) ** 2 - 1))
    if rng.random() < 0.5:
        return Claim(sp.ImmutableMatrix(M), sp.zeros(n, n), True, "template_collision")
    i, j = rng.randrange(n), rng.randrange(n)
    off = rng.choice([sp.Rational(3, 2), sp.Rational(1, 2), 1 + sp.Rational(1, 10**30)])
    M[i, j] = x * (-c - k[i][j]) * (sp.sin(k[i][j]) ** 2 + sp.cos(k[i][j]) ** 2 - off)
    return Claim(sp.ImmutableMatrix(M), sp.zeros(n, n), False, "template_collision_perturbed")


# Families and their weights: the cheap scalar families dominate so that tens of thousands of
# claims fit in an hour on one core; every family still appears hundreds of times per 10,000.
FAMILIES = [polynomial_rewrite, float_expand, trig_addition, exp_laws, branch_cuts,
            matrix_transpose, rotation_product, block_rope, template_collision, *JUMP_FAMILIES]
WEIGHTS = [8, 6, 4, 4, 6, 2, 2, 1, 1, *JUMP_WEIGHTS]


def random_claim(rng: random.Random) -> Claim:
    """One claim from a random family, with its truth."""
    return rng.choices(FAMILIES, WEIGHTS)[0](rng)


def outcome(claim: Claim, verdict) -> str:
    """``"true proved"``, ``"false refuted"``... (the caller re-checks refutations itself)."""
    return f"{'true' if claim.true else 'false'} {verdict.status}"
