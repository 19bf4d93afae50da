"""What several commands share: the usage exit code, the output directory checked before
any work and its earlier reports retired, Spark started on demand (quietly, unless
--verbose), the check that Spark can start at all, `--set` options."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from harness.progress import Console

EXIT_USAGE = 2
SPARK_LOG = "spark.log"


class SparkStarter:
    """Starts Spark only when there is something to compare; a session the caller already
    had (an embedding program, the test suite) is reused and left running. With `log`, the
    JVM it starts writes there, not to the terminal; `console` is told when it starts one."""

    def __init__(self, master: str | None, log: Path | None = None, console: Console | None = None, driver_host: str | None = None) -> None:
        from pyspark.sql import SparkSession

        self.master = master
        self.driver_host = driver_host
        self.log = log
        self.console = console
        # Looked up here, in the caller's thread: the active session is per thread, and a
        # Prestart calls this starter from a thread of its own, which would see none.
        self.existing = SparkSession.getActiveSession()
        self.started: list[object] = []

    def __call__(self) -> object:
        from harness.spark import start_spark

        if self.existing is None and self.console is not None:
            where = f" (its log: {self.log})" if self.log is not None else ""
            self.console.note(f"starting Spark to compare master and slave tables{where} ...")
        session = start_spark(self.master, self.log, self.driver_host)
        if self.existing is None:
            self.started.append(session)
        return session

    def stop(self) -> None:
        from harness.spark import stop_spark

        for session in self.started:
            stop_spark(session)


def spark_starter(arguments: argparse.Namespace, console: Console | None = None) -> SparkStarter:
    """The command's Spark: its JVM's output in OUT/spark.log, or on the terminal with --verbose."""
    log = None if arguments.verbose else arguments.out / SPARK_LOG
    return SparkStarter(arguments.spark_master, log, console, getattr(arguments, "spark_driver_host", None))


def spark_unavailable(arguments: argparse.Namespace) -> str | None:
    """Why the command's Spark comparison cannot run here, said before any run starts (a
    suite's runs can take minutes), or None. A session already running needs no check."""
    if getattr(arguments, "compare", "spark") != "spark" and getattr(arguments, "executor", "local") != "spark":
        return None
    from pyspark.sql import SparkSession

    from harness.spark import JAVA_NEEDED, java_problem, master_unreachable

    if SparkSession.getActiveSession() is not None:
        return None
    problem = java_problem()
    if problem is not None:
        return f"Spark needs {JAVA_NEEDED} ({problem})"
    return master_unreachable(arguments.spark_master) if arguments.spark_master else None


def spark_hint(arguments: argparse.Namespace) -> str:
    """What to do instead, for a command that can compare without Spark."""
    return "; use --compare python to compare without Spark" if hasattr(arguments, "compare") else ""


def add_settings_option(parser: argparse.ArgumentParser, help: str) -> None:
    """`--set VAR=VALUE`, repeatable, read by settings()."""
    parser.add_argument("--set", action="append", default=[], dest="settings", metavar="VAR=VALUE", help=help)


def settings(pairs: list[str]) -> dict[str, str]:
    """`--set VAR=VALUE` options as a dict; ValueError names the malformed one."""
    result: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--set {pair!r}: expected VAR=VALUE")
        result[name.strip()] = value.strip()
    return result


def out_problem(out: Path) -> str | None:
    """Why OUT cannot be the command's output directory, said before any work is done: it,
    or the nearest of its parents that exists, is not a directory or cannot be written."""
    for path in (out, *out.absolute().parents):
        if not path.exists():
            continue
        if not path.is_dir():
            return f"--out {out}: {path} exists and is not a directory"
        if not os.access(path, os.W_OK | os.X_OK):
            return f"--out {out}: {path} is not writable"
        return None
    return None


def retire_reports(out: Path, names: tuple[str, ...]) -> None:
    """Remove the reports an earlier command left in OUT before this one writes anything
    there: a command killed half-way must not leave an old report that looks complete
    beside its own binlogs. The new reports are written whole (temp file and rename)."""
    for name in names:
        (out / name).unlink(missing_ok=True)
