"""Shared pieces of the kernel (Coq) tests: coqc availability and a reader for printed Coq terms.

The reader turns a statement printed by :mod:`symrope.kernel._translate` back into SymPy, so
tests can evaluate the Coq statement and the SymPy claim at the same rational points: the
translation is the trusted part of kernel checking, and this is how it is tested.
"""

from __future__ import annotations

import re

import sympy as sp
from ci_support import missing
from test_latex_support import require_tool

_TOKEN = re.compile(r"\s*(\(|\)|[A-Za-z_][A-Za-z0-9_']*|-?\d+|[-+*/^])")
_FUNCTIONS = {"cos": sp.cos, "sin": sp.sin, "exp": sp.exp, "ln": sp.log, "sqrt": sp.sqrt,
              "IZR": lambda n: n, "Rpower": lambda b, e: b ** e,
              # the preamble's definition, (-1)^x only at integers: read as defined
              "symrope_sign": lambda x: sp.cos(sp.pi * x)}


def require_coqc() -> str:
    """coqc's path; skip without it (outside CI), fail without it under CI."""
    return require_tool("coqc")


def require_mathcomp() -> None:
    """MathComp's matrices for coqc; skip without them (outside CI), fail under CI."""
    from symrope.kernel._coqc import mathcomp_available

    if not mathcomp_available(require_coqc()):
        missing("MathComp (libcoq-mathcomp-algebra) is not installed",
                ".ci/run must install libcoq-mathcomp-algebra")


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            raise ValueError(f"cannot read Coq text at {text[position:position + 20]!r}")
        tokens.append(match.group(1))
        position = match.end()
    return tokens


def read_coq_term(text: str, symbols: dict):
    """The SymPy expression for a fully parenthesised Coq term over R (as symrope prints them).

    ``symbols`` maps Coq identifiers to SymPy symbols.
    """
    tokens = _tokens(text)
    position = 0

    def item():
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "(":
            parts = []
            while tokens[position] != ")":
                if tokens[position] in "+*/^" or (tokens[position] == "-" and parts):
                    parts.append(tokens[position])
                    position += 1
                elif tokens[position] == "-" and not parts:
                    parts.append("neg")
                    position += 1
                else:
                    parts.append(item())
            position += 1
            return combine(parts)
        if token == "PI":
            return sp.pi
        if re.fullmatch(r"-?\d+", token):
            return sp.Integer(int(token))
        if token in _FUNCTIONS:
            return token
        return symbols[token]

    def combine(parts):
        if len(parts) == 1:
            return parts[0]
        if parts[0] == "neg":
            return -parts[1]
        if parts[0] == "/" and len(parts) == 2:
            return 1 / parts[1]
        if isinstance(parts[0], str) and parts[0] in _FUNCTIONS:
            return _FUNCTIONS[parts[0]](*parts[1:])
        if len(parts) == 3:
            a, op, b = parts
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                    "/": lambda: a / b, "^": lambda: a ** b}[op]()
        raise ValueError(f"unexpected Coq term shape {parts!r}")

    result = item() if tokens[0] == "(" else combine([item() for _ in range(len(tokens))])
    return result
