"""Block-diagonal claims, decided block by block, with one proof per block *template*.

A claim such as ``R_d(s)^T R_d(t) = R_d(t - s)`` for RoPE is, block by block, the same
formula with a different constant (the frequency ``theta**(-2i/d)``). Each block claim is kept
as a small unevaluated description (products, sums, transposes, inverses of explicit blocks),
and blocks whose descriptions agree up to their constants share a *key*. For a group of such
blocks the description is instantiated once with symbolic constants and proved; a proof for
symbolic constants holds for every block of the group. Only groups whose template cannot be
proved are decided block by block. Nothing of size d x d is ever built.

Keys only *group*; they are not the argument. The template's constants are ``Dummy`` symbols
(which no user symbol can equal, whatever its name), and a block or entry counts as proved by
its group's template only when the template, instantiated with that member's own constants, is
structurally identical to the member (:func:`is_instance`); any other member is decided on its
own.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["BlockClaim", "block_claims", "explicit", "claim_key", "expression_key", "evaluate",
           "with_symbolic_constants", "abstract_constants", "is_constant", "template_of",
           "is_instance"]

LEAF, MUL, ADD, TRANSPOSE, INVERSE = "leaf", "mul", "add", "T", "inv"


class BlockClaim:
    """The claim for diagonal block ``index``: ``lhs = rhs``, both as descriptions.

    ``offset`` is the block's first row in the whole matrix when the blocks are not the
    claim's own (its partitions were regrouped), so an entry can be named by its row and column.
    """

    __slots__ = ("index", "lhs", "rhs", "offset")

    def __init__(self, index, lhs, rhs, offset=None):
        self.index, self.lhs, self.rhs, self.offset = index, lhs, rhs, offset


def _describe(side):
    """Per-block descriptions of a block-diagonal matrix expression, or None."""
    if isinstance(side, sp.BlockDiagMatrix):
        return [(LEAF, sp.ImmutableMatrix(b.as_explicit())) for b in side.diag]
    if isinstance(side, (sp.Transpose, sp.Inverse)):
        inner = _describe(side.arg)
        tag = TRANSPOSE if isinstance(side, sp.Transpose) else INVERSE
        return None if inner is None else [(tag, b) for b in inner]
    if isinstance(side, (sp.MatMul, sp.MatAdd)):
        scalars, parts = [], []
        for arg in side.args:
            if isinstance(arg, (sp.MatrixBase, sp.MatrixExpr)):
                described = _describe(arg)
                if described is None:
                    return None
                parts.append(described)
            else:
                scalars.append(arg)
        if not parts or len({len(p) for p in parts}) != 1:
            return None
        scalar = sp.Mul(*scalars)
        if isinstance(side, sp.MatAdd):
            return [(ADD, scalar, tuple(p)) for p in zip(*parts)]
        return [(MUL, scalar, tuple(p)) for p in zip(*parts)]
    return None


def block_claims(lhs: object, rhs: object) -> list[BlockClaim] | None:
    """One claim per diagonal block when both sides are block diagonal with equal block shapes.

    Block-diagonal factors whose partitions do not line up (``diag(2x2, 3x3)`` times
    ``diag(3x3, 2x2)``) are first regrouped on their common coarsening (here one 5x5 block);
    None when the sides are not block diagonal or a block is not square.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._blocks import block_claims
    >>> x = sp.Symbol("x")
    >>> M1 = sp.BlockDiagMatrix(sp.eye(2) * x, sp.eye(3), sp.eye(1))
    >>> M2 = sp.BlockDiagMatrix(sp.eye(3), sp.eye(2) * x, sp.eye(1))
    >>> [(evaluate_shape(c.lhs), c.offset) for c in block_claims(M1 * M2, M2 * M1)]
    [((5, 5), 0), ((1, 1), 5)]
    """
    aligned_lhs, aligned_rhs = _aligned(lhs, rhs)
    left, right = _describe(aligned_lhs), _describe(aligned_rhs)
    if left is None or right is None or len(left) != len(right):
        return None
    claims = [BlockClaim(k, a, b) for k, (a, b) in enumerate(zip(left, right))]
    offset = 0
    for claim in claims:
        shape = evaluate_shape(claim.lhs)
        if shape is None or shape != evaluate_shape(claim.rhs):
            return None
        if aligned_lhs is not lhs or aligned_rhs is not rhs:
            claim.offset = offset
            offset += shape[0]
    return claims


def _boundaries(node) -> tuple | None:
    """The cumulative block boundaries of a BlockDiagMatrix of square blocks, else None."""
    ends, end = [0], 0
    for block in node.diag:
        rows, cols = block.shape
        if rows != cols or not getattr(rows, "is_Integer", isinstance(rows, int)):
            return None
        end += int(rows)
        ends.append(end)
    return tuple(ends)


def _regrouped(node, boundaries: set):
    """``node`` with consecutive blocks merged so that blocks end only at ``boundaries``."""
    merged, current, end = [], [], 0
    for block in node.diag:
        current.append(block)
        end += int(block.shape[0])
        if end in boundaries:
            merged.append(current[0] if len(current) == 1 else
                          sp.ImmutableMatrix(sp.BlockDiagMatrix(*current).as_explicit()))
            current = []
    return sp.BlockDiagMatrix(*merged)


def _aligned(lhs, rhs):
    """Both sides with every BlockDiagMatrix regrouped on the partitions' common coarsening."""
    nodes = set()
    for side in (lhs, rhs):
        if isinstance(side, sp.Basic):
            nodes |= side.atoms(sp.BlockDiagMatrix)
    partitions = {node: _boundaries(node) for node in nodes}
    if len(set(partitions.values())) <= 1 or None in partitions.values():
        return lhs, rhs
    common = set.intersection(*(set(p) for p in partitions.values()))
    mapping = {node: _regrouped(node, common) for node in nodes}
    return (lhs.xreplace(mapping) if isinstance(lhs, sp.Basic) else lhs,
            rhs.xreplace(mapping) if isinstance(rhs, sp.Basic) else rhs)


