"""torch's ops as the tracer meets them: aten op -> the neutral rule it computes, and its operands.

The meaning of each rule is :data:`symrope.lifting._semantics.OPS`' (framework-neutral names:
``cos``, ``floor_divide``, ``where``, ...); this table only says which rule an ``aten`` op is and
how its arguments line up with the rule's (``alpha``, rounding modes, argument orders), which
ops only move data (run on storage indices by :mod:`symrope.lifting._symbolic`), and torch's
dtypes as neutral element types. A new elementwise aten op is one entry of :data:`ATEN` (and,
when it computes something new, one rule in ``OPS``); a JAX tracer keeps its own table of jaxpr
primitives onto the same rules.
"""

from __future__ import annotations

import sympy as sp
import torch

from symrope.lifting import _semantics as semantics

__all__ = ["ATEN", "BITWISE", "EXTRA_RULES", "DATA_MOVEMENT", "DROP_FOR_INDEX_RUN",
           "rule_operands", "number_type"]

aten = torch.ops.aten


NUMBER_TYPES = {torch.bool: semantics.BOOL, torch.float16: semantics.FLOAT16,
                torch.bfloat16: semantics.BFLOAT16, torch.float32: semantics.FLOAT32,
                torch.float64: semantics.FLOAT64, torch.complex64: semantics.COMPLEX64,
                torch.complex128: semantics.COMPLEX128,
                torch.complex32: semantics.NumberType("complex32", "complex", 11)}


def number_type(dtype: torch.dtype) -> semantics.NumberType:
    """torch's dtype as the neutral element type of :mod:`symrope.lifting._semantics`."""
    if dtype in NUMBER_TYPES:
        return NUMBER_TYPES[dtype]
    if dtype.is_floating_point:  # float8 and the like: the significand from finfo
        return semantics.NumberType(str(dtype).removeprefix("torch."), "float",
                                    torch.finfo(dtype).nmant + 1)
    return semantics.NumberType(str(dtype).removeprefix("torch."), "int")


# aten op -> the neutral name of its rule (the meaning lives in _semantics.OPS)
ATEN = {
    aten.add: "add", aten.sub: "sub", aten.rsub: "sub", aten.mul: "mul",
    aten.div: "true_divide", aten.true_divide: "true_divide",
    aten.floor_divide: "floor_divide", aten.remainder: "remainder", aten.fmod: "fmod",
    aten.neg: "neg", aten.pow: "pow", aten.reciprocal: "reciprocal", aten.exp: "exp",
    aten.exp2: "exp2", aten.log: "log", aten.log2: "log2", aten.sqrt: "sqrt",
    aten.rsqrt: "rsqrt", aten.cos: "cos", aten.sin: "sin", aten.tan: "tan",
    aten.atan: "atan", aten.tanh: "tanh", aten.sigmoid: "sigmoid", aten.abs: "abs",
    aten.sign: "sign", aten.trunc: "trunc", aten.fix: "trunc", aten.floor: "floor",
    aten.ceil: "ceil", aten.round: "round", aten.maximum: "maximum", aten.minimum: "minimum",
    aten.clamp: "clamp", aten.clamp_min: "clamp", aten.clamp_max: "clamp",
    aten.gt: "gt", aten.lt: "lt", aten.ge: "ge", aten.le: "le", aten.eq: "eq", aten.ne: "ne",
    aten.logical_and: "logical_and", aten.logical_or: "logical_or",
    aten.logical_not: "logical_not", aten.bitwise_and: "logical_and",
    aten.bitwise_or: "logical_or", aten.bitwise_not: "logical_not",
    aten.where: "where", aten.masked_fill: "where",
    aten.conj_physical: "conj", aten._conj: "conj", aten._conj_physical: "conj",
    aten.resolve_conj: None, aten.resolve_neg: None, aten.positive: None,
    aten.complex: "complex", aten.polar: "polar",
}
BITWISE = (aten.bitwise_and, aten.bitwise_or, aten.bitwise_not)


def rule_operands(func, name, args, kwargs):
    """The op's operands in the rule's order (alpha, rounding modes and argument orders read)."""
    packet, operands = func.overloadpacket, list(args)
    if packet in (aten.add, aten.sub, aten.rsub):
        alpha = operands.pop(2) if len(operands) > 2 else kwargs.get("alpha", 1)
        if packet is aten.rsub:
            operands.reverse()  # rsub(a, b) = b - alpha a
            if alpha != 1:
                return "rsub_alpha", operands + [alpha]
        elif alpha != 1:
            return name + "_alpha", operands + [alpha]
    mode = kwargs.get("rounding_mode")
    if packet is aten.div and mode is not None:
        name = {"floor": "floor_divide", "trunc": "trunc_divide"}[mode]
    if packet is aten.masked_fill:  # masked_fill(a, mask, value) = where(mask, value, a)
        operands = [operands[1], operands[2], operands[0]]
    if packet is aten.clamp_min:
        operands = [operands[0], operands[1], None]
    if packet is aten.clamp_max:
        operands = [operands[0], None, operands[1]]
    if packet is aten.clamp and ("min" in kwargs or "max" in kwargs):
        operands = [operands[0], kwargs.get("min"), kwargs.get("max")]
    if packet is aten.round and (kwargs.get("decimals") or len(operands) > 1):
        return "round_decimals", [operands[0], kwargs.get("decimals", operands[-1])]
    return name, operands


EXTRA_RULES = {
    "add_alpha": lambda a, b, alpha: a + alpha * b,
    "sub_alpha": lambda a, b, alpha: a - alpha * b,
    "rsub_alpha": lambda b, a, alpha: b - alpha * a,
    "round_decimals": lambda a, d: semantics.OPS["round"](a * sp.Integer(10) ** d)
    / sp.Integer(10) ** d,
}


DATA_MOVEMENT = {getattr(aten, n) for n in (
    "view", "_unsafe_view", "reshape", "_reshape_alias", "expand", "unsqueeze", "squeeze",
    "transpose", "permute", "t", "select", "slice", "index", "cat", "stack", "split",
    "split_with_sizes", "unbind", "chunk", "repeat", "repeat_interleave", "clone", "contiguous",
    "detach", "alias", "lift_fresh", "lift_fresh_copy", "flip", "roll", "narrow",
    "as_strided", "diagonal", "movedim", "unfold", "index_select", "gather", "expand_copy",
    "view_copy", "permute_copy", "slice_copy", "select_copy", "transpose_copy",
    "unsqueeze_copy", "squeeze_copy", "_unsafe_index", "tril", "triu")}

DROP_FOR_INDEX_RUN = ("dtype", "layout", "device", "pin_memory", "memory_format",
                       "non_blocking")
