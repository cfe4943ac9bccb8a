"""``symrope audit``: how a float RoPE implementation drifts at long context, and why."""

from __future__ import annotations

import json
import re
import sys

import numpy as np

from symrope._parse import integer_option, real_option
from symrope.cli._common import ArgumentParser, dump_json, output_file
from symrope.audit import (COLUMN_MEANINGS, DEFAULT_LIBRARY, DEFAULT_TOLERANCE, EXTRA,
                           MAX_POSITION, MODELS, AuditOptions, Library, audit_report,
                           default_implementation, fallback_schedule, library_names,
                           resolve_implementation)
from symrope.errors import UsageError
from symrope.schedules import RopeConfig, llama31_8b

_DEFAULT_MAX_POSITION = 2**20 - 1   # the last position of a 1M-token context
_HF_CLASS = DEFAULT_LIBRARY          # the real transformers class: the knobs act on it
_LARGEST_CONTIGUOUS = 2**32   # every position is streamed: about 5 CPU-hours at 64 pairs


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="symrope audit",
        description="Audit a float RoPE implementation against a certified high-precision "
                    "reference: error per position band, phase decomposition, invariance of "
                    "attention scores, safe context length, and the suggested fix. With no "
                    "arguments: transformers' real LlamaRotaryEmbedding with Llama 3.1 8B's RoPE in "
                    "bf16 up to 1M positions (the built-in model of it where transformers is not "
                    "installed).",
        epilog="columns of the band table: " + "; ".join(
            f"{name}: {meaning}" for name, meaning in COLUMN_MEANINGS))
    parser.add_argument("--impl", default=None, metavar="NAME|module:function",
                        help=f"a real library run through its own code ({', '.join(library_names())}; "
                             f"pip install '{EXTRA}'), a built-in model ({', '.join(MODELS)}: "
                             f"explanations of why), or your own module:function / file.py:function "
                             f"(default: {_HF_CLASS}, the real class, when transformers is installed; "
                             f"else its model hf)")
    parser.add_argument("--model-type", metavar="NAME",
                        help=f"with --impl {_HF_CLASS}: that transformers model type's default config, "
                             "built offline from transformers' own config class (--rope-scaling "
                             "replaces its rope parameters)")
    parser.add_argument("--cast-module", choices=("bf16", "fp16"),
                        help=f"{_HF_CLASS}: module.to(dtype) first (casts the inv_freq buffer)")
    parser.add_argument("--autocast", choices=("bf16", "fp16"),
                        help=f"{_HF_CLASS}: run forward under torch.autocast('cpu', dtype)")
    parser.add_argument("--tf32", action="store_true",
                        help=f"{_HF_CLASS}: EMULATE a TF32 product of inv_freq and positions "
                             "(operands rounded to 10 mantissa bits; CPU has no TF32)")
    parser.add_argument("--fix", action="store_true",
                        help=f"{_HF_CLASS}: audit the class patched by symrope.audit.fix.patch_rotary "
                             "(float64 angles)")
    parser.add_argument("--compare", nargs="+", default=[], metavar="NAME",
                        help="more implementations audited side by side on the same positions")
    parser.add_argument("--dtype", choices=("bf16", "fp16", "fp32", "fp64"),
                        help="model dtype (default: the implementation's usual dtype)")
    parser.add_argument("--config", metavar="FILE.json", help="an HF config.json to read the schedule from")
    parser.add_argument("--head-dim", type=integer_option("--head-dim", 1), metavar="N",
                        help="head dimension; any of --head-dim/--theta/--rope-scaling builds the "
                             "schedule from these flags (defaults 128, 10000, no scaling) instead "
                             "of Llama 3.1 8B's")
    parser.add_argument("--theta", type=real_option("--theta", positive=True), metavar="T",
                        help="rope_theta (default 10000)")
    parser.add_argument("--rope-scaling", metavar="JSON", help="HF rope_scaling dict as JSON, "
                        "e.g. '{\"rope_type\": \"linear\", \"factor\": 4}'")
    parser.add_argument("--max-position", type=integer_option("--max-position", 0), metavar="N",
                        help=f"audit positions 0..N inclusive (default {_DEFAULT_MAX_POSITION})")
    parser.add_argument("--positions", metavar="LIST",
                        help="audit only these positions: comma-separated integers or a..b ranges")
    parser.add_argument("--tolerance", type=real_option("--tolerance", positive=True),
                        default=DEFAULT_TOLERANCE, metavar="T",
                        help="absolute error in cos/sin allowed inside the safe context, the same "
                             "for every implementation and dtype compared (default 2^-8 = 0.0039, "
                             "the bf16 step in [0.5, 1))")
    parser.add_argument("--seq-len", type=integer_option("--seq-len", 0), metavar="N",
                        help="current sequence length for dynamic/longrope schedules (default: "
                             "the frequencies at initialisation)")
    parser.add_argument("--seed", type=integer_option("--seed", 0), default=0,
                        help="seed of the random q, k (default 0)")
    parser.add_argument("--no-fix", action="store_true", help="do not re-audit the suggested fix")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of error against position")
    return parser


