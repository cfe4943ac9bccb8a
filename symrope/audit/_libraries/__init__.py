"""The registry of real implementations: one entry per library, one module per entry.

Every module of this folder is an entry module: it defines ``LIBRARIES``, a tuple of
:class:`~symrope.audit._real.Library` subclasses (the protocol and every attribute an entry
declares are written down there). The folder is listed without importing anything
(``pkgutil.iter_modules``); the entry modules themselves import no library (torch and the
library are imported when an entry is built or lifted), so reading the registry is cheap, and
``Library.installed()`` detects a library with ``importlib.util.find_spec`` alone.

Everything that names the real libraries is generated from here: ``symrope audit --impl`` (its
help, its errors, the schedule fallback, the default), ``symrope survey`` (its rows, their
order and expected cost), ``symrope check --impl`` (``symrope.lifting.lift_impl``), the table of
``docs/audit-real.md`` (``libraries_table``), and the tests' parametrisation.

To add a library: one module here (its entry), its test, its requirement in the entry's extra
of ``pyproject.toml``. ``symrope/audit/README.md`` shows an entry.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Any

from symrope.audit._real import Library
from symrope.audit._torch import EXTRA, import_library
from symrope.errors import UsageError
from symrope.schedules import RopeConfig

__all__ = ["DEFAULT_LIBRARY", "build_library", "default_implementation", "entry",
           "fallback_schedule", "implementation_names", "libraries", "libraries_table",
           "library_names", "lift_help", "lift_specs", "resolve_implementation",
           "survey_cost", "surveyed_names"]

#: The order of the libraries in every list, the survey's rows included (the order they had
#: before the registry); an entry module not named here follows them, in name order.
ORDER = ("hf_transformers", "torchtune", "rotary_embedding_torch", "keras_hub", "timm")
#: ``symrope audit``'s default where torch and transformers import.
DEFAULT_LIBRARY = "hf-transformers"
#: Build options that act on a library's module (the audit's environment knobs), as flags.
_KNOBS = {"cast_module": "--cast-module", "autocast": "--autocast", "tf32": "--tf32"}
#: Build options any entry may ignore: what the schedule came from.
_CONTEXT = frozenset({"hf_config"})
_REQUIRED = ("name", "imports", "requirement", "runs", "table_is")


def _entry_modules() -> list[str]:
    found = [info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")]
    known = [name for name in ORDER if name in found]
    return known + sorted(name for name in found if name not in ORDER)


@lru_cache(maxsize=None)
def libraries() -> tuple[type[Library], ...]:
    """Every registered library, in the registry's order (entry modules imported on first use)."""
    found: list[type[Library]] = []
    for module_name in _entry_modules():
        module = importlib.import_module(f"{__name__}.{module_name}")
        for library in getattr(module, "LIBRARIES", ()):
            _check(library, module.__name__, found)
            found.append(library)
    return tuple(found)


def _check(library, where: str, found) -> None:
    """An entry must declare what the registry and its users read (see ``symrope.audit._real``)."""
    from inspect import isabstract

    if not (isinstance(library, type) and issubclass(library, Library)) or isabstract(library):
        raise TypeError(f"{where}: {library!r} is not a concrete symrope.audit.Library")
    missing = [key for key in _REQUIRED if not getattr(library, key, None)]
    if missing:
        raise TypeError(f"{where}: {library.__name__} declares no {', '.join(missing)}")
    if library.pairing not in ("interleaved", "rotate_half"):
        raise TypeError(f"{where}: {library.__name__}.pairing is {library.pairing!r}")
    if library.lift not in (None, "schedule", "hf-config"):
        raise TypeError(f"{where}: {library.__name__}.lift is {library.lift!r}")
    if library.lift == "schedule" and library.lift_target.__func__ is Library.lift_target.__func__:
        raise TypeError(f"{where}: {library.__name__} is lifted by schedule but has no lift_target")
    names = {n for other in found for n in (other.name, *other.variants, *other.lift_aliases)}
    clash = {library.name, *library.variants, *library.lift_aliases} & names
    if clash:
        raise TypeError(f"{where}: {library.__name__} names {', '.join(sorted(clash))} again")


def library_names() -> tuple[str, ...]:
    """The ``--impl`` names of the real libraries."""
    return tuple(library.name for library in libraries())


def entry(name: str) -> tuple[type[Library], dict] | None:
    """The library a name stands for and the build options it implies (a survey variant such as
    ``hf-transformers+fix``), or None for a name no entry has."""
    for library in libraries():
        if name == library.name:
            return library, {}
        if name in library.variants:
            return library, dict(library.variants[name])
    return None


def surveyed_names() -> tuple[str, ...]:
    """The rows ``symrope survey`` runs by default: each surveyed library, then its variants."""
    return tuple(name for library in libraries() if library.surveyed
                 for name in (library.name, *library.variants))


