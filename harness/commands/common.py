"""What several commands share: the usage exit code, Spark started on demand, `--set`
options, the paths of the written reports."""

from __future__ import annotations

import argparse
from pathlib import Path

EXIT_USAGE = 2


class SparkStarter:
    """Starts Spark only when there is something to compare; a session the caller already
    had (an embedding program, the test suite) is reused and left running."""

    def __init__(self, master: str | None) -> None:
        self.master = master
        self.started: list[object] = []

    def __call__(self) -> object:
        from pyspark.sql import SparkSession

        from harness.spark import start_spark

        existing = SparkSession.getActiveSession()
        session = start_spark(self.master)
        if existing is None:
            self.started.append(session)
        return session

    def stop(self) -> None:
        from harness.spark import stop_spark

        for session in self.started:
            stop_spark(session)


def print_paths(paths: dict[str, Path]) -> None:
    """`report: OUT/report.json`, `junit: OUT/junit.xml`, `html: OUT/report.html`."""
    for kind, path in paths.items():
        print(f"{kind}: {path}")


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