def explicit(side) -> sp.ImmutableMatrix:
    """An explicit matrix for a matrix expression of explicit pieces, multiplied out directly.

    SymPy's ``as_explicit`` of a product builds each entry as a symbolic ``Sum`` and evaluates
    it: seconds for a 5x5 product of block matrices. Products, sums, transposes and inverses of
    explicit and block-diagonal matrices are multiplied here instead; anything else falls back
    to ``as_explicit``.
    """
    if isinstance(side, sp.MatrixBase):
        return sp.ImmutableMatrix(side)
    if isinstance(side, sp.BlockDiagMatrix):
        return sp.ImmutableMatrix(sp.diag(*[explicit(b) for b in side.diag]))
    if isinstance(side, sp.Transpose):
        return explicit(side.arg).T
    if isinstance(side, sp.Inverse):
        return explicit(side.arg).inv()
    if isinstance(side, (sp.MatMul, sp.MatAdd)):
        scalars = [a for a in side.args if not isinstance(a, (sp.MatrixBase, sp.MatrixExpr))]
        parts = [explicit(a) for a in side.args if isinstance(a, (sp.MatrixBase, sp.MatrixExpr))]
        total = parts[0]
        for part in parts[1:]:
            total = total * part if isinstance(side, sp.MatMul) else total + part
        return sp.ImmutableMatrix(sp.Mul(*scalars) * total)
    return sp.ImmutableMatrix(side.as_explicit())


def evaluate_shape(description):
    tag = description[0]
    if tag == LEAF:
        return description[1].shape
    if tag == TRANSPOSE:
        rows, cols = evaluate_shape(description[1])
        return cols, rows
    if tag == INVERSE:
        return evaluate_shape(description[1])
    shapes = [evaluate_shape(p) for p in description[2]]
    if tag == ADD:
        return shapes[0] if len(set(shapes)) == 1 else None
    rows, cols = shapes[0]
    for inner_rows, inner_cols in shapes[1:]:
        if inner_rows != cols:
            return None
        cols = inner_cols
    return rows, cols


