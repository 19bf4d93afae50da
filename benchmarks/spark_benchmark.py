"""Runs per second of `fuzz` on each execution backend, for the same workloads, and where
the Spark backend's time goes: prints the figures as tables.

    .venv/bin/python benchmarks/spark_benchmark.py [--count 2000] [--seed 1] [--config NAME ...]

Eight configurations, each in a process of its own with its Spark session started before
the clock starts (session start is a fixed cost, reported apart):

0. the local process pool with one process: with 1., the machine's own ceiling for what
   a second slot can add (two busy processes on two virtual cores share more than cores);
1. the local process pool (`--executor local`; its comparison on local[*] Spark);
2. the Spark backend on local[*];
3. the Spark backend on a standalone cluster (harness/spark_cluster.py) of one 1-core worker;
4. the same cluster with a second 1-core worker;
5.-7. 2.-4. with `--compare python`: each task compares its own runs, no comparison job.

Timed: `fuzz` without shrinking (generation, runs, comparison, judging). For the Spark
backend, the executors' Python workers report when each task began and how long its
runs and its result packing took; the rest of the wall time is split into Python worker
start (process start to its first task), the gaps between a worker's tasks (scheduling,
task launch, results to the driver), the comparison job, and the driver's own share.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import fuzz as fuzz_module  # noqa: E402
from harness.fuzz import FuzzConfig, fuzz  # noqa: E402
from harness.pool import default_workers  # noqa: E402
from harness.spark import start_spark, stop_spark  # noqa: E402
from harness.spark_backend import SparkRuns, TaskStats  # noqa: E402
from harness.spark_cluster import StandaloneCluster  # noqa: E402
from server_sim.flavor import DEFAULT_FLAVOR  # noqa: E402

# name -> (executor, compare, pool processes or None for one per core)
CONFIGS = {
    "local pool, 1 process": ("local", "spark", 1),
    "local pool": ("local", "spark", None),
    "spark local[*]": ("spark", "spark", None),
    "cluster 1 worker x 1 core": ("spark", "spark", None),
    "cluster 2 workers x 1 core": ("spark", "spark", None),
    "tasks compare, local[*]": ("spark", "python", None),
    "tasks compare, 1 worker": ("spark", "python", None),
    "tasks compare, 2 workers": ("spark", "python", None),
}


def measure(name: str, master: str | None, count: int, seed: int) -> dict[str, object]:
    """One configuration, in this process: fuzz's wall time and the Spark backend's stats."""
    executor, compare, processes = CONFIGS[name]
    out = Path(tempfile.mkdtemp(prefix="rplh-spark-bench-"))
    started = time.perf_counter()
    session = start_spark(master, log=out / "spark.log")
    session_seconds = time.perf_counter() - started
    captured: list[SparkRuns] = []
    original = fuzz_module.run_on_spark

    def recording(*args, **kwargs) -> SparkRuns:
        runs = original(*args, **kwargs)
        captured.append(runs)
        return runs

    fuzz_module.run_on_spark = recording
    config = FuzzConfig(count=count, seed=seed, shrink_limit=0)
    started = time.perf_counter()
    result = fuzz(config, DEFAULT_FLAVOR, out, lambda: session, workers=processes, executor=executor, compare=compare)
    wall = time.perf_counter() - started
    slots = len({stats.pid for stats in captured[0].tasks}) if captured else processes or default_workers()  # Python workers that ran tasks
    stop_spark(session)
    shutil.rmtree(out, ignore_errors=True)
    figures: dict[str, object] = {"name": name, "session": session_seconds, "wall": wall, "runs": result.exploration.runs, "slots": slots}
    if captured:
        figures |= breakdown(captured[0], wall)
    return figures


def breakdown(runs: SparkRuns, wall: float) -> dict[str, float]:
    """Where the Spark backend's wall time went, summed over the task slots (Python workers)."""
    per_worker: dict[int, list[TaskStats]] = defaultdict(list)
    for stats in runs.tasks:
        per_worker[stats.pid].append(stats)
    first_submit = min(stats.job_submitted for stats in runs.tasks)
    python_start = between = waiting = 0.0
    for tasks in per_worker.values():
        by_task: dict[float, list[TaskStats]] = defaultdict(list)
        for stats in tasks:
            by_task[stats.task_started].append(stats)
        ordered = sorted(by_task.items())
        first = ordered[0][0]
        python_start += max(0.0, first - max(ordered[0][1][0].worker_started, first_submit))
        waiting += max(0.0, min(first, ordered[0][1][0].worker_started) - first_submit)
        for (start, items), (next_start, _) in zip(ordered, ordered[1:]):
            between += max(0.0, next_start - start - sum(s.run_seconds + s.pack_seconds for s in items))
    return {
        "python_workers": len(per_worker),
        "run_sum": sum(stats.run_seconds for stats in runs.tasks),
        "pack_sum": sum(stats.pack_seconds for stats in runs.tasks),
        "python_start_sum": python_start,
        "executor_wait_sum": waiting,
        "between_tasks_sum": between,
        "tasks": len({(stats.pid, stats.task_started) for stats in runs.tasks}),
        "prepare": runs.seconds.get("prepare", 0.0),
        "compare": runs.seconds.get("compare", 0.0),
        "after_runs": wall - runs.seconds.get("prepare", 0.0) - runs.seconds.get("runs", 0.0),
    }


