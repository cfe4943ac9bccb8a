"""The jaxpr interpreter behind the JAX tracer (``_jax.py``): one primitive at a time, exactly.

Values are concrete numpy arrays (what the real primitive computes when no input depends on the
symbolic inputs) or :class:`Symbolic` object arrays of SymPy entries. An elementwise primitive
is a rule of :data:`symrope.lifting._semantics.OPS` (the table the torch tracer uses); data
movement runs the real primitive on storage indices; ``dot_general`` and reductions are sums of
exact products; calls, ``cond`` and ``while`` with concrete predicates are followed. Anything
else is a :class:`~symrope.lifting.LiftUndecided` naming the primitive and the source line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sympy as sp

from symrope.errors import InternalError
from symrope.lifting import _semantics as semantics
from symrope.lifting._errors import LiftUndecided
from symrope.lifting._trace import UNKNOWN, location, record_cast

__all__ = ["Interpreter", "Symbolic", "entries", "number_type", "PRIMITIVES"]

_MAX_LOOP = 10_000   # iterations of a while loop with a concrete predicate


# ----------------------------------------------------------------------------- values

class Symbolic:
    """A jaxpr value with SymPy entries: an object array of the aval's shape and its dtype."""

    __slots__ = ("values", "dtype")

    def __init__(self, values: np.ndarray, dtype):
        self.values = values
        self.dtype = np.dtype(dtype)


def _exact_array(array) -> np.ndarray:
    """A concrete array's values as exact SymPy numbers (floats: the rationals of their bits)."""
    array = np.asarray(array)
    if array.dtype.kind == "f" and array.dtype.itemsize <= 8:
        array = array.astype(np.float64)  # exact: bf16, fp16 and fp32 are float64 values
    elif array.dtype.kind == "c":
        array = array.astype(np.complex128)
    out = np.empty(array.shape, dtype=object)
    for index, value in np.ndenumerate(array):
        out[index] = semantics.exact_number(value.item() if hasattr(value, "item") else value)
    return out


def entries(value) -> np.ndarray:
    return value.values if isinstance(value, Symbolic) else _exact_array(value)


def number_type(dtype) -> semantics.NumberType:
    """A JAX/numpy dtype as the neutral element type of :mod:`symrope.lifting._semantics`."""
    dtype = np.dtype(dtype)
    name = dtype.name
    fixed = {"bool": semantics.BOOL, "float16": semantics.FLOAT16,
             "bfloat16": semantics.BFLOAT16, "float32": semantics.FLOAT32,
             "float64": semantics.FLOAT64, "complex64": semantics.COMPLEX64,
             "complex128": semantics.COMPLEX128}
    if name in fixed:
        return fixed[name]
    if dtype.kind in "iu":
        return semantics.NumberType(name, "int")
    import ml_dtypes

    return semantics.NumberType(name, "float", ml_dtypes.finfo(dtype).nmant + 1)


