"""A STRING encoding (Schenck et al. 2025) with a symbolic Cayley basis, for the checker's budget.

``G(p) = P diag(R(p), R(p/10)) P^T`` with the orthogonal ``P = (I - S)(I + S)^{-1}`` of a skew
``S`` in two symbols. Relative (``P`` is orthogonal for every ``a, b``), but proving it takes
the exponential-form recognition a few seconds, more than a fair share of a small budget:

    symrope check benchmarks/string_cayley.py:string_cayley --budget 14

was undecided in about 8 s (6 s of the budget unused) before the checker decided a stage cut
short by its share again with the time the others left (issue 18); it is proved in about 11 s
now. Measured on an idle 2-core machine: under load, more of the budget goes to waiting.
"""

import sympy as sp

from symrope.checker import Encoding

a, b = sp.symbols("a b", real=True)
_S = sp.Matrix([[0, 0, a, 0], [0, 0, 0, b], [-a, 0, 0, 0], [0, -b, 0, 0]])
_P = sp.simplify((sp.eye(4) - _S) * (sp.eye(4) + _S).inv())


def _rotation(angle):
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def _G(p):
    return _P * sp.diag(_rotation(p), _rotation(p / 10)) * _P.T


string_cayley = Encoding.from_matrices("string_cayley", _G, _G)
