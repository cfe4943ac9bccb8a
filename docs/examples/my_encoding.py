"""A positional encoding written the way a researcher would write it, to check with symrope.

Rotary pairs with a per-pair exponential decay of the score with the offset (xPos-like, but
with our own rates). ``draft`` is the first version, which applied the same decay to queries
and keys; ``my_encoding`` is the fix. Check them with::

    symrope check docs/examples/my_encoding.py:draft
    symrope check docs/examples/my_encoding.py:my_encoding
"""

import sympy as sp

from symrope import Encoding

DIM = 4
FREQUENCIES = [sp.Integer(1), sp.Rational(1, 100)]   # one per pair of coordinates
DECAY_RATES = [sp.Rational(1, 64), sp.Rational(1, 16)]


def _turn_and_scale(x, p, scale_sign):
    """Turn pair i by p * FREQUENCIES[i] and scale it by exp(scale_sign * DECAY_RATES[i] * p)."""
    out = []
    for i, (omega, rate) in enumerate(zip(FREQUENCIES, DECAY_RATES)):
        a, b = x[2 * i], x[2 * i + 1]
        c, s = sp.cos(p * omega), sp.sin(p * omega)
        scale = sp.exp(scale_sign * rate * p)
        out += [scale * (c * a - s * b), scale * (s * a + c * b)]
    return sp.Matrix(out)


def query(x, p):
    return _turn_and_scale(x, p, +1)


def key(x, p):
    return _turn_and_scale(x, p, -1)


def draft_key(x, p):  # the slip: keys decay the same way as queries
    return _turn_and_scale(x, p, +1)


draft = Encoding("draft", DIM, query, draft_key)
my_encoding = Encoding("my_encoding", DIM, query, key)
