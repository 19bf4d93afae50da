"""Fixtures shared by the whole suite."""

from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from harness.spark import start_spark, stop_spark


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """One SparkSession for the whole run: starting one costs 4-10 s, a small job ~0.5 s."""
    session = start_spark()
    yield session
    stop_spark(session)
