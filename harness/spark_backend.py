"""The Spark execution backend: scenario runs as Spark tasks, compared where they ran.

The items of a command (workload indices, scenario variants) go to the executors in
chunks, one Spark job of one task per chunk, several jobs at once from threads: a chunk
that fails after Spark's own retries loses only its items, which the report then names
(it is partial), and each chunk that comes back advances the progress line. A task's
results stay cached on its executor as a DataFrame (harness.spark_tasks); the driver
collects only what the reports need (the records, the binlogs) and the comparison query
runs on the cached rows, so no executor reads a file on the driver's disk. The project's
pure-Python packages reach the executors as a zip (`addPyFile`); their native
dependencies (duckdb, pyarrow, sqlglot) must already be in the executors' Python.
"""

from __future__ import annotations

import atexit
import math
import pickle
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .compare import SIDES, ComparisonBatch, RunDiff, assemble, collect_found, compare_in_process, comparison_query
from .spark import SparkUnavailable
from .spark_tasks import RESULT_DDL, RemoteRuns, RemoteWork, python_of

PACKAGES = ("scenarios", "server_sim", "master_sim", "slave_sim", "harness")
ROOT = Path(__file__).resolve().parent.parent
CHUNKS_PER_SLOT = 8
COMPARE_QUERY, COMPARE_TASKS = "query", "tasks"
SPARK_COMPARES = (COMPARE_QUERY, COMPARE_TASKS)
MAX_CHUNK = 500
_SHIPPED: dict[str, Path] = {}  # a context's application id -> the zip it was given


@dataclass(frozen=True)
class TaskStats:
    """One item's timings and whereabouts on its executor, and its chunk's job on the driver."""

    position: int
    pid: int
    cwd: str
    code: str
    task_started: float
    worker_started: float
    run_seconds: float
    pack_seconds: float
    job_submitted: float
    job_finished: float


@dataclass
class SparkRuns:
    """What came back: the results in item order (those whose chunk ran), every compared
    run's differences, and a line per item that did not run (the report is then partial)."""

    results: list[object] = field(default_factory=list)
    diffs: dict[str, RunDiff] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    tasks: list[TaskStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # wall time per phase: prepare, runs, compare


@dataclass
class _Chunk:
    start: int
    items: Sequence[object]
    frame: DataFrame | None = None
    rows: list = field(default_factory=list)
    submitted: float = 0.0
    finished: float = 0.0
    error: str | None = None


def run_on_spark(
    spark: SparkSession,
    runner: RemoteWork,
    items: Sequence[object],
    describe: Callable[[object], str],
    on_result: Callable[[object], None] | None = None,
    chunk_size: int | None = None,
    compare: str = COMPARE_QUERY,
) -> SparkRuns:
    """Run `runner(item)` for every item on the executors and compare every run there:
    `compare` "query", one Spark query over the rows the tasks keep; "tasks", each task
    compares its own runs (diff_snapshots) and ships their differences, no second job."""
    started = time.perf_counter()
    slots = prepare_executors(spark)
    prepared = time.perf_counter()
    size = chunk_size or max(1, min(MAX_CHUNK, math.ceil(len(items) / (slots * CHUNKS_PER_SLOT))))
    chunks = [_Chunk(start, items[start : start + size]) for start in range(0, len(items), size)]
    runs = SparkRuns()
    by_position: dict[int, object] = {}
    batch = ComparisonBatch({}, {}, {side: [] for side in SIDES})
    try:
        with ThreadPoolExecutor(max_workers=max(1, min(len(chunks), slots * 2))) as pool:
            futures = [pool.submit(_run_chunk, spark, runner, chunk, compare == COMPARE_TASKS) for chunk in chunks]
            for future in as_completed(futures):
                chunk = future.result()
                if chunk.error is not None:
                    runs.missing.extend(f"{describe(item)}: {chunk.error}" for item in chunk.items)
                    continue
                for row in chunk.rows:
                    result, shipped = _unpack(row, runner.binlog_dir)
                    by_position[row.position] = result
                    if isinstance(shipped, ComparisonBatch):
                        batch.merge(shipped)
                    else:
                        runs.diffs.update(shipped)
                    runs.tasks.append(_stats(row, chunk))
                    if on_result is not None:
                        on_result(result)
        runs.results = [by_position[position] for position in sorted(by_position)]
        ran = time.perf_counter()
        if compare == COMPARE_QUERY:
            runs.diffs = _compare(spark, chunks, batch, runner, runs)
        runs.seconds = {"prepare": prepared - started, "runs": ran - prepared, "compare": time.perf_counter() - ran}
    finally:
        for chunk in chunks:
            if chunk.frame is not None:
                chunk.frame.unpersist()
    return runs


def spark_compare(compare: str) -> str:
    """The Spark backend's comparison for a command's --compare: `python` (diff_snapshots)
    runs in the tasks, `spark` is the query over the rows they keep."""
    return COMPARE_TASKS if compare == "python" else COMPARE_QUERY


def _run_chunk(spark: SparkSession, runner: RemoteWork, chunk: _Chunk, compare_here: bool) -> _Chunk:
    """One job of one task: the chunk's specs in, its results cached where they were made
    (for the comparison query), or compared there and nothing kept."""
    specs = tuple(pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL) for item in chunk.items)
    chunk.submitted = time.time()
    try:
        positions = spark.range(chunk.start, chunk.start + len(specs), 1, 1)
        frame = positions.mapInArrow(RemoteRuns(runner, chunk.start, specs, compare_here), RESULT_DDL)
        chunk.frame = None if compare_here else frame.persist()
        chunk.rows = (chunk.frame or frame).drop("master_rows", "slave_rows").collect()
    except Exception as error:  # the job failed after Spark's retries: the chunk's items did not run
        chunk.error = _first_line(error)
        if chunk.frame is not None:
            chunk.frame.unpersist()
            chunk.frame = None
    chunk.finished = time.time()
    return chunk


