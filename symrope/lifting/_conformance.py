"""The conformance table: every transformers model type with a rotary class, lifted and checked.

``conformance()`` runs ``symrope check --model-type NAME`` for every name of
:func:`symrope.audit.rope_model_types` (the model type's default config, built by its own
config class) in a process pool, one task per model type, and returns one row each: the
headline verdict (or the exit-3 reason: what could not be lifted and where), the layout, the
rotary fraction, the rotation planes, the attention factor ``c^2``, the hazards and the time.
A model type with several lifts (per-layer rope, M-RoPE and its text-token reduction) has one
row per lift. Each task has a wall-clock limit; a lift that runs past it is an exit-3 row.

``symrope survey --check`` (``symrope.cli._survey``) prints the table, writes JSON or a
Markdown page (``docs/conformance.md``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

__all__ = ["conformance", "check_model_type", "conformance_table", "conformance_markdown",
           "conformance_counts", "TASK_LIMIT"]

TASK_LIMIT = 240.0    # seconds per model type (lift and check together)
# Model types per worker before the pool is replaced: each imports its own modeling module, so
# a long-lived worker grows; a fresh pool per batch bounds that (ProcessPoolExecutor's own
# max_tasks_per_child can deadlock on Python 3.11 when a worker exits).
_TASKS_PER_WORKER = 30


def check_model_type(model_type: str, budget: float = 120.0, tokens: int | None = None,
                     limit: float = TASK_LIMIT) -> list[dict]:
    """The rows of one model type (runs in a worker process; never raises)."""
    from symrope.engine import BudgetExhausted, deadline
    from symrope.errors import InternalError, UsageError
    from symrope.lifting._errors import LiftUndecided
    from symrope.lifting._hf_lift import lift_hf_all
    from symrope.lifting._report import check_lifted

    started = time.perf_counter()
    try:
        with deadline(limit):
            lifts = lift_hf_all(None, model_type=model_type,
                                **({} if tokens is None else {"tokens": tokens}))
            rows = []
            for label, encoding in lifts:
                began = time.perf_counter()
                report = check_lifted(encoding, budget=budget,
                                      audit_spec=f"hf-transformers --model-type {model_type}")
                rows.append(_row(model_type, label, encoding, report,
                                 time.perf_counter() - began))
    except LiftUndecided as reason:
        return [_stopped(model_type, "not liftable", str(reason), started)]
    except BudgetExhausted:
        return [_stopped(model_type, "time limit",
                         f"lifting and checking ran past {limit:g} s", started)]
    except UsageError as error:
        return [_stopped(model_type, "bad config", str(error), started)]
    except (InternalError, Exception) as error:  # noqa: BLE001 - a row, never a crash
        return [_stopped(model_type, "internal error", f"{type(error).__name__}: {error}",
                         started)]
    lifted = time.perf_counter() - started - sum(r["seconds"] for r in rows)
    for row in rows:
        row["seconds"] = round(row["seconds"] + lifted / len(rows), 2)
    return rows


def _stopped(model_type, kind, reason, started) -> dict:
    return {"model_type": model_type, "lift": None, "exit_code": 3 if kind != "bad config" else 2,
            "verdict": "exit 3" if kind != "bad config" else "exit 2", "reason_kind": kind,
            "reason": " ".join(str(reason).split())[:400], "layout": None, "rotary": None,
            "planes": None, "attention_factor": None, "hazards": [],
            "seconds": round(time.perf_counter() - started, 2)}


def _row(model_type, label, encoding, report, seconds) -> dict:
    info = encoding.lift_info
    layout = info["layout"]
    rotated = 2 * len(layout["pairs"])
    scale = report.uniform_scale or {}
    classification = report.classification or scale.get("classification")
    planes = None
    if classification:
        planes = sum(len(items) for axis in classification.values()
                     for kind, items in axis.items() if kind == "rotation")
    verdicts = "".join(r.verdict[0].upper().replace("U", "?")
                       for r in report.assumptions.values())
    return {"model_type": model_type, "lift": label, "exit_code": report.exit_code,
            "verdict": report.headline, "verdicts": verdicts, "reason_kind": None,
            "reason": _refutation(report), "layout": layout["kind"],
            "rotary": f"{rotated}/{encoding.dim}", "planes": planes,
            "attention_factor": scale.get("c2_value") if scale.get("verdict") == "proved"
            else None, "sequence": "per token" if encoding.per_token else "mixes tokens",
            "branches": len(info.get("branches", [])),
            "hazards": [h["text"].split(";")[0] for h in report.hazards or []],
            "seconds": seconds}


def _refutation(report) -> str | None:
    for name, result in report.assumptions.items():
        if result.verdict != "proved" and not (name == "identity_at_zero" and report.scaled):
            return f"{name} {result.verdict}: {result.evidence}"[:300]
    return None


def conformance(model_types: Iterable[str] | None = None, workers: int | None = None, budget: float = 120.0,
                tokens: int | None = None, limit: float = TASK_LIMIT,
                progress: bool = True) -> list[dict]:
    """Rows for every model type (default: all of :func:`rope_model_types`), in name order."""
    from symrope.audit import rope_model_types

    names = list(model_types) if model_types is not None else rope_model_types()
    workers = max(1, workers or os.cpu_count() or 1)
    rows: list[dict] = []
    bar = _progress(len(names), progress)
    try:
        if workers == 1:
            for name in names:
                rows += check_model_type(name, budget, tokens, limit)
                bar.update(name)
        else:
            import multiprocessing

            context = multiprocessing.get_context("spawn")  # no fork of a threaded parent
            batch = workers * _TASKS_PER_WORKER
            batches = [names[start:start + batch] for start in range(0, len(names), batch)]
            retry = []
            for chunk in batches:
                rows += _run_pool(chunk, workers, context, bar, retry, budget, tokens, limit)
            for name in retry:  # a worker died under these: each alone, so a crash is its own
                rows += _run_pool([name], 1, context, bar, None, budget, tokens, limit)
    finally:
        bar.close()
    rows.sort(key=lambda row: (row["model_type"], row["lift"] or ""))
    return rows


def _run_pool(names, workers, context, bar, retry, *task) -> list[dict]:
    """One pool over ``names``; a name whose worker died goes to ``retry`` (or is a row)."""
    from concurrent.futures.process import BrokenProcessPool

    rows = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(check_model_type, name, *task): name for name in names}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
            for future in done:
                name = futures[future]
                try:
                    rows += future.result()
                except BrokenProcessPool as error:
                    if retry is None:
                        rows.append(_stopped(name, "internal error",
                                             f"the worker died: {error}", time.perf_counter()))
                    else:
                        retry.append(name)
                        continue
                bar.update(name)
    return rows


class _progress:
    """A tqdm bar over model types on stderr (or nothing)."""

    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc="model types", unit="type", file=sys.stderr)

    def update(self, name: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(name[:24])
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def conformance_counts(rows: list[dict]) -> dict:
    """Model types decided / exit 3 / by reason, and rows by headline verdict."""
    by_type: dict[str, list[dict]] = {}
    for row in rows:
        by_type.setdefault(row["model_type"], []).append(row)
    decided = [t for t, rs in by_type.items() if all(r["exit_code"] in (0, 1) for r in rs)]
    stopped = [t for t in by_type if t not in decided]
    reasons: dict[str, int] = {}
    for t in stopped:
        reasons[_reason_group(by_type[t])] = reasons.get(_reason_group(by_type[t]), 0) + 1
    verdicts: dict[str, int] = {}
    for row in rows:
        if row["exit_code"] in (0, 1):
            key = "relative up to a uniform scale" if row["verdict"].startswith("relative") \
                else row["verdict"]
            verdicts[key] = verdicts.get(key, 0) + 1
    return {"model_types": len(by_type), "decided": len(decided), "exit_3": len(stopped),
            "exit_3_by_reason": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
            "rows": len(rows), "rows_by_verdict": verdicts}


_REASONS = (  # (what the exit-3 line says, the class it is counted in), first match wins
    ("ran past", "time limit"),
    ("configures an encoder", "encoder sub-config (vision/audio/codec): no text rope"),
    ("only vision/audio rotary", "encoder rotary classes only (vision/audio): no text rope"),
    ("its text model", "composite model whose text model has no rotary class"),
    ("takes no position ids", "patch-grid rotary that takes no position ids"),
    ("says the head dimension", "default config builds no rotary class"),
    ("(config) raised", "default config builds no rotary class"),
    ("reading ", "default config builds no rotary class"),
    ("aten.", "op outside the semantics table"),
    ("branches", "branch on a symbolic value"),
    ("Python number", "symbolic value read as a Python number"),
    ("apply function", "apply function convention not recognised"),
    ("could not be applied", "apply function convention not recognised"),
    ("the real code raised", "the real rotary code raised (line named)"),
)


def _reason_group(rows: list[dict]) -> str:
    """A short class of why a model type ended without a decision (for the counts)."""
    row = next((r for r in rows if r["exit_code"] not in (0, 1)), rows[0])
    if row["reason_kind"] is None:
        return "undecided verdict (lifted, the check ran out of budget)"
    reason = row.get("reason") or ""
    for needle, group in _REASONS:
        if needle in reason:
            return group
    return row["reason_kind"]


def conformance_table(rows: list[dict]) -> list[str]:
    """The terminal table, one line per row."""
    header = ("model type", "lift", "verdict", "L T I C", "layout", "rotary", "planes", "c^2",
              "hazards", "s")
    lines = [header]
    for row in rows:
        lines.append((row["model_type"], row["lift"] or "-",
                      row["verdict"] if row["exit_code"] in (0, 1) else
                      f"{row['verdict']}: {row['reason'][:70]}",
                      " ".join(row.get("verdicts", "") or "-"), row["layout"] or "-",
                      row["rotary"] or "-", "-" if row["planes"] is None else str(row["planes"]),
                      row["attention_factor"] or "-", str(len(row["hazards"])),
                      f"{row['seconds']:.1f}"))
    widths = [max(len(str(line[k])) for line in lines) for k in range(len(header))]
    widths[2] = min(widths[2], 60)
    return ["  ".join(str(cell)[:widths[k]].ljust(widths[k]) for k, cell in enumerate(line))
            .rstrip() for line in lines]


def conformance_markdown(rows: list[dict], seconds: float, workers: int, versions: str) -> str:
    """The docs page: counts, then the table (generated by ``symrope survey --check --markdown``)."""
    summary = conformance_counts(rows)
    out = ["# Conformance: every transformers model type with a rotary class", "",
           f"Generated by `symrope survey --check --markdown docs/conformance.md` ({versions}; "
           f"{workers} workers, {seconds:.0f} s wall-clock). Each model type's default config is "
           "built by its own config class, its real rotary class and apply function are lifted "
           "on a symbolic sequence and checked (`symrope check --model-type NAME`).", "",
           f"- model types: {summary['model_types']} ({summary['rows']} rows: per-layer rope "
           "and M-RoPE give one row per lift)",
           f"- decided: {summary['decided']}; exit 3 (not lifted, with the reason): "
           f"{summary['exit_3']}"]
    for reason, count in summary["exit_3_by_reason"].items():
        out.append(f"  - {reason}: {count}")
    out.append("- rows by verdict: " + ", ".join(f"{k} {v}" for k, v in
                                                summary["rows_by_verdict"].items()))
    out += ["", "| model type | lift | verdict | L T I C | layout | rotary | planes | c^2 | "
            "hazards | s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        verdict = row["verdict"] if row["exit_code"] in (0, 1) else \
            f"{row['verdict']}: {row['reason']}"
        cells = [row["model_type"], row["lift"] or "-", verdict.replace("|", "\\|"),
                 " ".join(row.get("verdicts", "") or "-"), row["layout"] or "-",
                 row["rotary"] or "-", "-" if row["planes"] is None else str(row["planes"]),
                 row["attention_factor"] or "-", str(len(row["hazards"])),
                 f"{row['seconds']:.1f}"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
