"""How fast rplharness fuzzes, and where the time goes: prints the figures as tables.

    .venv/bin/python benchmarks/fuzz_benchmark.py [--count 10000] [--seed 1] [--mariadb-runs 20]

1. `fuzz` end to end in this process, as the command runs it: forked workers on every
   core, one Spark job (session start included), judging, shrinking, reports.
2. The share of each stage (statement parsing, master, slave, snapshots; Spark from 1),
   measured on a sample of workloads in one process, each stage's own time only, with
   the garbage collector tuned as the workers tune it.
3. The same generated scenarios on a real MariaDB 10.11 master and replica (started and
   stopped here, when the machine has MariaDB) and in the simulator, per run.
"""

from __future__ import annotations

import argparse
import functools
import resource
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import fuzz as fuzz_module  # noqa: E402
from harness import runner, suite  # noqa: E402
from harness.fuzz import FuzzConfig, WorkloadRunner, fuzz  # noqa: E402
from harness.pool import collect_less_often  # noqa: E402
from harness.prestart import Prestart  # noqa: E402
from harness.report import fuzz_report_json, write_documents  # noqa: E402
from harness.spark import start_spark, stop_spark  # noqa: E402
from master_sim import master, pipeline  # noqa: E402
from scenarios.generator.sessions import generate_workload  # noqa: E402
from scenarios.interleavings import explore  # noqa: E402
from server_sim.flavor import DEFAULT_FLAVOR, get_flavor  # noqa: E402
from slave_sim import events as slave_events  # noqa: E402
from slave_sim import slave  # noqa: E402

MARIADB_SECONDS_PER_RUN_REFERENCE = 0.6


class StageClock:
    """Exclusive time per stage: a stage nested in another (parsing inside the master) is
    taken out of the outer one."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._stack: list[list[float]] = []

    def wrap(self, stage: str, function: Callable) -> Callable:
        @functools.wraps(function)
        def timed(*args, **kwargs):
            self._stack.append([time.perf_counter(), 0.0])
            try:
                return function(*args, **kwargs)
            finally:
                started, nested = self._stack.pop()
                spent = time.perf_counter() - started
                self.seconds[stage] += spent - nested
                if self._stack:
                    self._stack[-1][1] += spent

        return timed


@contextmanager
def instrumented(clock: StageClock) -> Iterator[None]:
    """Time the stages of a run by wrapping the functions that make them up."""
    targets = [
        (pipeline, "parse_statement", "parse"),
        (slave, "parse_statement", "parse"),
        (slave_events, "parse_statement", "parse"),
        (master.Master, "__init__", "master"),
        (master.Master, "submit", "master"),
        (master.Master, "finish", "master"),
        (slave.Slave, "__init__", "slave"),
        (slave.Slave, "apply", "slave"),
        (slave.Slave, "execute_local", "slave"),
        (runner, "snapshot", "snapshot"),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
    for owner, name, stage in targets:
        setattr(owner, name, clock.wrap(stage, getattr(owner, name)))
    try:
        yield
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def peak_rss_mib() -> tuple[float, float]:
    """Peak resident memory of this process and of its largest finished child, in MiB."""
    return (
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    )


def jvm_peak_rss_mib(spark) -> float | None:
    """The Spark driver JVM's peak resident memory, from /proc."""
    try:
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except Exception:
        return None
    return None


def table(rows: list[tuple[str, str]]) -> str:
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"  {name.ljust(width)}  {value}" for name, value in rows)


def end_to_end(config: FuzzConfig, out: Path) -> tuple[dict[str, float], object, float | None]:
    """One fuzz command's wall time per phase, its result, and the JVM's peak memory."""
    phases: dict[str, float] = {}
    spark_holder: list[object] = []

    def spark_factory():
        started = time.perf_counter()
        session = start_spark()
        phases["spark start"] = time.perf_counter() - started
        spark_holder.append(session)
        return session

    judge_records = suite.judge_records

    def timed_judging(records, directory, start, *args, **options):
        started = time.perf_counter()
        result = judge_records(records, directory, start, *args, **options)
        phases["compare + judge"] = time.perf_counter() - started  # waiting for Spark's start included
        return result

    fuzz_module.judge_records = timed_judging
    early = Prestart(spark_factory)  # as the command starts it: while the workers run
    started = time.perf_counter()
    try:
        result = fuzz(config, DEFAULT_FLAVOR, out, early)
    finally:
        fuzz_module.judge_records = judge_records
        early.wait()
    phases["total fuzz()"] = time.perf_counter() - started
    started = time.perf_counter()
    write_documents(fuzz_report_json(result, DEFAULT_FLAVOR.name, config), out)
    phases["reports"] = time.perf_counter() - started
    jvm = jvm_peak_rss_mib(spark_holder[0]) if spark_holder else None
    for session in spark_holder:
        stop_spark(session)
    return phases, result, jvm


def stage_shares(config: FuzzConfig, workloads: int, out: Path) -> tuple[dict[str, float], int, float]:
    """Exclusive seconds per stage over `workloads` workloads in this process."""
    clock = StageClock()
    worker = WorkloadRunner(replace(config, count=workloads), DEFAULT_FLAVOR, out / "binlogs")
    runs = 0
    started = time.perf_counter()
    with instrumented(clock):
        for index in range(workloads):
            runs += len(worker(index).runs)
    return dict(clock.seconds), runs, time.perf_counter() - started


