"""Where a lifted side came from: the spec, the library and its version, the config, the
effective rope settings (``lift_info``), written by every way ``resolve`` lifts a side."""

from __future__ import annotations

from importlib import metadata

__all__ = ["describe_lift", "distribution_version"]


def distribution_version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None where it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def describe_lift(encoding, spec, distribution, config, model_type, rope_scaling, settings) -> None:
    info = encoding.lift_info
    info["spec"] = spec
    info["library"] = {"name": distribution or "user code",
                       "version": distribution_version(distribution) if distribution else None}
    info["config"] = {"config": config, "model_type": model_type, "rope_scaling": rope_scaling} \
        if (config or model_type or rope_scaling) else None
    info["settings"] = settings
