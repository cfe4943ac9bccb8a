"""The result of deciding one claim: ``proved``, ``refuted`` (with a counterexample) or ``undecided``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from sympy.core.function import Function
from sympy.core.mul import _keep_coeff
from sympy.matrices.expressions import MatMul
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.str import StrPrinter

from symrope.engine._reasons import UndecidedReason

__all__ = ["Verdict", "PROVED", "REFUTED", "UNDECIDED"]

PROVED, REFUTED, UNDECIDED = "proved", "refuted", "undecided"


@dataclass(frozen=True)
class Verdict:
    """What :func:`symrope.verify` decided about ``lhs = rhs``.

    Attributes
    ==========

    status : str
        Exactly one of ``"proved"`` (the difference was reduced to a literal zero by
        ``method``), ``"refuted"`` (``counterexample`` is an exact point where rigorous
        arithmetic encloses ``|lhs - rhs|`` away from zero) or ``"undecided"`` (``reason``
        says why, and how many sampled points agreed).
    counterexample : dict or None
        Exact values of the free symbols (and matrices for matrix symbols), only when refuted.
    difference : tuple or None
        ``(lower, upper)``: certified bounds of ``|lhs - rhs|`` at the counterexample, rounded
        outward to 6 significant digits, as strings.
    entry : tuple or None
        The matrix entry (or block, row, column) where a matrix claim fails.
    details : dict
        ``details["certificate"]`` for a refutation: ``value``, ``lower_bound``,
        ``upper_bound``, ``enclosure`` (the Arb ball of ``|lhs - rhs|``, or its exact
        rational), ``excludes_zero``, ``arithmetic`` (``"exact rational arithmetic"`` or
        ``"Arb ball arithmetic"``), ``precision_bits``, ``library``, ``entry``. Undecided
        verdicts carry ``reason_code`` (an :class:`UndecidedReason` code) and count
        ``sampled_points``, ``evaluated_points`` and ``agreeing_points``.
    """

    status: str
    lhs: Any
    rhs: Any
    method: str | None = None
    counterexample: dict | None = None
    difference: tuple | None = None
    entry: tuple | None = None
    reason: str | None = None
    seconds: float = 0.0
    cross_checks: int = 0
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in (PROVED, REFUTED, UNDECIDED):
            raise ValueError(f"unknown verdict status {self.status!r}")
        if self.status == REFUTED and not self.counterexample and self.counterexample != {}:
            raise ValueError("a refutation needs a counterexample")

    @classmethod
    def undecided_because(cls, reason: UndecidedReason, lhs: object, rhs: object, *, seconds: float = 0.0,
                          entry: tuple | None = None, details: dict | None = None,
                          **facts: object) -> "Verdict":
        """An undecided verdict: ``reason``'s sentence (with ``facts``) and its code."""
        return cls(UNDECIDED, lhs, rhs, entry=entry, reason=reason.text(**facts),
                   seconds=seconds, details={**(details or {}), "reason_code": reason.value})

    @property
    def undecided_reason(self) -> UndecidedReason | None:
        """Why an undecided verdict is undecided (None for the others)."""
        code = (self.details or {}).get("reason_code") if self.status == UNDECIDED else None
        return None if code is None else UndecidedReason(code)

    @property
    def proved(self) -> bool:
        return self.status == PROVED

    @property
    def refuted(self) -> bool:
        return self.status == REFUTED

    @property
    def undecided(self) -> bool:
        return self.status == UNDECIDED

    def explain(self) -> str:
        """One line: the verdict and its evidence."""
        floats = self.details.get("floats_read_exactly") if self.details else None
        exactly = (f"; {floats} float constant{'s' if floats != 1 else ''} read as the exact "
                   "rationals of their binary values") if floats else ""
        if self.status == PROVED:
            return (f"proved ({self.method}; {self.cross_checks} numeric cross-checks agree"
                    f"{exactly})")
        if self.status == REFUTED:
            point = ", ".join(f"{k} = {_show(v)}" for k, v in self.counterexample.items())
            where = f" at entry {self.entry}" if self.entry is not None else ""
            gap = f"; {self.certified_gap()}" if self.difference else ""
            return f"refuted{where} at {point or 'any point'}{gap}{exactly}"
        return f"undecided: {self.reason}{exactly}"

    def to_dict(self) -> dict:
        document = {
            "verdict": self.status,
            "claim": f"{_show(self.lhs)} = {_show(self.rhs)}",
            "method": self.method,
            "counterexample": None if self.counterexample is None else
            {str(k): _show(v) for k, v in self.counterexample.items()},
            "difference": list(self.difference) if self.difference else None,
            "entry": [int(i) for i in self.entry] if self.entry is not None else None,
            "reason": self.reason,
            "seconds": round(self.seconds, 4),
            "certificate": (self.details or {}).get("certificate"),
            "points": {k: v for k, v in (self.details or {}).items() if k.endswith("_points")}
            or None,
        }
        if self.undecided_reason is not None:
            document["reason_code"] = self.undecided_reason.value
        return document

    def certified_gap(self, name: str = "lhs - rhs") -> str:
        """``|lhs - rhs| = v (certified: ...)``: the size of the gap and its certificate.

        Examples
        ========

        >>> import sympy as sp
        >>> from symrope import verify
        >>> x = sp.Symbol("x", real=True)
        >>> verify(sp.sqrt(x**2), x).certified_gap()
        '|lhs - rhs| = 2 (certified: exactly 2)'
        """
        certificate = (self.details or {}).get("certificate")
        if not certificate:
            return f"|{name}| = {self.difference[1]}" if self.difference else ""
        if certificate["precision_bits"] is None:
            exact = certificate["enclosure"]
            how = f"exactly {exact}" if len(exact) <= 24 else "exact rational arithmetic"
        else:
            how = (f"in [{certificate['lower_bound']}, {certificate['upper_bound']}], Arb balls "
                   f"at {certificate['precision_bits']} bits")
        return f"|{name}| = {certificate['value']} (certified: {how})"

    def __str__(self) -> str:
        return self.explain()



