"""The Spark execution backend in this process's Spark (local[*]): the same reports as the
process pool, a run that raises judged `error`, and a task that dies leaving a partial
report that says so. The standalone cluster's tests are in test_spark_cluster.py."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark import cloudpickle

from harness.fuzz import FuzzConfig, fuzz
from harness.pool import RunTask, VariantRunner
from harness.report import fuzz_report_json, report_json
from harness.spark_backend import python_mismatch, run_on_spark
from harness.suite import SuiteResult, judge_records, run_suite
from scenarios.model import Verdict
from server_sim.flavor import MYSQL_80
from tests.support import ROOT, scenario_file, scenario_from

# The runner below is defined here, not in the project: Spark's Python workers get its
# definition with the task instead of importing this module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SCENARIO = """\
name: {name}
master_schema: ["CREATE TABLE t (a INT PRIMARY KEY, b INT)"]
steps: [{{session: con1, sql: "INSERT INTO t VALUES (1, 10), (2, 20)"}}]
"""


@dataclass(frozen=True)
class FailingRunner(VariantRunner):
    """VariantRunner that raises on the scenario `raises` and ends its Python worker's
    process on the scenario `dies` (as a crash in native code would)."""

    raises: str = ""
    dies: str = ""

    def __call__(self, task: RunTask):
        if task.scenario.name == self.raises:
            raise RuntimeError("the simulator blew up")
        if task.scenario.name == self.dies:
            os._exit(3)
        return super().__call__(task)


def _same(document: dict, local_out: Path, spark_out: Path) -> str:
    return str(document).replace(str(spark_out), str(local_out))


def test_the_suites_on_spark_give_the_pool_s_report(spark, tmp_path: Path) -> None:
    """Compared by the query over the tasks' rows, and by each task itself (--compare python),
    on every second file of the suites (three runs of each: the whole suites take long)."""
    paths = sorted((ROOT / "scenarios" / "suites").glob("*.yaml"))[::2]
    local = run_suite(paths, MYSQL_80, tmp_path / "local", lambda: spark)
    expected = str(report_json(local, MYSQL_80.name))
    for compare in ("spark", "python"):
        on_spark = run_suite(paths, MYSQL_80, tmp_path / compare, lambda: spark, compare=compare, executor="spark")
        assert len(on_spark.runs) == len(local.runs) > 50 and on_spark.not_run == []
        assert _same(report_json(on_spark, MYSQL_80.name), tmp_path / "local", tmp_path / compare) == expected, compare
        binlogs = {side: {p.name: p.read_bytes() for p in (tmp_path / side / "binlogs").iterdir()} for side in ("local", compare)}
        assert binlogs[compare] == binlogs["local"] and len(binlogs["local"]) == len(local.runs)


@pytest.mark.parametrize("compare", ["spark", "python"])
def test_fuzz_on_spark_gives_the_pool_s_report(spark, tmp_path: Path, compare: str) -> None:
    config = FuzzConfig(count=12, seed=3, variants="formats", shrink_limit=1, shrink_budget=20)
    local = fuzz(config, MYSQL_80, tmp_path / "local", lambda: spark)
    on_spark = fuzz(config, MYSQL_80, tmp_path / "spark", lambda: spark, executor="spark", compare=compare)
    assert on_spark.exploration == local.exploration and local.exploration.runs == 36
    expected = fuzz_report_json(local, MYSQL_80.name, config)
    assert _same(fuzz_report_json(on_spark, MYSQL_80.name, config), tmp_path / "local", tmp_path / "spark") == str(expected)


def test_a_run_that_raises_is_an_error_and_a_dead_task_leaves_a_partial_report(spark, tmp_path: Path) -> None:
    scenarios = [scenario_from(tmp_path, SCENARIO.format(name=name), f"{name}.yaml") for name in ("fine", "raises", "dies", "also-fine")]
    tasks = [RunTask(scenario, {"binlog_format": "ROW"}) for scenario in scenarios]
    runner = FailingRunner(MYSQL_80, tmp_path / "out" / "binlogs", raises="raises", dies="dies")

    runs = run_on_spark(spark, runner, tasks, lambda task: task.scenario.name, chunk_size=1)

    assert [record.scenario.name for record in runs.results] == ["fine", "raises", "also-fine"]
    assert len(runs.missing) == 1 and runs.missing[0].startswith("dies: ")
    result = SuiteResult(judge_records(runs.results, tmp_path / "out", lambda: spark, diffs=runs.diffs), [], runs.missing)
    assert [run.judgement.verdict for run in result.runs] == [Verdict.CONSISTENT, Verdict.ERROR, Verdict.CONSISTENT]
    assert result.runs[1].judgement.explanation == ("RuntimeError: the simulator blew up",)
    document = report_json(result, MYSQL_80.name)
    assert document["not_run"] == runs.missing and document["summary"]["exit_code"] == result.exit_code == 1


@pytest.mark.parametrize(
    ("detail", "message"),
    [
        (
            "PYTHON_VERSION_MISMATCH] Python in worker has different version: 3.10 than that in driver: 3.11",
            "PYTHON_VERSION_MISMATCH] Python in worker has different version: 3.10 than that in driver: 3.11",
        ),
        ("/opt/python/bin/python3 is Python 3.12", "/opt/python/bin/python3 is Python 3.12"),
    ],
)
def test_a_python_mismatch_is_one_line_saying_what_to_do(detail: str, message: str) -> None:
    ours = f"{sys.version_info[0]}.{sys.version_info[1]}"
    assert python_mismatch(detail + "\n\tat org.apache.spark...") == (
        f"the Spark executors' Python is not the driver's Python {ours} ({message}); give the executors a Python {ours} "
        "with the project's dependencies (PYSPARK_PYTHON, or a packed environment through spark.archives)"
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run", "{tiny}", "--executor", "spark", "--oracle", "mariadb"], "--executor spark runs the simulator only"),
        (["fuzz", "--executor", "spark", "--from", "{tiny}"], "--executor spark runs generated workloads"),
    ],
)
def test_what_the_spark_executor_cannot_do_is_a_usage_error(arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    tiny = scenario_file_path(tmp_path)
    with pytest.raises(SystemExit) as exit:
        main([argument.format(tiny=tiny) for argument in arguments] + ["--out", str(tmp_path / "out")])
    assert exit.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("arguments", "executor"),
    [
        (["run", "{tiny}"], "local"),
        (["run", "{tiny}", "--spark-master", "spark://10.0.0.5:7077"], "spark"),
        (["run", "{tiny}", "--spark-master", "spark://10.0.0.5:7077", "--executor", "local"], "local"),
        (["run", "{tiny}", "--spark-master", "spark://10.0.0.5:7077", "--oracle", "mariadb"], "local"),
        (["fuzz", "--spark-master", "spark://10.0.0.5:7077"], "spark"),
        (["fuzz", "--spark-master", "spark://10.0.0.5:7077", "--from", "{tiny}"], "local"),
        (["fuzz", "--executor", "spark"], "spark"),
    ],
)
def test_spark_master_alone_means_the_spark_executor(arguments: list[str], executor: str, tmp_path: Path) -> None:
    from harness.cli import _executor_problem, _parser

    parsed = _parser().parse_args([argument.format(tiny=scenario_file_path(tmp_path)) for argument in arguments])
    assert _executor_problem(parsed) is None
    assert parsed.executor == executor


def scenario_file_path(directory: Path) -> Path:
    return scenario_file(directory, SCENARIO.format(name="tiny"), "tiny.yaml")
