"""The SparkSession the comparison runs on, tuned for a small (2-core) machine.

Startup dominates Spark's cost here (4-10 s), so callers should start one session
per process and reuse it; see the platform-costs reference.
"""

from __future__ import annotations

import os

from pyspark.sql import SparkSession

LOCAL_MASTER = "local[*]"


def start_spark(master: str | None = None) -> SparkSession:
    """Start (or reuse) the harness's session: local by default, or on the cluster at `master`."""
    url = master or LOCAL_MASTER
    local = url.startswith("local")
    builder = (
        SparkSession.builder.master(url)
        .appName("rplharness")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.catalogImplementation", "in-memory")
    )
    if local:
        # Only the env var silences the "hostname resolves to a loopback address" warning;
        # it must be set before the JVM starts.
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        builder = (
            # The parallel GC costs startup time and buys nothing on 2 cores; the JIT's
            # optimising tier compiles longer than a small job runs (C1 alone: -3 s a command).
            builder.config("spark.driver.extraJavaOptions", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1")
            # Adaptive execution re-plans stages, which costs more than it saves on small data.
            .config("spark.sql.adaptive.enabled", "false")
            # The default 200 shuffle partitions make every small job ~50 % slower.
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
        )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def stop_spark(spark: SparkSession) -> None:
    """Stop the session and its JVM-side context, so a later start gets a fresh one."""
    spark.stop()
