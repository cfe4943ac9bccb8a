"""The config keys behind an encoding, and which of them a difference blames.

Each side that comes from a config carries its *effective* rope settings, flat: ``rope_theta``,
the scaling (``rope_type``, ``factor``, ``mscale``...), ``partial_rotary_factor``, ``head_dim``
and the ``layer_type`` of a per-layer rope. A port that cannot express a key (a library with no
llama3 schedule) records what it actually ran, so the key it dropped shows as a difference.
Keys are named as users write them: ``rope_theta``, ``partial_rotary_factor``, ``rope_scaling``
(all of it, when one side has none) or ``rope_scaling.<key>``.
"""

from __future__ import annotations

__all__ = ["hf_settings", "responsible", "settings_key", "differing_keys"]

_TOP = {"rope_theta", "partial_rotary_factor", "head_dim", "layer_type"}
_NO_SCALING = {None, "default"}

#: difference kind -> the settings that can cause it
_CAUSES = {
    "frequency": {"rope_theta", "rope_scaling", "partial_rotary_factor", "head_dim", "layer_type",
                  "rope_type", "factor", "low_freq_factor", "high_freq_factor",
                  "original_max_position_embeddings", "beta_fast", "beta_slow", "short_factor",
                  "long_factor", "truncate", "max_position_embeddings"},
    "attention_factor": {"rope_scaling", "attention_factor", "mscale", "mscale_all_dim",
                         "factor", "rope_type", "short_mscale", "long_mscale",
                         "original_max_position_embeddings", "max_position_embeddings",
                         "layer_type"},
    "rotary_fraction": {"partial_rotary_factor", "head_dim", "rotary_dim", "layer_type"},
    "generator": None,  # anything
}
_CAUSES["position_scaling"] = _CAUSES["frequency"]
_CAUSES["frequency_index"] = _CAUSES["frequency"]


def _plain(value):
    """A JSON-able plain value (numbers as float or int, lists kept)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return float(value) if isinstance(value, float) else int(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def hf_settings(config, layer_type=None, head_dim: int | None = None) -> dict:
    """The effective rope settings of a transformers config object (one layer type)."""
    rope = dict(getattr(config, "rope_parameters", None) or {})
    if layer_type is not None and isinstance(rope.get(layer_type), dict):
        rope = dict(rope[layer_type])
    elif rope and all(isinstance(v, dict) or v is None for v in rope.values()):
        first = next((v for v in rope.values() if v), {})
        rope = dict(first)
    if "rope_theta" not in rope and getattr(config, "rope_theta", None) is not None:
        rope["rope_theta"] = config.rope_theta
    partial = rope.pop("partial_rotary_factor", None)
    if partial is None:
        try:
            partial = getattr(config, "partial_rotary_factor", None)
        except Exception:  # noqa: BLE001 - transformers' attribute guards
            partial = None
    settings = {key: _plain(value) for key, value in rope.items()}
    settings["rope_type"] = settings.get("rope_type") or "default"
    settings["partial_rotary_factor"] = 1.0 if partial is None else _plain(partial)
    if head_dim is not None:
        settings["head_dim"] = int(head_dim)
    if layer_type is not None:
        settings["layer_type"] = layer_type
    return settings


def settings_key(key: str) -> str:
    """How a user writes the key: ``rope_theta`` or ``rope_scaling.factor``."""
    return key if key in _TOP else f"rope_scaling.{key}"


def differing_keys(a: dict, b: dict) -> list[str]:
    """The keys whose values differ, named as users write them; a scaling present on one side
    only is one key, ``rope_scaling``.

    Examples
    ========

    >>> from symrope.diff._settings import differing_keys
    >>> differing_keys({"rope_theta": 1e4, "rope_type": "default"},
    ...                {"rope_theta": 5e5, "rope_type": "llama3", "factor": 8.0})
    ['rope_scaling', 'rope_theta']
    """
    scaled = [s.get("rope_type") not in _NO_SCALING for s in (a, b)]
    keys = set()
    for key in set(a) | set(b):
        if a.get(key) != b.get(key):
            if key not in _TOP and scaled[0] != scaled[1]:
                keys.add("rope_scaling")
            else:
                keys.add(settings_key(key))
    return sorted(keys)


def responsible(a: dict | None, b: dict | None, differences: list) -> tuple[list[str], str]:
    """``(keys, why)``: the differing config keys that can cause the named differences.

    Only when both sides come from configs; ``why`` says what was compared, or why nothing is
    blamed (the configs agree: the code differs).
    """
    if a is None or b is None:
        return [], "one side does not come from a config: no key to blame"
    keys = differing_keys(a, b)
    kinds = {d["kind"] for d in differences if not d.get("absorbed")}
    if not keys:
        return [], "the configs agree on every rope setting: the code differs, not the config"
    causes: set = set()
    for kind in kinds:
        cause = _CAUSES.get(kind)
        if cause is None:
            return keys, "the generator differs: every differing key may be the cause"
        causes |= cause
    blamed = [k for k in keys if k.split(".", 1)[-1] in causes or k in causes]
    if not blamed:
        return keys, ("no differing key is known to set what differs; these keys differ: "
                      + ", ".join(keys))
    if len(blamed) > 1 and "layer_type" in blamed:
        blamed.remove("layer_type")
    return blamed, ("config keys that differ between the sides and set what differs (" +
                    ", ".join(sorted(kinds)) + ")")
