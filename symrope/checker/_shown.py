"""Exact values in a report: short strings that carry the value they show.

A check report is JSON (``--json`` prints the strings), and readers in the same process (the
LaTeX renderer, the lift's float64 replay, tests) read the value itself: report text is never
turned back into an expression (``sympify`` of a string evaluates Python).
"""

from __future__ import annotations

import sympy as sp

from symrope.errors import InternalError

__all__ = ["Shown", "show", "exact_of", "BasisVector"]


class Shown(str):
    """The short string of an exact value that also carries the value itself (``.exact``).

    A report is JSON (the string is what ``--json`` prints), and readers in the same process
    (the LaTeX renderer, the lift's float replay) take ``.exact`` instead of parsing the string
    back: text is never turned into an expression (``sympify`` of a string evaluates Python).
    """

    __slots__ = ("exact",)

    def __new__(cls, text: str, exact):
        shown = super().__new__(cls, text)
        shown.exact = exact
        return shown

    def __reduce__(self):
        return Shown, (str(self), self.exact)


def exact_of(value: object) -> sp.Basic | list:
    """The exact value behind a report entry: ``.exact`` of a :class:`Shown`, a SymPy object or
    a Python number as it is, lists entry by entry. Text without its value is refused, never
    parsed (``sympify`` of a string evaluates Python)."""
    exact = getattr(value, "exact", None)
    if exact is not None:
        return exact
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return sp.sympify(value, strict=True)
    if isinstance(value, (list, tuple)):
        return [exact_of(v) for v in value]
    raise InternalError(f"a report entry without its exact value: {value!r}")


def show(value: object) -> Shown:
    """Exact values as short strings (matrices as nested lists), carrying the value."""
    if isinstance(value, sp.MatrixBase):
        return Shown(sp.sstr(value.tolist()), value)
    return Shown(sp.sstr(value), value)


class BasisVector(str):
    """``e_i``, the ``i``-th standard basis vector (counted from 0), as a report prints it, with
    ``i`` itself (``.coordinate``): a content vector of a counterexample on basis vectors.

    Examples
    ========

    >>> from symrope.checker import BasisVector
    >>> e = BasisVector(3)
    >>> e, e.coordinate
    ('e_3', 3)
    """

    __slots__ = ("coordinate",)

    def __new__(cls, coordinate: int):
        vector = super().__new__(cls, f"e_{coordinate}")
        vector.coordinate = int(coordinate)
        return vector

    def __reduce__(self):
        return BasisVector, (self.coordinate,)
