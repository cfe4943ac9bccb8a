"""``SymbolicTensor``: a torch tensor whose entries are exact SymPy expressions.

Real torch code runs on it unchanged: every aten op that reaches ``__torch_dispatch__`` is
computed on a numpy object array of SymPy expressions. Output shapes and dtypes come from
running the same op on ``meta`` tensors, so broadcasting and type promotion are torch's own.
Data-movement ops (views, slicing, indexing, cat, stack, repeat...) are not re-implemented:
the op runs on a tensor of storage *indices*, and the result's indices say which entry goes
where. Views share storage with their base, so in-place writes through a view are seen by the
base, as in torch.

Exact semantics: float constants (buffers, Python floats) become the rational value of their
binary number, and casts are identities. A Python branch on a symbolic value (``bool``,
``item``) and an op outside the table raise :class:`LiftUndecided`, naming the op or the line
of the code being lifted.
"""

from __future__ import annotations

from fractions import Fraction

import os
import traceback

import numpy as np
import sympy as sp
import torch
from torch.utils._pytree import tree_map

from symrope.lifting._errors import LiftUndecided

__all__ = ["SymbolicTensor", "exact", "symbolic", "entries"]

aten = torch.ops.aten
_UNINITIALISED = sp.nan  # torch.empty's garbage: poisons any expression that reads it


class _Storage:
    """A flat object array shared by a tensor and its views."""

    __slots__ = ("flat",)

    def __init__(self, flat: np.ndarray):
        self.flat = flat


class SymbolicTensor(torch.Tensor):
    """A CPU tensor of the given dtype whose values are SymPy expressions."""

    @staticmethod
    def __new__(cls, storage: _Storage, index: np.ndarray, dtype: torch.dtype):
        tensor = torch.Tensor._make_wrapper_subclass(cls, tuple(index.shape), dtype=dtype,
                                                     device="cpu")
        tensor._storage_ref = storage
        tensor._index = index
        return tensor

    __torch_function__ = torch._C._disabled_torch_function_impl

    def __repr__(self, *, tensor_contents=None):  # torch's repr would read the data
        return f"SymbolicTensor(shape={tuple(self.shape)}, dtype={self.dtype})"

    @property
    def values(self) -> np.ndarray:
        """The entries as a numpy object array of this tensor's shape."""
        return self._storage_ref.flat[self._index.reshape(-1)].reshape(self._index.shape)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return _dispatch(func, args, kwargs or {})


def symbolic(values, dtype: torch.dtype = torch.float32) -> SymbolicTensor:
    """A fresh symbolic tensor holding ``values`` (an array-like of SymPy expressions).

    Examples
    ========

    >>> import sympy as sp, torch
    >>> from symrope.lifting._symbolic import symbolic, entries
    >>> p = sp.Symbol("p", real=True)
    >>> t = symbolic([p, 2 * p])
    >>> entries(torch.cos(t * 0.5) * 2).tolist()
    [2*cos(p/2), 2*cos(p)]
    """
    array = np.empty(np.shape(values), dtype=object)
    array[...] = values if array.ndim else sp.sympify(values)
    array = _sympify_all(array)
    return _new(array, dtype)


def entries(value) -> np.ndarray:
    """The exact entries of a symbolic or real tensor as a numpy object array."""
    if isinstance(value, SymbolicTensor):
        return value.values
    if isinstance(value, torch.Tensor):
        return exact(value)
    raise TypeError(f"expected a tensor, got {type(value).__name__}")


def exact(tensor: torch.Tensor) -> np.ndarray:
    """A real tensor's values as exact SymPy numbers (a float is the rational of its bits)."""
    data = tensor.detach().cpu()
    if data.is_complex():
        flat = [_exact_number(complex(v)) for v in data.reshape(-1).tolist()]
    else:
        if data.dtype in (torch.bfloat16, torch.float16):
            data = data.to(torch.float64)  # exact: every bf16/fp16 value is a float64
        flat = [_exact_number(v) for v in data.reshape(-1).tolist()]
    array = np.empty(len(flat), dtype=object)
    array[:] = flat
    return array.reshape(tuple(data.shape))