def survey_cost(name: str) -> int:
    """How costly a survey row is expected to be, relative to the others (1 for a model)."""
    found = entry(name)
    return found[0].survey_cost if found else 1


def implementation_names() -> tuple[str, ...]:
    """Every ``--impl`` name of ``symrope audit``: the real libraries first, then the models."""
    from symrope.audit._models import MODELS

    return (*library_names(), *MODELS)


def _refuse_options(name: str, library: type[Library] | None, options: dict) -> None:
    knobs = [key for key in _KNOBS if options.get(key)]
    if knobs and (library is None or not set(_KNOBS) <= library.build_options):
        owners = ", ".join(lib.name for lib in libraries() if set(_KNOBS) <= lib.build_options)
        raise UsageError(f"{'/'.join(_KNOBS.values())} act on --impl {owners}, not {name!r}")
    if library is not None:
        extra = sorted(key for key, value in options.items() if value not in (None, False)
                       and key not in library.build_options and key not in _CONTEXT)
        if extra:
            raise UsageError(f"--impl {name} takes no {', '.join(extra)}")


def build_library(name: str, config: RopeConfig, **options: Any) -> Library:
    """The registered library ``name`` (or a variant) built for ``config``; ``options`` are
    its ``build_options`` (context it does not take, such as ``hf_config``, is ignored)."""
    found = entry(name)
    if found is None:
        raise UsageError(f"unknown real implementation {name!r} (one of: "
                         f"{', '.join(library_names())})")
    library, implied = found
    _refuse_options(name, library, options)
    given = {key: value for key, value in {**options, **implied}.items()
             if key in library.build_options and value is not None}
    return library.build(config, **given)


def resolve_implementation(name: str, config: RopeConfig | None, **options: Any) -> Any:
    """What ``--impl NAME`` audits: a registered library built for ``config`` (torch & co.
    imported only then), a built-in model, or the user's ``module:function``.

    ``options``: the libraries' build options (``hf_config``, ``model_type``, ``rope_scaling``,
    ``cast_module``, ``autocast``, ``tf32``, ``fixed``); a knob on anything but a library that
    takes it is a one-line UsageError.

    Examples
    ========
    >>> resolve_implementation("meta", None).name
    'meta'
    >>> resolve_implementation("meta", None, tf32=True)
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: --cast-module/--autocast/--tf32 act on --impl hf-transformers, not 'meta'
    """
    from symrope.audit._models import MODELS, get_model

    found = entry(name)
    _refuse_options(name, found[0] if found else None, options)
    if found is not None:
        return build_library(name, config, **options)
    if name in MODELS:
        return get_model(name)
    if ":" not in name:
        raise UsageError(f"unknown implementation {name!r} (one of: "
                         f"{', '.join(implementation_names())}; or your own module:function / "
                         f"file.py:function)")
    from symrope.audit._user import load_user_impl

    return load_user_impl(name)


def default_implementation() -> tuple[str, str | None]:
    """``symrope audit``'s default: the real transformers class where it imports, else its model
    ``hf``, with the note that says so (the report prints it in its header)."""
    try:
        import_library("torch", DEFAULT_LIBRARY)
        import_library("transformers", DEFAULT_LIBRARY)
    except UsageError:
        return "hf", (f"torch and transformers do not both import here, so this is the built-in "
                      f"model hf of transformers' rotary class, not the class itself (pip install "
                      f"'{EXTRA}' to audit the real one)")
    return DEFAULT_LIBRARY, None


def fallback_schedule(name: str, config: RopeConfig) -> tuple[RopeConfig, str | None]:
    """``config``, or, where the library ``name`` cannot express it, plain RoPE of the same
    head dimension and base, with the note that says so (``Library.fallback``)."""
    found = entry(name)
    if found is None:
        raise UsageError(f"unknown real implementation {name!r} (one of: "
                         f"{', '.join(library_names())})")
    return found[0].fallback(config)


def lift_specs() -> dict[str, str]:
    """``symrope check --impl`` names of the liftable libraries (aliases too) -> what is lifted."""
    specs: dict[str, str] = {}
    for library in libraries():
        if library.lift is not None:
            specs[library.name] = library.lift_description
            specs.update(library.lift_aliases)
    return specs


def lift_help() -> str:
    """The liftable libraries as ``symrope check --help`` spells them."""
    return ", ".join(library.name if library.lift_help is None else library.lift_help
                     for library in libraries() if library.lift is not None and library.lift_help != "")


def libraries_table() -> list[str]:
    """The Markdown table of real implementations in ``docs/audit-real.md`` (a test keeps the
    page equal to it)."""
    lines = ["| `--impl` | what runs | the table is |", "|----------|-----------|--------------|"]
    lines += [f"| `{library.name}` | {library.runs} | {library.table_is} |"
              for library in libraries()]
    return lines
