"""Spark as the terminal sees it: its JVM's log kept off the terminal unless --verbose, and
a machine without Java told so in one line. Each test runs the command line in a process
of its own, as a person would: the JVM's output goes to that process's file descriptors."""

from __future__ import annotations

import os
import subprocess
import sys
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


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return scenario_file(tmp_path, TINY, "tiny.yaml")


def jvm_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if any(marker in line for marker in JVM_MARKERS)]


def test_spark_keeps_quiet_unless_verbose(tiny: Path, tmp_path: Path) -> None:
    quiet = rplharness("run", str(tiny), "--out", str(tmp_path / "quiet"))
    assert quiet.returncode == 0, quiet.stderr
    assert jvm_lines(quiet.stderr) == []
    assert [line for line in quiet.stderr.splitlines() if not line.startswith(OUR_LINES)] == []
    assert f"its log: {tmp_path / 'quiet' / 'spark.log'}" in quiet.stderr
    assert jvm_lines((tmp_path / "quiet" / "spark.log").read_text()), "the JVM's log went nowhere"
    assert "tiny" in quiet.stdout and jvm_lines(quiet.stdout) == []

    verbose = rplharness("run", str(tiny), "--verbose", "--out", str(tmp_path / "verbose"))
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
    spark = rplharness("run", str(tiny), "--out", str(tmp_path / "spark"), env=without_java)
    assert spark.returncode == 2
    assert spark.stderr == (
        "rplharness: Spark needs Java 17 (no java on PATH and JAVA_HOME unset); use --compare python to compare without Spark\n"
    )
    assert spark.stdout == "" and not (tmp_path / "spark").exists()  # said before any run started

    fuzz = rplharness("fuzz", "--count", "1", "--out", str(tmp_path / "fuzz"), env=without_java)
    assert (fuzz.returncode, fuzz.stderr) == (2, "rplharness: Spark needs Java 17 (no java on PATH and JAVA_HOME unset)\n")

    python = rplharness("run", str(tiny), "--compare", "python", "--out", str(tmp_path / "python"), env=without_java)
    assert python.returncode == 0, python.stderr
    assert "consistent" in python.stdout and "Traceback" not in python.stderr


def test_a_java_that_does_not_start_is_one_line_pointing_at_the_log(tiny: Path, tmp_path: Path) -> None:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\necho 'Error: this JVM cannot start' >&2\nexit 1\n")
    java.chmod(0o755)
    env = os.environ | {"JAVA_HOME": str(home)}
    broken = rplharness("run", str(tiny), "--out", str(tmp_path / "out"), env=env)
    assert broken.returncode == 2
    last = broken.stderr.splitlines()[-1]
    assert last == (
        f"rplharness: Spark's Java process exited before it started (its output is in {tmp_path / 'out' / 'spark.log'}); "
        "use --compare python to compare without Spark"
    )
    assert "Traceback" not in broken.stderr
    assert "this JVM cannot start" in (tmp_path / "out" / "spark.log").read_text()
