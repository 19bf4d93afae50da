"""Fixtures shared by the whole suite."""

import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark import SparkContext
from pyspark.sql import SparkSession

from harness.oracle.mariadb import ServerError, find_program
from harness.spark import java_problem, start_spark, stop_spark
from harness.spark_class_archive import archive_path
from master_sim.master import Master
from server_sim.flavor import MYSQL_80, Flavor
from tests.support import ARCHIVE_AT_START, ROOT, MariaDBBinlogs


def pytest_sessionstart(session: pytest.Session) -> None:
    """Spark's class-data archive written before the tests start their sessions (a dozen
    commands start one), by one small suite run in the controlling process: beside the
    workers when the run has them (xdist), else before the first test."""
    if hasattr(session.config, "workerinput") or java_problem() is not None:
        return
    archive = archive_path()
    if archive is None or archive.is_file():
        return
    if session.config.getoption("numprocesses", None):
        writer = threading.Thread(target=_write_class_archive, name="class-archive", daemon=True)
        writer.start()
        session.config.stash[_ARCHIVE_WRITER] = writer
    else:
        _write_class_archive()


def pytest_sessionfinish(session: pytest.Session) -> None:
    writer = session.config.stash.get(_ARCHIVE_WRITER, None)
    if writer is not None:
        writer.join()


_ARCHIVE_WRITER = pytest.StashKey[threading.Thread]()


