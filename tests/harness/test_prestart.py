"""Prestart: Spark's start begun in the background once the fuzz workers are running."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from harness.fuzz import FuzzConfig, fuzz
from harness.prestart import Prestart
from server_sim.flavor import DEFAULT_FLAVOR


def test_a_begun_start_runs_once_in_the_background_and_calls_get_its_result() -> None:
    threads: list[str] = []
    prestart = Prestart(lambda: threads.append(threading.current_thread().name) or "session")
    prestart.begin()
    prestart.begin()
    assert prestart() == "session" and prestart() == "session"
    assert threads == ["prestart"]


def test_a_start_not_begun_runs_in_the_caller() -> None:
    threads: list[str] = []
    prestart = Prestart(lambda: threads.append(threading.current_thread().name) or 1)
    assert prestart() == 1
    assert threads == [threading.current_thread().name]
    prestart.wait()  # nothing under way


def test_a_failed_start_raises_where_the_result_is_asked_for() -> None:
    def fail() -> object:
        raise RuntimeError("no JVM")

    prestart = Prestart(fail)
    prestart.begin()
    prestart.wait()
    with pytest.raises(RuntimeError, match="no JVM"):
        prestart()


def test_fuzz_begins_spark_while_its_workers_run(spark, tmp_path: Path) -> None:
    threads: list[str] = []

    def start() -> object:
        threads.append(threading.current_thread().name)
        return spark

    result = fuzz(FuzzConfig(count=4, seed=5), DEFAULT_FLAVOR, tmp_path, Prestart(start), workers=2)
    assert threads == ["prestart"]
    assert len(result.suite.runs) == 4
