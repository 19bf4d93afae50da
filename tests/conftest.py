"""Fixtures shared by the whole suite."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from harness.spark import start_spark, stop_spark
from master_sim.master import Master
from server_sim.flavor import MYSQL_80, Flavor


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """One SparkSession for the whole run: starting one costs 4-10 s, a small job ~0.5 s."""
    session = start_spark()
    yield session
    stop_spark(session)


@pytest.fixture
def new_master(tmp_path: Path) -> Iterator:
    """Masters with a schema run in a setup session, each with its binlog under tmp_path,
    closed after the test: `new_master(schema, binlog_format, flavor, seed, **settings)`."""
    masters: list[Master] = []

    def make(schema: list[str] | tuple[str, ...], binlog_format: str = "ROW", flavor: Flavor = MYSQL_80, seed: int = 3, **settings: str) -> Master:
        master = Master(flavor, {"binlog_format": binlog_format, **settings}, tmp_path / f"master-{len(masters)}.binlog", seed)
        for sql in schema:
            assert master.submit("setup", sql).error is None
        masters.append(master)
        return master

    yield make
    for master in masters:
        master.close()


def _run(scenario: str, settings: dict[str, str], verdict: str, **fields: object) -> dict[str, object]:
    variant = ",".join(f"{name}={value}" for name, value in settings.items())
    run: dict[str, object] = {
        "run_id": f"{scenario}__{variant}".replace("=", "_").replace(",", "_"),
        "scenario": scenario,
        "file": f"suite/{scenario}.yaml",
        "variant": variant,
        "settings": settings,
        "seed": 1,
        "master_schema": [],
        "steps": [],
        "slave_schema": [],
        "binlog": None,
        "slave": None,
        "verdict": verdict,
        "explanation": [],
        "diff": [],
        "expectations": [],
        "error": None,
    }
    return run | fields


def _expectation(held: bool, message: str) -> dict[str, object]:
    return {"when": {}, "verdict": "divergent", "slave_error": None, "step": None, "notes": None, "error": None, "events": None, "held": held, "message": message}


@pytest.fixture
def made_report() -> dict[str, object]:
    """A hand-made report document with every verdict, a finding, a failed expectation,
    input errors and hostile text (a <script> in SQL, a row value and a scenario name)."""
    hostile = "INSERT INTO t VALUES ('<script>document.title=\"owned\"</script>')"
    step = {
        "index": 1, "session": "con1", "sql": hostile, "status": "ok", "error": None,
        "notes": [{"level": "Note", "code": 1592, "message": "Unsafe statement written to the binary log"}],
        "reads": [], "writes": ["t (InnoDB)"], "unsafe": ["SYSTEM_FUNCTION"], "logged_as": "STATEMENT",
        "affected_rows": 1, "blocked_by": None, "ran_after_step": None,
    }
    diff = {
        "table": "t", "missing_on": None, "columns": ["a"], "only_on_master": 1, "only_on_slave": 1,
        "master_samples": [{"a": "<img src=x onerror=document.title='owned'>"}], "slave_samples": [{"a": "b"}],
    }
    runs = [
        _run("plain", {"binlog_format": "ROW"}, "consistent", expectations=[_expectation(True, "held")]),
        _run(
            "plain", {"binlog_format": "STATEMENT"}, "divergent", steps=[step], diff=[diff],
            explanation=["step 1 (con1) was logged as STATEMENT while unsafe: SYSTEM_FUNCTION", "tables that differ: t"],
            expectations=[_expectation(True, "held")],
        ),
        _run("plain", {"binlog_format": "MIXED"}, "divergent", explanation=["tables that differ: t"],
             expectations=[_expectation(False, "expected verdict consistent, got divergent")]),
        _run("hunted", {"binlog_format": "ROW", "binlog_row_image": "MINIMAL"}, "finding", steps=[step], explanation=["tables that differ: t"]),
        _run("<b>broken</b>", {"binlog_format": "STATEMENT"}, "error", explanation=["ValueError: boom"],
             error="Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: boom"),
    ]
    finding = {
        "run_id": runs[3]["run_id"], "scenario": "hunted", "variant": runs[3]["variant"],
        "kind": "divergence under ROW with identical schemas", "explanation": ["tables that differ: t"],
        "statement": {"step": 1, "session": "con1", "sql": hostile},
        "shrunk": {"yaml": "out/shrunk/hunted.yaml", "test": "out/shrunk/test_hunted.py", "steps": 1, "sql": [hostile]},
    }
    input_errors = [
        {"file": "suite/bad.yaml", "key": "steps[0]", "message": "unknown key extra"},
        {"file": "suite/bad.yaml", "key": "settings.binlog_format", "message": "Variable 'binlog_format' can't be set to the value of 'FOO'"},
        {"file": "suite/worse.yaml", "key": "", "message": "not valid YAML"},
    ]
    verdicts = [run["verdict"] for run in runs]
    return {
        "format_version": 1,
        "flavor": "mysql-8.0",
        "summary": {
            "runs": len(runs),
            **{name: verdicts.count(name) for name in ("consistent", "divergent", "slave_stopped", "finding", "error")},
            "expectations_failed": 1, "input_errors": len(input_errors), "exit_code": 2,
        },
        "input_errors": input_errors,
        "runs": runs,
        "findings": [finding],
        "exploration": {"workloads": 2, "interleavings": 5, "distinct_binlogs": 4, "distinct_master_states": 3},
    }


@pytest.fixture(scope="session")
def real_report(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The report document of a small real run: consistent, divergent and stopped runs, a
    failed expectation on hostile SQL, and an input error."""
    from harness.report import report_json
    from harness.suite import run_suite
    from server_sim.flavor import MYSQL_80

    suite = Path(__file__).resolve().parent.parent / "scenarios" / "suites"
    tmp = tmp_path_factory.mktemp("real-report")
    (tmp / "hostile.yaml").write_text(
        "name: hostile\n"
        'master_schema: ["CREATE TABLE t (a INT PRIMARY KEY, s VARCHAR(60))"]\n'
        "steps: [{session: con1, sql: \"INSERT INTO t VALUES (1, '<script>document.title=1</script>')\"}]\n"
        "expect: [{when: {binlog_format: ROW}, verdict: divergent}]\n"
    )
    (tmp / "broken.yaml").write_text("name: [unclosed\n")
    paths = [suite / "uuid-insert.yaml", suite / "slave-missing-row.yaml", tmp / "hostile.yaml", tmp / "broken.yaml"]
    result = run_suite(paths, MYSQL_80, tmp / "out", lambda: spark)
    return report_json(result, MYSQL_80.name)
