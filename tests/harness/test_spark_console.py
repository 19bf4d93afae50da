"""Spark as the terminal sees it: its JVM's log kept off the terminal unless --verbose, and
a machine without Java told so in one line. Each test runs the command line in a process
of its own, as a person would: the JVM's output goes to that process's file descriptors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support import ROOT, scenario_file

JVM_MARKERS = ("WARN", "log4j", "NativeCodeLoader", "SparkContext", "Using Spark's", "incubator")
OUR_LINES = ("simulator: ", "starting Spark to compare master and slave tables")
TINY = """\
name: tiny
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1, 10), (2, 20)"}
"""


def rplharness(*arguments: str, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def rplharness_together(*commands: tuple[str, ...], env: dict[str, str] | None = None, timeout: float = 180) -> list[subprocess.CompletedProcess[str]]:
    """Several independent command lines run at once (each in its own process, with its
    own --out), their results in the order given: a JVM's start is mostly waiting."""
    with ThreadPoolExecutor(len(commands)) as pool:
        return list(pool.map(lambda arguments: rplharness(*arguments, env=env, timeout=timeout), commands))


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return scenario_file(tmp_path, TINY, "tiny.yaml")


def jvm_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(marker in line for marker in JVM_MARKERS)]


def test_spark_keeps_quiet_unless_verbose(tiny: Path, tmp_path: Path) -> None:
    quiet, verbose = rplharness_together(
        ("run", str(tiny), "--out", str(tmp_path / "quiet")), ("run", str(tiny), "--verbose", "--out", str(tmp_path / "verbose"))
    )
    assert quiet.returncode == 0, quiet.stderr
    assert jvm_lines(quiet.stderr) == []
    assert [line for line in quiet.stderr.splitlines() if not line.startswith(OUR_LINES)] == []
    assert f"its log: {tmp_path / 'quiet' / 'spark.log'}" in quiet.stderr
    assert jvm_lines((tmp_path / "quiet" / "spark.log").read_text()), "the JVM's log went nowhere"
    assert "tiny" in quiet.stdout and jvm_lines(quiet.stdout) == []

    assert verbose.returncode == 0, verbose.stderr
    assert jvm_lines(verbose.stderr)
    assert not (tmp_path / "verbose" / "spark.log").exists()


@pytest.fixture
def without_java(tmp_path: Path) -> dict[str, str]:
    """The environment of a machine with no Java: nothing on PATH, JAVA_HOME unset."""
    env = {name: value for name, value in os.environ.items() if name != "JAVA_HOME"}
    (tmp_path / "empty-bin").mkdir()
    env["PATH"] = str(tmp_path / "empty-bin")
    return env


def test_without_java_a_spark_command_says_so_in_one_line_and_python_compares(tiny: Path, tmp_path: Path, without_java: dict[str, str]) -> None:
    spark, fuzz, fuzz_python, python = rplharness_together(
        ("run", str(tiny), "--out", str(tmp_path / "spark")),
        ("fuzz", "--count", "1", "--out", str(tmp_path / "fuzz")),
        ("fuzz", "--count", "2", "--compare", "python", "--out", str(tmp_path / "fuzz-python")),
        ("run", str(tiny), "--compare", "python", "--out", str(tmp_path / "python")),
        env=without_java,
    )
    assert spark.returncode == 2
    assert spark.stderr == (
        "rplharness: Spark needs Java 17 (no java on PATH and JAVA_HOME unset); use --compare python to compare without Spark\n"
    )
    assert spark.stdout == "" and not (tmp_path / "spark").exists()  # said before any run started

    assert (fuzz.returncode, fuzz.stderr) == (2, "rplharness: Spark needs Java 17 (no java on PATH and JAVA_HOME unset); use --compare python to compare without Spark\n")
    assert fuzz_python.returncode in (0, 1) and "Traceback" not in fuzz_python.stderr, fuzz_python.stderr
    assert (tmp_path / "fuzz-python" / "report.json").exists()

    assert python.returncode == 0, python.stderr
    assert "consistent" in python.stdout and "Traceback" not in python.stderr


def test_a_java_that_does_not_start_is_one_line_pointing_at_the_log(tiny: Path, tmp_path: Path) -> None:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\necho 'Error: this JVM cannot start' >&2\nexit 1\n")
    java.chmod(0o755)
    env = os.environ | {"JAVA_HOME": str(home), "RPLHARNESS_CACHE": str(tmp_path / "cache")}
    broken = rplharness("run", str(tiny), "--out", str(tmp_path / "out"), env=env)
    assert broken.returncode == 2
    assert list((tmp_path / "cache").iterdir()) == []  # it would have written the class archive: its lock is gone
    last = broken.stderr.splitlines()[-1]
    assert last == (
        f"rplharness: Spark's Java process exited before it started (its output is in {tmp_path / 'out' / 'spark.log'}); "
        "use --compare python to compare without Spark"
    )
    assert "Traceback" not in broken.stderr
    assert "this JVM cannot start" in (tmp_path / "out" / "spark.log").read_text()


def test_an_unreachable_spark_master_is_one_line_before_any_run(tiny: Path, tmp_path: Path) -> None:
    from harness.oracle.mariadb import free_port

    master = f"spark://127.0.0.1:{free_port()}"
    for command in (["run", str(tiny)], ["fuzz", "--count", "1"]):
        started = time.monotonic()
        result = rplharness(*command, "--spark-master", master, "--out", str(tmp_path / command[0]), timeout=60)
        assert result.returncode == 2, result.stderr
        assert time.monotonic() - started < 20, "the check must not wait for Spark's own retries"
        assert result.stderr.startswith(f"rplharness: cannot reach the Spark master {master} (127.0.0.1:")
        assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
        assert result.stdout == "" and not (tmp_path / command[0]).exists()  # said before any run started


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("local[*]", None),
        ("local[2]", None),
        ("yarn", None),
        ("spark://127.0.0.1:notaport", "the Spark master URL spark://127.0.0.1:notaport has a malformed port in '127.0.0.1:notaport'"),
        ("spark://:7077", "the Spark master URL spark://:7077 names no host"),
    ],
)
def test_which_master_urls_are_checked(url: str, reason: str | None) -> None:
    from harness.spark import master_unreachable

    assert master_unreachable(url) == reason


def test_a_listening_master_is_reachable_and_any_of_several_is_enough() -> None:
    from harness.oracle.mariadb import free_port
    from harness.spark import master_unreachable

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert master_unreachable(f"spark://127.0.0.1:{port}") is None
        assert master_unreachable(f"spark://127.0.0.1:{free_port()},127.0.0.1:{port}") is None
    closed = free_port()
    assert master_unreachable(f"spark://127.0.0.1:{closed}", timeout=1).startswith(f"cannot reach the Spark master spark://127.0.0.1:{closed}")


def test_the_driver_binds_loopback_unless_given_an_address() -> None:
    from harness.spark import spark_options

    for master in (None, "spark://10.0.0.5:7077"):
        options = spark_options(master)
        assert (options["spark.driver.host"], options["spark.driver.bindAddress"]) == ("127.0.0.1", "127.0.0.1")
    given = spark_options("spark://10.0.0.5:7077", driver_host="10.0.0.9")
    assert (given["spark.driver.host"], given["spark.driver.bindAddress"]) == ("10.0.0.9", "10.0.0.9")
