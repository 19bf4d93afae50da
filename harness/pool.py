"""Scenario runs on every core: a process pool of simulator workers.

A run is pure Python plus in-process DuckDB, so threads would share one interpreter;
processes scale with the cores. Workers are forked: they start in milliseconds with the
parent's imports (sqlglot, DuckDB) already loaded, and keep their DuckDB connections
from run to run.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from scenarios.model import Scenario
from server_sim.flavor import Flavor

from .runner import RunRecord, run_variant


@dataclass(frozen=True)
class RunTask:
    """One run to make: a scenario under one variant's settings."""

    scenario: Scenario
    variant: dict[str, str]


@dataclass(frozen=True)
class _Context:
    flavor: Flavor
    binlog_dir: Path
    seed: int


_context: _Context | None = None


def default_workers() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_tasks(
    tasks: Sequence[RunTask],
    flavor: Flavor,
    binlog_dir: Path,
    seed: int = 0,
    workers: int | None = None,
    postprocess: Callable[[RunRecord], RunRecord] | None = None,
) -> Iterator[RunRecord]:
    """Each task's record, in task order, as runs finish.

    `postprocess` runs in the worker on each record before it is sent back, so work that
    shrinks a record (or summarises it) is spread over the cores too.
    """
    workers = min(workers or default_workers(), len(tasks))
    context = _Context(flavor, binlog_dir, seed)
    if workers <= 1:
        global _context
        _context = context
        yield from (_run(task, postprocess) for task in tasks)
        return
    chunk = max(1, min(16, len(tasks) // (workers * 8)))
    pool = multiprocessing.get_context("fork").Pool(workers, initializer=_initialise, initargs=(context,))
    try:
        yield from pool.imap(_Job(postprocess), tasks, chunksize=chunk)
    finally:
        pool.terminate()
        pool.join()


class _Job:
    """The function a worker applies to a task (a class, so that the pool can pickle it)."""

    def __init__(self, postprocess: Callable[[RunRecord], RunRecord] | None) -> None:
        self.postprocess = postprocess

    def __call__(self, task: RunTask) -> RunRecord:
        return _run(task, self.postprocess)


def _initialise(context: _Context) -> None:
    global _context
    _context = context


def _run(task: RunTask, postprocess: Callable[[RunRecord], RunRecord] | None) -> RunRecord:
    assert _context is not None
    record = run_variant(task.scenario, task.variant, _context.flavor, _context.binlog_dir, _context.seed)
    return postprocess(record) if postprocess is not None else record