def evaluate(description: sp.Basic) -> sp.ImmutableMatrix:
    """The explicit block a description stands for."""
    tag = description[0]
    if tag == LEAF:
        return description[1]
    if tag == TRANSPOSE:
        return evaluate(description[1]).T
    if tag == INVERSE:
        return evaluate(description[1]).inv()
    scalar, parts = description[1], [evaluate(p) for p in description[2]]
    if tag == ADD:
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        return sp.ImmutableMatrix(scalar * total)
    product = parts[0]
    for part in parts[1:]:
        product = product * part
    return sp.ImmutableMatrix(scalar * product)


def _leaves(description):
    tag = description[0]
    if tag == LEAF:
        yield description[1]
    elif tag in (TRANSPOSE, INVERSE):
        yield from _leaves(description[1])
    else:
        yield description[1]
        for part in description[2]:
            yield from _leaves(part)


def is_constant(e, memo: dict) -> bool:
    """``e`` has no free symbols and is a number; memoised, since SymPy recomputes free_symbols."""
    known = memo.get(e)
    if known is None:
        if e.is_Atom:
            known = bool(e.is_number)
        else:
            known = isinstance(e, sp.Expr) and not isinstance(e, sp.core.function.AppliedUndef) \
                and all(is_constant(a, memo) for a in e.args)
        memo[e] = known
    return known


def keeps_concrete(e) -> bool:
    """Constants that stay as they are in templates: integers, floats, pi, E, I.

    Fractions become template constants too, so RoPE blocks whose frequencies are 1/10, 1/100...
    (or theta**(-2i/d) for a symbolic theta, where -2i/d is the fraction) share one template.
    Integers stay, so that x**2 stays a square.
    """
    return e.is_Atom and not (e.is_Rational and not e.is_Integer)


def _atom_key(e) -> str:
    """An exact, unambiguous name for an atom: no two different atoms share one.

    ``str`` is not enough: it prints Floats to 15 digits (0.5 and 0.5 + 2**-53 would agree) and
    a ``Dummy`` like a ``Symbol`` of the same name.
    """
    if e.is_Symbol:
        index = f"#{e.dummy_index}" if isinstance(e, sp.Dummy) else ""
        return f"{type(e).__name__}[{e.name}{index}{sorted(e.assumptions0.items())}]"
    if isinstance(e, sp.Float):
        return f"Float[{e._mpf_}]"
    return sp.srepr(e)


class _Keyer:
    """Serialises expressions with constants in numbered slots (see :func:`claim_key`)."""

    def __init__(self, memo: dict, facts: dict):
        self.memo, self.facts, self.slots, self.out = memo, facts, {}, []

    def slot(self, constant):
        if constant not in self.slots:
            if constant not in self.facts:
                real = constant.is_extended_real is True and constant.is_finite is not False
                self.facts[constant] = ("+" if constant.is_positive is True else "") + \
                    ("r" if real else "")
            self.slots[constant] = f"C{len(self.slots)}{self.facts[constant]}"
        self.out.append(self.slots[constant])

    def expression(self, e):
        if not isinstance(e, sp.Basic):
            self.out.append(repr(e))
        elif is_constant(e, self.memo) and not keeps_concrete(e):
            self.slot(e)
        elif e.is_Atom:
            self.out.append(_atom_key(e))
        else:
            self.out.append(f"{type(e).__name__}(")
            fixed = [a for a in e.args if is_constant(a, self.memo)] if (e.is_Mul or e.is_Add) else []
            if len(fixed) > 1:
                combined = e.func(*fixed)
                if keeps_concrete(combined):
                    self.out.append(_atom_key(combined))
                else:
                    self.slot(combined)
                for a in e.args:
                    if not is_constant(a, self.memo):
                        self.expression(a)
            else:
                for a in e.args:
                    self.expression(a)
            self.out.append(")")

    def description(self, d):
        tag = d[0]
        self.out.append(f"<{tag}")
        if tag == LEAF:
            self.out.append(str(d[1].shape))
            for entry in d[1]:
                self.expression(entry)
        elif tag in (TRANSPOSE, INVERSE):
            self.description(d[1])
        else:
            self.expression(d[1])
            for part in d[2]:
                self.description(part)
        self.out.append(">")


