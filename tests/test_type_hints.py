"""The public API is typed (``py.typed`` is shipped): every public function and method says the
types of all its parameters and of what it returns, and ``typing.get_type_hints`` resolves them
(so a checker, an IDE or ``help`` sees real types, not strings naming missing things)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import typing

import ci_support

# Every package with a public API (the command line, symrope.cli, has none: its API is argv).
TYPED_PACKAGES = ["symrope", "symrope.engine", "symrope.schedules", "symrope.linalg",
                  "symrope.theorems", "symrope.lifting", "symrope.kernel", "symrope.checker",
                  "symrope.audit", "symrope.latex"]


def _public_objects(unchecked: list[str]):
    """``(qualified name, function or class)`` of the public API; what needs torch where torch
    is missing is appended to ``unchecked`` instead (every other package is still walked)."""
    seen = set()
    no_torch = importlib.util.find_spec("torch") is None
    for package_name in TYPED_PACKAGES:
        if package_name == "symrope.lifting" and no_torch:
            unchecked.append(package_name)  # lifting needs torch to import
            continue
        package = importlib.import_module(package_name)
        for name in package.__all__:
            try:
                value = getattr(package, name)
            except ImportError:  # symrope.lift and check_lifted load the lifting, which needs torch
                if no_torch:
                    unchecked.append(f"{package_name}.{name}")
                    continue
                raise
            if not (inspect.isfunction(value) or inspect.isclass(value)) or id(value) in seen:
                continue
            seen.add(id(value))
            yield f"{package_name}.{name}", value


def _callables(qualified: str, value):
    """The function itself, or a class's own public methods (``__init__`` included)."""
    if inspect.isfunction(value):
        yield qualified, value
        return
    if issubclass(value, BaseException) and "__init__" not in vars(value):
        return  # an exception that only names a failure: BaseException's signature
    for name, member in vars(value).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        elif isinstance(member, property):
            member = member.fget
        if inspect.isfunction(member):
            yield f"{qualified}.{name}", member


def _missing_annotations(function) -> list[str]:
    signature = inspect.signature(function)
    missing = [parameter.name for parameter in signature.parameters.values()
               if parameter.name not in ("self", "cls")
               and parameter.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def _unresolved_hints(function) -> str | None:
    """Why ``typing.get_type_hints`` cannot resolve ``function``'s hints; None when it can."""
    try:
        typing.get_type_hints(function)
    except Exception as error:  # noqa: BLE001 - reported, whatever it is
        return f"{type(error).__name__}: {error}"
    return None


def test_every_public_callable_is_fully_annotated_and_its_hints_resolve():
    checked, unannotated, unresolved, unchecked = 0, {}, {}, []
    for qualified, value in _public_objects(unchecked):
        for name, function in _callables(qualified, value):
            checked += 1
            missing = _missing_annotations(function)
            if missing:
                unannotated[name] = missing
            problem = _unresolved_hints(function)
            if problem is not None:
                unresolved[name] = problem
    assert not unannotated, unannotated
    assert not unresolved, unresolved
    assert checked >= 100  # the walk really saw the API (111 functions and methods today)
    if unchecked:  # after the checks above: everything else was still checked
        ci_support.missing(f"torch is not installed, so the hints of {', '.join(unchecked)} "
                           "went unchecked", ".ci/run must install the [frameworks] extra")


def test_the_walk_reports_what_it_should():
    """The checks above can fail: an unannotated function is reported, a bad hint does not
    resolve."""

    def untyped(a, b: int):
        return a

    def dangling(a: NoSuchType) -> int:  # noqa: F821 - the point of the test
        return 0

    def typed(a: int, b: str = "") -> int:
        return a

    assert _missing_annotations(untyped) == ["a", "return"]
    assert _missing_annotations(typed) == []
    problem = _unresolved_hints(dangling)
    assert problem is not None and problem.startswith("NameError") and "NoSuchType" in problem
    assert _unresolved_hints(typed) is None


def test_the_type_aliases_do_not_make_the_engine_import_numpy():
    # the aliases naming numpy arrays are lazy: the engine (and the proof-file plugin, which
    # pytester re-imports per run, where numpy's extension cannot load twice) stay numpy-free
    import subprocess
    import sys

    probe = "import sys, symrope.engine; print('numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.strip() == "False", result.stderr[-2000:]
