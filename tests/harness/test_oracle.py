"""Oracle mode against real MariaDB servers that the harness starts itself (.ci/run installs MariaDB)."""

from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.oracle.client import OracleClient
from harness.oracle.mariadb import MariaDBServer, ServerError, find_program
from harness.oracle.replication import ReplicationPair
from scenarios.loader import load_scenario
from scenarios.model import Scenario, Step
from server_sim.flavor import MARIADB_1011
from tests.support import ROOT, alive, harness_servers, raw_events, read_report, scenario_file


try:
    find_program("mariadbd", "mysqld")
    HAVE_MARIADB = True
except ServerError:
    HAVE_MARIADB = False

pytestmark = pytest.mark.skipif(not HAVE_MARIADB, reason="MariaDB is not installed (.ci/install-mariadb installs it)")


@pytest.fixture(scope="module")
def pair():
    with ReplicationPair(MARIADB_1011) as started:
        yield started


def test_a_server_starts_accepts_connections_and_stops_by_its_pid() -> None:
    server = MariaDBServer("solo", 9)
    server.start()
    root = server.root
    pid = server.pid
    try:
        with server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SELECT @@server_id, @@bind_address, @@log_bin")
            assert cursor.fetchone() == (9, "127.0.0.1", 0)
        assert pid in harness_servers()
    finally:
        server.stop()
    assert not alive({pid})
    assert root is not None and not root.exists()


def test_a_server_that_cannot_start_says_why_with_its_error_log() -> None:
    server = MariaDBServer("broken", 8, ("--no-such-option-at-all",), start_timeout=20)
    with pytest.raises(ServerError, match=r"(?s)broken: mariadbd exited.*no-such-option-at-all"):
        server.start()
    assert not server.running()


def test_reset_drops_user_databases_empties_the_binlog_and_restores_settings(pair: ReplicationPair) -> None:
    pair.reset({"binlog_format": "ROW", "transaction_isolation": "READ-COMMITTED"})
    with pair.master.connect("test") as connection, connection.cursor() as cursor:
        cursor.execute("SELECT @@GLOBAL.binlog_format, @@GLOBAL.tx_isolation")
        assert cursor.fetchone() == ("ROW", "READ-COMMITTED")
        cursor.execute("CREATE TABLE leftover (a INT)")
        cursor.execute("CREATE DATABASE other")
    pair.wait_for_replica()
    pair.reset()
    for server in (pair.master, pair.replica):
        with server.connect() as connection, connection.cursor() as cursor:
            cursor.execute("SHOW DATABASES")
            databases = {row[0] for row in cursor.fetchall()}
            assert "other" not in databases and "test" in databases
            cursor.execute("SHOW TABLES FROM test")
            assert cursor.fetchall() == ()
            cursor.execute("SELECT @@GLOBAL.binlog_format, @@GLOBAL.tx_isolation")
            assert cursor.fetchone() == ("MIXED", "REPEATABLE-READ")
    with pair.master.connect() as connection, connection.cursor() as cursor:
        cursor.execute("SHOW BINLOG EVENTS")
        assert [row[2] for row in cursor.fetchall()] == ["Format_desc", "Gtid_list", "Binlog_checkpoint"]
    status = pair.replica_status()
    assert (status["Slave_IO_Running"], status["Slave_SQL_Running"]) == ("Yes", "Yes")


def _scenario(steps: list[tuple[str, str]], master_schema: tuple[str, ...], slave_schema: tuple[str, ...] = ()) -> Scenario:
    return Scenario(
        name="probe",
        source=None,
        master_schema=master_schema,
        slave_schema=slave_schema,
        steps=tuple(Step(index, session, sql) for index, (session, sql) in enumerate(steps, start=1)),
    )


