"""The SparkSession the comparison runs on, tuned for a small (2-core) machine.

Startup dominates Spark's cost here (4-10 s), so callers should start one session
per process and reuse it; see the platform-costs reference.

Spark's JVM writes to the terminal (its log4j lines, the JVM's own warnings) unless it
is given somewhere else to write: `start_spark(log=PATH)` starts it with its stdout and
stderr on that file, so a command's terminal shows only what the command says.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from pyspark import SparkConf, SparkContext
from pyspark.errors import PySparkRuntimeError
from pyspark.sql import SparkSession

from harness.spark_class_archive import WRITER_EXIT_TIMEOUT, ArchiveWrite, driver_option

LOCAL_MASTER = "local[*]"
JAVA_NEEDED = "Java 17"
LOOPBACK = "127.0.0.1"
# A standalone master answers a TCP connect at once; Spark itself retries for over a minute.
MASTER_CONNECT_TIMEOUT = 3.0
# The class-data archive this process's driver JVM writes when it exits, if it writes one.
_archive_write: ArchiveWrite | None = None


class SparkUnavailable(Exception):
    """Spark cannot start here: the message says why, in one line for the person at the terminal."""


def java_problem() -> str | None:
    """Why Spark's JVM cannot start, found without starting it: spark-submit runs
    $JAVA_HOME/bin/java when JAVA_HOME is set, else the java on PATH. None when it is there."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        return None if os.access(java, os.X_OK) else f"JAVA_HOME is {home}, which has no bin/java"
    return None if shutil.which("java") else "no java on PATH and JAVA_HOME unset"


def master_unreachable(master: str, timeout: float = MASTER_CONNECT_TIMEOUT) -> str | None:
    """Why a standalone master (`spark://host:port[,host:port...]`) cannot be reached, found
    with one TCP connect per host instead of Spark's own minute of retries; None when one
    answers, or for URLs that are not a standalone master's."""
    if not master.startswith("spark://"):
        return None
    problems = []
    for address in master.removeprefix("spark://").split(","):
        parts = urlsplit(f"//{address}")
        try:
            port = parts.port or 7077
        except ValueError:
            return f"the Spark master URL {master} has a malformed port in {address!r}"
        if not parts.hostname:
            return f"the Spark master URL {master} names no host"
        try:
            with socket.create_connection((parts.hostname, port), timeout=timeout):
                return None
        except OSError as error:
            problems.append(f"{parts.hostname}:{port}: {error.strerror or error}")
    return f"cannot reach the Spark master {master} ({'; '.join(problems)})"


def spark_options(master: str | None = None, driver_host: str | None = None) -> dict[str, str]:
    """The session's configuration: local by default, or on the cluster at `master`. The
    driver binds and advertises `driver_host`, loopback unless given: nothing listens on
    another interface unless the user asks for it (a cluster on other machines needs it)."""
    url = master or LOCAL_MASTER
    host = driver_host or LOOPBACK
    options = {
        "spark.master": url,
        "spark.app.name": "rplharness",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.catalogImplementation": "in-memory",
        "spark.driver.host": host,
        "spark.driver.bindAddress": host,
    }
    if url.startswith("local"):
        options |= {
            # The parallel GC costs startup time and buys nothing on 2 cores; the JIT's
            # optimising tier compiles longer than a small job runs (C1 alone: -3 s a command).
            "spark.driver.extraJavaOptions": "-XX:+UseSerialGC -XX:TieredStopAtLevel=1",
            # Adaptive execution re-plans stages, which costs more than it saves on small data.
            "spark.sql.adaptive.enabled": "false",
            # The default 200 shuffle partitions make every small job ~50 % slower.
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
        }
    return options


def start_spark(master: str | None = None, log: Path | None = None, driver_host: str | None = None) -> SparkSession:
    """Start (or reuse) the harness's session. With `log`, a JVM started here writes its
    output to that file instead of the terminal. SparkUnavailable when the JVM does not
    start or the cluster's master does not answer."""
    options = spark_options(master, driver_host)
    unreachable = master_unreachable(options["spark.master"])
    if unreachable is not None:
        raise SparkUnavailable(unreachable)
    # The executors' Python is the one the driver names when its context starts (the
    # builder's spark.pyspark.python is read too late): this interpreter, unless the user
    # named another (a packed environment's, on a cluster).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if driver_host is None:
        # Only the env var silences the "hostname resolves to a loopback address" warning;
        # it must be set before the JVM starts.
        os.environ["SPARK_LOCAL_IP"] = LOOPBACK
    if getattr(SparkContext, "_gateway", None) is None:
        options = _with_class_archive(options)
    try:
        if log is not None and getattr(SparkContext, "_gateway", None) is None:
            _start_jvm(options, log)
        builder = SparkSession.builder
        for key, value in options.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
    except BaseException as error:
        _abandon_class_archive()  # no JVM will write it
        if not isinstance(error, PySparkRuntimeError) or error.getCondition() != "JAVA_GATEWAY_EXITED":
            raise
        where = f"its output is in {log}" if log is not None else "its output is above"
        raise SparkUnavailable(f"Spark's Java process exited before it started ({where})") from error
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _start_jvm(options: dict[str, str], log: Path) -> None:
    """Launch Spark's JVM with its stdout and stderr on `log` (pyspark's own launcher, given
    where its process writes), and make it the process's SparkContext."""
    from pyspark.java_gateway import launch_gateway

    conf = SparkConf(loadDefaults=False).setAll(list(options.items()))
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as sink:
        gateway = launch_gateway(conf, popen_kwargs={"stdout": sink, "stderr": sink})
    SparkContext(conf=conf, gateway=gateway)


def _with_class_archive(options: dict[str, str]) -> dict[str, str]:
    """The options of a driver JVM about to start, with the class-data archive mapped, or
    told to write it when it exits (see spark_class_archive)."""
    global _archive_write
    option, _archive_write = driver_option()
    if not option:
        return options
    java_options = " ".join(filter(None, (options.get("spark.driver.extraJavaOptions"), option)))
    return options | {"spark.driver.extraJavaOptions": java_options}


def _abandon_class_archive() -> None:
    """A driver that did not start writes no archive: its lock goes."""
    global _archive_write
    if _archive_write is not None:
        _archive_write.finish(None)
        _archive_write = None


def stop_spark(spark: SparkSession) -> None:
    """Stop the session and its JVM-side context, so a later start gets a fresh one. A JVM
    writing the class-data archive is ended here and waited for, so that the archive is
    whole before it is given its name."""
    global _archive_write
    spark.stop()
    if _archive_write is None:
        return
    write, _archive_write = _archive_write, None
    gateway = SparkContext._gateway
    process = getattr(gateway, "proc", None)
    exit_code = None
    if process is not None:
        gateway.shutdown()
        SparkContext._gateway = None
        SparkContext._jvm = None
        process.stdin.close()  # the gateway exits at end of input, writing the archive
        try:
            exit_code = process.wait(timeout=WRITER_EXIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    write.finish(exit_code)
