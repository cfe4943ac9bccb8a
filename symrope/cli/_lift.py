"""``symrope lift SPEC --save FILE.json``: a lifted encoding written as data, to diff elsewhere."""

from __future__ import annotations

import sys

from symrope._cliutil import EXIT_PROVED, EXIT_UNDECIDED
from symrope._parse import integer_option
from symrope.cli._common import ArgumentParser, dump_json, output_file
from symrope.errors import UsageError

__all__ = ["main", "add_spec_options", "spec_options", "resolve_spec"]

def spec_help() -> str:
    """What a spec may be, generated from the registry of real implementations and the ports."""
    from symrope.audit import lift_help
    from symrope.diff import PORTS

    return (f"a registered library ({lift_help()}; hf-transformers with --config or "
            f"--model-type, the others with one too or plain RoPE of --head-dim), a port "
            f"({', '.join(PORTS)}; with --config or --model-type), module:function or "
            f"file.py:function with signature (q, k, positions) -> (q_rot, k_rot)")


def add_spec_options(parser, prefix: str = "", side: str = "") -> None:
    """The options that say how to build an implementation (``--config`` ...), with ``prefix``
    (``a-``, ``b-``) for one side of a diff."""
    who = f" for {side}" if side else ""
    flag = f"--{prefix}"
    parser.add_argument(f"{flag}config", metavar="FILE.json",
                        help=f"the HF config.json{who} (read offline through transformers' "
                             "config class and its defaults)")
    parser.add_argument(f"{flag}model-type", metavar="NAME",
                        help=f"a transformers model type's default config{who}")
    parser.add_argument(f"{flag}rope-scaling", metavar="JSON",
                        help=f"replace the rope parameters{who}, e.g. "
                             "'{\"rope_type\": \"yarn\", \"factor\": 4}'")
    parser.add_argument(f"{flag}layer-type", metavar="NAME",
                        help=f"one layer type of a per-layer rope{who} (Gemma 3: "
                             "sliding_attention, full_attention)")
    parser.add_argument(f"{flag}head-dim", type=integer_option(f"{flag}head-dim", 1),
                        metavar="N", help=f"head dimension{who} for code without a config "
                                          "(default 64)")
    parser.add_argument(f"{flag}position-dims", type=integer_option(f"{flag}position-dims", 1),
                        metavar="N", help=f"position coordinates{who} for module:function "
                                          "(default 1)")


def spec_options(args, prefix: str = "", fallback: dict | None = None) -> dict:
    """The keyword arguments of :func:`symrope.diff.resolve` from parsed options; a side's own
    options (``--a-config``) win over the shared ones (``fallback``)."""
    from symrope.diff import read_json_object

    name = prefix.replace("-", "_")
    raw = {key: getattr(args, f"{name}{key}") for key in
           ("config", "model_type", "rope_scaling", "layer_type", "head_dim", "position_dims")}
    if fallback is not None:
        raw = {key: value if value is not None else fallback.get(key)
               for key, value in raw.items()}
    options = {"config": read_json_object(raw["config"], "an HF config")
               if isinstance(raw["config"], str) else raw["config"],
               "model_type": raw["model_type"],
               "rope_scaling": rope_scaling(raw["rope_scaling"])
               if isinstance(raw["rope_scaling"], str) else raw["rope_scaling"],
               "layer_type": raw["layer_type"], "head_dim": raw["head_dim"],
               "position_dims": raw["position_dims"] or 1}
    if options["config"] is not None and options["model_type"] is not None:
        raise UsageError("give either --config or --model-type, not both")
    return options


def rope_scaling(text: str | None) -> dict | None:
    import json

    if text is None:
        return None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        raise UsageError("--rope-scaling is not valid JSON") from None
    if not isinstance(value, dict):
        raise UsageError("--rope-scaling must be a JSON object")
    return value


def resolve_spec(spec: str, options: dict, tokens: int | None = None):
    """Lift a spec, turning an implementation that cannot be followed into exit 3's message."""
    from symrope.diff import resolve

    try:
        return resolve(spec, tokens=tokens, **options)
    except ImportError as error:
        raise UsageError(f"{spec} needs torch ({error}); pip install 'symrope[frameworks]'") \
            from None


def main(argv: list[str]) -> int:
    """Run ``symrope lift``; returns the exit code (0 saved, 2 bad input, 3 not liftable)."""
    parser = ArgumentParser(
        prog="symrope lift",
        description="Lift real RoPE code to exact expressions and save them as data (a JSON "
                    "node table that loading cannot execute), to compare with 'symrope diff' "
                    "where both implementations cannot share one environment.")
    parser.add_argument("spec", metavar="SPEC", help=spec_help())
    add_spec_options(parser)
    parser.add_argument("--tokens", type=integer_option("--tokens", 1), metavar="N",
                        help="tokens of the symbolic sequence (default 3)")
    parser.add_argument("--save", metavar="FILE.json", required=True,
                        help="where to write the saved lift")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")
    args = parser.parse_args(argv)
    if not args.save.endswith(".json"):
        raise UsageError(f"--save {args.save!r} must end in .json (diff reads a .json spec as a "
                         "saved lift)")
    output_file(args.save, "--save")
    from symrope.diff import save_lift
    from symrope.lifting import LiftUndecided

    try:
        encoding = resolve_spec(args.spec, spec_options(args), args.tokens)
    except LiftUndecided as error:
        print(f"symrope lift: undecided: {' '.join(str(error).split())} (the code cannot be "
              "followed in exact semantics; nothing saved)", file=sys.stderr)
        return EXIT_UNDECIDED
    document = save_lift(encoding, args.save)
    library = document["library"] or {}
    summary = {"saved": args.save, "name": document["name"], "spec": document["spec"],
               "library": library.get("name"), "version": library.get("version"),
               "head_dim": document["head_dim"], "tokens": document["tokens"],
               "nodes": len(document["nodes"]),
               "layout": document["lift_info"].get("layout", {}).get("text"),
               "hazards": len(document["lift_info"].get("hazards", [])),
               "settings": document["settings"]}
    if args.json:
        dump_json(summary)
    else:
        version = f" {summary['version']}" if summary["version"] else ""
        print(f"{args.save}: {summary['name']} [{summary['library']}{version}], head_dim "
              f"{summary['head_dim']}, {summary['tokens']} tokens, {summary['nodes']} nodes; "
              f"{summary['layout']}; {summary['hazards']} precision hazard(s)")
        if summary["settings"]:
            print("  settings: " + ", ".join(f"{k} = {v}" for k, v in
                                             sorted(summary["settings"].items())))
    return EXIT_PROVED
