"""One place that turns a spec into a lifted encoding: ``resolve(spec, ...)``.

A spec is a liftable library of the registry of real implementations
(:mod:`symrope.audit._libraries`, the names ``symrope audit --impl`` and ``check --impl`` take:
``hf-transformers`` with a config, ``torchtune``, ``x-transformers``, ``timm``,
``rotary-embedding-torch[-xpos]``), ``module:function`` / ``file.py:function``, a port of a
library that is not in the registry (``_ports.py``: ``llama-models``, ``litgpt``, ...), or a
saved lift (``FILE.json`` written by ``symrope lift --save``). A registry library given an HF
config is built for that config's schedule (``Library.lift_target``); without one, it is what
``check --impl`` lifts (plain RoPE of ``head_dim``).

Every encoding it returns carries, in ``lift_info``: ``spec``, ``library`` (name and version),
``config`` (the user's config, when one was given) and ``settings`` (the effective rope settings
that ``_settings.responsible`` compares), or ``None`` where the side has no config.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import sympy as sp

from symrope.diff._provenance import describe_lift
from symrope.errors import UsageError

__all__ = ["resolve", "save_lift", "load_lift", "lift_document", "is_saved_lift"]


def is_saved_lift(spec: str) -> bool:
    """Whether ``spec`` names a saved lift (a ``.json`` path) rather than code."""
    return spec.endswith(".json")


def resolve(spec: str, *, config: dict | None = None, model_type: str | None = None,
            rope_scaling: dict | None = None, head_dim: int | None = None,
            position_dims: int = 1, layer_type: str | None = None, tokens: int | None = None):
    """The :class:`~symrope.lifting.LiftedEncoding` a spec names (see the module's docstring).

    Parameters
    ==========

    spec : str
        An implementation (``hf-transformers``, a port name, ``module:function``) or a saved
        lift ``FILE.json``.
    config, model_type, rope_scaling :
        The HF config (a dict), a transformers model type's default config, the rope parameters
        that replace the config's; for ``hf-transformers`` and the ports.
    head_dim, position_dims :
        For implementations without a config (``module:function``, torchtune, timm...).
    layer_type : str, optional
        One layer type of a per-layer rope (Gemma 3's ``sliding_attention``).
    tokens : int, optional
        Tokens of the symbolic sequence (default 3).

    Examples
    ========

    >>> from symrope.diff import resolve
    >>> resolve("no-such-library")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: unknown implementation 'no-such-library': one of hf-transformers, torchtune, ..., a port (llama-models, litgpt, torchtitan, megatron-core, diffusers, olmo-core, vllm), module:function / file.py:function, or a saved lift FILE.json
    """
    from symrope.diff._ports import PORTS, lift_port
    from symrope.lifting import IMPLS, registered

    extra = {} if tokens is None else {"tokens": tokens}
    library = registered(spec)
    given_config = config is not None or model_type is not None or rope_scaling is not None
    if is_saved_lift(spec):
        if given_config or head_dim is not None or layer_type is not None or tokens is not None:
            raise UsageError(f"{spec} is a saved lift: its config, head dimension and tokens "
                             "are in the file (no --config, --model-type, --rope-scaling, "
                             "--head-dim, --layer-type or --tokens for it)")
        return load_lift(spec)
    hf_config = library is not None and library.lift == "hf-config"
    if hf_config or spec in PORTS or (library is not None and given_config):
        if not given_config:
            raise UsageError(f"{spec} needs --config FILE.json or --model-type NAME (with "
                             "--rope-scaling JSON to replace the rope parameters)")
        if head_dim is not None or position_dims != 1:
            raise UsageError(f"--head-dim and --position-dims do not apply to {spec}: the config "
                             "sets them")
        if spec in PORTS:
            return lift_port(spec, config, model_type, rope_scaling, layer_type, **extra)
        if hf_config:
            return _lift_hf(config, model_type, rope_scaling, layer_type, extra)
        return _lift_entry(library, spec, config, model_type, rope_scaling, layer_type, tokens)
    if layer_type is not None:
        raise UsageError(f"--layer-type goes with an HF config (--config or --model-type), "
                         f"not {spec} without one")
    if library is not None:
        return _lift_library(library, spec, head_dim, position_dims)
    where, sep, name = spec.rpartition(":")
    if not sep or not where or not name:
        raise UsageError(f"unknown implementation {spec!r}: one of {', '.join(IMPLS)}, a port "
                         f"({', '.join(PORTS)}), module:function / file.py:function, or a "
                         "saved lift FILE.json")
    return _lift_function(spec, where, name, head_dim, position_dims, extra)


def _lift_hf(config, model_type, rope_scaling, layer_type, extra):
    from symrope.diff._settings import hf_settings
    from symrope.lifting import lift_hf
    from symrope.lifting import hf_rope

    encoding = lift_hf(config, model_type=model_type, rope_scaling=rope_scaling,
                       layer_type=layer_type, **extra)
    rope = hf_rope(config, model_type, rope_scaling)
    chosen = encoding.lift_info.get("layer_type")
    describe_lift(encoding, "hf-transformers", "transformers", config, model_type, rope_scaling,
              hf_settings(rope.config, chosen, encoding.dim))
    return encoding


def _distribution(library) -> str:
    """The pip distribution of a registry entry (its requirement without the version)."""
    import re

    return re.match(r"[A-Za-z0-9_.-]+", library.requirement).group(0)


def _lift_entry(library, spec, config, model_type, rope_scaling, layer_type, tokens):
    """A registry library built for the HF config's schedule (one layer type) and lifted."""
    from symrope.audit import rope_config_of
    from symrope.diff._settings import hf_settings
    from symrope.lifting import lift_library
    from symrope.lifting import head_dim_of, hf_rope

    rope = hf_rope(config, model_type, rope_scaling)
    if layer_type is not None and layer_type not in rope.layer_types:
        raise UsageError(f"layer type {layer_type!r} has no rope parameters here; one of "
                         f"{', '.join(map(str, rope.layer_types))}")
    chosen = layer_type if layer_type is not None else rope.layer_types[0]
    head_dim = head_dim_of(rope.config, chosen)
    if head_dim is None:
        raise UsageError(f"{spec}: the config does not say the head dimension")
    schedule, _ = rope_config_of(rope.config, chosen)
    reason = library.cannot_express(schedule)
    if reason is not None:
        raise UsageError(f"{reason} (the config asks it)")
    encoding = lift_library(library, schedule, tokens=tokens, whole_schedule=True)
    encoding.name = f"{encoding.name} ({spec})"
    describe_lift(encoding, spec, _distribution(library), config, model_type, rope_scaling,
              hf_settings(rope.config, chosen, head_dim))
    return encoding


def _lift_library(library, spec, head_dim, position_dims):
    from symrope.lifting import lift_impl

    if position_dims != 1:
        raise UsageError(f"--position-dims applies only to module:function, not {spec}")
    encoding = lift_impl(spec, head_dim=head_dim)
    settings = None
    if spec == library.name and encoding.position_dims == 1:
        # what lift_impl builds: plain RoPE of theta 10000 over the whole head (an alias such
        # as rotary-embedding-torch-xpos adds what no config key says)
        settings = {"rope_theta": 10000.0, "rope_type": "default", "partial_rotary_factor": 1.0,
                    "head_dim": encoding.dim}
    describe_lift(encoding, spec, _distribution(library), None, None, None, settings)
    return encoding


def _lift_function(spec, where, name, head_dim, position_dims, extra):
    from symrope.audit import import_user_module
    from symrope.lifting import lift

    module = import_user_module(where, spec)
    if not hasattr(module, name):
        raise UsageError(f"{where} defines no {name!r}")
    head_dim = 64 if head_dim is None else head_dim
    if head_dim < 1 or position_dims < 1:
        raise UsageError("--head-dim and --position-dims must be positive")
    encoding = lift(getattr(module, name), head_dim, position_dims=position_dims, name=spec,
                    **extra)
    describe_lift(encoding, spec, None, None, None, None, None)
    return encoding


# ----------------------------------------------------------------------------- saved lifts

_INFO_KEYS = ("source", "layout", "hazards", "branches", "sequence", "frequencies", "notes",
              "model_type", "layer_type", "config_class", "casts")


def _jsonable(value, depth: int = 0):
    if depth > 12:
        return str(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in value]
    return str(value)


def lift_document(encoding) -> dict:
    """The saved-lift document of an encoding (``symrope.lift/1``)."""
    from symrope._version import __version__
    from symrope.lifting import SAVED_LIFT_FORMAT as FORMAT
    from symrope.lifting import expressions_to_table

    rows = encoding.rows
    roots_of = []
    expressions = []
    for role in ("q", "k"):
        for token_rows in getattr(rows, role):
            roots_of.append((role, len(expressions), len(token_rows)))
            expressions.extend(token_rows)
    table, roots = expressions_to_table(expressions)
    saved_rows = {"q": [], "k": []}
    for role, start, count in roots_of:
        saved_rows[role].append(roots[start:start + count])
    info = encoding.lift_info
    torch_version = sys.modules["torch"].__version__ if "torch" in sys.modules else None
    return {"format": FORMAT, "symrope": __version__, "name": encoding.name,
            "spec": info.get("spec"), "head_dim": encoding.dim,
            "position_dims": encoding.position_dims, "tokens": rows.tokens,
            "library": _jsonable(info.get("library")),
            "environment": {"python": platform.python_version(), "torch": torch_version},
            "config": _jsonable(info.get("config")), "settings": _jsonable(info.get("settings")),
            "lift_info": {k: _jsonable(info[k]) for k in _INFO_KEYS if k in info},
            "nodes": table, "rows": saved_rows}


def save_lift(encoding, path: str) -> dict:
    """Write ``encoding`` to ``path`` as a saved lift; returns the document."""
    from symrope.lifting import dump_lift

    document = lift_document(encoding)
    dump_lift(document, path)
    return document


def _field(document, key, kind, path, low=None, high=None):
    from symrope.lifting import bad_saved_lift

    value = document.get(key)
    if kind is int:
        if type(value) is not int or (low is not None and value < low) or \
                (high is not None and value > high):
            raise bad_saved_lift(path, f"{key!r} must be an integer in {low}..{high}")
    elif value is not None and not isinstance(value, kind):
        raise bad_saved_lift(path, f"{key!r} must be a {kind.__name__}")
    return value


def load_lift(path: str):
    """A saved lift as a ``LiftedEncoding`` (its code is not here: replays are not possible).

    Nothing in the file is executed: see :mod:`symrope.lifting._store` for the format and its
    limits. A malformed or hostile file is a :class:`UsageError` naming it.
    """
    from symrope.lifting import LiftedEncoding
    from symrope.lifting import relate_tokens
    from symrope.lifting import SAVED_LIFT_LIMITS as LIMITS
    from symrope.lifting import bad_saved_lift, load_lift_document, table_to_expressions

    document = load_lift_document(path)
    dim = _field(document, "head_dim", int, path, 1, LIMITS["rows"])
    axes = _field(document, "position_dims", int, path, 1, LIMITS["position_dims"])
    tokens = _field(document, "tokens", int, path, 1, LIMITS["tokens"])
    rows = document.get("rows")
    if not isinstance(rows, dict) or set(rows) != {"q", "k"} or \
            not all(isinstance(rows[r], list) and len(rows[r]) == tokens and
                    all(isinstance(t, list) and len(t) == dim for t in rows[r])
                    for r in ("q", "k")):
        raise bad_saved_lift(path, f"'rows' must hold q and k: {tokens} tokens of {dim} node indices each")
    roots = [index for role in ("q", "k") for token_rows in rows[role] for index in token_rows]
    built = table_to_expressions(document.get("nodes"), roots, path, head_dim=dim,
                                 tokens=tokens, position_dims=axes)
    q_rows = [built[t * dim:(t + 1) * dim] for t in range(tokens)]
    offset = tokens * dim
    k_rows = [built[offset + t * dim:offset + (t + 1) * dim] for t in range(tokens)]
    x = [sp.symbols(f"_lift_x{t}_0:{dim}", real=True) for t in range(tokens)]
    y = [sp.symbols(f"_lift_y{t}_0:{dim}", real=True) for t in range(tokens)]
    p = [tuple(sp.symbols(f"_lift_p{t}_0:{axes}", real=True)) for t in range(tokens)]
    if any(not isinstance(e, sp.Expr) for e in built):
        raise bad_saved_lift(path, "a row entry is not an expression (a condition or a constant of logic)")
    token_rows = relate_tokens(q_rows, k_rows, x, y, p)
    for key in ("name", "spec"):
        _field(document, key, str, path)
    for key in ("library", "config", "settings", "lift_info", "environment"):
        _field(document, key, dict, path)
    info = dict(document.get("lift_info") or {})
    info.update(spec=document.get("spec"), library=document.get("library"),
                config=document.get("config"), settings=_settings(document, path),
                saved={"path": str(Path(path)), "symrope": str(document.get("symrope")),
                       "environment": document.get("environment")})
    info.setdefault("layout", {"text": ""})

    def evaluator(role_rows, symbols):
        def encode(vector, position):
            values = position if isinstance(position, tuple) else (position,)
            mapping = dict(zip(symbols, list(vector)))
            mapping.update(zip(p[0], values))
            return sp.ImmutableMatrix([row.xreplace(mapping) for row in role_rows])
        return encode

    name = document.get("name") or path
    return LiftedEncoding(f"{name} (saved: {path})", dim, evaluator(q_rows[0], x[0]),
                          evaluator(k_rows[0], y[0]), axes, None, info, token_rows)


def _settings(document, path):
    from symrope.lifting import bad_saved_lift

    settings = document.get("settings")
    if settings is None:
        return None
    for key, value in settings.items():
        if not (value is None or isinstance(value, (str, int, float, bool)) or
                (isinstance(value, list) and all(isinstance(v, (int, float)) for v in value))):
            raise bad_saved_lift(path, f"setting {key!r} must be a number, a string or a list of numbers")
    return settings


def read_json_object(path: str, what: str) -> dict:
    """A JSON object from a file (an HF config), or a one-line :class:`UsageError`."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except (json.JSONDecodeError, RecursionError, UnicodeDecodeError) as error:
        raise UsageError(f"{path} is not valid JSON ({type(error).__name__})") from None
    if not isinstance(document, dict):
        raise UsageError(f"{path} must hold a JSON object ({what})")
    return document
