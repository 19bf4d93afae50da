"""`rplharness replay`: a binlog applied to a persistent slave database, crash-safe and resumable."""

from __future__ import annotations

import os
import random
import signal
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import duckdb
import pytest

from harness.cli import main
from harness.runner import RunRecord, run_variant
from scenarios.model import Scenario, Step
from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import read_binlog
from server_sim.errors import ErrorCode, SqlError
from server_sim.flavor import MYSQL_80
from server_sim.storage import ROW_ID, Storage
from slave_sim.replay import replay
from slave_sim.slave import Slave
from tests.support import ROOT



def write_binlog(tmp_path: Path, master_schema: list[str], steps: list[str], binlog_format: str = "MIXED") -> RunRecord:
    scenario = Scenario(
        "replayed",
        None,
        settings={"binlog_format": binlog_format},
        master_schema=tuple(master_schema),
        steps=tuple(Step(index, f"con{index % 3}", sql) for index, sql in enumerate(steps, 1)),
    )
    record = run_variant(scenario, scenario.variants()[0], MYSQL_80, tmp_path)
    assert record.error is None, record.error
    return record


def tables(database: Path) -> dict[str, list[tuple]]:
    """Every table of the slave's `test` schema, rows sorted, read straight from DuckDB."""
    with duckdb.connect(str(database), read_only=True) as connection:
        names = [row[0] for row in connection.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'test' ORDER BY 1").fetchall()]
        return {name: sorted(connection.execute(f'SELECT * EXCLUDE ("{ROW_ID}") FROM test."{name}"').fetchall(), key=repr) for name in names}


def applied_position(database: Path) -> tuple[str, int] | None:
    """The recorded position; None for a database killed before it recorded one."""
    with duckdb.connect(str(database), read_only=True) as connection:
        try:
            return connection.execute("SELECT Master_log_name, Master_log_pos FROM mysql.slave_relay_log_info").fetchone()
        except duckdb.CatalogException:
            return None


SIMPLE = (
    ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT) ENGINE=InnoDB"],
    ["INSERT INTO t VALUES (1, 1), (2, 2)", "UPDATE t SET b = b + 10 WHERE a = 2", "DELETE FROM t WHERE a = 1"],
)


