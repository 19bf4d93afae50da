"""A Spark standalone cluster on this machine, started from the installed pyspark: a master
and workers on 127.0.0.1, for the tests and the benchmark of the Spark execution backend.

The pyspark wheel has no `sbin/start-master.sh`; `bin/spark-class` runs the master's and a
worker's main classes directly. Nothing listens beyond loopback (`--host` and
SPARK_LOCAL_IP, which the web UIs bind to), the master's REST server is off, each worker
has a work directory of its own (its executors run in `<work dir>/<app id>/<executor id>/`),
and every daemon runs in a process group of its own: stopping a worker by its PID stops
the executors it started too. A daemon gets SIGTERM when the process (the thread) that
started it dies, so a killed benchmark or test run leaves no cluster behind. `local-cluster[...]` is not used: it writes into SPARK_HOME,
here the virtual environment.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pyspark

from .oracle.mariadb import die_with_parent, free_port
from .spark_class_archive import archive_path

SPARK_HOME = Path(pyspark.__file__).resolve().parent
LOOPBACK = "127.0.0.1"
START_TIMEOUT = 60.0
# Read by the master and the workers (--properties-file): no REST submission server, and
# no clean-up thread deleting the application directories the tests look into.
PROPERTIES = {
    "spark.master.rest.enabled": "false",
    "spark.worker.cleanup.enabled": "false",
    "spark.ui.killEnabled": "false",
}


class ClusterError(Exception):
    """The cluster did not come up: the message names the daemon and its log."""


@dataclass
class Daemon:
    """One master or worker JVM: its process, its log, its web UI port."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path
    webui_port: int
    work_dir: Path | None = None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> None:
        """Signal the daemon's process group (the daemon and what it started), then wait;
        SIGKILL when it does not end in time."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            except ProcessLookupError:
                pass
        self._reap_group()

    def _reap_group(self) -> None:
        """Executors started by a worker that outlive it are in its group: end them too."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclass
class StandaloneCluster:
    """A master and `workers` workers of `cores` cores each, all on 127.0.0.1. With
    `hidden`, the workers and their executors cannot see those directories (the driver's
    output, in the tests)."""

    workers: int = 1
    cores: int = 1
    memory: str = "1g"
    # Directories the workers and their executors do not see: each is covered by an empty
    # tmpfs in a mount namespace of their own (needs root); the driver still sees them.
    hidden: tuple[Path, ...] = ()
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="rplh-spark-cluster-")))
    master: Daemon | None = None
    worker_daemons: list[Daemon] = field(default_factory=list)

    @property
    def url(self) -> str:
        assert self.master is not None, "the cluster is not started"
        return f"spark://{LOOPBACK}:{self._master_port}"

    def start(self) -> StandaloneCluster:
        self.root.chmod(0o755)
        self._properties = self.root / "spark-defaults.conf"
        self._properties.write_text("".join(f"{key} {value}\n" for key, value in PROPERTIES.items()))
        self._master_port = free_port()
        webui = free_port()
        self.master = self._launch(
            "master", ["org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", str(self._master_port), "--webui-port", str(webui)], webui
        )
        _wait_for(lambda: self.state() is not None, self.master, "the master's web UI to answer")
        for _ in range(self.workers):
            self.add_worker(wait=False)
        self.wait_for_workers()
        return self

    def add_worker(self, wait: bool = True) -> Daemon:
        """Start one more worker and (with `wait`) wait until the master lists it as alive."""
        number = len(self.worker_daemons)
        work_dir = self.root / f"worker-{number}"
        work_dir.mkdir()
        webui = free_port()
        arguments = ["org.apache.spark.deploy.worker.Worker", "--host", LOOPBACK, "--port", str(free_port()), "--webui-port", str(webui)]
        arguments += ["--cores", str(self.cores), "--memory", self.memory, "--work-dir", str(work_dir), self.url]
        daemon = self._launch(f"worker-{number}", arguments, webui, work_dir)
        self.worker_daemons.append(daemon)
        if wait:
            self.wait_for_workers()
        return daemon

    def wait_for_workers(self) -> None:
        """Wait until the master lists every running worker as alive."""
        running = [daemon for daemon in self.worker_daemons if daemon.process.poll() is None]
        for daemon in running:
            _wait_for(lambda: (self.state() or {}).get("aliveworkers", 0) >= len(running), daemon, "the worker to register with the master")

    def state(self) -> dict | None:
        """The master's JSON status (workers, applications), or None when it does not answer."""
        assert self.master is not None
        try:
            with urllib.request.urlopen(f"http://{LOOPBACK}:{self.master.webui_port}/json/", timeout=2) as response:
                return json.load(response)
        except OSError:
            return None

    def stop(self) -> None:
        """Stop the workers (and their executors), then the master, each by its PID."""
        for daemon in reversed(self.worker_daemons):
            daemon.stop()
        if self.master is not None:
            self.master.stop()

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> StandaloneCluster:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.remove()

    def _launch(self, name: str, arguments: list[str], webui_port: int, work_dir: Path | None = None) -> Daemon:
        log = self.root / f"{name}.log"
        env = {key: value for key, value in os.environ.items() if not key.startswith(("SPARK_", "PYSPARK_", "PYTHONPATH"))}
        env |= {"SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": LOOPBACK, "SPARK_LOG_DIR": str(self.root)}
        archive = archive_path()
        if archive is not None and archive.is_file():
            # The daemons, and the executors a worker starts with its environment, load
            # Spark's classes from the drivers' class-data archive (see spark_class_archive).
            env["JAVA_TOOL_OPTIONS"] = " ".join(filter(None, (env.get("JAVA_TOOL_OPTIONS"), f"-XX:SharedArchiveFile={archive}")))
        command = [str(SPARK_HOME / "bin" / "spark-class"), *arguments, "--properties-file", str(self._properties)]
        if work_dir is not None and self.hidden:
            mounts = " && ".join(f"mount -t tmpfs -o size=1m,mode=0755 none {shlex.quote(str(path))}" for path in self.hidden)
            command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", f'{mounts} && exec "$@"', "sh", *command]
        with open(log, "wb") as sink:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, env=env, cwd=work_dir or self.root,
                start_new_session=True, preexec_fn=partial(die_with_parent, signal.SIGTERM),
            )  # fmt: skip
        return Daemon(name, process, log, webui_port, work_dir)


def _wait_for(condition, daemon: Daemon, what: str, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if daemon.process.poll() is not None:
            raise ClusterError(f"the Spark {daemon.name} exited (status {daemon.process.returncode}) before {what}; its log: {daemon.log}")
        if time.monotonic() > deadline:
            raise ClusterError(f"timed out waiting for {what}; the {daemon.name}'s log: {daemon.log}")
        time.sleep(0.2)