def _show(value, limit: int = 400) -> str:
    """A readable string, never megabytes: big matrices are named by shape and kind."""
    shape = getattr(value, "shape", None)
    if shape and len(shape) == 2 and sp.sympify(shape[0] * shape[1] > 64) is sp.true:
        return f"<{shape[0]}x{shape[1]} {type(value).__name__}>"
    text = plain_text(value.tolist() if isinstance(value, sp.MatrixBase) else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _PlainPrinter(StrPrinter):
    """``sympy.sstr``, without the cost SymPy's precedence of a matrix product can carry.

    SymPy asks a ``MatMul`` whether it "could extract a minus sign" by building ``-M`` and
    evaluating it (``MatMul.doit``), which inverts every ``BlockDiagMatrix`` factor of an
    ``Inverse`` symbolically: seconds to minutes per claim, to print it. The answer is read off
    the product's leading coefficient instead, which is what that test returns for any product
    that is not its own negative (a matrix product never is), so the text is the same.
    """

    def parenthesize(self, item, level, strict=False):
        inner = _precedence(item)
        if inner < level or (not strict and inner <= level):
            return f"({self._print(item)})"
        return self._print(item)

    def _print_MatMul(self, expr):
        coefficient, matrices = expr.as_coeff_mmul()
        sign = ""
        if coefficient.is_number:
            real, imaginary = coefficient.as_real_imag()
            if (imaginary.is_zero and real.is_negative) or (real.is_zero and imaginary.is_negative):
                expr = _keep_coeff(-coefficient, matrices)
                sign = "-"
        return sign + "*".join(self.parenthesize(arg, _precedence(expr)) for arg in expr.args)


def _precedence(item) -> int:
    if isinstance(item, MatMul):
        if any(isinstance(arg, Function) and getattr(arg, "precedence", PRECEDENCE["Mul"]) <
               PRECEDENCE["Mul"] for arg in item.args):
            return PRECEDENCE["Mul"]
        lead = item.args[0]
        return PRECEDENCE["Add"] if lead.is_Number and lead.is_extended_negative else \
            PRECEDENCE["Mul"]
    return precedence(item)


def plain_text(value) -> str:
    """``sympy.sstr(value)`` -- the same text -- without SymPy inverting matrices to print it.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._verdict import plain_text
    >>> A, B = sp.MatrixSymbol("A", 2, 2), sp.MatrixSymbol("B", 2, 2)
    >>> plain_text(-2 * A * (A + B).T), sp.sstr(-2 * A * (A + B).T)
    ('-2*A*(A.T + B.T)', '-2*A*(A.T + B.T)')
    """
    return _PlainPrinter().doprint(value)
