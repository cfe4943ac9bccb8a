"""What one run of lifted code leaves beside its outputs: precision hazards and branches taken.

Framework-neutral: a tracer (torch's ``_symbolic.py``) calls :func:`record_cast` when a value
changes type and :func:`branch` when the code asks a symbolic value for a Python ``bool``.

* **Hazards.** A cast (or a type promotion) of a position-dependent value to a float type is
  the identity in exact semantics, so the check cannot see its rounding. It is recorded with
  the ``file:line`` of the code: positions in a float type are exact integers only up to
  ``2^significand_bits`` (2048 in float16, 256 in bfloat16, 2^24 in float32); an angle or a
  cos/sin narrowed from float32 to bfloat16 keeps 8 significant bits.
* **Locations.** :func:`call_lifted` runs the lifted code; :func:`location` names the innermost
  frame inside that call that is the code's own source: not symrope's, not a framework's
  (torch, JAX, numpy, sympy, keras...), not Python's standard library. What called the lift (the
  ``symrope`` console script, ``runpy`` under ``python -m``, a user's script) lies outside the
  call and is never named; when no frame qualifies the text says ``(location unknown)``.
* **Branches.** ``if seq_len > cached:`` on a symbolic ``seq_len`` has no single answer. When
  :func:`explore` drives the run, each such branch is taken both ways on successive runs (at
  most ``MAX_PATHS`` paths); each path carries the conjunction of the conditions it took, and
  the outputs are joined as a ``Piecewise`` over those conditions. Outside :func:`explore` a
  branch on a symbolic value stops the lift (:class:`LiftUndecided`, naming the line).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import sys
import sysconfig
from dataclasses import dataclass, field

import sympy as sp

from symrope.lifting._errors import LiftUndecided
from symrope.lifting._semantics import NumberType, integral

__all__ = ["Trace", "current", "tracing", "call_lifted", "location", "error_location", "UNKNOWN",
           "record_cast", "branch", "explore", "MAX_PATHS"]

MAX_PATHS = 8


@dataclass
class Trace:
    """The state of one run: the position symbols, hazards found, branch decisions to follow."""

    positions: frozenset
    decisions: tuple = ()
    taken: list = field(default_factory=list)     # (condition, decision, location)
    hazards: dict = field(default_factory=dict)   # (kind, type, location) -> hazard dict

    def depends_on_positions(self, value) -> bool:
        return bool(getattr(value, "free_symbols", set()) & self.positions)


_CURRENT: contextvars.ContextVar[Trace | None] = contextvars.ContextVar("lift_trace",
                                                                       default=None)


def current() -> Trace | None:
    return _CURRENT.get()


@contextlib.contextmanager
def tracing(trace: Trace):
    token = _CURRENT.set(trace)
    try:
        yield trace
    finally:
        _CURRENT.reset(token)


# ----------------------------------------------------------------------------- locations

UNKNOWN = " (location unknown)"

# Frameworks whose frames are machinery, not the lifted code's own source (keras and flax run a
# library's op through their backends: the library's line is the one that asked for the cast).
_FRAMEWORKS = ("symrope", "torch", "jax", "jaxlib", "numpy", "sympy", "mpmath", "keras", "flax")


def call_lifted(function, *args):
    """Call ``function(*args)``, the code being lifted: this frame marks where that code begins,
    and :func:`location` looks for the code's line only in frames inside it."""
    return function(*args)


def _under(directories):
    return tuple(os.path.join(os.path.abspath(d), "") for d in directories if d)


