"""What one lifted encoding is, read off its exact rows: F(p), G(p), blocks, planes, factors.

A per-token lift gives token 0's ``q_rot`` and ``k_rot`` as exact expressions in its content
symbols ``x``, ``y`` and position ``p``. When they are linear in the content (each output's
gradient in the content is free of the content and the output vanishes at zero content), they
are ``F(p) x`` and ``G(p) y``; the coordinates that no nonzero entry connects split into blocks
(only literal zeros count, as in the checker). A 2x2 block whose ``G(0)^{-1} G'(0)`` is
``[[0, -w], [w, 0]]`` is a rotation plane of frequency ``|w|``; its attention factor is the
constant ``c^2`` of ``F(0)^T G(0) = c^2 I``. The reading names differences; the verdicts are
decided on the rows themselves (``_decide.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

__all__ = ["Reading", "Block", "read"]


@dataclass
class Block:
    """Coordinates coupled by the encoding: ``inputs`` of the content, ``outputs`` of q_rot."""

    inputs: tuple
    outputs: tuple
    kind: str = "other"             # "rotation", "pass" (an identity coordinate), "other"
    omega: sp.Expr | None = None    # rotation planes: the exact |frequency| at p = 0
    factor: sp.Expr | None = None   # F(0)^T G(0) = factor * I on the block, when it is
    plane: int | None = None        # index among the side's rotation planes, in layout order
    key: float = 0.0                # a numeric fingerprint for matching

    @property
    def size(self) -> int:
        return len(self.inputs)


@dataclass
class Reading:
    """One side, read: ``F[(out, in)]``, ``G[(out, in)]`` (sparse), its blocks and planes."""

    dim: int
    x: tuple
    y: tuple
    p: tuple
    F: dict
    G: dict
    blocks: list
    linear: bool = True
    reason: str = ""
    numeric: dict = field(default_factory=dict)

    @property
    def planes(self) -> list:
        return [b for b in self.blocks if b.kind == "rotation"]

    @property
    def passed(self) -> list:
        return [b for b in self.blocks if b.kind == "pass"]

    def rotated_channels(self) -> int:
        return 2 * len(self.planes)

    def attention_factor(self):
        """The one ``c^2`` every rotation plane shares, else None."""
        factors = {b.factor for b in self.planes}
        return factors.pop() if len(factors) == 1 else None


def read(encoding) -> Reading:
    """Read token 0 of a lifted encoding (see the module's docstring)."""
    rows = encoding.rows
    x, y, p = tuple(rows.x[0]), tuple(rows.y[0]), tuple(rows.p[0])
    F, why_f = _jacobian(rows.q[0], x, y)
    G, why_g = _jacobian(rows.k[0], y, x)
    if F is None or G is None:
        return Reading(encoding.dim, x, y, p, {}, {}, [], linear=False, reason=why_f or why_g)
    reading = Reading(encoding.dim, x, y, p, F, G, _blocks(F, G, encoding.dim))
    for block in reading.blocks:
        _classify(block, reading)
    for number, block in enumerate(sorted(reading.planes, key=lambda b: b.inputs)):
        block.plane = number
    return reading


def _jacobian(row, own, other):
    """``{(out, in): d row[out] / d own[in]}``, or ``(None, why)`` when not linear in ``own``."""
    index = {s: i for i, s in enumerate(own)}
    content = set(own) | set(other)
    zero = {s: sp.Integer(0) for s in own}
    entries = {}
    for out, expr in enumerate(row):
        present = expr.free_symbols & index.keys()
        for symbol in present:
            coefficient = sp.diff(expr, symbol)
            if coefficient.free_symbols & content:
                return None, (f"output {out} is not linear in the content: its derivative in "
                              f"coordinate {index[symbol]} still depends on the content")
            if coefficient != 0:
                entries[(out, index[symbol])] = coefficient
        if present and expr.xreplace(zero) != 0:
            return None, f"output {out} does not vanish at zero content"
        if not present and expr != 0:
            return None, f"output {out} does not depend on the content (a constant)"
    return entries, ""


def _blocks(F, G, dim) -> list:
    parent = list(range(2 * dim))  # 0..dim-1 inputs, dim..2dim-1 outputs

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for (out, inp) in (*F, *G):
        a, b = find(inp), find(dim + out)
        if a != b:
            parent[a] = b
    groups: dict[int, tuple[list, list]] = {}
    for node in range(2 * dim):
        inputs, outputs = groups.setdefault(find(node), ([], []))
        (inputs if node < dim else outputs).append(node % dim)
    blocks = [Block(tuple(i), tuple(o)) for i, o in groups.values() if i or o]
    return sorted(blocks, key=lambda b: (b.inputs or b.outputs))


def _matrix(entries, block, position, at):
    return sp.Matrix(len(block.outputs), len(block.inputs), lambda r, c: entries.get(
        (block.outputs[r], block.inputs[c]), sp.Integer(0)).xreplace(dict(zip(position, at))))


def _classify(block: Block, reading: Reading) -> None:
    zero = (sp.Integer(0),) * len(reading.p)
    if block.size != len(block.outputs) or block.size == 0:
        return
    f0 = _matrix(reading.F, block, reading.p, zero)
    g0 = _matrix(reading.G, block, reading.p, zero)
    scale = sp.simplify(f0.T * g0) if block.size <= 4 else f0.T * g0
    if scale.is_diagonal() and len(set(scale.diagonal())) == 1:
        block.factor = scale[0, 0]
    if block.size == 1:
        entries = (reading.F.get((block.outputs[0], block.inputs[0])),
                   reading.G.get((block.outputs[0], block.inputs[0])))
        if entries == (1, 1):
            block.kind = "pass"
        return
    if block.size != 2 or len(reading.p) != 1:
        return
    (p,) = reading.p
    g = sp.Matrix(2, 2, lambda r, c: reading.G.get((block.outputs[r], block.inputs[c]),
                                                   sp.Integer(0)))
    try:
        derivative = g.diff(p).xreplace({p: 0})
        if g0.det() == 0:
            return
        generator = sp.simplify(g0.inv() * derivative)
    except (ValueError, TypeError, ZeroDivisionError):
        return
    if generator[0, 0] == 0 and generator[1, 1] == 0 and \
            sp.simplify(generator[0, 1] + generator[1, 0]) == 0 and generator[1, 0] != 0:
        block.kind = "rotation"
        block.omega = sp.Abs(generator[1, 0])


def numeric_block(reading: Reading, block: Block, role: str, position: float) -> np.ndarray:
    """The block's F (``role="q"``) or G at a float position, in float64 (for matching only)."""
    cache = reading.numeric.setdefault((role, position), {})
    entries = reading.F if role == "q" else reading.G
    out = np.zeros((len(block.outputs), len(block.inputs)))
    point = dict(zip(reading.p, (position,) * len(reading.p)))
    for r, o in enumerate(block.outputs):
        for c, i in enumerate(block.inputs):
            expr = entries.get((o, i))
            if expr is None:
                continue
            if (o, i) not in cache:
                cache[(o, i)] = complex(sp.N(expr.xreplace(point), 20)).real
            out[r, c] = cache[(o, i)]
    return out
