"""Long values and a comparison that fails: a value longer than COMPARED_VALUE_LIMIT reaches
Spark as its prefix, length and SHA-256 (equal exactly when the values are), and a Spark
job that fails still leaves a report of every run, marked partial."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from py4j.protocol import Py4JNetworkError

import harness.suite
from harness.compare import COMPARED_VALUE_LIMIT
from tests.support import run_command, scenario_file

LONG = COMPARED_VALUE_LIMIT + 1000
SCENARIO = f"""\
name: long-values
matrix:
  binlog_format: [STATEMENT]
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY, v TEXT) ENGINE=InnoDB
steps:
  - {{session: con1, sql: "INSERT INTO t VALUES (1, REPEAT('x', {LONG})), (2, REPEAT('y', {LONG}))"}}
  - {{session: con1, sql: "UPDATE t SET v = CONCAT(v, UUID()) WHERE a = 2"}}
"""


@pytest.mark.parametrize("compare", ["spark", "python"])
def test_values_that_differ_past_the_compared_prefix_are_told_apart_and_shown_by_prefix(tmp_path, spark, compare) -> None:
    scenario = scenario_file(tmp_path, SCENARIO)
    code, report = run_command(tmp_path / "out", str(scenario), "--compare", compare)
    assert code == 1
    [run] = report["runs"]
    assert run["verdict"] == "divergent"
    [table] = run["diff"]
    assert (table["only_on_master"], table["only_on_slave"], table["key_matched"], table["column_mismatches"]) == (1, 1, 1, {"v": 1})
    for sample in (*table["master_samples"], *table["slave_samples"]):
        assert sample["a"] == 2
        assert sample["v"].startswith("y" * COMPARED_VALUE_LIMIT + f"... ({LONG + 36} characters, sha256 ")
    if compare == "spark":  # what the JVM read: no value whole
        longest = max(len(key) for side in ("master", "slave") for key in pq.read_table(tmp_path / "out" / "snapshots" / f"{side}.parquet")["row_key"].to_pylist())
        assert COMPARED_VALUE_LIMIT < longest < COMPARED_VALUE_LIMIT + 200


def test_a_spark_job_that_fails_leaves_a_partial_report_of_every_run(tmp_path, spark, monkeypatch) -> None:
    def jvm_gone(*arguments: object) -> None:
        raise Py4JNetworkError("Answer from Java side is empty")

    monkeypatch.setattr(harness.suite, "compare_runs", jvm_gone)
    scenario = scenario_file(tmp_path, SCENARIO)
    code, report = run_command(tmp_path / "out", str(scenario))
    assert code == 1
    failure = "the comparison of master and slave failed (Py4JNetworkError: Answer from Java side is empty)"
    assert report["partial"] == f"1 of 1 runs were not compared: {failure}"
    [run] = report["runs"]
    assert (run["verdict"], run["explanation"]) == ("error", [failure])
    assert [step["sql"][:6] for step in run["steps"]] == ["INSERT", "UPDATE"]