def _unpack(row: object, binlog_dir: Path) -> tuple[object, ComparisonBatch | dict[str, RunDiff]]:
    """A result row's pickled result and comparison batch (or, compared in the task, its
    runs' differences); its binlogs written where the local backend writes them."""
    if row.binlogs:
        binlog_dir.mkdir(parents=True, exist_ok=True)
        for binlog in row.binlogs:
            (binlog_dir / binlog.name).write_bytes(binlog.data)
    return pickle.loads(row.payload)


def _compare(spark: SparkSession, chunks: list[_Chunk], batch: ComparisonBatch, runner: RemoteWork, runs: SparkRuns) -> dict[str, RunDiff]:
    """The comparison query on the rows cached on the executors; when that job fails, the
    same comparison in this process on the records that came back (the results stand)."""
    frames = [chunk.frame for chunk in chunks if chunk.frame is not None]
    if not frames or not batch.compared:
        return assemble(batch, {})
    slots = max(1, spark.sparkContext.defaultParallelism)
    # One scan task per slot instead of one per chunk, and as many shuffle partitions as
    # slots (Spark's 200 are for far larger data): each costs a task launch per stage.
    # Adaptive execution re-plans stages, which costs more than it saves on data this small.
    cached = reduce(DataFrame.unionByName, frames).coalesce(slots)
    sides = [cached.select(F.explode(f"{side}_rows").alias("row")).select("row.*") for side in SIDES]
    try:
        spark.conf.set("spark.sql.shuffle.partitions", str(slots))
        spark.conf.set("spark.sql.adaptive.enabled", "false")
        return assemble(batch, collect_found(comparison_query(*sides)))
    except Exception as error:
        runs.notes.append(f"the comparison job failed ({_first_line(error)}); compared in this process instead")
        records = [record for result in runs.results for record in runner.records(result)]
        pairs = {r.run_id: (r.master_snapshot, r.slave_snapshot) for r in records if r.master_snapshot is not None and r.slave_snapshot is not None}
        return compare_in_process(pairs)


def _stats(row: object, chunk: _Chunk) -> TaskStats:
    return TaskStats(
        row.position, row.pid, row.cwd, row.code, row.task_started, row.worker_started, row.run_seconds, row.pack_seconds,
        chunk.submitted, chunk.finished,
    )  # fmt: skip


def prepare_executors(spark: SparkSession) -> int:
    """Ship the project's code once per context, check the executors' Python against the
    driver's, and return the task slots (cores) the executors offer."""
    context = spark.sparkContext
    key = context.applicationId
    if key not in _SHIPPED:
        _SHIPPED[key] = ship_code(context)
        check_python(spark)
    return max(1, context.defaultParallelism)


def ship_code(context: object) -> Path:
    """Zip the project's packages (their .py files) and add the zip to every task's path."""
    directory = Path(tempfile.mkdtemp(prefix="rplharness-code-"))
    atexit.register(shutil.rmtree, directory, True)
    archive = directory / "rplharness.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for package in PACKAGES:
            for path in sorted((ROOT / package).rglob("*.py")):
                zipped.write(path, path.relative_to(ROOT).as_posix())
    context.addPyFile(str(archive))  # type: ignore[attr-defined]
    return archive


def check_python(spark: SparkSession) -> None:
    """SparkUnavailable, in one line, when an executor's Python is not the driver's version:
    pickled results and the task's code need the same one."""
    context = spark.sparkContext
    slots = max(1, context.defaultParallelism)
    try:
        found = set(context.parallelize(range(slots), slots).mapPartitions(python_of).collect())
    except Exception as error:
        text = str(error)
        if "PYTHON_VERSION_MISMATCH" in text or "different version" in text:
            raise SparkUnavailable(python_mismatch(text)) from None
        cause = next((line.strip() for line in text.splitlines() if "Cannot run program" in line), _first_line(error))
        raise SparkUnavailable(f"the Spark executors cannot run Python ({cause[:300]}); PYSPARK_PYTHON names the executors' interpreter") from None
    other = sorted({(major, minor, executable) for major, minor, executable, _ in found if (major, minor) != sys.version_info[:2]})
    if other:
        raise SparkUnavailable(python_mismatch(", ".join(f"{executable} is Python {major}.{minor}" for major, minor, executable in other)))


def python_mismatch(detail: str) -> str:
    ours = f"{sys.version_info[0]}.{sys.version_info[1]}"
    first = detail.strip().splitlines()[0] if detail.strip() else detail
    return (
        f"the Spark executors' Python is not the driver's Python {ours} ({first[:300]}); give the executors a "
        f"Python {ours} with the project's dependencies (PYSPARK_PYTHON, or a packed environment through spark.archives)"
    )


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return (lines[0] if lines else type(error).__name__)[:300]