def _exact_number(value):
    if isinstance(value, bool):
        return sp.Integer(int(value))
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {True: sp.oo, False: -sp.oo}[value > 0] if value == value else sp.nan
        return sp.Rational(value)
    if isinstance(value, complex):
        return _exact_number(value.real) + sp.I * _exact_number(value.imag)
    return sp.sympify(value)


def _round_half_even(value: sp.Rational) -> sp.Integer:
    """torch.round of an exact rational: ties go to the even integer (2.5 -> 2), as in torch."""
    return sp.Integer(round(Fraction(int(value.p), int(value.q))))


def _sympify_all(array: np.ndarray) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    for position, value in np.ndenumerate(array):
        out[position] = _exact_number(value) if isinstance(value, (int, float, complex, bool)) \
            else sp.sympify(value)
    return out


def _new(values: np.ndarray, dtype: torch.dtype) -> SymbolicTensor:
    flat = np.empty(values.size, dtype=object)
    flat[:] = list(values.reshape(-1))
    return SymbolicTensor(_Storage(flat), np.arange(values.size, dtype=np.int64)
                          .reshape(values.shape), dtype)


# ----------------------------------------------------------------------------- dispatch

def _op_name(func) -> str:
    return func._schema.name.split("::")[-1]


def _dispatch(func, args, kwargs):
    name = _op_name(func)
    if func in _SCALAR_READS:
        return _read_scalar(args[0], name)
    if name.endswith("_") and name not in ("copy_",) and not name.startswith("_"):
        return _in_place(func, name, args, kwargs)
    if func is aten.copy_.default:
        return _copy_(args[0], args[1])
    if func in _CREATION_LIKE:
        return _creation_like(func, args, kwargs)
    packet = func.overloadpacket
    if packet in _SPECIAL:
        return _SPECIAL[packet](func, args, kwargs)
    if packet in _ELEMENTWISE:
        return _elementwise(func, _ELEMENTWISE[packet], args, kwargs)
    if packet in _DATA_MOVEMENT:
        return _data_movement(func, args, kwargs)
    if packet in _REDUCTIONS:
        return _REDUCTIONS[packet](func, args, kwargs)
    raise LiftUndecided(f"the lifted code calls aten.{name}, which symrope cannot run on "
                        f"symbolic values (an op outside its table){_at()}", op=f"aten.{name}")


def _meta(value):
    if isinstance(value, SymbolicTensor):
        return torch.empty(tuple(value.shape), dtype=value.dtype, device="meta")
    if isinstance(value, torch.Tensor):
        return value.to("meta")
    if isinstance(value, torch.device):
        return torch.device("meta")
    return value


def _meta_run(func, args, kwargs):
    margs = tree_map(_meta, args)
    mkwargs = {k: (torch.device("meta") if k == "device" and v is not None else _meta(v))
               for k, v in kwargs.items()}
    return func(*margs, **mkwargs)


def _wrap_like(values: np.ndarray, meta: torch.Tensor) -> SymbolicTensor:
    if tuple(values.shape) != tuple(meta.shape):
        from symrope.errors import InternalError

        raise InternalError(f"symbolic op produced shape {values.shape}, torch says "
                            f"{tuple(meta.shape)}")
    return _new(values, meta.dtype)


def _as_entries(value):
    if isinstance(value, torch.Tensor):
        return entries(value)
    if isinstance(value, (bool, int, float, complex)):
        return _exact_number(value)
    return value


# ----------------------------------------------------------------------------- elementwise

def _true_divide(a, b):
    return a / b


def _sub(a, b):
    return a - b


def _add(a, b):
    return a + b


