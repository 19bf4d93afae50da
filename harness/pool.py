"""Scenario runs on every core: a process pool of simulator workers.

A run is pure Python plus in-process DuckDB, so threads would share one interpreter;
processes scale with the cores. Workers are forked: they start in milliseconds with the
parent's imports (sqlglot, DuckDB) already loaded, and keep their DuckDB connections
from run to run.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from scenarios.model import Scenario
from server_sim.flavor import Flavor

from .runner import RunRecord, run_id_for, run_variant

Item = TypeVar("Item")
Result = TypeVar("Result")


def default_workers() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def parallel_map(function: Callable[[Item], Result], items: Sequence[Item], workers: int | None = None) -> Iterator[Result]:
    """`function(item)` for each item, in order, as the workers finish them.

    `function` must be picklable (a module-level function or an instance of a class
    with `__call__`); one worker's worth of items runs in this process.
    """
    workers = min(workers or default_workers(), len(items))
    if workers <= 1:
        yield from map(function, items)
        return
    chunk = max(1, min(16, len(items) // (workers * 8)))
    pool = multiprocessing.get_context("fork").Pool(workers, initializer=collect_less_often)
    try:
        yield from pool.imap(function, items, chunksize=chunk)
    finally:
        pool.terminate()
        pool.join()


def collect_less_often() -> None:
    """Tune the collector for runs, as every worker does. A run allocates many short-lived
    cycles (parse trees point back to their parents), and the default collector walks the
    youngest objects every 700 allocations: collected every 10 000, and with what the
    process holds already frozen out of every collection, a run costs a tenth to a fifth
    less. Garbage waits longer to be freed: a worker's memory grows by about 150 MiB."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


@dataclass(frozen=True)
class RunTask:
    """One run to make: a scenario under one variant's settings."""

    scenario: Scenario
    variant: dict[str, str]


@dataclass(frozen=True)
class VariantRunner:
    """run_variant with the settings every run of a command shares."""

    flavor: Flavor
    binlog_dir: Path
    seed: int = 0

    def __call__(self, task: RunTask) -> RunRecord:
        return run_variant(task.scenario, task.variant, self.flavor, self.binlog_dir, self.seed)

    def records(self, result: RunRecord) -> list[RunRecord]:
        return [result]

    def failed(self, task: RunTask, text: str) -> RunRecord:
        """The record of a run that raised before the simulator's own catch: an error verdict."""
        label = task.scenario.variant_label(task.variant)
        record = RunRecord(run_id_for(task.scenario, label), task.scenario, task.variant, label, self.seed, flavor=self.flavor.name)
        record.error = text
        return record