def claim_key(claim: BlockClaim, memo: dict, facts: dict) -> str:
    """A string equal for two block claims exactly when they are one template.

    The description is serialised with every maximal non-atomic constant subexpression (and the
    product or sum of the constant factors of a Mul or Add) replaced by a numbered slot, so equal
    keys mean the same tree with constants in the same places, equal constants in equal places,
    and the same sign and reality facts for each. No SymPy object is built, so keys are cheap.
    """
    keyer = _Keyer(memo, facts)
    keyer.description(claim.lhs)
    keyer.out.append("=")
    keyer.description(claim.rhs)
    return " ".join(keyer.out)


def expression_key(expr, memo: dict, facts: dict) -> tuple[str, int]:
    """:func:`claim_key` for a single scalar expression, with the number of constant slots."""
    keyer = _Keyer(memo, facts)
    keyer.expression(expr)
    return " ".join(keyer.out), len(keyer.slots)


class _Abstractor:
    """Replaces constants by ``Dummy`` symbols carrying their sign facts, in traversal order.

    ``symbols`` maps each constant to its Dummy in the order first met, so two trees of the
    same shape list their constants in corresponding order (see :func:`is_instance`).
    """

    def __init__(self, memo: dict):
        self.memo, self.symbols = memo, {}

    def symbol_for(self, constant):
        # SymPy distributes a rational omega over t - s as omega*t + (-omega)*s: -omega is the
        # negation of omega's slot, not a second constant, or no template would hold.
        if constant not in self.symbols and constant.is_Rational and -constant in self.symbols:
            return -self.symbols[-constant]
        if constant not in self.symbols:
            facts = {"positive": constant.is_positive is True,
                     "real": constant.is_extended_real is True and constant.is_finite is not False}
            # A Dummy, never a Symbol: a user's own c_0 must not be taken for a template slot.
            self.symbols[constant] = sp.Dummy(f"c_{len(self.symbols)}",
                                              **{k: True for k, v in facts.items() if v})
        return self.symbols[constant]

    def expression(self, e):
        if not isinstance(e, sp.Basic):
            return e
        if is_constant(e, self.memo) and not keeps_concrete(e):
            return self.symbol_for(e)
        if e.is_Atom:
            return e
        if e.is_Mul or e.is_Add:
            fixed = [a for a in e.args if is_constant(a, self.memo)]
            if len(fixed) > 1:
                combined = e.func(*fixed)
                head = combined if keeps_concrete(combined) else self.symbol_for(combined)
                return e.func(head, *[self.expression(a) for a in e.args
                                      if not is_constant(a, self.memo)])
        return e.func(*[self.expression(a) for a in e.args])

    def description(self, d):
        tag = d[0]
        if tag == LEAF:
            rows, cols = d[1].shape
            return (LEAF, sp.ImmutableMatrix(rows, cols, [self.expression(x) for x in d[1]]))
        if tag in (TRANSPOSE, INVERSE):
            return (tag, self.description(d[1]))
        return (tag, self.expression(d[1]), tuple(self.description(p) for p in d[2]))


def with_symbolic_constants(claim: BlockClaim, memo: dict) -> BlockClaim:
    """The claim with each constant replaced by a symbol carrying the constant's sign facts.

    A claim proved for these symbols holds for every block with the same :func:`claim_key`.
    """
    abstractor = _Abstractor(memo)
    return BlockClaim(claim.index, abstractor.description(claim.lhs),
                      abstractor.description(claim.rhs), claim.offset)


