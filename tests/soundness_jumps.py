"""Fuzzer families aimed at CAS-plus-probing provers (issue 18), truth known by construction.

* hidden zeros under functions that jump: ``sign(Z)``, ``floor(Z + 1/2)``, ``Heaviside(Z)``...
  where ``Z`` is an identically zero expression written with trig, log, hyperbolic or
  exponential functions (true), and the same with ``Z`` nudged off zero by a constant (false);
* rational grids: ``sin(2520*pi*x) = 0`` is true at every ``p/q`` with ``q <= 9`` (false);
* far thresholds: claims that switch at ``10**6``, ``-10**7``, ``10**-9``... (false), and
  ``Max``/``Piecewise`` rewrites that hold on both sides (true);
* one-point differences: a ``Piecewise`` that differs at a single rational (false), or agrees
  there too (true);
* mismatched partitions: products of block-diagonal matrices whose blocks do not line up;
* real domains: Llama 4's NoPE-layer temperature ``1 + log(floor((p + 1)/c) + 1)/10`` (a
  counterexample must keep the log's argument positive), ``asin(sin(x)) = x`` (false inside
  the domain), and ``log``/``sqrt`` product rules for real symbols, true wherever every
  function is real-valued (so never refuted: over the complex numbers they are false, see
  ``branch_cuts`` in ``soundness_claims.py``).

Nothing here calls symrope.
"""

from __future__ import annotations

import random
from functools import reduce
from math import lcm

import sympy as sp

from tests.soundness_helpers import Claim

_NAMES = ["x", "p", "s", "t", "u", "theta", "c_0", "_x", "x0"]


def _real(rng: random.Random, exclude=()):
    return sp.Symbol(rng.choice([n for n in _NAMES if n not in exclude]), real=True)


def _hidden_zero(rng: random.Random, x):
    """An expression equal to 0 for every real x, that no evaluation sees as exactly 0."""
    k = rng.choice([1, 2, 3, sp.Rational(1, 3)])
    return rng.choice([
        sp.sin(k * x) ** 2 + sp.cos(k * x) ** 2 - 1,
        sp.log(6 * x**2 + 6) - sp.log(2 * x**2 + 2) - sp.log(3),
        sp.cosh(k * x) ** 2 - sp.sinh(k * x) ** 2 - 1,
        (x + k) ** 3 - (x**3 + 3 * k * x**2 + 3 * k**2 * x + k**3),
        sp.sqrt(x**2 + 2 * x + 1) - sp.Abs(x + 1),
        sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x),
    ])


def hidden_zeros(rng: random.Random) -> Claim:
    """A jump function of a hidden zero: its value at 0 (true), or with Z nudged (false)."""
    x = _real(rng)
    zero = _hidden_zero(rng, x)
    tail = rng.choice([0, x, x**2, sp.sin(x)])
    wrappers = [
        (lambda z: sp.sign(z), 0), (lambda z: sp.sign(z) * x, 0),
        (lambda z: sp.Abs(sp.sign(z)), 0), (lambda z: sp.sign(sp.I * z), 0),
        (lambda z: sp.floor(z + sp.Rational(1, 2)), 0), (lambda z: sp.ceiling(z), 0),
        (lambda z: sp.Heaviside(z), sp.Rational(1, 2)), (lambda z: sp.frac(z + 3), 0),
        (lambda z: sp.Piecewise((1, z > 0), (0, True)), 0),
        (lambda z: sp.Piecewise((1, sp.Eq(z, 0)), (0, True)), 1),
    ]
    wrap, value = rng.choice(wrappers)
    if rng.random() < 0.5:
        return Claim(wrap(zero) + tail, value + tail, True, "hidden_zero_jump")
    nudge = rng.choice([sp.Rational(1, 7), sp.Rational(1, 10**30), sp.Rational(-2, 3)])
    # floor(z + 1/2) and frac(z + 3) ignore a tiny nudge: nudge those by a whole 1
    if wrap(sp.Integer(0)) == wrap(nudge):
        nudge = sp.Integer(1)
    return Claim(wrap(zero + nudge) + tail, value + tail, False, "hidden_nonzero_jump")


_GRID = reduce(lcm, range(1, 10))  # 2520: every p/q with q <= 9 is a zero of sin(2520 pi x)


def rational_grids(rng: random.Random) -> Claim:
    x = _real(rng)
    n = sp.Symbol(rng.choice(["n", "k", "m"]), integer=True)
    multiple = _GRID * rng.choice([1, 2, 3])
    kind = rng.randrange(4)
    if kind == 0:
        return Claim(sp.sin(multiple * sp.pi * x), 0, False, "lcm_grid")
    if kind == 1:
        return Claim(sp.cos(2 * multiple * sp.pi * x), 1, False, "lcm_grid")
    if kind == 2:
        return Claim(sp.sin(multiple * sp.pi * n), 0, True, "lcm_grid_integer")
    return Claim(sp.sin(multiple * sp.pi * x) ** 2 + sp.cos(multiple * sp.pi * x) ** 2, 1, True,
                 "lcm_grid_pythagoras")