def _elementwise(func, rule, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    operands = list(args)
    if func.overloadpacket in (aten.add, aten.sub, aten.rsub):
        alpha = operands.pop(2) if len(operands) > 2 else kwargs.get("alpha", 1)
        if alpha != 1:  # sub: self - alpha other; rsub: other - alpha self
            base, factor = rule, _exact_number(alpha)
            rule = (lambda a, b: b - factor * a) if func.overloadpacket is aten.rsub else \
                (lambda a, b: base(a, factor * b))
    mode = kwargs.get("rounding_mode")
    if mode is not None:
        rule = _floor_div if mode == "floor" else _trunc_div
    operands = [_as_entries(a) for a in operands]
    ufunc = np.frompyfunc(rule, len(operands), 1)
    values = _object_array(ufunc(*operands))
    if values.shape != tuple(meta.shape):
        values = np.broadcast_to(values, tuple(meta.shape)).copy()
    return _wrap_like(values, meta)


def _object_array(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(object, copy=False)
    array = np.empty((), dtype=object)  # np.asarray would try to iterate a SymPy object
    array[()] = value
    return array


def _floor_div(a, b):
    return sp.floor(a / b)


def _trunc_div(a, b):
    quotient = a / b
    return sp.sign(quotient) * sp.floor(sp.Abs(quotient))


def _select(cond, a, b):
    if cond in (sp.true, True) or (getattr(cond, "is_number", False) and cond != 0):
        return a
    if cond in (sp.false, False) or cond == 0:
        return b
    return sp.Piecewise((a, cond), (b, True))


def _compare(relation):
    def rule(a, b):
        return relation(a, b)
    return rule


_ELEMENTWISE = {
    aten.add: _add, aten.sub: _sub, aten.rsub: lambda a, b: b - a,
    aten.mul: lambda a, b: a * b, aten.div: _true_divide, aten.true_divide: _true_divide,
    aten.floor_divide: _floor_div, aten.neg: lambda a: -a, aten.pow: lambda a, b: a ** b,
    aten.reciprocal: lambda a: 1 / a, aten.exp: sp.exp, aten.log: sp.log, aten.sqrt: sp.sqrt,
    aten.rsqrt: lambda a: 1 / sp.sqrt(a), aten.cos: sp.cos, aten.sin: sp.sin, aten.tan: sp.tan,
    aten.abs: sp.Abs, aten.sign: sp.sign, aten.floor: sp.floor, aten.ceil: sp.ceiling,
    aten.round: lambda a: _round_half_even(a) if a.is_Rational else sp.Function("round")(a),
    aten.exp2: lambda a: 2 ** a, aten.log2: lambda a: sp.log(a, 2),
    aten.sigmoid: lambda a: 1 / (1 + sp.exp(-a)),
    aten.where: _select, aten.maximum: sp.Max, aten.minimum: sp.Min,
    aten.clamp: lambda a, lo=None, hi=None: sp.Min(sp.Max(a, lo if lo is not None else -sp.oo),
                                                   hi if hi is not None else sp.oo),
    aten.gt: _compare(sp.Gt), aten.lt: _compare(sp.Lt), aten.ge: _compare(sp.Ge),
    aten.le: _compare(sp.Le), aten.eq: _compare(sp.Eq), aten.ne: _compare(sp.Ne),
    aten.polar: lambda r, theta: r * (sp.cos(theta) + sp.I * sp.sin(theta)),
    aten.conj_physical: sp.conjugate,
}


# ----------------------------------------------------------------------------- data movement

_DATA_MOVEMENT = {getattr(aten, n) for n in (
    "view", "_unsafe_view", "reshape", "_reshape_alias", "expand", "unsqueeze", "squeeze",
    "transpose", "permute", "t", "select", "slice", "index", "cat", "stack", "split",
    "split_with_sizes", "unbind", "chunk", "repeat", "repeat_interleave", "clone", "contiguous",
    "detach", "alias", "lift_fresh", "lift_fresh_copy", "_to_copy", "flip", "roll", "narrow",
    "as_strided", "diagonal", "movedim", "unfold", "index_select", "gather", "expand_copy",
    "view_copy", "permute_copy", "slice_copy", "select_copy", "transpose_copy",
    "unsqueeze_copy", "squeeze_copy", "_unsafe_index", "tril", "triu")}

_DROP_FOR_INDEX_RUN = ("dtype", "layout", "device", "pin_memory", "memory_format",
                       "non_blocking")


def _data_movement(func, args, kwargs):
    """Run the op on storage indices: the result says which entry lands where."""
    meta = _meta_run(func, args, kwargs)
    pool, offsets = [], {}

    def to_index(value, data_position: bool):
        if isinstance(value, SymbolicTensor):
            if not data_position:
                raise LiftUndecided(
                    f"the lifted code indexes a tensor with a symbolic index (aten."
                    f"{_op_name(func)}: a table lookup at a symbolic position, e.g. a "
                    f"precomputed cos/sin cache indexed by the position){_at()}",
                    op=f"aten.{_op_name(func)}")
            values = value.values
        elif isinstance(value, torch.Tensor) and data_position:
            values = exact(value)
        else:
            return value
        start = sum(len(p) for p in pool)
        pool.append(values.reshape(-1))
        offsets[id(value)] = start
        return torch.from_numpy(np.arange(start, start + values.size, dtype=np.int64)
                                .reshape(values.shape))

    first = args[0]
    if isinstance(first, (list, tuple)):
        index_args = ([to_index(v, True) for v in first],) + tuple(
            tree_map(lambda v: to_index(v, False), a) for a in args[1:])
    else:
        index_args = (to_index(first, True),) + tuple(
            tree_map(lambda v: to_index(v, False), a) for a in args[1:])
    index_kwargs = {k: tree_map(lambda v: to_index(v, False), v) for k, v in kwargs.items()
                    if k not in _DROP_FOR_INDEX_RUN}
    if func in (aten.tril.default, aten.triu.default):
        raise LiftUndecided(f"aten.{_op_name(func)} on symbolic values is not supported"
                            f"{_at()}", op=f"aten.{_op_name(func)}")
    result = func(*index_args, **index_kwargs)
    flat = np.concatenate(pool) if len(pool) > 1 else pool[0]
    shares = func.is_view and isinstance(first, SymbolicTensor)

    def to_symbolic(index_tensor, meta_tensor):
        index = index_tensor.numpy()
        if shares:  # a view: same storage, indices into it
            return SymbolicTensor(first._storage_ref, first._index.reshape(-1)[index],
                                  meta_tensor.dtype)
        return _wrap_like(flat[index], meta_tensor)

    if isinstance(result, torch.Tensor):
        return to_symbolic(result, meta)
    return type(result)(to_symbolic(r, m) for r, m in zip(result, meta))


# ----------------------------------------------------------------------------- special ops

def _view_as_complex(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    values = entries(args[0])
    return _wrap_like(values[..., 0] + sp.I * values[..., 1], meta)


def _view_as_real(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    values = entries(args[0])
    out = np.empty(values.shape + (2,), dtype=object)
    for position, value in np.ndenumerate(values):
        real, imag = sp.expand(value).as_real_imag()
        out[position + (0,)], out[position + (1,)] = real, imag
    return _wrap_like(out, meta)


def _matmul_like(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    a, b = entries(args[0]), entries(args[1])
    values = np.matmul(a, b)
    values = _object_array(values).reshape(tuple(meta.shape))
    return _wrap_like(values, meta)


def _addmm(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    bias, a, b = (entries(v) for v in args[:3])
    beta = _exact_number(kwargs.get("beta", 1))
    alpha = _exact_number(kwargs.get("alpha", 1))
    values = np.broadcast_to(bias * beta, tuple(meta.shape)) + np.matmul(a, b) * alpha
    return _wrap_like(_object_array(values), meta)


def _sum(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    values = entries(args[0])
    dims = args[1] if len(args) > 1 else kwargs.get("dim")
    keep = args[2] if len(args) > 2 else kwargs.get("keepdim", False)
    if dims is None or dims == []:
        total = np.empty((), dtype=object)
        total[()] = sp.Add(*values.reshape(-1))
        out = total
    else:
        dims = tuple(d % values.ndim for d in ([dims] if isinstance(dims, int) else dims))
        out = np.sum(values, axis=dims, keepdims=bool(keep))
        out = _object_array(out)
    if _op_name(func) == "mean":
        count = int(np.prod([values.shape[d] for d in dims])) if dims else values.size
        out = _object_array(out / count)
    return _wrap_like(out.reshape(tuple(meta.shape)), meta)


def _max_all(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    out = np.empty((), dtype=object)
    rule = sp.Max if _op_name(func) in ("max", "amax") else sp.Min
    out[()] = rule(*entries(args[0]).reshape(-1))
    if args[1:] or kwargs:
        raise LiftUndecided(f"aten.{_op_name(func)} along a dimension is not supported on "
                            f"symbolic values{_at()}", op=f"aten.{_op_name(func)}")
    return _wrap_like(out, meta)


_REDUCTIONS = {aten.sum: _sum, aten.mean: _sum, aten.max: _max_all, aten.min: _max_all,
               aten.amax: _max_all, aten.amin: _max_all}

_SPECIAL = {aten.view_as_complex: _view_as_complex, aten.view_as_real: _view_as_real,
            aten.mm: _matmul_like, aten.bmm: _matmul_like, aten.matmul: _matmul_like,
            aten.dot: _matmul_like, aten.mv: _matmul_like, aten.addmm: _addmm}

_CREATION_LIKE = {aten.ones_like.default: sp.Integer(1), aten.zeros_like.default: sp.Integer(0),
                  aten.empty_like.default: _UNINITIALISED, aten.full_like.default: None,
                  aten.new_ones.default: sp.Integer(1), aten.new_zeros.default: sp.Integer(0),
                  aten.new_empty.default: _UNINITIALISED, aten.new_full.default: None}


def _creation_like(func, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    fill = _CREATION_LIKE[func]
    if fill is None:
        fill = _exact_number(args[-1] if func is aten.full_like.default else args[2])
    values = np.empty(tuple(meta.shape), dtype=object)
    values.fill(fill)
    return _wrap_like(values, meta)


_SCALAR_READS = {aten._local_scalar_dense.default, aten.is_nonzero.default,
                 aten.item.default, aten.equal.default}


def _read_scalar(value, name):
    """``bool(t)``, ``t.item()``: fine on a concrete value, a branch on a symbolic one."""
    if not isinstance(value, SymbolicTensor) or value.numel() != 1:
        raise LiftUndecided(f"aten.{name} on a symbolic tensor{_at()}", op=f"aten.{name}")
    scalar = value.values.reshape(-1)[0]
    if scalar in (sp.true, sp.false):
        return bool(scalar)
    if getattr(scalar, "is_number", False) and not scalar.free_symbols:
        if value.dtype == torch.bool:
            return bool(scalar != 0)
        if not value.dtype.is_floating_point and not value.dtype.is_complex:
            return int(scalar)
        return complex(scalar) if value.dtype.is_complex else float(scalar)
    raise LiftUndecided(f"the lifted code branches on a symbolic value ({sp.sstr(scalar)[:80]})"
                        f"{_at()}", op="branch")


def _copy_(target, source):
    if not isinstance(target, SymbolicTensor):
        raise LiftUndecided(f"the lifted code writes symbolic values into a real tensor "
                            f"(aten.copy_: e.g. a cache buffer){_at()}", op="aten.copy_")
    values = np.broadcast_to(entries(source), tuple(target.shape))
    target._storage_ref.flat[target._index.reshape(-1)] = list(values.reshape(-1))
    return target


def _in_place(func, name, args, kwargs):
    target = args[0]
    if not isinstance(target, SymbolicTensor):
        raise LiftUndecided(f"the lifted code updates a real tensor in place with symbolic "
                            f"values (aten.{name}){_at()}", op=f"aten.{name}")
    packet = getattr(aten, name[:-1], None)
    if packet is None or func._overloadname not in packet.overloads():
        raise LiftUndecided(f"the lifted code calls aten.{name}, which symrope cannot run on "
                            f"symbolic values{_at()}", op=f"aten.{name}")
    result = _dispatch(getattr(packet, func._overloadname), args, kwargs)
    return _copy_(target, result)


# ----------------------------------------------------------------------------- locations

_OWN = (os.path.dirname(os.path.dirname(__file__)), os.path.dirname(torch.__file__))


def _at() -> str:
    """The innermost frame of the lifted code (outside torch, numpy, sympy and symrope)."""
    skip = _OWN + (os.path.dirname(np.__file__), os.path.dirname(sp.__file__),
                   os.path.dirname(os.__file__))
    for frame in reversed(traceback.extract_stack()):
        filename = os.path.abspath(frame.filename)
        if not filename.startswith(skip) and "<frozen" not in filename and \
                not filename.endswith(("contextlib.py", "functools.py")):
            return f" at {frame.filename}:{frame.lineno}"
    return ""