def parse_positions(text: str) -> np.ndarray:
    """``"0,15962,100..120"`` -> the sorted unique positions (ranges inclusive).

    Examples
    ========
    >>> parse_positions("5, 1..3").tolist()
    [1, 2, 3, 5]
    >>> parse_positions("1.5")
    Traceback (most recent call last):
    ...
    symrope.errors.UsageError: --positions: '1.5' is not a non-negative integer or a..b range
    """
    pieces = []
    for item in (part.strip() for part in text.split(",")):
        match = re.fullmatch(r"(\d+)(?:\.\.(\d+))?", item)
        if not match:
            raise UsageError(f"--positions: {item!r} is not a non-negative integer or a..b range")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        if high < low:
            raise UsageError(f"--positions: range {item!r} is empty")
        if high > MAX_POSITION:
            raise UsageError(f"--positions: {high} exceeds the largest supported position {MAX_POSITION}")
        if high - low > 50_000_000:
            raise UsageError(f"--positions: range {item!r} is too long (use --max-position)")
        pieces.append(np.arange(low, high + 1, dtype=np.int64))
    return np.unique(np.concatenate(pieces))


#: Keys that only a RoPE config has (any one of them is enough).
_ROPE_KEYS = ("rope_theta", "rope_parameters", "rope_scaling", "rotary_dim", "rotary_pct",
              "rotary_emb_base", "partial_rotary_factor", "rotary_emb_fraction")


def check_rope_config(document: dict, source: str) -> None:
    """UsageError "not a RoPE config" for a config of a model without rotary embeddings, or one
    whose ``model_type`` the installed transformers does not know.

    A config with a rope key is RoPE; one with none is RoPE only if its model type is (asked of
    the installed transformers when it imports; else judged by absolute position embeddings).
    """
    model_type = document.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise UsageError(f"model_type must be a string, got {model_type!r}")
    try:
        import transformers
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

        from symrope.audit import hf_rotary_class
    except Exception:  # noqa: BLE001 - without transformers the keys decide
        transformers = None
    if transformers is not None and model_type is not None and model_type not in CONFIG_MAPPING_NAMES:
        raise UsageError(f"transformers does not know model_type {model_type[:80]!r} ({source})")
    if any(key in document for key in _ROPE_KEYS) or model_type is None:
        return   # no model type: default RoPE (theta 10000), as transformers' Llama reads it
    if transformers is None:
        absolute = document.get("position_embedding_type", "absolute") == "absolute" and (
            "type_vocab_size" in document or "n_positions" in document or "n_ctx" in document)
        if absolute:
            raise UsageError(f"not a RoPE config: {source} (model_type {model_type!r}) has absolute "
                             "position embeddings and no rope parameters")
        return
    try:
        hf_rotary_class(transformers, model_type)
    except UsageError:
        raise UsageError(f"not a RoPE config: {source} (model_type {model_type!r}) has no rotary "
                         "embedding in transformers") from None


def build_config(args) -> tuple[RopeConfig | None, dict | None]:
    """The schedule from --config, from --head-dim/--theta/--rope-scaling, or Llama 3.1 8B's
    (None with --model-type: the model type's own config, as transformers builds it)."""
    if args.model_type is not None:
        if args.config or args.head_dim is not None or args.theta is not None:
            raise UsageError(f"--model-type goes with --impl {_HF_CLASS} (and --rope-scaling), "
                             f"not with --config/--head-dim/--theta")
        rope_scaling_argument(args)      # its JSON is checked now; transformers' class reads it
        return None, None
    flags = args.head_dim is not None or args.theta is not None or args.rope_scaling is not None
    if args.config is not None:
        if flags:
            raise UsageError("use either --config or --head-dim/--theta/--rope-scaling, not both")
        try:
            with open(args.config, encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, ValueError):
            document = None   # RopeConfig.from_file says what is wrong, in one line
        if isinstance(document, dict):
            check_rope_config(document, args.config)
        config = RopeConfig.from_file(args.config)
        return config, document
    if not flags:
        return llama31_8b(), None
    scaling = rope_scaling_argument(args)
    if args.theta is not None and not (args.theta > 0 and np.isfinite(args.theta)):
        raise UsageError(f"--theta must be a positive finite number, got {args.theta!r}")
    return RopeConfig.from_options(head_dim=128 if args.head_dim is None else args.head_dim,
                                   theta=args.theta, rope_scaling=scaling), None


