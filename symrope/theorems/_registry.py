"""The registry of the built-in theorems: ``@theorem`` registers a parametric builder.

A theorem of the library is one decorated build function in a module of ``THEOREM_MODULES``
(:mod:`symrope.theorems`): registering it is all it takes for ``symrope prove``, ``symrope
list``, ``symrope latex`` and the tests that walk the registry (every theorem proved at its
defaults, every step as expected, its derivation typeset) to take it in.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable, TypeVar

from symrope.engine import Theorem
from symrope.errors import UsageError

__all__ = ["TheoremBuilder", "theorem", "BUILTIN", "signature_defaults"]


@dataclass(frozen=True)
class TheoremBuilder:
    """A parametric theorem of the built-in library: ``build(**params) -> Theorem``.

    ``defaults`` are the parameters ``symrope prove NAME`` uses: the defaults of the build
    function's signature, so they are written once.
    """

    name: str
    summary: str
    build_function: Callable[..., Theorem]
    defaults: dict
    title: str | None = None

    def build(self, **params: object) -> Theorem:
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise UsageError(f"theorem {self.name} has no parameter(s) {', '.join(sorted(unknown))}"
                             f" (it takes: {', '.join(self.defaults) or 'none'})")
        merged = {**self.defaults, **params}
        result = self.build_function(**merged)
        result.params = merged
        result.summary = result.summary or self.summary
        result.title = result.title or self.title
        result.built_in = True
        return result


BUILTIN: dict[str, TheoremBuilder] = {}


def signature_defaults(function: Callable) -> dict:
    """The parameters of a theorem's build function with their defaults, in order.

    Every parameter needs a default: it is what ``symrope prove NAME`` uses.

    Examples
    ========

    >>> from symrope.theorems import signature_defaults
    >>> def build(d=64, theta=10000): ...
    >>> signature_defaults(build)
    {'d': 64, 'theta': 10000}
    """
    defaults = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.default is inspect.Parameter.empty:
            raise ValueError(f"theorem builder {function.__name__} needs a default for {name!r} "
                             f"(the value 'symrope prove' uses)")
        defaults[name] = parameter.default
    return defaults


_Builder = TypeVar("_Builder", bound=Callable[..., Theorem])


def theorem(name: str, summary: str, *, title: str | None = None
            ) -> Callable[[_Builder], _Builder]:
    """Register a parametric theorem builder in the built-in library.

    The parameters ``symrope prove NAME`` uses are the defaults of the decorated function's
    signature; ``title`` is the heading of its derivation, in words.
    """
    def register(function):
        if name in BUILTIN:
            raise ValueError(f"theorem {name!r} registered twice")
        BUILTIN[name] = TheoremBuilder(name, summary, function, signature_defaults(function),
                                       title)
        return function

    return register
