"""``SymbolicTensor``: a torch tensor whose entries are exact SymPy expressions (the torch tracer).

Real torch code runs on it unchanged: every aten op that reaches ``__torch_dispatch__`` is
computed on a numpy object array of SymPy expressions. Output shapes and dtypes come from
running the same op on ``meta`` tensors, so broadcasting and type promotion are torch's own.
Data-movement ops (views, slicing, indexing, cat, stack, repeat...) are not re-implemented:
the op runs on a tensor of storage *indices*, and the result's indices say which entry goes
where. Views share storage with their base, so in-place writes through a view are seen by the
base, as in torch.

What an elementwise op computes is not written here: ``ATEN`` (``_aten.py``) maps each ``aten``
op onto a framework-neutral name of :data:`symrope.lifting._semantics.OPS` (casts, ``floor_divide``,
``round`` half to even, comparisons as relations, ``where`` as ``Piecewise``...). A cast or a
type promotion of position-dependent values to a float type is recorded as a precision hazard
(:mod:`symrope.lifting._trace`); a Python branch on a symbolic value (``bool``) is a branch of
the trace, and ``item()`` of one, or an op outside the table, raises :class:`LiftUndecided`
naming the op or the line of the code being lifted.

The aten table is ``_aten.py``; the meaning of each op is ``_semantics.py``'s.
"""

from __future__ import annotations

import sys

import numpy as np
import sympy as sp
import torch
from torch.utils._pytree import tree_map

from symrope.lifting import _semantics as semantics
from symrope.lifting._aten import (ATEN, BITWISE, DATA_MOVEMENT, DROP_FOR_INDEX_RUN, EXTRA_RULES,
                                   number_type, rule_operands)
from symrope.lifting._errors import LiftUndecided
from symrope.lifting._trace import UNKNOWN, branch, location, record_cast

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
    if data.dtype in (torch.bfloat16, torch.float16):
        data = data.to(torch.float64)  # exact: every bf16/fp16 value is a float64
    elif data.dtype == torch.complex32:
        data = data.to(torch.complex128)
    flat = [_exact_number(v) for v in data.reshape(-1).tolist()]
    array = np.empty(len(flat), dtype=object)
    array[:] = flat
    return array.reshape(tuple(data.shape))


_exact_number = semantics.exact_number


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
    if packet in ATEN:
        return _elementwise(func, ATEN[packet], args, kwargs)
    if packet in DATA_MOVEMENT:
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

def _elementwise(func, name, args, kwargs):
    meta = _meta_run(func, args, kwargs)
    if name is None:  # resolve_conj and friends: our tensors carry no lazy bits
        return _data_movement(aten.clone.default, (args[0],), {})
    if func.overloadpacket in BITWISE and any(
            isinstance(a, torch.Tensor) and a.dtype != torch.bool for a in args):
        raise LiftUndecided(f"the lifted code calls aten.{_op_name(func)} on integers, whose "
                            f"bits symrope does not model{_at()}", op=f"aten.{_op_name(func)}")
    name, operands = rule_operands(func, name, args, kwargs)
    rule = EXTRA_RULES.get(name) or semantics.OPS[name]
    if meta.dtype.is_floating_point or meta.dtype.is_complex:
        _record_promotions(operands, number_type(meta.dtype))
    values = [_as_entries(a) for a in operands]
    if name not in semantics.BOOLEAN_OPERANDS:
        values = [_numbers(v) for v in values]
    ufunc = np.frompyfunc(rule, len(values), 1)
    result = _object_array(ufunc(*values))
    if result.shape != tuple(meta.shape):
        result = np.broadcast_to(result, tuple(meta.shape)).copy()
    return _wrap_like(result, meta)


_to_numbers = np.frompyfunc(semantics.as_number, 1, 1)


def _numbers(values):
    """Booleans (relations from a comparison) as the 0/1 they are in arithmetic."""
    if isinstance(values, np.ndarray):
        return _to_numbers(values) if any(semantics.is_boolean(v) for v in values.flat) \
            else values
    return semantics.as_number(values) if semantics.is_boolean(values) else values


def _record_promotions(operands, target) -> None:
    """An int tensor of positions meeting a float one in arithmetic is converted to it."""
    for operand in operands:
        if isinstance(operand, SymbolicTensor) and not (operand.dtype.is_floating_point
                                                        or operand.dtype.is_complex):
            record_cast(operand.values.reshape(-1), number_type(operand.dtype), target, _at(),
                        how="promoted")


def _to_copy(func, args, kwargs):
    """``.to(dtype)``, ``.float()``, ``.long()``, ``type_as``: the cast the semantics table says."""
    moved = _data_movement(func, args, kwargs)
    source = args[0]
    if not isinstance(source, SymbolicTensor) or source.dtype == moved.dtype:
        return moved
    return _cast_values(moved, source.dtype, moved.dtype)


def _cast_values(tensor, source_dtype, target_dtype):
    source, target = number_type(source_dtype), number_type(target_dtype)
    values = tensor.values
    record_cast(values.reshape(-1), source, target, _at())
    cast = np.frompyfunc(lambda v: semantics.cast(v, source, target), 1, 1)
    return _new(_object_array(cast(values)).reshape(values.shape), target_dtype)


def _object_array(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value.astype(object, copy=False)
    array = np.empty((), dtype=object)  # np.asarray would try to iterate a SymPy object
    array[()] = value
    return array


# ----------------------------------------------------------------------------- data movement

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
                    if k not in DROP_FOR_INDEX_RUN}
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
            aten._to_copy: _to_copy,
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
    """``bool(t)``, ``t.item()``: fine on a concrete value; on a symbolic one, ``bool`` is a
    branch of the trace (:func:`symrope.lifting._trace.branch`) and a number cannot be read."""
    if not isinstance(value, SymbolicTensor) or value.numel() != 1:
        raise LiftUndecided(f"aten.{name} on a symbolic tensor{_at()}", op=f"aten.{name}")
    scalar = value.values.reshape(-1)[0]
    if scalar in (sp.true, sp.false):
        return bool(scalar)
    if getattr(scalar, "is_number", False) and not scalar.free_symbols:
        if value.dtype == torch.bool or name == "is_nonzero":
            return bool(scalar != 0)
        if not value.dtype.is_floating_point and not value.dtype.is_complex:
            return int(scalar)
        return complex(scalar) if value.dtype.is_complex else float(scalar)
    if value.dtype == torch.bool or name == "is_nonzero":
        condition = scalar if semantics.is_boolean(scalar) else sp.Ne(scalar, 0)
        return branch(condition, _at())
    raise LiftUndecided(f"the lifted code reads a symbolic value as a Python number "
                        f"({sp.sstr(scalar)[:80]}: item(), int() or float()){_at()}",
                        op="branch")


def _copy_(target, source):
    if not isinstance(target, SymbolicTensor):
        raise LiftUndecided(f"the lifted code writes symbolic values into a real tensor "
                            f"(aten.copy_: e.g. a cache buffer){_at()}", op="aten.copy_")
    if isinstance(source, SymbolicTensor) and source.dtype != target.dtype:
        source = _cast_values(source, source.dtype, target.dtype)
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

def _at() -> str:
    """`` at file:line`` of the lifted code's innermost own frame (:func:`_trace.location`)."""
    frame, frames = sys._getframe(1), []
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
        frame = frame.f_back
    return location(frames) or UNKNOWN