@functools.cache
def _python_directories() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the standard library's directories, the site directories: they may sit inside it)."""
    paths = sysconfig.get_paths()
    sites = _under({paths.get("purelib"), paths.get("platlib")}) + _under(
        p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    return _under({paths.get("stdlib"), paths.get("platstdlib")}), sites


def _machinery():
    """Whether a frame's path is a framework's or the standard library's."""
    frameworks = _under(os.path.dirname(getattr(sys.modules.get(name), "__file__", None) or "")
                        for name in _FRAMEWORKS)  # a framework not imported has no frames
    stdlib, sites = _python_directories()
    return lambda path: path.startswith(frameworks) or (
        path.startswith(stdlib) and not path.startswith(sites))


def location(frames) -> str:
    """`` at file:line`` of the innermost frame of the lifted code's own source, else ``""``.

    Parameters
    ----------
    frames : iterable of ``(filename, line, function name)``, innermost first (a torch tracer's
        Python stack, a jaxpr equation's source traceback); frames from the call of
        :func:`call_lifted` outward are not the lifted code and are never named.

    Examples
    --------
    >>> import sympy
    >>> location([(sympy.__file__, 3, "f"), ("/src/rope.py", 12, "rope"),
    ...           (__file__, 9, "call_lifted"), ("/venv/bin/symrope", 6, "<module>")])
    ' at /src/rope.py:12'
    >>> location([(sympy.__file__, 3, "f"), (__file__, 9, "call_lifted"),
    ...           ("/venv/bin/symrope", 6, "<module>")])
    ''
    """
    machinery = _machinery()
    here = os.getcwd() + os.sep  # the user's own files as they name them
    boundary = os.path.abspath(__file__)
    for filename, line, function in frames:
        path = os.path.abspath(filename)
        if function == call_lifted.__name__ and path == boundary:
            return ""
        if filename.startswith("<frozen") or machinery(path):
            continue
        shown = os.path.relpath(path) if path.startswith(here) else filename
        return f" at {shown}:{line}"
    return ""


def error_location(error: BaseException) -> str:
    """`` at file:line`` of the innermost own frame of the code in ``error``'s traceback (a
    tracing error, a library refusing a config), else :data:`UNKNOWN`."""
    import traceback

    frames = [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(error.__traceback__)]
    return location(reversed(frames)) or UNKNOWN


# ----------------------------------------------------------------------------- hazards

_FLAGGED_BITS = 24  # float32 and narrower: positions in float64 are exact to 2^53


def record_cast(values, source: NumberType, target: NumberType, location: str,
                how: str = "cast") -> None:
    """Record a hazard if ``values`` depend on the positions and ``target`` loses what they hold.

    ``how`` is ``"cast"`` (``.to``, ``.float()``, ``type_as``) or ``"promoted"`` (an int tensor
    meeting a float one in arithmetic); ``location`` is :func:`location`'s `` at file:line``, or
    ``""`` / :data:`UNKNOWN` when the code's line was not found (the text says so).
    """
    trace = current()
    if trace is None or target.kind not in ("float", "complex"):
        return
    dependent = [v for v in values if trace.depends_on_positions(v)]
    if not dependent:
        return
    if source.kind == "bool":  # a 0/1 mask is exact in every float type
        return
    shown = location if location.startswith(" at ") else UNKNOWN
    if source.kind == "int" or all(integral(v) for v in dependent):
        if target.significand_bits > _FLAGGED_BITS:
            return
        kind = "positions"
        text = (f"positions {how} to {target.name}{shown}: exact integers only up to "
                f"{target.exact_integers}")
    elif source.kind in ("float", "complex") and target.significand_bits < source.significand_bits:
        kind = "values"
        text = (f"position-dependent values (angles or cos/sin) {how} from {source.name} to "
                f"{target.name}{shown}: {target.significand_bits} significant bits")
    else:
        return
    key = (kind, target.name, location)
    if key not in trace.hazards:
        trace.hazards[key] = {"kind": kind, "dtype": target.name, "source": source.name,
                              "location": shown.removeprefix(" at ") if shown != UNKNOWN
                              else "",
                              "exact_integers": target.exact_integers if kind == "positions"
                              else None, "text": text}


# ----------------------------------------------------------------------------- branches

def branch(condition, location: str) -> bool:
    """The decision for a Python branch on a symbolic ``condition`` in this run."""
    trace = current()
    shown = location if location.startswith(" at ") else UNKNOWN
    if trace is None or trace.decisions is None:
        raise LiftUndecided(f"the lifted code branches on a symbolic value "
                            f"({sp.sstr(condition)[:80]}){shown}", op="branch")
    index = len(trace.taken)
    decision = trace.decisions[index] if index < len(trace.decisions) else True
    trace.taken.append((condition, decision, shown.removeprefix(" at ") if shown != UNKNOWN
                        else ""))
    return decision


def feasible(condition) -> bool:
    """False only when ``condition`` is shown unsatisfiable: relations of one expression ``E``
    (``E > 4096 & E < 4096``, what two branches on ``max(positions) + 1`` leave) are reduced to
    a set of values of ``E``; anything else counts as feasible (the path is kept)."""
    if condition == sp.false:
        return False
    relations = list(condition.atoms(sp.core.relational.Relational))
    if not relations:
        return condition != sp.false
    bases = set()
    for relation in relations:
        difference = sp.expand(relation.lhs - relation.rhs)
        constant, rest = difference.as_coeff_Add()
        if not rest.free_symbols:
            return True
        bases.add(rest)
    if len(bases) != 1:
        return True
    (base,) = bases
    z = sp.Dummy("z", real=True)
    try:
        values = condition.xreplace({base: z}).as_set()
    except (NotImplementedError, TypeError, ValueError):
        return True
    return values != sp.S.EmptySet


@dataclass
class Path:
    """One way through the code's branches: the condition it needs and what it computed."""

    condition: sp.Basic
    outputs: object
    branches: list


def explore(run, positions, limit: int = MAX_PATHS) -> tuple[list[Path], dict]:
    """Run ``run()`` once per way through its branches on symbolic values.

    Returns the paths (conditions mutually exclusive, together covering every case) and the
    hazards of all runs. ``run`` must start from fresh state each call (a module whose buffers a
    branch updates is rebuilt inside it).
    """
    pending, paths, hazards = [()], [], {}
    while pending:
        decisions = pending.pop(0)
        trace = Trace(frozenset(positions), decisions)
        with tracing(trace):
            outputs = run()
        hazards.update(trace.hazards)
        for index in range(len(decisions), len(trace.taken)):
            flipped = tuple(d for _, d, _ in trace.taken[:index]) + (not trace.taken[index][1],)
            pending.append(flipped)
        condition = sp.And(*[c if d else sp.Not(c) for c, d, _ in trace.taken])
        if feasible(condition):
            paths.append(Path(condition, outputs, list(trace.taken)))
        if len(paths) + len(pending) > limit:
            where = "; ".join(sorted({loc or "location unknown" for _, _, loc in trace.taken}))
            raise LiftUndecided(f"the lifted code branches on symbolic values in more than "
                                f"{limit} ways (at {where})", op="branch")
    return paths, hazards
