"""``symrope audit``: how a float RoPE implementation drifts at long context, and why."""

from __future__ import annotations

import json
import re
import sys

import numpy as np

from symrope._parse import integer_option, real_option
from symrope.cli._common import ArgumentParser, dump_json, output_file
from symrope.audit._driver import audit
from symrope.audit._results import DEFAULT_TOLERANCE, AuditOptions, exact_schedule
from symrope.audit._models import MODELS, get_model
from symrope.audit._real import EXTRA, REAL_IMPLS
from symrope.audit._reference import MAX_POSITION, REFERENCE_TOLERANCE
from symrope.audit._report import COLUMN_MEANINGS, AuditReport, fix_helps
from symrope.errors import InternalError, UsageError
from symrope.schedules import RopeConfig, llama31_8b

_DEFAULT_MAX_POSITION = 2**20 - 1   # the last position of a 1M-token context
_HF_CLASS = "hf-transformers"
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
                        help=f"a real library run through its own code ({', '.join((_HF_CLASS, *REAL_IMPLS))}; "
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

        from symrope.audit._hf import _rotary_class
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
        _rotary_class(transformers, model_type)
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


def implementation_names() -> tuple[str, ...]:
    """Every ``--impl`` name: the real libraries first, then the built-in models."""
    return (_HF_CLASS, *REAL_IMPLS, *MODELS)


def default_impl() -> tuple[str, str | None]:
    """The default ``--impl``: the real transformers class where it imports, else its model
    ``hf``, with the note that says so (the report prints it in its header)."""
    from symrope.audit._real import import_library

    try:
        import_library("torch", _HF_CLASS)
        import_library("transformers", _HF_CLASS)
    except UsageError:
        return "hf", (f"torch and transformers do not both import here, so this is the built-in "
                      f"model hf of transformers' rotary class, not the class itself (pip install "
                      f"'{EXTRA}' to audit the real one)")
    return _HF_CLASS, None


def fallback_schedule(name: str, config: RopeConfig) -> tuple[RopeConfig, str | None]:
    """``config``, or, where the real library ``name`` cannot express it, plain RoPE of the same
    head dimension and base, with the note that says so."""
    from symrope.audit._real import cannot_express

    reason = cannot_express(name, config)
    if reason is None:
        return config, None
    plain = RopeConfig.from_options(head_dim=config.head_dim, theta=config.theta)
    reason_plain = cannot_express(name, plain)
    if reason_plain is not None:
        raise UsageError(reason)
    return plain, (f"{reason}: audited with plain RoPE of the same head_dim and theta instead "
                   f"(give --rope-scaling/--config it can express to choose)")


def resolve_impl(name: str, hf_config: dict | None, config: RopeConfig | None = None, args=None,
                 fixed: bool = False):
    """A built-in model, a real library (torch & co. imported only then), or ``module:function``."""
    knobs = {key: getattr(args, key, None) for key in ("cast_module", "autocast", "tf32")}
    if any(knobs.values()) and name != _HF_CLASS:
        raise UsageError(f"--cast-module/--autocast/--tf32 act on --impl {_HF_CLASS}, not {name!r}")
    if name == _HF_CLASS:
        from symrope.audit._hf import hf_transformers_impl  # imports torch: only when asked

        model_type = getattr(args, "model_type", None)
        if model_type is not None:
            return hf_transformers_impl(None, model_type, rope_scaling_argument(args),
                                        fixed=fixed, **knobs)
        document = hf_config if hf_config is not None else dict(config.hf_dict(), model_type="llama")
        return hf_transformers_impl(document, fixed=fixed, **knobs)
    if name in REAL_IMPLS:
        from symrope.audit._real import real_impl

        return real_impl(name, config)
    if name in MODELS:
        return get_model(name)
    if ":" not in name:
        raise UsageError(f"unknown implementation {name!r} (one of: {', '.join(implementation_names())}; "
                         f"or your own module:function / file.py:function)")
    from symrope.audit._user import load_user_impl

    return load_user_impl(name)


def main(argv: list[str]) -> int:
    """Run ``symrope audit``; returns the exit code (bad input raises UsageError: exit 2)."""
    args = _parser().parse_args(argv)
    config, hf_config = build_config(args)
    notes = []
    hf_knobs = args.model_type is not None or args.fix or args.cast_module or args.autocast or args.tf32
    if args.impl is None:
        args.impl, note = (_HF_CLASS, None) if hf_knobs else default_impl()
        notes += [note] if note else []
    schedule_flags = (args.config is not None or args.head_dim is not None or args.theta is not None
                      or args.rope_scaling is not None)
    if args.impl in REAL_IMPLS and not schedule_flags:
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
    primary = resolve_impl(args.impl, hf_config, config, args, fixed=args.fix)
    if args.impl == _HF_CLASS:
        # the schedule the class builds is the audited one (read off its inv_freq buffer)
        config = primary.rope_config
        notes += list(getattr(primary, "notes", []))
    top_position = int(positions.max()) if positions is not None else (
        _DEFAULT_MAX_POSITION if args.max_position is None else args.max_position)
    # each implementation once: the primary is not compared with itself, nor a name twice
    compare_names = [name for name in dict.fromkeys(args.compare) if name != args.impl]
    others = [resolve_impl(name, hf_config, config) for name in compare_names]
    for impl in (primary, *others):
        if hasattr(impl, "prepare"):
            impl.prepare(top_position)
    options = AuditOptions(
        max_position=_DEFAULT_MAX_POSITION if args.max_position is None else args.max_position,
        positions=positions, dtype=args.dtype, tolerance=args.tolerance, seed=args.seed,
        seq_len=args.seq_len or None, progress=None if not args.json else False)
    schedule = exact_schedule(config, options.seq_len)
    top = int(positions.max()) if positions is not None else options.max_position
    certificate = schedule.certify(top, seed=args.seed)
    if not certificate.holds():
        raise InternalError(f"the reference's certified error {certificate.max_error:.3g} exceeds "
                            f"{REFERENCE_TOLERANCE:g}: refusing to report against it")
    result = audit(primary, config, options, schedule)
    compared = [audit(other, config, options, schedule) for other in others]
    fix, fix_note = None, None
    if result.fix and not args.no_fix and result.fix not in (args.impl, *compare_names):
        if result.fix == "hf-transformers+fix":
            fix_impl = resolve_impl(_HF_CLASS, hf_config, config, args, fixed=True)
        else:
            fix_impl = get_model(result.fix)
        if result.first_failure is None:
            fix_note = (f"no fix suggested: the error stays within the tolerance "
                        f"{result.tolerance:.3g} at every audited position")
        else:
            fix_options = AuditOptions(**{**vars(options), "dtype": result.dtype})
            candidate = audit(fix_impl, config, fix_options, schedule)
            if fix_helps(result, candidate):
                fix = candidate
            else:
                fix_note = (f"no fix suggested: {result.fix} ({result.dtype}) does not lengthen the "
                            f"safe context nor gain a correct bit here (the dtype's own "
                            f"rounding dominates)")
    report = AuditReport(primary=result, certificate=certificate, seed=args.seed,
                         config=hf_config if hf_config is not None else config.hf_dict(),
                         compared=compared, fix=fix, fix_note=fix_note, notes=notes)
    if args.plot:
        from symrope.audit._plot import plot_audits

        written = plot_audits([result, *compared, *([fix] if fix else [])], args.plot)
        if not args.json:
            print(f"plot written to {written}", file=sys.stderr)
    if args.json:
        dump_json(report.to_json())
    else:
        print(report.to_text())
    return 0