def abstract_constants(expr, memo: dict | None = None):
    """``expr`` with constants replaced by symbols: the template shared by one :func:`expression_key`."""
    return _Abstractor({} if memo is None else memo).expression(expr)


def _abstract(thing, memo: dict):
    abstractor = _Abstractor(memo)
    if isinstance(thing, BlockClaim):
        abstracted = BlockClaim(thing.index, abstractor.description(thing.lhs),
                                abstractor.description(thing.rhs), thing.offset)
    else:
        abstracted = abstractor.expression(thing)
    return abstracted, abstractor.symbols


def template_of(thing, memo: dict):
    """``(template, slots)``: ``thing`` (an expression or a BlockClaim) with Dummy constants.

    ``slots`` lists the Dummies in traversal order; :func:`is_instance` decides membership.
    """
    template, symbols = _abstract(thing, memo)
    return template, tuple(symbols.values())


def _instantiate_description(d, mapping):
    tag = d[0]
    if tag == LEAF:
        return (LEAF, d[1].xreplace(mapping))
    if tag in (TRANSPOSE, INVERSE):
        return (tag, _instantiate_description(d[1], mapping))
    return (tag, sp.sympify(d[1]).xreplace(mapping),
            tuple(_instantiate_description(p, mapping) for p in d[2]))


def _facts_hold(slot, constant) -> bool:
    """The member's constant has every fact the template's Dummy was proved under."""
    if slot.is_positive and constant.is_positive is not True:
        return False
    if slot.is_real and not (constant.is_extended_real is True and constant.is_finite is not False):
        return False
    return True


def is_instance(template, slots, member, memo: dict) -> bool:
    """True when ``template`` with its ``slots`` set to ``member``'s constants *is* ``member``.

    The check is structural (SymPy ``==`` on the instantiated tree), and each constant must
    satisfy the facts its slot was proved under, so a proof of the template is a proof of the
    member. Anything else (a different shape, a different pattern of equal constants, a
    negative constant in a positive slot) is not an instance.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.engine._blocks import template_of, is_instance
    >>> x, c_0 = sp.symbols('x c_0', real=True)
    >>> template, slots = template_of(sp.sin(x / 3) - x / 3, {})
    >>> is_instance(template, slots, sp.sin(x / 5) - x / 5, {})
    True
    >>> is_instance(template, slots, sp.sin(x / 5) - x**2 / 5, {})
    False
    >>> is_instance(template, slots, sp.sin(x * c_0) - x * c_0, {})
    False
    """
    _, symbols = _abstract(member, memo)
    constants = list(symbols)
    if len(constants) != len(slots):
        return False
    if not all(_facts_hold(slot, constant) for slot, constant in zip(slots, constants)):
        return False
    mapping = dict(zip(slots, constants))
    if isinstance(member, BlockClaim):
        lhs = _instantiate_description(template.lhs, mapping)
        rhs = _instantiate_description(template.rhs, mapping)
        if lhs == member.lhs and rhs == member.rhs:
            return True
        # Instantiating evaluates constants a theorem keeps unevaluated for display
        # (Pow(10000, -1/16, evaluate=False) becomes 10**(-1/4)): compare with the member
        # evaluated the same way. doit() preserves values, so the template still covers it.
        return lhs == _evaluated_description(member.lhs) and rhs == _evaluated_description(
            member.rhs)
    instantiated = sp.sympify(template).xreplace(mapping)
    return instantiated == member or instantiated == _evaluated(member)


def _evaluated(expr):
    return expr.doit(deep=True) if isinstance(expr, sp.Basic) else expr


def _evaluated_description(d):
    tag = d[0]
    if tag == LEAF:
        return (LEAF, d[1].applyfunc(_evaluated))
    if tag in (TRANSPOSE, INVERSE):
        return (tag, _evaluated_description(d[1]))
    return (tag, _evaluated(sp.sympify(d[1])), tuple(_evaluated_description(p) for p in d[2]))