def test_replay_applies_a_run_binlog_and_a_second_run_resumes_with_nothing_to_do(tmp_path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    database = tmp_path / "slave.duckdb"
    assert main(["replay", str(record.binlog), "--db", str(database)]) == 0
    assert "new database" in capsys.readouterr().out
    assert tables(database) == {"t": [(2, 12)]}
    end = record.binlog.stat().st_size
    assert applied_position(database) == (record.binlog.name, end)
    assert main(["replay", str(record.binlog), "--db", str(database)]) == 0
    assert f"resumed at position {end}; applied 0 events" in capsys.readouterr().out
    assert tables(database) == {"t": [(2, 12)]}


def test_a_new_database_is_provisioned_from_the_slave_schema_and_starts_at_the_given_position(tmp_path) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    create = next(p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query.startswith("CREATE TABLE"))
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT, c VARCHAR(5) DEFAULT 'x');\nINSERT INTO t VALUES (9, 9, 'own');\n")
    database = tmp_path / "slave.duckdb"
    code = main(["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema), "--start-position", str(create.end_log_pos)])
    assert code == 0
    assert tables(database) == {"t": [(2, 12, "x"), (9, 9, "own")]}


def test_a_slave_schema_that_fails_writes_nothing(tmp_path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE u (a INT);\nINSERT INTO nowhere VALUES (1);\n")
    database = tmp_path / "slave.duckdb"
    assert main(["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema)]) == 2
    error = capsys.readouterr().err
    assert "INSERT INTO nowhere VALUES (1)" in error and "error 1146" in error and "not provisioned" in error
    assert tables(database) == {}
    schema.write_text("CREATE TABLE u (a INT);\n")
    assert main(["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema)]) == 0
    assert tables(database) == {"t": [(2, 12)], "u": []}


def test_a_database_that_follows_one_binlog_refuses_another(tmp_path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    other = tmp_path / "other.binlog"
    other.write_bytes(record.binlog.read_bytes())
    database = tmp_path / "slave.duckdb"
    assert main(["replay", str(record.binlog), "--db", str(database)]) == 0
    assert main(["replay", str(other), "--db", str(database)]) == 2
    assert f"is applying {record.binlog.name}" in capsys.readouterr().err


def test_a_stopped_slave_keeps_its_position_at_the_failed_transaction_and_stops_again(tmp_path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT);\nINSERT INTO t VALUES (1, 5);\n")
    create = next(p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query.startswith("CREATE TABLE"))
    database = tmp_path / "slave.duckdb"
    arguments = ["replay", str(record.binlog), "--db", str(database), "--start-position", str(create.end_log_pos)]
    assert main([*arguments, "--slave-schema", str(schema)]) == 1
    output = capsys.readouterr().out
    assert "error 1062 (ER_DUP_ENTRY)" in output
    position = applied_position(database)[1]
    assert position == create.end_log_pos
    assert main(arguments) == 1
    assert f"resumed at position {position}; applied 0 events" in capsys.readouterr().out
    assert tables(database) == {"t": [(1, 5)]}


def _conflict_first(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[int]:
    """Make the next `failures` row inserts hit a DuckDB write conflict; count the calls."""
    calls: list[int] = []
    insert = Storage.insert

    def conflicting_insert(self: Storage, table, row_id, values, unless=()) -> bool:
        calls.append(row_id)
        if len(calls) <= failures:
            raise SqlError(ErrorCode.ER_LOCK_DEADLOCK)
        return insert(self, table, row_id, values, unless)

    monkeypatch.setattr(Storage, "insert", conflicting_insert)
    return calls


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "ROW"])
def test_a_transient_error_is_retried_with_backoff_and_each_retry_is_reported(tmp_path, monkeypatch, binlog_format) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format=binlog_format)
    _conflict_first(monkeypatch, failures=2)
    result = replay(record.binlog, tmp_path / "slave.duckdb", MYSQL_80, {})
    assert result.status.running
    assert [(retry.attempt, retry.code) for retry in result.status.retries] == [(1, 1213), (2, 1213)]
    assert result.status.retries[1].wait_seconds >= result.status.retries[0].wait_seconds > 0
    assert tables(tmp_path / "slave.duckdb") == {"t": [(2, 12)]}


def test_a_transient_error_that_outlasts_slave_transaction_retries_stops_the_slave(tmp_path, monkeypatch) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    _conflict_first(monkeypatch, failures=100)
    result = replay(record.binlog, tmp_path / "slave.duckdb", MYSQL_80, {"slave_transaction_retries": "3"})
    assert not result.status.running
    assert result.status.error.code == 1213
    assert len(result.status.retries) == 3


def test_a_slave_in_memory_records_nothing_and_stops_on_a_transient_error(tmp_path, monkeypatch) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    _conflict_first(monkeypatch, failures=1)
    slave = Slave(MYSQL_80, {}, seed=0)
    try:
        status = slave.apply(record.binlog)
        assert not slave.crash_safe
        assert slave.server.connection.execute("SELECT schema_name FROM duckdb_schemas() WHERE schema_name = 'mysql'").fetchall() == []
    finally:
        slave.close()
    assert not status.running
    assert status.error.code == 1213
    assert status.retries == []


def test_a_permanent_error_is_not_retried(tmp_path) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    create = next(p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query.startswith("CREATE TABLE"))
    schema = "CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT); INSERT INTO t VALUES (1, 5)"
    result = replay(record.binlog, tmp_path / "slave.duckdb", MYSQL_80, {}, schema, create.end_log_pos)
    assert not result.status.running
    assert result.status.error.code == 1062
    assert result.status.retries == []


def test_a_database_another_process_holds_is_waited_for(tmp_path) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    database = tmp_path / "slave.duckdb"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys, time; c = duckdb.connect({str(database)!r}); print('held', flush=True); time.sleep(0.3)"],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout.readline().strip() == b"held"
    result = replay(record.binlog, database, MYSQL_80, {"slave_transaction_retries": "20"})
    holder.wait()
    assert result.status.running
    assert result.status.retries and all(retry.code == 1205 for retry in result.status.retries)
    assert tables(database) == {"t": [(2, 12)]}


# -- kill and resume ---------------------------------------------------------------------------


def workload(rows: int) -> tuple[list[str], list[str]]:
    """A binlog of many transactions: InnoDB and MyISAM, autocommit and BEGIN ... COMMIT,
    statements and rows (MIXED with unsafe statements), auto-increment keys."""
    schema = [
        "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT, s VARCHAR(20)) ENGINE=InnoDB",
        "CREATE TABLE m (id INT NOT NULL PRIMARY KEY, total INT) ENGINE=MyISAM",
        "INSERT INTO m VALUES (1, 0), (2, 0)",
    ]
    generator = random.Random(7)
    steps: list[str] = []
    for index in range(rows):
        choice = index % 5
        if choice == 0:
            steps += ["BEGIN", f"INSERT INTO t (v, s) VALUES ({index}, 'row {index}'), ({index + 1}, 'next')", f"UPDATE m SET total = total + {index} WHERE id = 1", "COMMIT"]
        elif choice == 1:
            steps.append(f"UPDATE t SET v = v + 1 WHERE id % 3 = {generator.randrange(3)}")
        elif choice == 2:
            steps.append(f"UPDATE t SET s = 'limited {index}' ORDER BY id LIMIT 2")
        elif choice == 3:
            steps.append(f"DELETE FROM t WHERE id = {generator.randrange(1, index + 2)}")
        else:
            steps.append(f"UPDATE m SET total = total - 1 WHERE id = {1 + index % 2}")
    return schema, steps


def test_replay_killed_at_random_points_ends_equal_to_an_uninterrupted_replay(tmp_path) -> None:
    schema, steps = workload(150)
    scenario = Scenario("workload", None, settings={"binlog_format": "MIXED"}, master_schema=tuple(schema), steps=tuple(Step(i, "con1", sql) for i, sql in enumerate(steps, 1)))
    record = run_variant(scenario, scenario.variants()[0], MYSQL_80, tmp_path)
    assert record.error is None, record.error
    reference = tmp_path / "reference.duckdb"
    assert main(["replay", str(record.binlog), "--db", str(reference)]) == 0

    database = tmp_path / "killed.duckdb"
    command = [sys.executable, "-m", "harness.cli", "replay", str(record.binlog), "--db"]
    # Kill times follow this machine's speed: the process's start-up, then a share of
    # what a whole replay takes after it, so that every kill lands while it applies.
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", "import harness.cli"], cwd=ROOT, check=True)
    startup = time.monotonic() - started
    started = time.monotonic()
    subprocess.run([*command, str(tmp_path / "timing.duckdb")], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    applying = max(time.monotonic() - started - startup, 0.05)
    generator = random.Random(2026)
    kills, positions = 0, []
    for _ in range(40):
        process = subprocess.Popen([*command, str(database)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            process.wait(timeout=startup + generator.uniform(0.05, 0.2) * applying if kills < 8 else None)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            kills += 1
            recorded = applied_position(database) if database.exists() else None
            positions.append(recorded[1] if recorded else 0)
            continue
        assert process.returncode == 0, process.stderr.read().decode()
        break
    else:
        pytest.fail("the replay never finished between kills")
    end = record.binlog.stat().st_size
    assert kills >= 3
    assert any(0 < position < end for position in positions), positions  # some kills landed mid-binlog
    assert applied_position(database) == applied_position(reference) == (record.binlog.name, end)
    assert tables(database) == tables(reference) == {name: sorted(rows, key=repr) for name, (_, rows) in _master_tables(record).items()}


def _master_tables(record: RunRecord) -> dict[str, tuple[tuple[str, ...], list[tuple]]]:
    return {name: (snapshot.columns, list(snapshot.rows)) for name, snapshot in record.master_snapshot.tables.items()}


def test_a_query_event_with_auto_increment_increment_0_stops_the_slave_cleanly(tmp_path, capsys) -> None:
    """No server writes 0 (SET clamps it to 1): a file that carries it is corrupt, and
    replay says where, instead of dividing by it."""
    steps = ["SET SESSION auto_increment_increment = 2", "SELECT 1", "SELECT 1", "INSERT INTO t (v) VALUES (1), (2)"]  # con1 sets, con1 inserts
    record = write_binlog(tmp_path, ["CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"], steps, "STATEMENT")
    data = bytearray(record.binlog.read_bytes())
    (insert,) = [p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query.startswith("INSERT")]
    body = data[insert.position : insert.end_log_pos - 4]
    status = body.find(bytes([3, 2, 0, 1, 0]))  # Q_AUTO_INCREMENT, increment 2, offset 1
    body[status + 1] = 0
    data[insert.position : insert.end_log_pos] = body + struct.pack("<I", zlib.crc32(bytes(body)))
    binlog = tmp_path / "zero.binlog"
    binlog.write_bytes(bytes(data))

    assert main(["replay", str(binlog), "--db", str(tmp_path / "slave.duckdb")]) == 1

    captured = capsys.readouterr()
    assert f"corrupt binlog event at position {insert.position}: auto_increment_increment 0" in captured.out + captured.err
    assert "Traceback" not in captured.out + captured.err
