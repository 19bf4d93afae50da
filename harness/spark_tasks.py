"""What a Spark task runs on an executor: a batch of run specs in, run results out, as Arrow.

A spec is a pickled item of the command's runner (a workload index for `fuzz`, a scenario
and its variant for `run`: the scenario's contents, never its file). The task runs each
item with the same runner the local process pool uses, its binlogs in a temporary
directory of the task's own, and hands back per item: the result pickled, the binlog files'
bytes (the driver writes them where the local backend would have), and both sides' table
rows keyed for the comparison, which then runs on these rows where they are; or, with
`compare_here`, the runs' differences, compared in the task by diff_snapshots (the same
diffs the comparison query gives), and no rows. Nothing here
reads a file the driver wrote: the runner's `binlog_dir` is only the name the records
give their binlogs.
"""

from __future__ import annotations

import gc
import os
import pickle
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import pyarrow as pa

from .compare import SIDES, ComparisonBatch, compare_in_process, prepare
from .runner import RunRecord

ROW = pa.struct([("run_id", pa.string()), ("table_name", pa.string()), ("row_key", pa.string()), ("pk_key", pa.string())])
ROW_NAMES = ("run_id", "table_name", "row_key", "pk_key")
BINLOG = pa.struct([("name", pa.string()), ("data", pa.binary())])
# Where and when the task ran, repeated on each of its rows: the executor's working
# directory and process, where the project's code was imported from, and the clock.
TASK_FIELDS = [
    ("pid", pa.int64()),
    ("cwd", pa.string()),
    ("code", pa.string()),
    ("task_started", pa.float64()),  # epoch seconds, when the task's function began
    ("worker_started", pa.float64()),  # epoch seconds, when its Python worker process began
    ("run_seconds", pa.float64()),  # this item's runs
    ("pack_seconds", pa.float64()),  # this item's pickling and row keying
]
RESULT_SCHEMA = pa.schema(
    [("position", pa.int64()), ("payload", pa.binary()), ("binlogs", pa.list_(BINLOG)), ("master_rows", pa.list_(ROW)), ("slave_rows", pa.list_(ROW))]
    + TASK_FIELDS
)
RESULT_DDL = (
    "position LONG, payload BINARY, binlogs ARRAY<STRUCT<name: STRING, data: BINARY>>, "
    "master_rows ARRAY<STRUCT<run_id: STRING, table_name: STRING, row_key: STRING, pk_key: STRING>>, "
    "slave_rows ARRAY<STRUCT<run_id: STRING, table_name: STRING, row_key: STRING, pk_key: STRING>>, "
    "pid LONG, cwd STRING, code STRING, task_started DOUBLE, worker_started DOUBLE, run_seconds DOUBLE, pack_seconds DOUBLE"
)
_TUNED = False


class RemoteWork(Protocol):
    """A runner the pool and the Spark tasks share (harness.pool.VariantRunner,
    harness.fuzz.WorkloadRunner): a frozen dataclass with a `binlog_dir`."""

    binlog_dir: Path

    def __call__(self, item: object) -> object: ...

    def records(self, result: object) -> list[RunRecord]:
        """The run records inside one result."""

    def failed(self, item: object, text: str) -> object:
        """The result for an item whose run raised outside the simulator's own catch."""


@dataclass(frozen=True)
class RemoteRuns:
    """The function `mapInArrow` runs over a range of positions: the specs of positions
    `start`, `start + 1`, ... travel with the function (Spark ships it with the task), so
    the input needs no conversion in Python; one result row per position out."""

    runner: RemoteWork
    start: int
    specs: tuple[bytes, ...]
    compare_here: bool = False  # each run's tables compared in the task (diff_snapshots), no rows shipped

    def __call__(self, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        task = {"pid": os.getpid(), "cwd": os.getcwd(), "code": _code_origin(), "task_started": time.time(), "worker_started": _process_started()}
        _tune_collector()
        with tempfile.TemporaryDirectory(prefix="rplharness-task-") as work:
            runner = replace(self.runner, binlog_dir=Path(work))  # type: ignore[type-var]
            for batch in batches:
                positions = batch.column(0).to_pylist()
                rows = [self._one(runner, position, self.specs[position - self.start], task) for position in positions]
                yield pa.RecordBatch.from_pylist(rows, schema=RESULT_SCHEMA)

    def _one(self, runner: RemoteWork, position: int, spec: bytes, task: dict[str, object]) -> dict[str, object]:
        started = time.perf_counter()
        item = pickle.loads(spec)
        try:
            result = runner(item)
        except Exception:  # a run that raises is an error verdict, not a failed task
            result = runner.failed(item, traceback.format_exc())
        ran = time.perf_counter()
        records = runner.records(result)
        binlogs = [_take_binlog(record, self.runner.binlog_dir) for record in records]
        pairs = {r.run_id: (r.master_snapshot, r.slave_snapshot) for r in records if r.master_snapshot is not None and r.slave_snapshot is not None}
        sides: dict[str, list[dict[str, object]]] = {side: [] for side in SIDES}
        if self.compare_here:
            shipped: object = compare_in_process(pairs)
        else:
            batch = prepare(pairs)
            sides = {side: [dict(zip(ROW_NAMES, row)) for row in batch.rows[side]] for side in SIDES}
            shipped = ComparisonBatch(batch.settled, batch.compared, {side: [] for side in SIDES})
        payload = pickle.dumps((result, shipped), protocol=pickle.HIGHEST_PROTOCOL)
        return {
            "position": position, "payload": payload, "binlogs": [binlog for binlog in binlogs if binlog is not None],
            "master_rows": sides["master"], "slave_rows": sides["slave"],
            **task, "run_seconds": ran - started, "pack_seconds": time.perf_counter() - ran,
        }  # fmt: skip


def _take_binlog(record: RunRecord, driver_dir: Path) -> dict[str, object] | None:
    """The run's binlog file as bytes (removed here), and the record renamed to where the
    driver writes it; None when the run kept no binlog (a consistent fuzz run)."""
    if record.binlog is None:
        return None
    local, record.binlog = record.binlog, driver_dir / record.binlog.name
    if not local.exists():
        return None
    data = local.read_bytes()
    local.unlink()
    return {"name": local.name, "data": data}


def _tune_collector() -> None:
    """The collector tuning of the local pool's workers (harness.pool.collect_less_often),
    once per Python worker: Spark reuses a worker from task to task."""
    global _TUNED
    if not _TUNED:
        gc.freeze()
        gc.set_threshold(10_000, 10, 10)
        _TUNED = True


def _code_origin() -> str:
    """Where this module was imported from: inside the zip the driver shipped, on a cluster."""
    return __file__


def _process_started() -> float:
    """When this process began (epoch seconds), from /proc; the task's start where there is none."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time()


def python_of(_: Iterator[object]) -> Iterator[tuple[int, int, str, str]]:
    """A probe task: the executor's Python version, interpreter and working directory."""
    import sys

    yield sys.version_info[0], sys.version_info[1], sys.executable, os.getcwd()
