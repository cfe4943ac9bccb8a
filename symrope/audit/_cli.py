"""``symrope audit``: how a float RoPE implementation drifts at long context, and why."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

from symrope._cliutil import ArgumentParser, dump_json
from symrope.audit._driver import audit
from symrope.audit._results import DEFAULT_TOLERANCE, AuditOptions, exact_schedule
from symrope.audit._models import MODELS, get_model
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
                    "arguments: the HF-style model of Llama 3.1 8B's RoPE in bf16 up to 1M positions.",
        epilog="columns of the band table: " + "; ".join(
            f"{name}: {meaning}" for name, meaning in COLUMN_MEANINGS))
    parser.add_argument("--impl", default="hf", metavar="NAME|module:function",
                        help=f"a built-in model ({', '.join(MODELS)}), {_HF_CLASS} (needs --config, "
                             "torch and transformers), or your own module:function / file.py:function")
    parser.add_argument("--compare", nargs="+", default=[], metavar="NAME",
                        help="more implementations audited side by side on the same positions")
    parser.add_argument("--dtype", choices=("bf16", "fp16", "fp32", "fp64"),
                        help="model dtype (default: the implementation's usual dtype)")
    parser.add_argument("--config", metavar="FILE.json", help="an HF config.json to read the schedule from")
    parser.add_argument("--head-dim", type=int, metavar="N",
                        help="head dimension; any of --head-dim/--theta/--rope-scaling builds the "
                             "schedule from these flags (defaults 128, 10000, no scaling) instead "
                             "of Llama 3.1 8B's")
    parser.add_argument("--theta", type=float, metavar="T", help="rope_theta (default 10000)")
    parser.add_argument("--rope-scaling", metavar="JSON", help="HF rope_scaling dict as JSON, "
                        "e.g. '{\"rope_type\": \"linear\", \"factor\": 4}'")
    parser.add_argument("--max-position", type=_non_negative_integer("--max-position"), metavar="N",
                        help=f"audit positions 0..N inclusive (default {_DEFAULT_MAX_POSITION})")
    parser.add_argument("--positions", metavar="LIST",
                        help="audit only these positions: comma-separated integers or a..b ranges")
    parser.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE, metavar="T",
                        help="absolute error in cos/sin allowed inside the safe context, the same "
                             "for every implementation and dtype compared (default 2^-8 = 0.0039, "
                             "the bf16 step in [0.5, 1))")
    parser.add_argument("--seq-len", type=_non_negative_integer("--seq-len"), metavar="N",
                        help="current sequence length for dynamic/longrope schedules (default: "
                             "the frequencies at initialisation)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random q, k (default 0)")
    parser.add_argument("--no-fix", action="store_true", help="do not re-audit the suggested fix")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of error against position")
    return parser


def _non_negative_integer(flag: str):
    def parse(text: str) -> int:
        if not re.fullmatch(r"\s*\d+\s*", text):
            raise UsageError(f"{flag} must be a non-negative integer, got {text!r}")
        return int(text)
    parse.__name__ = "non-negative integer"   # argparse's message: "invalid non-negative integer value"
    return parse


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


def build_config(args) -> tuple[RopeConfig, dict | None]:
    """The schedule from --config, from --head-dim/--theta/--rope-scaling, or Llama 3.1 8B's."""
    flags = args.head_dim is not None or args.theta is not None or args.rope_scaling is not None
    if args.config is not None:
        if flags:
            raise UsageError("use either --config or --head-dim/--theta/--rope-scaling, not both")
        config = RopeConfig.from_file(args.config)
        with open(args.config, encoding="utf-8") as handle:
            return config, json.load(handle)
    if not flags:
        return llama31_8b(), None
    scaling = None
    if args.rope_scaling is not None:
        try:
            scaling = json.loads(args.rope_scaling)
        except json.JSONDecodeError as error:
            raise UsageError(f"--rope-scaling is not valid JSON: {error.msg}") from None
        if scaling is not None and not isinstance(scaling, dict):
            raise UsageError(f"--rope-scaling must be a JSON object, got {args.rope_scaling!r}")
    if args.theta is not None and not (args.theta > 0 and np.isfinite(args.theta)):
        raise UsageError(f"--theta must be a positive finite number, got {args.theta!r}")
    return RopeConfig.from_options(head_dim=128 if args.head_dim is None else args.head_dim,
                                   theta=args.theta, rope_scaling=scaling), None


def resolve_impl(name: str, hf_config: dict | None):
    """A built-in model, the real HF class, or a user's ``module:function``."""
    if name == _HF_CLASS:
        if hf_config is None:
            raise UsageError(f"--impl {_HF_CLASS} needs --config FILE.json (the model's HF config)")
        from symrope.audit._hf import hf_transformers_impl  # imports torch: only when asked

        return hf_transformers_impl(hf_config)
    if name in MODELS or ":" not in name:
        return get_model(name)
    from symrope.audit._user import load_user_impl

    return load_user_impl(name)


def main(argv: list[str]) -> int:
    """Run ``symrope audit``; returns the exit code (bad input raises UsageError: exit 2)."""
    args = _parser().parse_args(argv)
    config, hf_config = build_config(args)
    if args.positions is not None and args.max_position is not None:
        raise UsageError("use either --positions or --max-position, not both")
    if args.max_position is not None and args.max_position > _LARGEST_CONTIGUOUS:
        raise UsageError(f"--max-position {args.max_position} would stream more than 2^32 positions "
                         f"(hours); audit chosen positions up to {MAX_POSITION} with --positions")
    if not (args.tolerance > 0 and np.isfinite(args.tolerance)):
        raise UsageError(f"--tolerance must be a positive number, got {args.tolerance!r}")
    positions = parse_positions(args.positions) if args.positions is not None else None
    if args.plot and not Path(args.plot).resolve().parent.is_dir():
        raise UsageError(f"--plot {args.plot!r}: folder {str(Path(args.plot).parent)!r} does not exist")
    primary = resolve_impl(args.impl, hf_config)
    # each implementation once: the primary is not compared with itself, nor a name twice
    compare_names = [name for name in dict.fromkeys(args.compare) if name != args.impl]
    others = [resolve_impl(name, hf_config) for name in compare_names]
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
        if result.first_failure is None:
            fix_note = (f"no fix suggested: the error stays within the tolerance "
                        f"{result.tolerance:.3g} at every audited position")
        else:
            fix_options = AuditOptions(**{**vars(options), "dtype": result.dtype})
            candidate = audit(get_model(result.fix), config, fix_options, schedule)
            if fix_helps(result, candidate):
                fix = candidate
            else:
                fix_note = (f"no fix suggested: {result.fix} ({result.dtype}) does not lengthen the "
                            f"safe context nor gain a correct bit here (the dtype's own "
                            f"rounding dominates)")
    report = AuditReport(primary=result, certificate=certificate, seed=args.seed,
                         config=hf_config if hf_config is not None else config.hf_dict(),
                         compared=compared, fix=fix, fix_note=fix_note)
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