_FAR = [sp.Integer(10) ** 6, -sp.Integer(10) ** 7, sp.Rational(1, 10**9), -sp.Rational(1, 10**9),
        sp.Integer(10) ** 9, 3 * sp.Integer(10) ** 5 + sp.Rational(1, 3), sp.Integer(8191)]


def far_thresholds(rng: random.Random) -> Claim:
    x = _real(rng)
    c = rng.choice(_FAR)
    body = rng.choice([x, x**2 + 1, sp.sin(x), sp.exp(-x**2)])
    kind = rng.randrange(5)
    if kind == 0:
        return Claim(sp.Piecewise((body, x < c), (body + 1, True)), body, False, "far_threshold")
    if kind == 1:
        return Claim(sp.Piecewise((body, x > c), (2 * body, True)), body, False, "far_threshold")
    if kind == 2:
        return Claim(sp.Max(x, c), x, False, "far_threshold")
    if kind == 3:
        return Claim(sp.Max(x, c), sp.Piecewise((x, x > c), (c, True)), True,
                     "far_threshold_max")
    return Claim(sp.Min(x, c) + sp.Max(x, c), x + c, True, "far_threshold_min_max")


def one_point(rng: random.Random) -> Claim:
    x = _real(rng)
    c = sp.Rational(rng.choice([-7, 3, 5, 11, 10**6 + 1]), rng.choice([1, 3, 7, 13, 10007]))
    body = rng.choice([x, x**2, sp.sin(x)])
    kind = rng.randrange(3)
    if kind == 0:
        return Claim(sp.Piecewise((body + 1, sp.Eq(x, c)), (body, True)), body, False,
                     "one_point_difference")
    if kind == 1:
        return Claim(sp.Piecewise((0, sp.Ne(x, c)), (rng.choice([1, -3, sp.Rational(1, 2)]),
                                                      True)), 0, False, "one_point_difference")
    return Claim(sp.Piecewise((body.subs(x, c), sp.Eq(x, c)), (body, True)), body, True,
                 "one_point_agreement")


def _block(rng, size, symbols):
    return sp.ImmutableMatrix(size, size, lambda i, j: rng.choice(
        [0, 1, -1, 2, *symbols, symbols[0] + i - j, symbols[-1] * (i + 1)]))


def mismatched_partitions(rng: random.Random) -> Claim:
    x, y = sp.Symbol("x", real=True), sp.Symbol("y", real=True)
    sizes = rng.choice([((2, 3), (3, 2)), ((1, 2, 2), (2, 1, 2)), ((2, 2), (1, 3)),
                        ((3, 1), (1, 3))])
    first = sp.BlockDiagMatrix(*[_block(rng, n, [x, y]) for n in sizes[0]])
    second = sp.BlockDiagMatrix(*[_block(rng, n, [y, x]) for n in sizes[1]])
    product = sp.MatMul(first, second, evaluate=False)
    explicit = sp.ImmutableMatrix(first.as_explicit() * second.as_explicit())
    kind = rng.randrange(3)
    if kind == 0:
        return Claim(product, product, True, "mismatched_partitions_same")
    if kind == 1:
        return Claim(product, explicit, True, "mismatched_partitions_explicit")
    i, j = rng.randrange(explicit.rows), rng.randrange(explicit.cols)
    bumped = sp.Matrix(explicit)
    bumped[i, j] += rng.choice([1, x, sp.Rational(1, 10**20)])
    return Claim(product, sp.ImmutableMatrix(bumped), False, "mismatched_partitions_bumped")


def real_domains(rng: random.Random) -> Claim:
    """Counterexamples must keep every function real-valued."""
    kind = rng.randrange(4)
    if kind == 0:  # Llama 4 NoPE-layer temperature: q scaled by a position-dependent factor
        p, q = sp.Symbol("p", real=True), sp.Symbol("q0", real=True)
        c = rng.choice([8192, 4096, 100])
        temperature = 1 + sp.Rational(1, 10) * sp.log(sp.floor((p + 1) / c) + 1)
        return Claim(temperature * q, q, False, "llama4_temperature")
    u, v = sp.Symbol("u", real=True), sp.Symbol("v", real=True)
    if kind == 1:
        return Claim(sp.log(u * v), sp.log(u) + sp.log(v), True, "log_product_real_domain")
    if kind == 2:
        return Claim(sp.sqrt(u * v), sp.sqrt(u) * sp.sqrt(v), True, "sqrt_product_real_domain")
    x = _real(rng)
    return Claim(sp.asin(sp.sin(x)), x, False, "asin_sin_real")


JUMP_FAMILIES = [hidden_zeros, rational_grids, far_thresholds, one_point,
                 mismatched_partitions, real_domains]
JUMP_WEIGHTS = [3, 2, 2, 2, 1, 2]
