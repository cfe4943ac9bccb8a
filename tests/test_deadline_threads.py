"""Budgets and verify under threads: per-thread deadlines, no fork of a threaded process, no hang."""

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import sympy as sp

from symrope import verify
from symrope.engine import BudgetExhausted, deadline
from tests.soundness_helpers import HARD_TRUE_CLAIM

x, y = sp.symbols("x y", real=True)
ROOT = Path(__file__).resolve().parents[1]


def _run_in_threads(jobs: dict) -> dict:
    """Run every ``name: callable`` on a thread of its own, all at once; their results by name."""
    results, errors = {}, {}

    def run(name, job):
        try:
            results[name] = job()
        except BaseException as error:  # reported by the assert below
            errors[name] = error

    threads = [threading.Thread(target=run, args=item, daemon=True) for item in jobs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert set(results) == set(jobs)
    return results


def test_verify_from_several_threads_at_once_gives_the_right_verdicts():
    # true, false and too-expensive claims, two of each, decided concurrently
    jobs = {
        "addition": lambda: verify(sp.cos(x + y), sp.cos(x) * sp.cos(y) - sp.sin(x) * sp.sin(y)),
        "pythagoras": lambda: verify(sp.sin(x) ** 2 + sp.cos(x) ** 2, 1),
        "wrong sign": lambda: verify(sp.cos(x + y), sp.cos(x) * sp.cos(y) + sp.sin(x) * sp.sin(y)),
        "wrong square": lambda: verify((x + y) ** 2, x**2 + y**2),
        "hard 1": lambda: verify(*HARD_TRUE_CLAIM, budget=1.0),
        "hard 2": lambda: verify(*HARD_TRUE_CLAIM, budget=1.5),
    }
    verdicts = _run_in_threads(jobs)
    assert verdicts["addition"].proved and verdicts["pythagoras"].proved
    wrong = verdicts["wrong sign"]
    assert wrong.refuted
    point = wrong.counterexample
    # the counterexample is real: cos(x+y) - (cos x cos y + sin x sin y) = -2 sin x sin y there
    assert abs(sp.N((-2 * sp.sin(x) * sp.sin(y)).xreplace(point), 30)) > 1e-6
    square = verdicts["wrong square"]
    assert square.refuted and (2 * x * y).xreplace(square.counterexample) != 0
    for name in ("hard 1", "hard 2"):
        assert verdicts[name].undecided and "budget" in verdicts[name].reason


def test_a_deadline_set_in_one_thread_never_fires_in_another():
    opened, release = threading.Event(), threading.Event()
    seen = {}

    def short_budget_elsewhere():
        with deadline(0.05) as short:
            seen["short"] = short
            opened.set()
            release.wait(10)  # stays open (and expired) while the main thread works

    other = threading.Thread(target=short_budget_elsewhere, daemon=True)
    other.start()
    assert opened.wait(10)
    try:
        # main thread: signals are live; the other thread's expired 0.05 s budget must neither
        # clip this budget nor interrupt this block
        with deadline(5.0) as mine:
            time.sleep(0.4)
            mine.check()
        assert mine.budget == 5.0
        assert seen["short"].expired()
    finally:
        release.set()
        other.join(10)


def test_main_thread_deadline_does_not_reach_a_worker_thread():
    outcome = {}

    def worker():
        with deadline(10.0) as mine:
            time.sleep(0.4)
            mine.check()  # would raise if the main thread's expired budget were shared
            outcome["budget"] = mine.budget

    thread = threading.Thread(target=worker, daemon=True)
    start = time.monotonic()
    try:
        with deadline(0.1):
            thread.start()
            while time.monotonic() - start < 5:  # interrupted here, on the main thread
                sum(range(1000))
    except BudgetExhausted:
        pass
    else:
        raise AssertionError("the main thread's budget did not interrupt it")
    thread.join(10)
    assert outcome == {"budget": 10.0}


def test_nested_budgets_are_clipped_per_thread():
    def nested():
        with deadline(0.5) as outer:
            with deadline(30.0) as inner:
                return inner.budget, outer.budget

    inner, outer = _run_in_threads({"nested": nested})["nested"]
    assert inner <= outer == 0.5


def test_a_claim_that_takes_forever_is_stopped_at_its_budget_off_the_main_thread():
    def timed():
        start = time.monotonic()
        verdict = verify(*HARD_TRUE_CLAIM, budget=0.5)
        return verdict, time.monotonic() - start

    verdict, elapsed = _run_in_threads({"hard": timed})["hard"]
    assert verdict.undecided and "budget" in verdict.reason
    assert elapsed <= 1.5  # budget + 1, even when the helper process had to start first


_NO_FORK_SCRIPT = textwrap.dedent("""
    import os, threading
    import sympy as sp
    from symrope import verify

    real_fork = os.fork

    def guarded_fork():
        if threading.active_count() > 1:
            raise AssertionError("os.fork() called in a multi-threaded process")
        return real_fork()

    os.fork = guarded_fork

    if __name__ == "__main__":
        x = sp.Symbol("x", real=True)
        verdicts = []
        threads = [threading.Thread(target=lambda: verdicts.append(
            verify(sp.cos(x) ** 2, 1 - sp.sin(x) ** 2).status)) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        print(sorted(verdicts))
""")


def test_verify_off_the_main_thread_never_forks_a_threaded_process(tmp_path):
    """Python 3.12+ warns (DeprecationWarning) when a multi-threaded process forks: make it an
    error, and on every version make ``os.fork`` itself refuse while other threads run."""
    script = tmp_path / "threads.py"
    script.write_text(_NO_FORK_SCRIPT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", str(script)],
                            capture_output=True, text=True, timeout=180, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['proved', 'proved', 'proved']", result.stderr
    assert "Warning" not in result.stderr, result.stderr


def test_a_claim_that_cannot_travel_to_the_child_is_undecided_with_the_reason():
    class Local(sp.Symbol):  # a class defined in a function cannot be pickled
        pass

    u = Local("u", real=True)
    verdict = _run_in_threads({"local": lambda: verify(sp.cos(u) ** 2, 1 - sp.sin(u) ** 2)})["local"]
    assert verdict.undecided and "cannot be pickled" in verdict.reason
    assert verdict.details["reason_code"] == "not_picklable"
    assert verify(sp.cos(u) ** 2, 1 - sp.sin(u) ** 2).proved  # on the main thread: in-process
