"""`rplharness replay`: a binlog applied to a persistent slave database, crash-safe and resumable."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from harness.cli import main
from harness.runner import RunRecord, run_variant
from scenarios.model import Scenario, Step
from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import read_binlog
from server_sim.errors import ErrorCode, SqlError
from server_sim.flavor import MYSQL_80
from server_sim.storage import Storage
from slave_sim.replay import replay
from slave_sim.slave import Slave
from tests.support import applied_position, slave_tables



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


SIMPLE = (
    ["CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT) ENGINE=InnoDB"],
    ["INSERT INTO t VALUES (1, 1), (2, 2)", "UPDATE t SET b = b + 10 WHERE a = 2", "DELETE FROM t WHERE a = 1"],
)


def test_replay_applies_a_run_binlog_and_a_second_run_resumes_with_nothing_to_do(tmp_path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    database = tmp_path / "slave.duckdb"
    assert main(["replay", str(record.binlog), "--db", str(database)]) == 0
    assert "new database" in capsys.readouterr().out
    assert slave_tables(database) == {"t": [(2, 12)]}
    end = record.binlog.stat().st_size
    assert applied_position(database) == (record.binlog.name, end)
    assert main(["replay", str(record.binlog), "--db", str(database)]) == 0
    assert f"resumed at position {end}; applied 0 events" in capsys.readouterr().out
    assert slave_tables(database) == {"t": [(2, 12)]}


def test_a_new_database_is_provisioned_from_the_slave_schema_and_starts_at_the_given_position(tmp_path) -> None:
    record = write_binlog(tmp_path, *SIMPLE, binlog_format="ROW")
    create = next(p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query.startswith("CREATE TABLE"))
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT, c VARCHAR(5) DEFAULT 'x');\nINSERT INTO t VALUES (9, 9, 'own');\n")
    database = tmp_path / "slave.duckdb"
    code = main(["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema), "--start-position", str(create.end_log_pos)])
    assert code == 0
    assert slave_tables(database) == {"t": [(2, 12, "x"), (9, 9, "own")]}


def test_a_slave_schema_that_fails_writes_nothing(tmp_path, capsys) -> None:
    record = write_binlog(tmp_path, *SIMPLE)
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE u (a INT);\nINSERT INTO nowhere VALUES (1);\n")
    database = tmp_path / "slave.duckdb"
    assert main(["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema)]) == 2
    error = capsys.readouterr().err
    assert "INSERT INTO nowhere VALUES (1)" in error and "error 1146" in error and "not provisioned" in error
    assert slave_tables(database) == {}
    schema.write_text("CREATE TABLE u (a INT);\n")
    assert main(["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema)]) == 0
    assert slave_tables(database) == {"t": [(2, 12)], "u": []}


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
    assert slave_tables(database) == {"t": [(1, 5)]}


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
    assert slave_tables(tmp_path / "slave.duckdb") == {"t": [(2, 12)]}


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
    assert slave_tables(database) == {"t": [(2, 12)]}


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