def _write_class_archive() -> None:
    from harness.suite import run_suite

    with tempfile.TemporaryDirectory(prefix="rplh-archive-") as out:
        spark = start_spark(log=Path(out) / "spark.log")
        try:
            run_suite([ROOT / "scenarios" / "suites" / "slave-missing-row.yaml"], MYSQL_80, Path(out), lambda: spark)
        finally:
            stop_spark(spark)


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the shared SparkSession runs in one xdist group, so a run in
    several processes (`-n 2 --dist loadgroup`) still starts one session; a module that
    marks its tests with a group of their own (the standalone cluster's) keeps them in one
    process, with its module-scoped servers started once."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))
        group = item.get_closest_marker("xdist_group")
        if group is not None and "@" not in item.nodeid and hasattr(item, "_id"):
            # pytest 9.2 derives a node id from `_id`; xdist 3.8 writes the group into
            # `_nodeid`, which no longer shows, and would scatter the group's tests.
            item._id = type(item._id).parse(f"{item.nodeid}@{group.args[0]}")


@pytest.fixture(autouse=True)
def _one_spark_session(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that starts Spark in the test process without the `spark` fixture fails: in a
    run of several processes its session would be a second JVM (~700 MB and a start), in a
    process outside the Spark group. Take the fixture (a command run in-process gets it
    through `lambda: spark`) or run the command as a subprocess."""
    started = SparkContext._gateway is not None
    yield
    if not started and SparkContext._gateway is not None and "spark" not in request.fixturenames:
        pytest.fail("started Spark in the test process without the `spark` fixture", pytrace=False)


@pytest.fixture(scope="session")
def spark(request: pytest.FixtureRequest) -> Iterator[SparkSession]:
    """One SparkSession for the whole run: starting one costs 4-10 s, a small job ~0.5 s.
    It does not wait for the class-data archive the run may be writing
    (pytest_sessionstart): the Spark tests are one process's queue, and on a fresh machine
    a wait of a minute or more there costs more than the archive saves."""
    archive = archive_path()
    request.config.stash[ARCHIVE_AT_START] = archive is not None and archive.is_file()
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
        "flavor": "mysql-8.0",
        "seed": 1,
        "master_schema": [],
        "steps": [],
        "slave_schema": [],
        "binlog": None,
        "server_binlogs": [],
        "slave": None,
        "verdict": verdict,
        "explanation": [],
        "diff": [],
        "expectations": [],
        "error_checks": [],
        "error": None,
    }
    run |= fields
    covered = verdict == "consistent" or any(e["held"] and e["verdict"] == verdict for e in run["expectations"])
    checks_held = all(e["held"] for e in run["expectations"]) and all(c["held"] for c in run["error_checks"])
    return {"covered": covered, "passed": covered and checks_held and verdict != "error"} | run


def _expectation(held: bool, message: str, verdict: str = "divergent") -> dict[str, object]:
    return {"when": {}, "verdict": verdict, "slave_error": None, "step": None, "notes": None, "error": None, "events": None, "held": held, "message": message}


def _step(index: int, session: str, sql: str, **fields: object) -> dict[str, object]:
    return {
        "index": index, "session": session, "sql": sql, "status": "ok", "error": None, "notes": [], "reads": [], "writes": [],
        "unsafe": [], "logged_as": "ROW", "affected_rows": 0, "blocked_by": None, "ran_after_step": None, "expected_error": [],
    } | fields


HOSTILE = "INSERT INTO t VALUES ('<script>document.title=\"owned\"</script>')"


@pytest.fixture
def made_report() -> dict[str, object]:
    """A hand-made `run` report document with every verdict, a finding, a failed expectation,
    failed error checks, a run no expectation covers, blocked steps, a fidelity section,
    input errors and hostile text (a <script> in SQL, a row value, a scenario name, a message)."""
    hostile = HOSTILE
    step = _step(
        1, "con1", hostile, notes=[{"level": "Note", "code": 1592, "message": "Unsafe statement written to the binary log"}],
        writes=["t (InnoDB)"], unsafe=["SYSTEM_FUNCTION"], logged_as="STATEMENT", affected_rows=1,
    )
    diff = {
        "table": "t", "missing_on": None, "columns": ["a"], "only_on_master": 1, "only_on_slave": 1,
        "master_samples": [{"a": "<img src=x onerror=document.title='owned'>"}], "slave_samples": [{"a": "b"}],
        "key": [], "key_matched": 0, "column_mismatches": {},
    }
    parse_error = {"code": 1064, "name": "ER_PARSE_ERROR", "message": "You have an error in your SQL syntax near '<script>'"}
    locks = [
        _step(1, "con1", "BEGIN"),
        _step(2, "con1", "UPDATE t SET a = 'x' WHERE id = 1", expected_error=[1062], affected_rows=1),
        _step(3, "con2", "UPDATE t SET a = '<i>y</i>' WHERE id = 1", blocked_by="con1", ran_after_step=5, affected_rows=1),
        _step(4, "con2", "INSERT INTO t VALUES (3, 'q')", affected_rows=1),  # queued behind step 3
        _step(5, "con1", "COMMIT"),
        _step(6, "con3", "DELETE FROM t", status="blocked", blocked_by="con2", logged_as="none"),
        _step(7, "con2", "INSERT INTO t VALUES (2, 'z')"),
        _step(8, "con3", "SELECT 1", status="blocked", logged_as="none"),  # queued behind step 6
    ]
    runs = [
        _run("plain", {"binlog_format": "ROW"}, "consistent", expectations=[_expectation(True, "held", "consistent")]),
        _run(
            "plain", {"binlog_format": "STATEMENT"}, "divergent", steps=[step], diff=[diff],
            explanation=["step 1 (con1) was logged as STATEMENT while unsafe: SYSTEM_FUNCTION", "tables that differ: t"],
            expectations=[_expectation(True, "held")],
        ),
        _run("plain", {"binlog_format": "MIXED"}, "divergent", explanation=["tables that differ: t"],
             expectations=[_expectation(False, "expected verdict consistent, got divergent", "consistent")]),
        _run("hunted", {"binlog_format": "ROW", "binlog_row_image": "MINIMAL"}, "finding", steps=[step], explanation=["tables that differ: t"]),
        _run("<b>broken</b>", {"binlog_format": "STATEMENT"}, "error", explanation=["ValueError: boom"],
             error="Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: boom"),
        _run(
            "unparsable", {"binlog_format": "ROW"}, "unsupported", flavor="mariadb-10.11",
            steps=[_step(1, "con1", "SELECT <script>", status="error", error=parse_error)],
            explanation=["step 1 (con1): the simulator could not parse it: 1064 ER_PARSE_ERROR"],
            error_checks=[{"where": "step 1 (con1)", "sql": "SELECT <script>", "expected": [], "actual": parse_error, "held": False,
                           "message": "error 1064 ER_PARSE_ERROR, and no error was declared"}],
        ),
        _run(
            "locks", {"binlog_format": "ROW"}, "slave_stopped", steps=locks,
            slave={"running": False, "error": {"code": 1032, "name": "ER_KEY_NOT_FOUND", "message": "Can't find record in 't'"},
                   "error_position": 420, "error_event": "Update_rows", "applied_position": 300, "events_applied": 7, "warnings": [], "row_lookups": []},
            explanation=["slave stopped at position 420 (Update_rows): error 1032 ER_KEY_NOT_FOUND: Can't find record in 't'"],
            error_checks=[{"where": "step 2 (con1)", "sql": "UPDATE t SET a = 'x' WHERE id = 1", "expected": [1062], "actual": None, "held": False,
                           "message": "expected error 1062, got success"}],
        ),
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
    fidelity = {
        "system": "10.11.18-MariaDB-<b>log</b>",
        "rates": {
            "steps": {"compared": 2148, "agreed": 2147, "rate": 0.9995},
            "diagnostics": {"compared": 0, "agreed": 0, "rate": None},
            "blocking": {"compared": 12, "agreed": 12, "rate": 1.0},
            "overall": {"compared": 2160, "agreed": 2158, "rate": 0.9991},
            "runs": {"compared": 3, "agreed": 1, "rate": 0.3333},
        },
        "missing": ["<b>gone</b> [binlog_format=ROW]: no recording expected/gone__binlog_format_ROW.json"],
        "runs": [
            {"scenario": "plain", "variant": "binlog_format=ROW", "agrees": True, "disagreements": []},
            {"scenario": "plain", "variant": "binlog_format=STATEMENT", "agrees": False, "disagreements": [
                {"scenario": "plain", "variant": "binlog_format=STATEMENT", "category": "steps", "where": "step 1 (con1)",
                 "simulator": "ok", "server": "error 1064 <script>alert(1)</script>", "known": None},
            ]},
            {"scenario": "locks", "variant": "binlog_format=ROW", "agrees": False, "disagreements": [
                {"scenario": "locks", "variant": "binlog_format=ROW", "category": "blocking", "where": "step 3 (con2)",
                 "simulator": "blocked", "server": "ran at once", "known": "the server's gap locks differ"},
            ]},
        ],
    }
    verdicts = [run["verdict"] for run in runs]
    with_expectations = [run for run in runs if run["expectations"]]
    return {
        "format_version": 2,
        "command": "run",
        "flavor": "mysql-8.0",
        "summary": {
            "runs": len(runs),
            **{name: verdicts.count(name) for name in ("consistent", "divergent", "slave_stopped", "finding", "unsupported", "error")},
            "runs_with_expectations": len(with_expectations), "expectations_met": 2, "expectations_failed": 1,
            "runs_without_expectations": len(runs) - len(with_expectations), "not_passed": sum(not run["passed"] for run in runs),
            "input_errors": len(input_errors), "exit_code": 2,
        },
        "input_errors": input_errors,
        "runs": runs,
        "findings": [finding],
        "fidelity": fidelity,
    }


FUZZ_FORMATS = (("STATEMENT", ""), ("MIXED", ""), ("ROW", "FULL"), ("ROW", "MINIMAL"))


@pytest.fixture
def made_fuzz_report(made_report: dict[str, object]) -> dict[str, object]:
    """A hand-made `fuzz` report document: 48 runs over four binlog settings and two flavors
    with every verdict, slave stops with two error codes, and two finding groups whose example
    has a long shrunk scenario with hostile text."""
    runs = []
    cycle = ("consistent", "consistent", "divergent", "slave_stopped", "finding", "unsupported")
    for number in range(48):
        binlog_format, row_image = FUZZ_FORMATS[number % 4]
        settings = {"binlog_format": binlog_format} | ({"binlog_row_image": row_image} if row_image else {})
        verdict = cycle[number % 6]
        slave = None
        if verdict == "slave_stopped":
            code, name = (1062, "ER_DUP_ENTRY") if number % 12 == 3 else (1032, "ER_KEY_NOT_FOUND")
            slave = {"running": False, "error": {"code": code, "name": name, "message": f"<b>{name}</b> on table t"}, "error_position": 300}
        run = _run(f"w{number // 6}-i{number % 6}", settings, verdict, slave=slave, detail=verdict != "consistent",
                   flavor=None if number // 4 % 2 else "mariadb-10.11")
        runs.append(run)
    findings = [run for run in runs if run["verdict"] == "finding"]
    scenario_yaml = "name: shrunk <script>alert(1)</script>\nsteps:\n" + "".join(
        f"  - {{session: con{n % 3}, sql: \"INSERT INTO t VALUES ({n}, '<b>{n}</b>')\"}}\n" for n in range(150)
    ) + "# the end of the shrunk scenario\n"

    def example(run: dict[str, object]) -> dict[str, object]:
        return {
            "run_id": run["run_id"], "scenario": run["scenario"], "variant": run["variant"], "kind": "divergence under ROW with identical schemas",
            "explanation": ["tables that differ: t"], "statement": {"step": 2, "session": "con1", "sql": HOSTILE},
            "shrunk": {"yaml": f"out/findings/{run['run_id']}.yaml", "test": f"out/findings/{run['run_id']}.test", "steps": 150,
                       "sql": [], "runs": 40, "reproduced": True, "scenario_yaml": scenario_yaml},
        }

    groups = [
        {"signature": {"kind": "divergence", "format": "ROW", "error": None, "table_shape": "no primary key", "unsafe": [], "statement_kind": "UPDATE"},
         "title": "ROW divergence on a table without primary key after UPDATE <i>", "count": 5,
         "run_ids": [run["run_id"] for run in findings[:5]], "flavor": "mysql-8.0", "example": example(findings[0])},
        {"signature": {"kind": "slave stop", "format": "MIXED", "error": 1032, "table_shape": None, "unsafe": ["LIMIT", "SYSTEM_FUNCTION"], "statement_kind": "DELETE"},
         "title": "MIXED slave stop 1032 after DELETE", "count": 3, "run_ids": [run["run_id"] for run in findings[5:]],
         "flavor": "mariadb-10.11", "example": None},
    ]
    verdicts = [run["verdict"] for run in runs]
    summary = {
        "runs": len(runs), **{name: verdicts.count(name) for name in ("consistent", "divergent", "slave_stopped", "finding", "unsupported", "error")},
        "runs_with_expectations": 0, "expectations_met": 0, "expectations_failed": 0, "runs_without_expectations": len(runs),
        "not_passed": sum(not run["passed"] for run in runs), "input_errors": 0, "exit_code": 1,
    }
    run_report = {key: value for key, value in made_report.items() if key != "fidelity"}
    return run_report | {
        "command": "fuzz",
        "summary": summary,
        "input_errors": [],
        "runs": runs,
        "findings": [example(run) for run in findings],
        "finding_groups": groups,
        "fuzz": {"seed": 7, "count": 8, "interleavings": 6, "variants": "all", "generator": {}},
        "exploration": {"workloads": 8, "interleavings": 48, "runs": 48, "distinct_binlogs": 30, "distinct_master_states": 20},
    }


@pytest.fixture(scope="session")
def real_report(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The report document of a small real run: consistent, divergent and stopped runs, a
    failed expectation on hostile SQL, and an input error."""
    from harness.report import report_json
    from harness.suite import run_suite
    from server_sim.flavor import MYSQL_80

    suite = ROOT / "scenarios" / "suites"
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


@pytest.fixture(scope="session")
def mariadb_binlogs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MariaDBBinlogs]:
    """Binlog files a real MariaDB 10.11 wrote: one private server for the whole run (about
    a second to start), a fresh binlog file per distinct request. Skips without MariaDB."""
    try:
        find_program("mariadbd", "mysqld")
    except ServerError:
        pytest.skip("MariaDB is not installed (.ci/install-mariadb installs it)")
    binlogs = MariaDBBinlogs(tmp_path_factory.mktemp("mariadb-binlogs"))
    yield binlogs
    binlogs.stop()