def rope_scaling_argument(args) -> dict | None:
    if args.rope_scaling is None:
        return None
    try:
        scaling = json.loads(args.rope_scaling)
    except json.JSONDecodeError as error:
        raise UsageError(f"--rope-scaling is not valid JSON: {error.msg}") from None
    if scaling is not None and not isinstance(scaling, dict):
        raise UsageError(f"--rope-scaling must be a JSON object, got {args.rope_scaling!r}")
    return scaling


def main(argv: list[str]) -> int:
    """Run ``symrope audit``; returns the exit code (bad input raises UsageError: exit 2)."""
    args = _parser().parse_args(argv)
    config, hf_config = build_config(args)
    notes = []
    hf_knobs = args.model_type is not None or args.fix or args.cast_module or args.autocast or args.tf32
    if args.impl is None:
        args.impl, note = (_HF_CLASS, None) if hf_knobs else default_implementation()
        notes += [note] if note else []
    schedule_flags = (args.config is not None or args.head_dim is not None or args.theta is not None
                      or args.rope_scaling is not None)
    if args.impl in library_names() and config is not None and not schedule_flags:
        config, note = fallback_schedule(args.impl, config)
        notes += [note] if note else []
    if args.positions is not None and args.max_position is not None:
        raise UsageError("use either --positions or --max-position, not both")
    if args.max_position is not None and args.max_position > _LARGEST_CONTIGUOUS:
        raise UsageError(f"--max-position {args.max_position} would stream more than 2^32 positions "
                         f"(hours); audit chosen positions up to {MAX_POSITION} with --positions")
    if not (args.tolerance > 0 and np.isfinite(args.tolerance)):
        raise UsageError(f"--tolerance must be a positive number, got {args.tolerance!r}")
    positions = parse_positions(args.positions) if args.positions is not None else None
    if args.plot:
        output_file(args.plot, "--plot")
    if args.model_type is not None and args.impl != _HF_CLASS:
        raise UsageError(f"--model-type goes with --impl {_HF_CLASS} (and --rope-scaling), "
                         f"not with --impl {args.impl}")
    if args.fix and args.impl != _HF_CLASS:
        raise UsageError(f"--fix patches the real transformers class: use it with --impl {_HF_CLASS}")
    # what the primary is built from; the suggested fix is built from the same
    request = {"hf_config": hf_config, "model_type": args.model_type,
               "rope_scaling": rope_scaling_argument(args) if args.model_type else None,
               "cast_module": args.cast_module, "autocast": args.autocast, "tf32": args.tf32}
    primary = resolve_implementation(args.impl, config, fixed=args.fix, **request)
    if isinstance(primary, Library):
        # the schedule the library builds is the audited one (transformers': read off its inv_freq)
        config = primary.rope_config
        notes += list(primary.notes)
    top_position = int(positions.max()) if positions is not None else (
        _DEFAULT_MAX_POSITION if args.max_position is None else args.max_position)
    # each implementation once: the primary is not compared with itself, nor a name twice
    compare_names = [name for name in dict.fromkeys(args.compare) if name != args.impl]
    others = [resolve_implementation(name, config, hf_config=hf_config) for name in compare_names]
    for impl in (primary, *others):
        if isinstance(impl, Library):
            impl.prepare(top_position)
    options = AuditOptions(
        max_position=_DEFAULT_MAX_POSITION if args.max_position is None else args.max_position,
        positions=positions, dtype=args.dtype, tolerance=args.tolerance, seed=args.seed,
        seq_len=args.seq_len or None, progress=None if not args.json else False)
    report = audit_report(
        primary, config, options, compared=others, skip_fix=(args.impl, *compare_names),
        build_fix=None if args.no_fix else
        (lambda name: resolve_implementation(name, config, **request)),
        config_document=hf_config, notes=notes)
    if args.plot:
        from symrope.audit import plot_audits

        written = plot_audits([report.primary, *report.compared, *([report.fix] if report.fix else [])],
                              args.plot)
        if not args.json:
            print(f"plot written to {written}", file=sys.stderr)
    if args.json:
        dump_json(report.to_json())
    else:
        print(report.to_text())
    return 0
