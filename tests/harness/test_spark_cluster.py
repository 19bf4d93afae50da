"""The Spark execution backend on a real standalone cluster: a master and two 1-core workers
started from the installed pyspark on 127.0.0.1 (harness/spark_cluster.py).

Each command runs in a process of its own, as a person runs it: its SparkContext is not
the test run's shared session. The driver writes under a directory the workers and their
executors do not see (an empty tmpfs covers it in their mount namespace), so a job that
read the driver's --out would fail or differ. `fuzz` runs COUNT workloads (not 300: the
test stays near two minutes on a loaded 2-core machine). The local reference runs go on
beside the cluster's (its start, its jobs), which mostly wait.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.spark import java_problem
from harness.spark_cluster import StandaloneCluster
from tests.support import ROOT

# One process runs the file (a run in several): the cluster is started once for it.
pytestmark = [pytest.mark.skipif(java_problem() is not None, reason="Spark needs Java"), pytest.mark.xdist_group("cluster")]

COUNT = "60"
# Every eighth file of the bundled suites (all of them with RPLHARNESS_CLUSTER_ALL=1: two
# minutes more on a 2-core machine).
SUITES = ["scenarios/suites"] if os.environ.get("RPLHARNESS_CLUSTER_ALL") else [str(p.relative_to(ROOT)) for p in sorted((ROOT / "scenarios" / "suites").glob("*.yaml"))[::8]]
SEED = "5"
DOCUMENTS = ("report.json", "junit.xml", "report.html")


def rplharness(*arguments: object, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return started(*arguments).result(timeout)


class Started:
    """A command running in its own process; `result` waits for it. The local reference
    runs go on beside the cluster's, whose wall time is mostly waiting."""

    def __init__(self, arguments: tuple[object, ...]) -> None:
        self.command = [sys.executable, "-m", "harness.cli", *map(str, arguments)]
        self.process = subprocess.Popen(self.command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._done: subprocess.CompletedProcess[str] | None = None

    def result(self, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        if self._done is None:
            try:
                stdout, stderr = self.process.communicate(timeout=timeout)
            finally:
                if self.process.poll() is None:
                    self.process.kill()
                    self.process.communicate()
            self._done = subprocess.CompletedProcess(self.command, self.process.returncode, stdout, stderr)
        return self._done


def started(*arguments: object) -> Started:
    return Started(arguments)


def can_hide() -> bool:
    """Whether this process may give the workers a mount namespace of their own (root)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "true"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def driver_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("driver")


@pytest.fixture(scope="module")
def cluster(driver_dir: Path) -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster(workers=2, cores=1, hidden=(driver_dir,) if can_hide() else ())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="module")
def local_fuzz(driver_dir: Path) -> Iterator[tuple[Started, Path]]:
    """The local backend's fuzz report, started at once: it runs beside the cluster tests
    before the one that compares with it."""
    out = driver_dir / "fuzz-local"
    run = started("fuzz", "--count", COUNT, "--seed", SEED, "--out", out)
    yield run, out
    run.result()  # never left running


def assert_same_output(local: tuple[subprocess.CompletedProcess[str], Path], spark: tuple[subprocess.CompletedProcess[str], Path]) -> None:
    """Exit code, what was printed, the documents, the binlogs and the findings' files: the
    same, but for the output directory's name."""
    (local_run, local_out), (spark_run, spark_out) = local, spark
    assert spark_run.returncode == local_run.returncode, spark_run.stderr[-3000:]
    assert spark_run.stdout.replace(str(spark_out), str(local_out)) == local_run.stdout
    for name in DOCUMENTS:
        assert (spark_out / name).read_text().replace(str(spark_out), str(local_out)) == (local_out / name).read_text(), name
    for directory in ("binlogs", "findings"):
        files = {side: {p.relative_to(out / directory): p.read_bytes() for p in (out / directory).rglob("*") if p.is_file()} for side, out in (("local", local_out), ("spark", spark_out)) if (out / directory).exists()}  # fmt: skip
        assert files.get("spark", {}).keys() == files.get("local", {}).keys(), directory
        for name, data in files.get("local", {}).items():
            assert files["spark"][name].replace(str(spark_out).encode(), str(local_out).encode()) == data, name


def finished_tasks(cluster: StandaloneCluster) -> dict[str, int]:
    """Per worker, the tasks its executors logged as finished (Spark's own executor log,
    in the worker's application directories)."""
    return {
        worker.name: sum(log.read_text(errors="replace").count("Finished task") for log in worker.work_dir.glob("app-*/*/stderr"))
        for worker in cluster.worker_daemons
    }


def test_the_suites_on_the_cluster_give_the_local_report(local_fuzz, cluster: StandaloneCluster, driver_dir: Path) -> None:
    local_out, spark_out = driver_dir / "suites-local", driver_dir / "suites-spark"
    local = started("run", *SUITES, "--compare", "python", "--out", local_out)
    # Compared in the tasks that ran them (the fuzz test below compares in a query of its own).
    spark = rplharness("run", *SUITES, "--executor", "spark", "--spark-master", cluster.url, "--compare", "python", "--out", spark_out)
    assert_same_output((local.result(), local_out), (spark, spark_out))


def test_the_executors_cannot_see_the_driver_s_output(cluster: StandaloneCluster, driver_dir: Path) -> None:
    if not cluster.hidden:
        pytest.skip("hiding a directory from the workers needs root and unshare")
    (driver_dir / "written-by-the-driver").write_text("the driver's side sees it\n")
    for worker in cluster.worker_daemons:
        seen = subprocess.run(["nsenter", "--target", str(worker.process.pid), "--mount", "ls", "-A", str(driver_dir)], capture_output=True, text=True)
        assert (seen.returncode, seen.stdout) == (0, ""), f"{worker.name} sees {seen.stdout!r}"
        mounts = Path(f"/proc/{worker.process.pid}/mountinfo").read_text().splitlines()
        covering = [line for line in mounts if line.split()[4] == str(driver_dir)]
        assert covering and " - tmpfs " in covering[-1], f"{worker.name} sees {driver_dir}"
        # The executors are the worker's children: they start in its mount namespace.
        assert os.readlink(f"/proc/{worker.process.pid}/ns/mnt") != os.readlink("/proc/self/ns/mnt")


def test_fuzz_on_the_cluster_gives_the_local_report_on_both_workers_one_killed_mid_job(cluster: StandaloneCluster, driver_dir: Path, local_fuzz) -> None:
    """`fuzz` on the cluster gives the local report byte for byte, its tasks run on both
    workers (Spark's own task logs), and a worker SIGKILLed mid-job loses no result: Spark
    runs its tasks again on the other."""
    out = driver_dir / "fuzz-killed"
    command = [sys.executable, "-m", "harness.cli", "fuzz", "--count", COUNT, "--seed", SEED, "--spark-master", cluster.url, "--out", str(out)]
    before = finished_tasks(cluster)
    victim, survivor = cluster.worker_daemons
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        deadline = time.monotonic() + 300
        while finished_tasks(cluster)[victim.name] <= before[victim.name] + 1 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert process.poll() is None, "the job ended before the worker could be killed"
        victim.stop(signal.SIGKILL)  # the worker and its executor, mid-job, holding cached results
        stdout, stderr = process.communicate(timeout=600)
    local_run, local_out = local_fuzz
    assert_same_output((local_run.result(), local_out), (subprocess.CompletedProcess(command, process.returncode, stdout, stderr), out))
    assert finished_tasks(cluster)[survivor.name] > before[survivor.name], "the other worker ran none of the job's tasks"
    assert "WARN" not in stderr and "log4j" not in stderr  # Spark's lines went to OUT/spark.log
    assert re.search(r"Lost executor|[Ee]xecutor \S+ lost|ExecutorLost", (out / "spark.log").read_text()), "Spark did not see the executor go"
    cluster.add_worker()


def test_a_cluster_does_not_outlive_the_process_that_started_it(tmp_path: Path) -> None:
    """A benchmark or test run killed (SIGKILL: no clean-up runs) takes its cluster along."""
    script = (
        "import sys, time\n"
        "from harness.spark_cluster import StandaloneCluster\n"
        "cluster = StandaloneCluster(workers=1, cores=1).start()\n"
        "print(cluster.root, *(d.process.pid for d in [cluster.master, *cluster.worker_daemons]), flush=True)\n"
        "time.sleep(600)\n"
    )
    starter = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        root, *pids = starter.stdout.readline().split()
    finally:
        starter.kill()
        starter.wait()
    pids = [int(pid) for pid in pids]
    assert len(pids) == 2
    deadline = time.monotonic() + 60
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.5)
    shutil.rmtree(root, ignore_errors=True)
    assert not [pid for pid in pids if _alive(pid)]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