def mariadb_side_by_side(config: FuzzConfig, runs: int, out: Path) -> tuple[float, float] | None:
    """Seconds per run on a real MariaDB master and replica and in the simulator, for the
    same generated scenarios; None when the machine has no MariaDB."""
    if shutil.which("mariadbd") is None and shutil.which("mysqld") is None and not Path("/usr/sbin/mariadbd").exists():
        return None
    from harness.oracle.client import OracleClient
    from harness.oracle.replication import ReplicationPair

    flavor = get_flavor("mariadb-10.11")
    tasks = []
    index = 0
    while len(tasks) < runs:
        workload = generate_workload(config.seed, index, config.generator)
        scenario = workload.scenario(explore(workload, 1)[0])
        for variant in fuzz_module.workload_variants(config.seed, index, "one"):
            pinned = replace(scenario, matrix={name: (value,) for name, value in variant.items()})
            tasks.append((pinned, pinned.variants()[0]))
        index += 1
    started = time.perf_counter()
    for scenario, variant in tasks:
        runner.run_variant(scenario, variant, flavor, out / "sim-binlogs")
    simulator = (time.perf_counter() - started) / len(tasks)
    with ReplicationPair(flavor) as pair:
        client = OracleClient(pair)
        started = time.perf_counter()
        for scenario, variant in tasks:
            client.run_variant(scenario, variant)
        server = (time.perf_counter() - started) / len(tasks)
    return server, simulator


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="workloads for the end-to-end figure (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample", type=int, default=150, help="workloads for the stage shares (default %(default)s)")
    parser.add_argument("--mariadb-runs", type=int, default=20, help="runs for the side-by-side figure, 0 to skip (default %(default)s)")
    arguments = parser.parse_args()
    config = FuzzConfig(count=arguments.count, seed=arguments.seed)
    with tempfile.TemporaryDirectory(prefix="rplharness-bench-") as directory:
        out = Path(directory)
        phases, result, jvm = end_to_end(config, out / "fuzz")
        runs = len(result.suite.runs)
        verdicts = defaultdict(int)
        for outcome in result.suite.runs:
            verdicts[outcome.judgement.verdict.value] += 1
        python_peak, worker_peak = peak_rss_mib()
        print(f"rplharness fuzz --count {config.count} --seed {config.seed} ({runs} runs, one variant each)")
        print(table(
            [
                ("wall time", f"{phases['total fuzz()']:.1f} s (target: under 120 s for 10000 workloads)"),
                ("runs per second", f"{runs / phases['total fuzz()']:.1f}"),
                ("simulate (workers)", f"{phases['total fuzz()'] - phases.get('compare + judge', 0):.1f} s, incl. shrinking"),
                ("spark start", f"{phases.get('spark start', 0):.1f} s, while the workers run"),
                ("spark compare + judge", f"{phases.get('compare + judge', 0):.1f} s, after the workers (any wait for the start included)"),
                ("reports", f"{phases['reports']:.1f} s"),
                ("verdicts", ", ".join(f"{n} {name}" for name, n in sorted(verdicts.items()))),
                ("findings", str(len(result.findings))),
                ("peak memory", f"parent {python_peak:.0f} MiB, largest worker {worker_peak:.0f} MiB, Spark JVM {jvm:.0f} MiB" if jvm else f"parent {python_peak:.0f} MiB, largest worker {worker_peak:.0f} MiB"),
            ]
        ))
        collect_less_often()  # the one-process figures below, with the workers' collector
        seconds, sample_runs, sample_wall = stage_shares(config, arguments.sample, out / "stages")
        spark_seconds = phases.get("compare + judge", 0.0) * sample_runs / max(runs, 1)
        seconds["spark (pro rata)"] = spark_seconds
        total = sum(seconds.values())
        print(f"\nstage shares, one process, {arguments.sample} workloads ({sample_runs} runs, {sample_runs / sample_wall:.1f} runs/s, {1000 * sample_wall / sample_runs:.1f} ms/run)")
        print(table([(stage, f"{100 * spent / total:5.1f} %  {1000 * spent / sample_runs:6.1f} ms/run") for stage, spent in sorted(seconds.items(), key=lambda item: -item[1])]
                    + [("other (generation, judging, pickling)", f"{100 * max(sample_wall - total + spark_seconds, 0) / total:5.1f} % of the staged time")]))
        if arguments.mariadb_runs:
            side = mariadb_side_by_side(config, arguments.mariadb_runs, out / "mariadb")
            print(f"\nper run, the same {arguments.mariadb_runs} generated scenarios (flavor mariadb-10.11)")
            if side is None:
                print(table([("real MariaDB", f"not installed (reference: about {MARIADB_SECONDS_PER_RUN_REFERENCE} s per run)"), ("simulator", f"{1000 * sample_wall / sample_runs:.1f} ms")]))
            else:
                server, simulator = side
                pooled = phases["total fuzz()"] / runs
                print(table(
                    [
                        ("real MariaDB master + replica", f"{1000 * server:.0f} ms"),
                        ("simulator, one process", f"{1000 * simulator:.1f} ms ({server / simulator:.0f}x faster)"),
                        ("simulator, fuzz on every core", f"{1000 * pooled:.1f} ms ({server / pooled:.0f}x faster; target 100x)"),
                    ]
                ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
