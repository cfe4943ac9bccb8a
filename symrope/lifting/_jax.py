"""The JAX tracer: a function's jaxpr interpreted primitive by primitive in exact semantics.

``jax.make_jaxpr`` traces ``function(q, k, positions)`` on abstract arrays of the contract's
shapes; the jaxpr is then evaluated on numpy object arrays of SymPy expressions (each token's
content symbols and its position symbol). What a primitive computes is not written here: each
elementwise primitive is mapped onto a framework-neutral name of
:data:`symrope.lifting._semantics.OPS`, the table the torch tracer (``_symbolic.py``) maps
``aten`` ops onto, so both tracers give an op one meaning. Per primitive:

* **concrete inputs** (``iota``, the frequency table, a constant): the real primitive runs in
  JAX, in its own dtype, and its result is read as the exact rationals of its bits -- the
  ``float32`` frequencies the code computes, as eager torch code computes its ``inv_freq``;
* **elementwise** (``add``, ``div``, ``cos``, ``round``, ``select_n``, ``convert_element_type``
  ...): the rule of ``OPS`` on every entry; a ``convert_element_type`` of position-dependent
  values is recorded as a precision hazard with the ``file:line`` of the jaxpr's source info;
* **data movement** (``broadcast_in_dim``, ``slice``, ``concatenate``, ``split``, ``gather`` at
  concrete indices...): the real primitive runs on an array of storage *indices*, and the
  result's indices say which entry goes where (the torch tracer's trick);
* ``dot_general`` and reductions: sums of products of exact entries;
* ``jit``, ``custom_jvp_call``, ``custom_vjp_call``, ``remat``: the inner jaxpr, interpreted;
  ``cond``/``while`` whose predicate is concrete: the branch or loop the value selects.

A ``cond``/``while`` on a symbolic value, a Python branch on a traced value (JAX refuses it
while tracing), a gather at a symbolic index and any primitive outside these tables stop the
lift with :class:`~symrope.lifting.LiftUndecided` naming the primitive and the source line
(``symrope check`` exits 3).

The function runs as configured: without ``jax_enable_x64`` the positions are ``int32`` and
``float64`` requests are ``float32``, as the user's process runs it. The float64 replay of a
counterexample (:class:`JaxLiftedEncoding`) turns ``jax_enable_x64`` on for the call.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence

import numpy as np
import sympy as sp

from symrope.errors import InternalError, UsageError
from symrope.lifting._errors import LiftUndecided, refused_inputs
from symrope.lifting._jax_eval import PRIMITIVES, Interpreter, Symbolic, entries
from symrope.lifting._encoding import LiftedEncoding
from symrope.lifting._trace import Trace, call_lifted, error_location, tracing

__all__ = ["JaxTracer", "JaxLiftedEncoding", "uses_jax", "PRIMITIVES"]


# ----------------------------------------------------------------------------- detection

def _jax_module(value) -> bool:
    return getattr(value, "__name__", "").split(".")[0] in ("jax", "flax") and \
        type(value).__name__ == "module"


def uses_jax(function) -> bool:
    """True when ``function``'s namespace holds ``jax`` (or one of its modules), or a function
    or class whose own module does; nothing is imported (einops' ``_backends.py`` manner)."""
    if sys.modules.get("jax") is None:
        return False
    if getattr(function, "__symrope_framework__", None) == "jax":
        return True
    target = function if callable(function) and hasattr(function, "__globals__") else \
        type(function)
    namespaces = [_namespace(target)]
    torch = sys.modules.get("torch")
    if torch is not None and any(value is torch for value in namespaces[0].values()):
        return False   # torch code: the torch tracer's
    for value in list(namespaces[0].values()):
        if _jax_module(value):
            return True
    for value in list(namespaces[0].values()):   # one level down: a library's function
        module = getattr(value, "__module__", None)
        if callable(value) and isinstance(module, str) and module in sys.modules:
            if any(_jax_module(v) for v in vars(sys.modules[module]).values()):
                return True
    return False


def _namespace(target) -> dict:
    namespace = getattr(target, "__globals__", None)
    if namespace is None:
        module = sys.modules.get(getattr(target, "__module__", None) or "")
        namespace = vars(module) if module is not None else {}
    return namespace


# ----------------------------------------------------------------------------- the tracer

class JaxTracer:
    """Runs a JAX function's jaxpr on symbolic inputs (see the module docstring)."""

    framework = "jax"

    @staticmethod
    def is_appropriate(function) -> bool:
        return uses_jax(function)

    @property
    def encoding_class(self):
        return JaxLiftedEncoding

    def run(self, function, name: str, x, y, p, position_dims: int):
        """Outputs ``(q_rows, k_rows)`` per token, hazards, and no branches (a jaxpr has none)."""
        import jax

        from symrope.lifting._semantics import positions_are_integers

        tokens, head_dim = len(x), len(x[0])
        shape = (tokens, position_dims) if position_dims > 1 else (tokens,)
        integer = jax.numpy.int64 if jax.config.jax_enable_x64 else jax.numpy.int32
        float32 = jax.numpy.float32
        q_spec = jax.ShapeDtypeStruct((1, 1, tokens, head_dim), float32)
        p_spec = jax.ShapeDtypeStruct(shape, integer)
        try:
            closed, out_shape = jax.make_jaxpr(functools.partial(call_lifted, function),
                                               return_shape=True)(q_spec, q_spec, p_spec)
        except (LiftUndecided, UsageError, InternalError):
            raise
        except jax.errors.ConcretizationTypeError as error:
            raise LiftUndecided(f"the lifted JAX code needs a concrete value where it has a traced "
                                f"one (a Python branch, int() or a shape computed from the "
                                f"positions: data-dependent control flow)"
                                f"{error_location(error)}", op="branch") from None
        except Exception as error:  # the code refused the inputs: a contract problem
            raise refused_inputs(name, error, head_dim, "float32", np.dtype(integer).name,
                                 position_dims, tokens) from None
        leaves = jax.tree_util.tree_leaves(out_shape)
        if not isinstance(out_shape, (tuple, list)) or len(out_shape) != 2 or len(leaves) != 2:
            raise UsageError(f"{name} must return (q_rot, k_rot), two arrays; got "
                             f"{type(out_shape).__name__}")
        for role, leaf in zip(("q_rot", "k_rot"), leaves):
            if int(np.prod(leaf.shape)) != tokens * head_dim or tuple(leaf.shape)[-1] != head_dim:
                raise UsageError(f"{name} returned {role} of shape {tuple(leaf.shape)}; expected "
                                 f"(1, 1, {tokens}, {head_dim}) for inputs of that shape")
        q_values = np.empty((1, 1, tokens, head_dim), dtype=object)
        k_values = np.empty((1, 1, tokens, head_dim), dtype=object)
        q_values[0, 0] = [list(row) for row in x]
        k_values[0, 0] = [list(row) for row in y]
        p_values = np.empty(shape, dtype=object)
        p_values[...] = np.array([list(axes) for axes in p], dtype=object).reshape(shape)
        args = [Symbolic(q_values, np.float32), Symbolic(k_values, np.float32),
                Symbolic(p_values, integer)]
        symbols = [s for axes in p for s in axes]
        trace = Trace(frozenset(symbols), decisions=None)
        with positions_are_integers(symbols), tracing(trace):
            outputs = Interpreter(jax).run(closed, args)
        rows = []
        for value in outputs:
            values = entries(value).reshape(tokens, head_dim)
            rows.append([[sp.sympify(v, strict=True) for v in row] for row in values])
        return rows, trace.hazards, []


class JaxLiftedEncoding(LiftedEncoding):
    """A lifted JAX function: its counterexamples are replayed through the real JAX code with
    ``jax_enable_x64`` on, on float64 inputs (what the code does in float64 is its own: code
    that builds its angle in float32 keeps doing so)."""

    def replay_score(self, i: int, a: int, j: int, b: int, positions: Sequence) -> float:
        import jax

        q, k, numbers = self.replay_inputs(i, a, j, b, positions)
        tokens = q.shape[2]
        with jax.enable_x64(True):
            q_rot, k_rot = self.function(jax.numpy.asarray(q), jax.numpy.asarray(k),
                                         jax.numpy.asarray(numbers))
            q_row = np.asarray(q_rot, dtype=np.float64).reshape(tokens, self.dim)[i]
            k_row = np.asarray(k_rot, dtype=np.float64).reshape(tokens, self.dim)[j]
        return float(np.dot(q_row, k_row))
