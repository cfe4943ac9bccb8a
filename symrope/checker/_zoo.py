"""The zoo: built-in encodings, each with the verdicts it must get.

Every entry is written as a user would write it (query and key functions of a content vector
and a position, or the matrices F and G), so the zoo exercises the checker end to end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import sympy as sp

from symrope.engine import PROVED as P, REFUTED as R
from symrope.errors import UsageError
from symrope.checker._encoding import Encoding
from symrope.linalg import rotate_half_layout, rotate_pairs, rotation, so3_exponential
from symrope.schedules import rope_frequencies, xpos_scales

__all__ = ["ZOO", "ZooEntry", "zoo_encoding"]


@dataclass(frozen=True)
class ZooEntry:
    """A built-in encoding, what it illustrates, and the four verdicts it must get."""

    name: str
    description: str
    build: Callable[[], Encoding]
    expected: tuple[str, str, str, str]  # linearity, translation, identity, continuity

    @property
    def expected_verdicts(self) -> dict:
        names = ("linearity", "translation_invariance", "identity_at_zero", "continuity")
        return dict(zip(names, self.expected))


def _rope(name, d, theta=10000, layout="interleaved"):
    omega = rope_frequencies(d, theta)
    turn = rotate_pairs if layout == "interleaved" else rotate_half_layout

    def encode(x, p):
        return turn(x, [p * w for w in omega])

    return lambda: Encoding(name, d, encode, encode)


def _partial_rotary(d=8, fraction=sp.Rational(1, 2), theta=10000):
    rotary = int(d * fraction)
    omega = rope_frequencies(rotary, theta)

    def encode(x, p):  # GPT-NeoX: rotate_half on the first rotary dims, the rest pass through
        head = rotate_half_layout(x[:rotary, :], [p * w for w in omega])
        return sp.Matrix.vstack(head, sp.Matrix(x[rotary:, :]))

    return lambda: Encoding("partial_rotary", d, encode, encode)


def _xpos(name, d=8, scale_base=512, identical=False):
    omega, zeta = rope_frequencies(d), xpos_scales(d)

    def scaled(sign):
        def encode(x, p):
            rotated = rotate_pairs(x, [p * w for w in omega])
            factors = [z ** (sign * p / scale_base) for z in zeta for _ in range(2)]
            return sp.Matrix([f * v for f, v in zip(factors, rotated)])
        return encode

    key_sign = 1 if identical else -1
    return lambda: Encoding(name, d, scaled(1), scaled(key_sign))


def _matrices(name, F, G, position_dims=1):
    return lambda: Encoding.from_matrices(name, F, G, position_dims)


def _uniform_scale():
    factor = sp.log(4) / 10 + 1  # YaRN's attention factor 0.1 ln(s) + 1 for s = 4
    return _matrices("yarn_attention_factor", lambda p: factor * rotation(p),
                     lambda p: factor * rotation(p))


def _longrope_factor():
    factor = sp.sqrt(1 + sp.log(4) / sp.log(4096))  # LongRoPE: sqrt(1 + ln s / ln L), s = 4
    return _matrices("longrope_attention_factor", lambda p: factor * rotation(p),
                     lambda p: factor * rotation(p))


def _deepseek_mla():
    mscale = sp.log(40) / 10 + 1  # YaRN mscale of DeepSeek-V3 (factor 40), squared in softmax

    def F(p):  # decoupled RoPE: two content (nope) channels pass, two rope channels turn
        return mscale * sp.diag(sp.eye(2), rotation(p))

    return _matrices("deepseek_mla", F, F)


def _absolute_sinusoidal(d=4, theta=10000):
    omega = rope_frequencies(d, theta)

    def encode(x, p):  # Vaswani et al.: the position's sinusoid is added to the content
        table = [f(p * w) for w in omega for f in (sp.sin, sp.cos)]
        return sp.Matrix([x[i] + table[i] for i in range(d)])

    return lambda: Encoding("absolute_sinusoidal", d, encode, encode)


def _jordan():
    def G(p):
        return sp.exp(-p / 2) * sp.Matrix([[1, p], [0, 1]])  # e^{pX}, X = [[-1/2, 1], [0, -1/2]]

    return _matrices("jordan_block", lambda p: G(-p).T, G)


def _non_normal():
    def G(p):  # e^{pX} for X = [[0, -4], [1, 0]]: eigenvalues +-2i, X X^T != X^T X
        return sp.Matrix([[sp.cos(2 * p), -2 * sp.sin(2 * p)], [sp.sin(2 * p) / 2, sp.cos(2 * p)]])

    return _matrices("non_normal_rotation", lambda p: G(-p).T, G)


def _alibi(content=2):
    def F(p):
        return sp.diag(sp.eye(content), sp.Matrix([[1, 0], [-p, 1]]))

    def G(p):
        return sp.diag(sp.eye(content), sp.Matrix([[1, p], [0, 1]]))

    return _matrices("alibi", F, G)


def _axial_2d(d=8, theta=100):
    half = d // 2
    omega = rope_frequencies(half, theta)

    def encode(x, p):
        first = rotate_pairs(x[:half, :], [p[0] * w for w in omega])
        second = rotate_pairs(x[half:, :], [p[1] * w for w in omega])
        return sp.Matrix.vstack(first, second)

    return lambda: Encoding("rope_2d_axial", d, encode, encode, position_dims=2)


def _mixed_2d(d=4):
    along_x = [sp.Integer(1), sp.Rational(1, 3)]
    along_y = [sp.Rational(1, 2), sp.Rational(2, 5)]

    def encode(x, p):  # RoPE-Mixed (Heo et al. 2024): each pair turns by p . (wx_i, wy_i)
        return rotate_pairs(x, [p[0] * a + p[1] * b for a, b in zip(along_x, along_y)])

    return lambda: Encoding("rope_2d_mixed", d, encode, encode, position_dims=2)


def _liere():
    return _matrices("liere_so3", lambda p: so3_exponential(*p), lambda p: so3_exponential(*p),
                     position_dims=2)


_ENTRIES = [
    ZooEntry("rope", "RoPE, interleaved pairs, d = 8, theta = 10000", _rope("rope", 8), (P, P, P, P)),
    ZooEntry("rope_rotate_half", "RoPE, HF rotate_half layout, d = 8, theta = 10000",
             _rope("rope_rotate_half", 8, layout="rotate_half"), (P, P, P, P)),
    ZooEntry("rope_d64", "RoPE, interleaved, d = 64, theta = 10000 (the speed target)",
             _rope("rope_d64", 64), (P, P, P, P)),
    ZooEntry("rope_d16_theta500000", "RoPE, rotate_half, d = 16, theta = 500000 (Llama 3 base)",
             _rope("rope_d16_theta500000", 16, 500000, "rotate_half"), (P, P, P, P)),
    ZooEntry("rope_symbolic_theta", "RoPE, interleaved, d = 6, symbolic base theta > 0",
             _rope("rope_symbolic_theta", 6, sp.Symbol("theta", positive=True)), (P, P, P, P)),
    ZooEntry("partial_rotary", "GPT-NeoX partial rotary: half of d = 8 rotates, half passes",
             _partial_rotary(), (P, P, P, P)),
    ZooEntry("xpos", "xPos: RoPE times zeta_i^(+-p/512), gamma = 0.4, d = 8",
             _xpos("xpos"), (P, P, P, P)),
    ZooEntry("identical_damping", "xPos scales applied identically to q and k (depends on s + t)",
             _xpos("identical_damping", identical=True), (P, R, R, P)),
    ZooEntry("pure_decay", "q scaled by e^(s/4), k by e^(-t/4): H(d) = e^(-d/4)",
             _matrices("pure_decay", lambda p: sp.exp(p / 4) * sp.eye(2),
                       lambda p: sp.exp(-p / 4) * sp.eye(2)), (P, P, P, P)),
    ZooEntry("nope", "no positional encoding", _matrices("nope", lambda p: sp.eye(4),
                                                          lambda p: sp.eye(4)), (P, P, P, P)),
    ZooEntry("nilpotent_shear", "G(p) = e^(pN), N = [[0, 1], [0, 0]]: H(d) = I + dN",
             _matrices("nilpotent_shear", lambda p: sp.Matrix([[1, 0], [-p, 1]]),
                       lambda p: sp.Matrix([[1, p], [0, 1]])), (P, P, P, P)),
    ZooEntry("alibi", "ALiBi's linear bias realised exactly on two extra coordinates",
             _alibi(), (P, P, P, P)),
    ZooEntry("jordan_block", "generator [[-1/2, 1], [0, -1/2]]: H(d) = e^(-d/2) (I + dN)",
             _jordan(), (P, P, P, P)),
    ZooEntry("non_normal_rotation", "generator [[0, -4], [1, 0]]: eigenvalues +-2i, not normal",
             _non_normal(), (P, P, P, P)),
    ZooEntry("absolute_sinusoidal", "Vaswani et al.: sinusoid added to the content, d = 4",
             _absolute_sinusoidal(), (R, R, R, P)),
    ZooEntry("q_rotated_only", "the query is rotated, the key is not",
             _matrices("q_rotated_only", rotation, lambda p: sp.eye(2)), (P, R, R, P)),
    ZooEntry("transpose_mistake", "the query uses R(p)^T where R(p) was meant",
             _matrices("transpose_mistake", lambda p: rotation(p).T, rotation), (P, R, R, P)),
    ZooEntry("mismatched_frequencies", "query turns at frequency 1, key at frequency 2",
             _matrices("mismatched_frequencies", rotation, lambda p: rotation(2 * p)),
             (P, R, R, P)),
    ZooEntry("quadratic_angle", "angle p^2 / 10 instead of p / 10",
             _matrices("quadratic_angle", lambda p: rotation(p ** 2 / 10),
                       lambda p: rotation(p ** 2 / 10)), (P, R, P, P)),
    ZooEntry("floor_bucketed", "angle floor(p) / 10: positions bucketed to integers",
             _matrices("floor_bucketed", lambda p: rotation(sp.floor(p) / 10),
                       lambda p: rotation(sp.floor(p) / 10)), (P, R, P, R)),
    ZooEntry("yarn_attention_factor", "RoPE times YaRN's attention factor 0.1 ln 4 + 1 on q and k",
             _uniform_scale(), (P, P, R, P)),
    ZooEntry("longrope_attention_factor", "RoPE times LongRoPE's factor sqrt(1 + ln 4 / ln 4096)",
             _longrope_factor(), (P, P, R, P)),
    ZooEntry("deepseek_mla", "DeepSeek MLA: nope channels pass, rope channels turn, YaRN mscale",
             _deepseek_mla(), (P, P, R, P)),
    ZooEntry("constant_offset", "F = G = R(p + 1): a constant position offset, still RoPE",
             _matrices("constant_offset", lambda p: rotation(p + 1), lambda p: rotation(p + 1)),
             (P, P, P, P)),
    ZooEntry("rope_2d_axial", "2D axial RoPE: half the pairs turn with x, half with y, d = 8",
             _axial_2d(), (P, P, P, P)),
    ZooEntry("rope_2d_mixed", "2D mixed RoPE: every pair turns with both x and y, d = 4",
             _mixed_2d(), (P, P, P, P)),
    ZooEntry("liere_so3", "LieRE-style exp(r1 L_z + r2 L_x) in so(3): generators do not commute",
             _liere(), (P, R, P, P)),
]

ZOO: dict[str, ZooEntry] = {entry.name: entry for entry in _ENTRIES}


def zoo_encoding(name: str) -> Encoding:
    """The zoo's encoding called ``name`` (``symrope check --list`` shows them)."""
    if name not in ZOO:
        raise UsageError(f"no zoo encoding named {name!r}; 'symrope check --list' shows the "
                         f"{len(ZOO)} built-in encodings")
    return ZOO[name].build()