def test_a_blocked_step_is_recorded_and_its_result_collected_when_it_finishes(pair: ReplicationPair) -> None:
    scenario = _scenario(
        [
            ("con1", "BEGIN"),
            ("con1", "UPDATE t SET b = 1 WHERE a = 1"),
            ("con2", "UPDATE t SET b = 2 WHERE a = 1"),
            ("con1", "COMMIT"),
        ],
        ("CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB", "INSERT INTO t VALUES (1, 0)"),
    )
    run = OracleClient(pair, step_timeout=0.3).run_variant(scenario, {"binlog_format": "STATEMENT"})
    record = run.record
    assert record.error is None
    waiting = record.steps[2]
    assert waiting.blocked_by is not None
    assert (waiting.status, waiting.affected_rows, waiting.ran_after_step) == ("ok", 1, 4)
    assert [step.blocked_by for step in record.steps if step is not waiting] == [None, None, None]
    assert record.master_snapshot.tables["t"].rows == ((1, 2),)
    assert record.slave_snapshot.tables["t"].rows == ((1, 2),)
    queries = [event.info for event in run.events if event.kind == "Query"]
    assert queries.index("UPDATE t SET b = 1 WHERE a = 1") < queries.index("UPDATE t SET b = 2 WHERE a = 1")


def test_a_replica_that_misses_a_row_stops_with_1032_and_the_next_run_starts_clean(pair: ReplicationPair) -> None:
    scenario = load_scenario(ROOT / "scenarios" / "suites" / "slave-missing-row.yaml")
    client = OracleClient(pair)
    stopped = client.run_variant(scenario, {"binlog_format": "ROW"}).record
    assert stopped.slave is not None and not stopped.slave.running
    assert stopped.slave.error is not None and stopped.slave.error.code == 1032
    assert stopped.slave.error.name == "ER_KEY_NOT_FOUND"
    replayed = client.run_variant(scenario, {"binlog_format": "STATEMENT"}).record
    assert replayed.slave is not None and replayed.slave.running and replayed.slave.error is None
    assert replayed.slave_snapshot.tables["t"].rows == ((2, 2),)


def test_step_errors_and_warnings_are_the_statements_own(pair: ReplicationPair) -> None:
    scenario = _scenario(
        [
            ("con1", "BEGIN"),
            ("con1", "INSERT INTO i VALUES (1)"),
            ("con1", "INSERT INTO m VALUES (1)"),
            ("con1", "COMMIT"),
            ("con1", "INSERT INTO m VALUES (1)"),
        ],
        ("CREATE TABLE i (a INT) ENGINE=InnoDB", "CREATE TABLE m (a INT PRIMARY KEY) ENGINE=MyISAM"),
    )
    steps = OracleClient(pair).run_variant(scenario, {"binlog_format": "STATEMENT"}).record.steps
    assert [[note.code for note in step.notes] for step in steps] == [[], [], [1592], [], []]
    assert steps[4].error is not None and steps[4].error.code == 1062


def _run_oracle_cli(scenario_text: str, tmp_path: Path) -> subprocess.Popen[bytes]:
    path = scenario_file(tmp_path, scenario_text)
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", "--oracle", "mariadb", str(path), "--out", str(tmp_path / "out")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


SLOW_SCENARIO = """\
name: slow
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB
steps:
  - {session: con1, sql: "SELECT SLEEP(30)"}
"""


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_no_server_outlives_an_interrupted_or_killed_run(stop_signal: int, tmp_path: Path, pair: ReplicationPair) -> None:
    process = _run_oracle_cli(SLOW_SCENARIO, tmp_path)
    deadline = time.monotonic() + 90
    started: set[int] = set()
    while time.monotonic() < deadline and len(started) < 2 and process.poll() is None:
        started = harness_servers(process.pid)
        time.sleep(0.2)
    assert len(started) == 2, "the run did not start its master and replica"
    time.sleep(1.0)
    process.send_signal(stop_signal)
    process.wait(timeout=180)  # a hang guard: two servers' shutdown on a loaded machine
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and alive(started):
        time.sleep(0.1)
    assert not alive(started)