def child(name: str, master: str | None, count: int, seed: int) -> dict[str, object]:
    command = [sys.executable, __file__, "--count", str(count), "--seed", str(seed), "--only", name] + (["--master", master] if master else [])
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


LOCAL = ("local pool, 1 process", "local pool", "spark local[*]", "tasks compare, local[*]")
ONE_WORKER = ("cluster 1 worker x 1 core", "tasks compare, 1 worker")
TWO_WORKERS = ("cluster 2 workers x 1 core", "tasks compare, 2 workers")


def run_all(count: int, seed: int, chosen: set[str]) -> list[dict[str, object]]:
    """The chosen configurations, in the table's order; the cluster only if one needs it."""
    results = [child(name, None, count, seed) for name in LOCAL if name in chosen]
    if chosen & {*ONE_WORKER, *TWO_WORKERS}:
        with StandaloneCluster(workers=1, cores=1) as cluster:
            results += [child(name, cluster.url, count, seed) for name in ONE_WORKER if name in chosen]
            if chosen & set(TWO_WORKERS):
                cluster.add_worker()
                results += [child(name, cluster.url, count, seed) for name in TWO_WORKERS if name in chosen]
    return results


def report(results: list[dict[str, object]], count: int) -> str:
    base = next((r for r in results if r["name"] == "local pool"), None)
    lines = [f"fuzz --count {count}: runs, comparison and judging (session start apart)", ""]
    lines.append(f"{'configuration':<28} {'slots':>5} {'session s':>9} {'wall s':>8} {'runs/s':>8} {'vs pool':>8}")
    for r in results:
        rate = r["runs"] / r["wall"]
        versus = f"{rate / (base['runs'] / base['wall']):>7.2f}x" if base else f"{'-':>8}"
        lines.append(f"{r['name']:<28} {r['slots']:>5} {r['session']:>9.1f} {r['wall']:>8.1f} {rate:>8.1f} {versus}")
    lines.append("")
    for label, one_name, two_name in (("", "local pool, 1 process", "local pool"), ("", "cluster 1 worker x 1 core", "cluster 2 workers x 1 core"), ("tasks compare, ", "tasks compare, 1 worker", "tasks compare, 2 workers")):
        one = next((r for r in results if r["name"] == one_name), None)
        two = next((r for r in results if r["name"] == two_name), None)
        if one and two:
            what = "local pool with 2 processes / with 1 (this machine's ceiling)" if one_name.startswith("local") else f"{label}cluster with 2 workers / with 1"
            lines.append(f"{what}: {one['wall'] / two['wall']:.2f}x")
    lines += ["", "where the Spark backend's time goes, seconds summed over its task slots:", ""]
    keys = [
        ("runs (in tasks)", "run_sum"), ("result packing (in tasks)", "pack_sum"), ("Python worker start", "python_start_sum"),
        ("waiting for an executor", "executor_wait_sum"), ("between tasks (launch, results)", "between_tasks_sum"),
    ]  # fmt: skip
    spark = [r for r in results if "run_sum" in r]
    if not spark:
        return "\n".join(lines)
    lines.append(f"{'':<34}" + "".join(f"{r['name'][:26]:>28}" for r in spark))
    for label, key in keys:
        lines.append(f"{label:<34}" + "".join(f"{r[key]:>28.1f}" for r in spark))
    lines.append(f"{'slots x wall':<34}" + "".join(f"{r['slots'] * r['wall']:>28.1f}" for r in spark))
    lines.append(f"{'tasks':<34}" + "".join(f"{r['tasks']:>28}" for r in spark))
    lines.append(f"{'code shipping and Python check':<34}" + "".join(f"{r['prepare']:>28.1f}" for r in spark))
    lines.append(f"{'after the runs (comparison, judging)':<34}" + "".join(f"{r['after_runs']:>28.1f}" for r in spark))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--config", action="append", choices=sorted(CONFIGS), metavar="NAME",
        help=f"measure only this configuration (repeatable; default all): {'; '.join(CONFIGS)}",
    )  # fmt: skip
    parser.add_argument("--only", choices=sorted(CONFIGS), help=argparse.SUPPRESS)
    parser.add_argument("--master", default=None, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.only:
        print(json.dumps(measure(arguments.only, arguments.master, arguments.count, arguments.seed)))
        return
    print(report(run_all(arguments.count, arguments.seed, set(arguments.config or CONFIGS)), arguments.count))


if __name__ == "__main__":
    main()