def _object_array(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(object, copy=False)
    array = np.empty((), dtype=object)
    array[()] = value
    return array


# ----------------------------------------------------------------------------- locations

def _location(eqn) -> str:
    """`` at file:line`` of the lifted code that emitted ``eqn`` (the jaxpr's source traceback,
    read by :func:`_trace.location`), else ``""``."""
    traceback = getattr(eqn.source_info, "traceback", None)
    if traceback is None:
        return ""
    try:
        frames = [(f.file_name, f.line_num, f.function_name) for f in traceback.frames]
    except Exception:  # noqa: BLE001 - jaxlib's Traceback: a location is a courtesy, never a failure
        return ""
    return location(frames)


# ----------------------------------------------------------------------------- the tables

def _division(dtype) -> str:
    return "true_divide" if np.dtype(dtype).kind in "fc" else "trunc_divide"


# primitive -> the neutral name of its rule in _semantics.OPS (lax.div on integers rounds
# toward zero and lax.rem takes the dividend's sign: C's semantics, not Python's)
_ELEMENTWISE = {
    "add": "add", "sub": "sub", "mul": "mul", "neg": "neg", "pow": "pow", "exp": "exp",
    "exp2": "exp2", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt", "cos": "cos", "sin": "sin",
    "tan": "tan", "atan": "atan", "atan2": "atan2", "tanh": "tanh", "logistic": "sigmoid",
    "abs": "abs", "sign": "sign", "floor": "floor", "ceil": "ceil", "max": "maximum",
    "min": "minimum", "rem": "fmod", "expm1": "expm1", "log1p": "log1p",
    "lt": "lt", "gt": "gt", "le": "le", "ge": "ge", "eq": "eq", "ne": "ne",
    "and": "logical_and", "or": "logical_or", "not": "logical_not",
    "real": "real", "imag": "imag", "conj": "conj", "complex": "complex",
}
_LOGICAL = ("and", "or", "not")
_IDENTITY = ("copy", "copy_p", "optimization_barrier", "sharding_constraint", "device_put",
             "stop_gradient", "pvary", "reduce_precision")
_DATA_MOVEMENT = ("broadcast_in_dim", "reshape", "transpose", "squeeze", "expand_dims", "slice",
                  "concatenate", "split", "rev", "pad", "tile", "stack", "unstack",
                  "dynamic_slice", "gather", "dynamic_update_slice")
# operands that hold indices (must be concrete), per primitive: the rest carry data
_INDEX_OPERANDS = {"dynamic_slice": slice(1, None), "gather": slice(1, 2),
                   "dynamic_update_slice": slice(2, None)}
_CALLS = ("jit", "pjit", "closed_call", "core_call", "remat", "checkpoint",
          "custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr", "custom_lin")
_REDUCTIONS = {"reduce_sum": sp.Add, "reduce_max": sp.Max, "reduce_min": sp.Min,
               "reduce_prod": sp.Mul}

#: Every primitive the interpreter runs on symbolic values (the docs list them).
PRIMITIVES = tuple(sorted({*_ELEMENTWISE, *_IDENTITY, *_DATA_MOVEMENT, *_CALLS, *_REDUCTIONS,
                           "div", "round", "integer_pow", "square", "clamp", "select_n",
                           "convert_element_type", "dot_general", "cond", "while",
                           "cumsum"}))


# ----------------------------------------------------------------------------- interpreter

class Interpreter:
    """Evaluates closed jaxprs on mixed concrete (numpy) and symbolic (:class:`Symbolic`) values."""

    def __init__(self, jax):
        self.jax = jax
        self._outer: list[str] = []   # the user's line of each call being interpreted

    def where(self, eqn) -> str:
        """The eqn's own user line, else that of the call it sits in (``jnp.sort`` is a jit
        whose inner eqns have only JAX's frames)."""
        here = _location(eqn)
        return here or next((outer for outer in reversed(self._outer) if outer != UNKNOWN),
                            UNKNOWN)

    def inner(self, eqn, jaxpr, consts, args):
        self._outer.append(self.where(eqn))
        try:
            return self.eval(jaxpr, consts, args)
        finally:
            self._outer.pop()

    def run(self, closed, args: Sequence) -> list:
        return self.eval(closed.jaxpr, [np.asarray(c) for c in closed.consts], args)

    def eval(self, jaxpr, consts, args) -> list:
        env = {}

        def read(var):
            if hasattr(var, "val"):   # a Literal
                return np.asarray(var.val, dtype=var.aval.dtype)
            return env[var]

        for var, value in zip(jaxpr.constvars, consts):
            env[var] = value
        for var, value in zip(jaxpr.invars, args):
            env[var] = value
        for eqn in jaxpr.eqns:
            inputs = [read(v) for v in eqn.invars]
            if any(isinstance(v, Symbolic) for v in inputs):
                outputs = self.symbolic(eqn, inputs)
            else:
                outputs = self.concrete(eqn, inputs)
            if not eqn.primitive.multiple_results:
                outputs = [outputs]
            for var, value in zip(eqn.outvars, outputs):
                env[var] = value
        return [read(v) for v in jaxpr.outvars]

    # -- concrete: the real primitive, in its dtype
    def concrete(self, eqn, inputs):
        params = eqn.primitive.get_bind_params(eqn.params)
        if isinstance(params, tuple):   # (subfuns, params) in older JAX releases
            subfuns, params = params
            inputs = [*subfuns, *inputs]
        result = eqn.primitive.bind(*inputs, **params)
        if eqn.primitive.multiple_results:
            return [np.asarray(r) for r in result]
        return np.asarray(result)

    # -- symbolic
    def symbolic(self, eqn, inputs):
        name = eqn.primitive.name
        out_avals = [v.aval for v in eqn.outvars]
        if name in _CALLS:
            return self.call(eqn, inputs)
        if name == "cond":
            return self.cond(eqn, inputs)
        if name == "while":
            return self.while_loop(eqn, inputs)
        if name in _IDENTITY:
            if name == "reduce_precision":
                self.cast_hazard(inputs[0], semantics.NumberType(
                    "reduced precision", "float", eqn.params["mantissa_bits"] + 1), eqn)
            return list(inputs) if eqn.primitive.multiple_results else inputs[0]
        if name == "convert_element_type":
            return self.convert(eqn, inputs[0], out_avals[0].dtype)
        if name in _DATA_MOVEMENT:
            return self.move(eqn, inputs)
        if name == "dot_general":
            return self.dot_general(eqn, inputs, out_avals[0])
        if name in _REDUCTIONS:
            return self.reduce(eqn, inputs[0], _REDUCTIONS[name], out_avals[0])
        if name == "cumsum":
            return self.cumsum(eqn, inputs[0], out_avals[0])
        rule, operands = self.rule(eqn, name, inputs)
        if rule is None:
            raise LiftUndecided(f"the lifted JAX code uses the primitive '{name}', which symrope "
                                f"cannot run on symbolic values (a primitive outside its table)"
                                f"{self.where(eqn)}", op=f"jax.{name}")
        return self.elementwise(rule, operands, out_avals[0], boolean=name in _LOGICAL
                                or name == "select_n")

    def rule(self, eqn, name, inputs):
        """The exact rule of an elementwise primitive and its operands in the rule's order."""
        ops = semantics.OPS
        if name in _LOGICAL and any(np.dtype(v.dtype) != np.bool_ for v in inputs):
            raise LiftUndecided(f"the lifted JAX code uses '{name}' on integers, whose bits "
                                f"symrope does not model{self.where(eqn)}", op=f"jax.{name}")
        if name in _ELEMENTWISE:
            return ops[_ELEMENTWISE[name]], inputs
        if name == "div":
            return ops[_division(eqn.outvars[0].aval.dtype)], inputs
        if name == "round":
            method = int(eqn.params.get("rounding_method", 0))
            return ops["round" if method == 1 else "round_half_away"], inputs
        if name == "integer_pow":
            exponent = sp.Integer(eqn.params["y"])
            return (lambda a: ops["pow"](a, exponent)), inputs
        if name == "square":
            return (lambda a: ops["mul"](a, a)), inputs
        if name == "clamp":   # lax.clamp(min, x, max)
            return (lambda lo, a, hi: ops["clamp"](a, lo, hi)), inputs
        if name == "select_n":
            return _select_n, inputs
        return None, inputs

    def elementwise(self, rule, operands, aval, boolean: bool = False):
        values = [entries(v) for v in operands]
        if not boolean:
            values = [_numbers(v) for v in values]
        result = _object_array(np.frompyfunc(rule, len(values), 1)(*values))
        if result.shape != tuple(aval.shape):
            result = np.broadcast_to(result, tuple(aval.shape)).copy()
        return Symbolic(result, aval.dtype)

    def convert(self, eqn, value, target_dtype):
        source, target = number_type(value.dtype), number_type(target_dtype)
        self.cast_hazard(value, target, eqn)
        cast = np.frompyfunc(lambda v: semantics.cast(v, source, target), 1, 1)
        return Symbolic(_object_array(cast(value.values)).reshape(value.values.shape),
                         target_dtype)

    def cast_hazard(self, value, target, eqn) -> None:
        record_cast(value.values.reshape(-1), number_type(value.dtype), target, self.where(eqn))

    def move(self, eqn, inputs):
        """Run the primitive on storage indices: which entry lands where."""
        name = eqn.primitive.name
        index_slice = _INDEX_OPERANDS.get(name, slice(0, 0))
        index_positions = set(range(len(inputs))[index_slice])
        pool, index_inputs = [], []
        for position, value in enumerate(inputs):
            if position in index_positions:
                if isinstance(value, Symbolic):
                    raise LiftUndecided(
                        f"the lifted JAX code indexes an array with a symbolic index ('{name}': "
                        f"a table lookup at a symbolic position, e.g. a precomputed cos/sin "
                        f"cache indexed by the position){self.where(eqn)}", op=f"jax.{name}")
                index_inputs.append(value)
                continue
            values = entries(value)
            start = sum(len(p) for p in pool)
            pool.append(values.reshape(-1))
            index_inputs.append(np.arange(start, start + values.size, dtype=np.int32)
                                .reshape(values.shape))
        flat = np.concatenate(pool) if len(pool) > 1 else pool[0]
        params = dict(eqn.params)
        if name == "gather" and params.get("fill_value") is not None:
            params["fill_value"] = -1
        result = eqn.primitive.bind(*index_inputs, **params)
        outs = result if eqn.primitive.multiple_results else [result]
        moved = []
        for out, var in zip(outs, eqn.outvars):
            index = np.asarray(out)
            values = np.empty(index.shape, dtype=object)
            inside = (index >= 0) & (index < flat.size)
            values[inside] = flat[index[inside]]
            values[~inside] = sp.nan   # a gather outside the array (filled): poisons its uses
            moved.append(Symbolic(values, var.aval.dtype))
        return moved if eqn.primitive.multiple_results else moved[0]

    def dot_general(self, eqn, inputs, aval):
        (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = eqn.params["dimension_numbers"]
        lhs, rhs = (_numbers(entries(v)) for v in inputs)
        lhs_free = [d for d in range(lhs.ndim) if d not in (*lhs_contract, *lhs_batch)]
        rhs_free = [d for d in range(rhs.ndim) if d not in (*rhs_contract, *rhs_batch)]
        batch = [lhs.shape[d] for d in lhs_batch]
        size = lambda array, dims: int(np.prod([array.shape[d] for d in dims], dtype=np.int64))
        a = np.transpose(lhs, (*lhs_batch, *lhs_free, *lhs_contract)).reshape(
            size(lhs, lhs_batch), size(lhs, lhs_free), size(lhs, lhs_contract))
        b = np.transpose(rhs, (*rhs_batch, *rhs_contract, *rhs_free)).reshape(
            size(rhs, rhs_batch), size(rhs, rhs_contract), size(rhs, rhs_free))
        out = np.empty((a.shape[0], a.shape[1], b.shape[2]), dtype=object)
        for n in range(a.shape[0]):
            for i in range(a.shape[1]):
                for j in range(b.shape[2]):
                    out[n, i, j] = sp.Add(*[a[n, i, c] * b[n, c, j] for c in range(a.shape[2])])
        shape = (*batch, *[lhs.shape[d] for d in lhs_free], *[rhs.shape[d] for d in rhs_free])
        if tuple(shape) != tuple(aval.shape):
            raise InternalError(f"dot_general produced {shape}, JAX says {aval.shape}")
        return Symbolic(out.reshape(shape), aval.dtype)

    def reduce(self, eqn, value, combine, aval):
        axes = tuple(eqn.params["axes"])
        values = _numbers(entries(value))
        moved = np.moveaxis(values, axes, tuple(range(-len(axes), 0)))
        kept = moved.shape[:moved.ndim - len(axes)]
        flat = moved.reshape(*kept, -1)
        out = np.empty(kept, dtype=object)
        for index in np.ndindex(*kept):
            out[index] = combine(*flat[index])
        return Symbolic(out.reshape(tuple(aval.shape)), aval.dtype)

    def cumsum(self, eqn, value, aval):
        axis, reverse = eqn.params["axis"], eqn.params.get("reverse", False)
        values = _numbers(entries(value))
        if reverse:
            values = np.flip(values, axis)
        out = np.cumsum(values, axis=axis)
        if reverse:
            out = np.flip(out, axis)
        return Symbolic(_object_array(out).copy(), aval.dtype)

    def call(self, eqn, inputs):
        params = eqn.params
        inner = next((params[key] for key in ("jaxpr", "call_jaxpr", "fun_jaxpr")
                      if key in params), None)
        if inner is None:
            raise LiftUndecided(f"the lifted JAX code calls '{eqn.primitive.name}' without an "
                                f"inner jaxpr symrope can follow{self.where(eqn)}",
                                op=f"jax.{eqn.primitive.name}")
        if hasattr(inner, "consts"):   # a ClosedJaxpr
            outs = self.inner(eqn, inner.jaxpr, [np.asarray(c) for c in inner.consts], inputs)
        else:
            outs = self.inner(eqn, inner, [], inputs)
        return outs if eqn.primitive.multiple_results else outs[0]

    def cond(self, eqn, inputs):
        index, operands = inputs[0], inputs[1:]
        if isinstance(index, Symbolic):
            raise LiftUndecided(f"the lifted JAX code branches on a symbolic value (lax.cond "
                                f"with a position-dependent predicate: data-dependent control "
                                f"flow){self.where(eqn)}", op="jax.cond")
        branch = eqn.params["branches"][int(np.clip(int(index), 0,
                                                    len(eqn.params["branches"]) - 1))]
        return self.inner(eqn, branch.jaxpr, [np.asarray(c) for c in branch.consts], operands)

    def while_loop(self, eqn, inputs):
        params = eqn.params
        cond_n, body_n = params["cond_nconsts"], params["body_nconsts"]
        cond_consts, body_consts = inputs[:cond_n], inputs[cond_n:cond_n + body_n]
        carry = list(inputs[cond_n + body_n:])
        cond, body = params["cond_jaxpr"], params["body_jaxpr"]
        for _ in range(_MAX_LOOP):
            (go,) = self.inner(eqn, cond.jaxpr, [np.asarray(c) for c in cond.consts],
                              [*cond_consts, *carry])
            if isinstance(go, Symbolic):
                raise LiftUndecided(f"the lifted JAX code loops while a symbolic condition "
                                    f"holds (lax.while_loop on a position-dependent value: "
                                    f"data-dependent control flow){self.where(eqn)}",
                                    op="jax.while")
            if not bool(go):
                return carry
            carry = self.inner(eqn, body.jaxpr, [np.asarray(c) for c in body.consts],
                              [*body_consts, *carry])
        raise LiftUndecided(f"the lifted JAX code loops more than {_MAX_LOOP} times"
                            f"{self.where(eqn)}", op="jax.while")


def _select_n(which, *cases):
    """``lax.select_n``: case ``which`` (a boolean picks case 1 when true)."""
    if len(cases) == 2 and (semantics.is_boolean(which) or which in (0, 1)):
        return semantics.OPS["where"](which, cases[1], cases[0])
    pieces = [(case, sp.Eq(which, i)) for i, case in enumerate(cases[:-1])]
    return sp.Piecewise(*pieces, (cases[-1], True))


_to_numbers = np.frompyfunc(semantics.as_number, 1, 1)


def _numbers(values: np.ndarray) -> np.ndarray:
    """Booleans (relations from a comparison) as the 0/1 they are in arithmetic."""
    if any(semantics.is_boolean(v) for v in values.flat):
        return _object_array(_to_numbers(values))
    return values