FAILING_SCENARIO = """\
name: failing
master_schema:
  - CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB
steps:
  - {session: con1, sql: "INSERT INTO t VALUES (1)"}
  - {session: con1, sql: "INSERT INTO no_such_table VALUES (1)"}
expect:
  - verdict: divergent
"""


def test_a_failing_scenario_still_leaves_no_server_behind(spark, tmp_path: Path, pair: ReplicationPair, capsys: pytest.CaptureFixture[str]) -> None:
    before = harness_servers()
    path = scenario_file(tmp_path, FAILING_SCENARIO, "failing.yaml")
    code = main(["run", "--oracle", "mariadb", str(path), "--out", str(tmp_path / "out")])
    output = capsys.readouterr().out
    assert code == 1  # the expectation fails (the run is consistent)
    assert "failing" in output and "consistent" in output
    assert harness_servers() <= before
    kept = [run["server_binlogs"] for run in read_report(tmp_path / "out")["runs"]]
    assert kept and all(len(paths) == 1 and Path(paths[0]).name == "master-bin.000001" and Path(paths[0]).is_file() for paths in kept)



FORMAT_DESCRIPTION, ROTATE, BINLOG_IN_USE = 15, 4, 0x01
KEPT = _scenario(
    [("con1", "INSERT INTO t VALUES (1, REPEAT('first run', 3))"), ("con1", "UPDATE t SET b = REPEAT('z', 20)")],
    ("CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(40)) ENGINE=InnoDB",),
)


def kept_binlog(record) -> list:
    """The events of a run's one kept master binlog, which opens with a closed
    Format_description and ends with its Rotate."""
    (path,) = record.server_binlogs
    assert path.name == "master-bin.000001" and path.parent.name == record.run_id
    events = raw_events(path.read_bytes())
    assert events[0].type_code == FORMAT_DESCRIPTION and not events[0].flags & BINLOG_IN_USE
    assert events[-1].type_code == ROTATE
    return events


def test_each_run_keeps_the_masters_binlog_of_its_own_events(pair: ReplicationPair, tmp_path: Path) -> None:
    client = OracleClient(pair, binlog_dir=tmp_path)
    first = client.run_variant(KEPT, {"binlog_format": "STATEMENT"}).record
    other = dataclasses.replace(_scenario([("con1", "INSERT INTO u VALUES (2)")], ("CREATE TABLE u (a INT) ENGINE=InnoDB",)), name="other")
    second = client.run_variant(other, {"binlog_format": "STATEMENT"}).record
    assert first.error is None and second.error is None
    first_text = b"".join(event.body for event in kept_binlog(first))
    second_text = b"".join(event.body for event in kept_binlog(second))
    assert b"first run" in first_text and b"CREATE TABLE t" in first_text and b"INSERT INTO u" not in first_text
    assert b"INSERT INTO u" in second_text and b"first run" not in second_text
    assert OracleClient(pair).run_variant(KEPT, {"binlog_format": "ROW"}).record.server_binlogs == []


def test_master_options_make_compressed_checksum_free_binlogs_observed_as_plain_ones(pair: ReplicationPair, tmp_path: Path) -> None:
    plain = OracleClient(pair).run_variant(KEPT, {"binlog_format": "ROW"})
    options = ("--log-bin-compress=ON", "--log-bin-compress-min-len=10", "--binlog-checksum=NONE")
    with ReplicationPair(MARIADB_1011, master_options=options) as other:
        run = OracleClient(other, binlog_dir=tmp_path).run_variant(KEPT, {"binlog_format": "ROW"})
    assert run.record.error is None and run.record.slave is not None and run.record.slave.running
    events = kept_binlog(run.record)
    assert events[0].body[-1] == 0  # checksum algorithm NONE
    assert {165, 166, 167} <= {event.type_code for event in events}  # Query, Write and Update rows compressed
    assert run.events == plain.events
