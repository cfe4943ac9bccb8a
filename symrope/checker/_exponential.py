"""Recognising ``F(p) = e^{p . A}`` exactly, before any product ``F(s)^T G(t)`` is expanded.

A product of matrix exponentials (ComRoPE's ``e^{pA} e^{3pB}``), or a rotation written in
Rodrigues' form, makes ``F(s)^T G(t)`` a large trigonometric expression in two positions; the
facts that make it a function of ``t - s`` are much smaller claims in one position:

* ``F(0) = I`` and ``dF/dp_k = A_k F(p)`` with ``A_k = dF/dp_k (0)`` constant, each an identity
  decided entrywise by the engine, and ``F`` continuous on R. Then ``F(p) = e^{p . A}``: along
  the ray ``p = r q``, ``Y(r) = F(r q)`` solves ``Y' = (q . A) Y``, ``Y(0) = I``, whose unique
  solution is ``e^{r q . A}`` (cited: uniqueness for linear ODEs, Picard-Lindelof; B. C. Hall,
  Lie Groups, Lie Algebras, and Representations, 2nd ed. (Springer 2015), Ch. 2). Where the
  identity is proved only off a finite set of points (the expressions are undefined there),
  continuity of ``F`` glues the pieces of the solution together, so the conclusion is the same.
* ``sinc(u)`` is written ``sin(u)/u`` (equal off the thin set ``u = 0``; continuity covers it).
* An entry that contains ``|p_k|`` (Rodrigues' ``theta = w |p|``) is first rewritten exactly: if
  ``E(p, a)`` (``E`` with ``|p_k|`` replaced by a symbol ``a``) is proved even in ``a``, then
  ``E(p, |p_k|) = E(p, p_k)`` for every real ``p`` (``|p_k|`` is ``p_k`` or ``-p_k``). SymPy's
  automatic cancellation then often removes the 0/0 at the origin
  (``sin(w|p|)/(w|p|) * p`` becomes ``sin(w p)/w``); the rewritten matrix equals the user's
  wherever that is defined, and is continuous, so it *is* the continuous extension (the
  checker's convention, ``docs/check.md``).

Nothing here is concluded from numbers: every fact is a :func:`symrope.verify` proof, and an
encoding whose facts do not all hold is left to the expansion path (which refutes with a
counterexample, or stays undecided).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from symrope.checker._continuity import (continuity_obstacle, continuous_extensions,
                                         symbol_name, value_at_origin)
from symrope.checker._structure import block_claim

__all__ = ["ExponentialForm", "Exponentials", "NotExponential", "exponential_form", "recognise",
           "ODE_UNIQUENESS_SHORT", "STRUCTURE_SHARE"]

# What a one-line evidence cites (docs/check.md gives the reference in full).
ODE_UNIQUENESS_SHORT = "uniqueness for linear ODEs"


@dataclass
class ExponentialForm:
    """``M(p) = e^{sum_k p_k A_k}`` block by block, with the verdicts that show it.

    ``generators[k][b]`` is ``A_k`` restricted to block ``b``; ``blocks`` is the matrix the
    facts are about (the user's, or its exact rewrite without ``|p_k|``); ``facts`` says in
    words what was checked (``A``, ``B``: the generators of ``F`` and ``G``).
    """

    generators: list
    blocks: list
    verdicts: list = field(default_factory=list)
    facts: list = field(default_factory=list)


class NotExponential(Exception):
    """Why a matrix was not recognised as an exponential (the expansion path takes over)."""


# The share of a stage the recognition may use before the expansion path runs.
STRUCTURE_SHARE = 0.6


@dataclass
class Exponentials:
    """``F = e^{p.A}`` and ``G = e^{p.B}`` with ``A_k^T = -B_k``, proved; or why not (``reason``).

    ``G`` is kept for its generators ``B_k`` (those of ``H(d) = G(d)``); ``F``'s are in the
    verdicts and facts only.
    """

    G: ExponentialForm | None = None
    verdicts: list = field(default_factory=list)
    facts: list = field(default_factory=list)
    reason: str | None = None

    @property
    def proved(self) -> bool:
        return self.reason is None


def recognise(F_blocks, G_blocks, axes: tuple, decide) -> Exponentials:
    """``F = e^{p.A}``, ``G = e^{p.B}``, ``A_k^T = -B_k`` and commuting ``B_k``, all proved.

    Then ``F(s)^T G(t) = e^{-s.B} e^{t.B} = e^{(t - s).B}`` (the ``B_k`` commute) and
    ``F(p)^T G(p) = I``. Any fact that is not proved gives an :class:`Exponentials` with the
    ``reason``; nothing is concluded from it (``A^T != -B`` does refute translation invariance,
    but a refutation needs a counterexample, which the expansion path finds).

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine import verify
    >>> p = sp.Symbol("p", real=True)
    >>> R = lambda a: sp.ImmutableMatrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])
    >>> decide = lambda a, b, e: verify(a, b)
    >>> recognise([R(p)], [R(p)], (p,), decide).facts
    ["F(0) = I, F' = A F", 'G = F', 'A^T = -B']
    >>> recognise([R(p)], [R(2 * p)], (p,), decide).reason
    'A^T = -B is not proved'
    """
    try:
        F = exponential_form("F", F_blocks, axes, decide)
        G = F if list(F_blocks) == list(G_blocks) else \
            exponential_form("G", G_blocks, axes, decide)
    except NotExponential as reason:
        return Exponentials(reason=str(reason))
    verdicts = F.verdicts + (G.verdicts if G is not F else [])
    opposite = [decide(block_claim([a.T + b for a, b in zip(A, B)]),
                       block_claim([sp.zeros(*b.shape) for b in B]), False)
                for A, B in zip(F.generators, G.generators)]
    verdicts += opposite
    if not all(v.proved for v in opposite):
        return Exponentials(G, verdicts, reason="A^T = -B is not proved")
    pairs = [(j, k) for j in range(len(axes)) for k in range(j + 1, len(axes))]
    commute = [decide(block_claim([a * b for a, b in zip(G.generators[j], G.generators[k])]),
                      block_claim([b * a for a, b in zip(G.generators[j], G.generators[k])]),
                      False)
               for j, k in pairs]
    verdicts += commute
    if not all(v.proved for v in commute):
        return Exponentials(G, verdicts,
                            reason="the generators of different axes do not provably commute")
    facts = list(dict.fromkeys(F.facts + (G.facts if G is not F else ["G = F"])))
    facts.append("A^T = -B" if len(axes) == 1 else "A_k^T = -B_k, B_j B_k = B_k B_j")
    return Exponentials(G, verdicts, facts)


def exponential_form(name: str, blocks, axes: tuple, decide) -> ExponentialForm:
    """Prove ``blocks = e^{p . A}`` (per block) or raise :class:`NotExponential`.

    Parameters
    ==========

    name : str
        ``"F"`` or ``"G"``, for the evidence.
    blocks : list of ImmutableMatrix
        The diagonal blocks of the matrix, functions of the position symbols ``axes``.
    axes : tuple of Symbol
        The (real) position symbols.
    decide : callable
        ``decide(lhs, rhs, expand)`` returning a :class:`~symrope.engine.Verdict` within the
        check's budget.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine import verify
    >>> p = sp.Symbol("p", real=True)
    >>> R = sp.ImmutableMatrix([[sp.cos(2*p), -sp.sin(2*p)], [sp.sin(2*p), sp.cos(2*p)]])
    >>> form = exponential_form("F", [R], (p,), lambda a, b, e: verify(a, b))
    >>> form.generators[0][0]
    Matrix([
    [0, -2],
    [2,  0]])
    """
    blocks, facts = _without_sinc(blocks, axes)
    blocks, more, verdicts = _without_abs(blocks, axes, decide)
    facts += more
    facts += _continuous(name, blocks, axes)
    origin = [_at_origin(b, axes) for b in blocks]
    identity = decide(block_claim(origin), block_claim([sp.eye(b.shape[0]) for b in blocks]),
                      False)
    verdicts.append(identity)
    if not identity.proved:
        raise NotExponential(f"{name}(0) = I is not proved ({identity.status})")
    generators = []
    for axis in axes:
        derivatives = [b.diff(axis) for b in blocks]
        at_zero = [_at_origin(d, axes) for d in derivatives]
        generator = [sp.ImmutableMatrix(a).applyfunc(sp.expand) for a in at_zero]
        ode = decide(block_claim(derivatives),
                     block_claim([g * b for g, b in zip(generator, blocks)]), True)
        verdicts.append(ode)
        if not ode.proved:
            raise NotExponential(f"d{name}/d{axis} = A {name} is not proved ({ode.status})")
        generators.append(generator)
    letter = "A" if name == "F" else "B"
    facts.append(f"{name}(0) = I, {name}' = {letter} {name}" if len(axes) == 1 else
                 f"{name}(0) = I, d{name}/dp_k = {letter}_k {name}")
    return ExponentialForm(generators, blocks, verdicts, facts)


def _without_sinc(blocks, axes):
    """``sinc(u)`` written ``sin(u)/u``, which SymPy can differentiate without a ``Piecewise``.

    The two agree wherever ``u != 0``, a set whose complement has empty interior when ``u**2``
    is a nonzero polynomial in the positions; the matrix the facts are about is then proved
    continuous (below), ``sinc`` is continuous, so both continuous extensions agree everywhere.
    """
    arguments = {node.args[0] for b in blocks for node in b.atoms(sp.sinc)
                 if node.args[0].free_symbols & set(axes)}
    if not arguments:
        return list(blocks), []
    for u in arguments:
        square = sp.expand(u ** 2)
        if square == 0 or not square.is_polynomial(*axes):
            raise NotExponential(f"sinc({u}) does not vanish only on a thin set")
    rewritten = [sp.ImmutableMatrix(b.replace(sp.sinc, lambda u: sp.sin(u) / u)) for b in blocks]
    return rewritten, ["sinc(u) -> sin(u)/u (equal where u != 0)"]


def _without_abs(blocks, axes, decide):
    """``|p_k|`` replaced by ``p_k`` in every entry proved even in it (see the module notes)."""
    facts, verdicts, rewritten = [], [], list(blocks)
    for axis in axes:
        absolute = sp.Abs(axis)
        if not any(b.has(absolute) for b in rewritten):
            continue
        stand_in = sp.Dummy("a", real=True)
        free = [sp.ImmutableMatrix(b.xreplace({absolute: stand_in})) for b in rewritten]
        if any(b.has(sp.Abs) and any(axis in n.free_symbols for n in b.atoms(sp.Abs))
               for b in free):
            raise NotExponential(f"|.| of an expression in {axis} other than |{axis}|")
        even = decide(block_claim([b.xreplace({stand_in: -stand_in}) for b in free]),
                      block_claim(free), False)
        verdicts.append(even)
        if not even.proved:
            raise NotExponential(f"the entries are not proved even in |{axis}|")
        rewritten = [sp.ImmutableMatrix(b.xreplace({stand_in: axis})) for b in free]
        facts.append(f"|{symbol_name(axis)}| -> {symbol_name(axis)} (every entry even in |{symbol_name(axis)}|)")
    return rewritten, facts, verdicts


def _continuous(name, blocks, axes) -> list:
    """Continuity of the matrix the facts are about: by structure, or removable points only."""
    entries = [e for b in blocks for e in b if continuity_obstacle(e, axes) is not None]
    if not entries:
        return []
    if len(axes) != 1:
        raise NotExponential(f"{name} is not continuous by structure")
    evidence = continuous_extensions(entries, axes[0])
    if evidence is None:
        raise NotExponential(f"{name} is not proved continuous")
    return [f"{name} continuous: " + evidence]


def _at_origin(matrix, axes) -> sp.ImmutableMatrix:
    """The matrix at position 0 (its continuous extension there: a limit where 0/0)."""
    value = value_at_origin(matrix, axes)
    if value is None:
        raise NotExponential("the value at position 0 is undefined and has no limit")
    return value
