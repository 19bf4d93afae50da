"""Servers in memory share this process's DuckDB connections, one after another, and see
nothing of each other: no table, no open transaction, no generator state."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import pytest

from harness.runner import RunRecord, run_variant
from scenarios.model import Scenario, Step
from server_sim.execute.executor import Executor
from server_sim.flavor import MYSQL_80
from server_sim.parser import parse_statement
from server_sim.server import Server, ServerIdentity
from slave_sim.events import EventApplier

FIRST = ServerIdentity(1, "first", 11)
SECOND = ServerIdentity(2, "second", 22)


def run(server: Server, sql: str) -> list[tuple] | None:
    session = server.new_session("root@localhost")
    outcome = Executor(server).run(session, parse_statement(sql), server.statement_context(session, server.tick()))
    assert outcome.error is None, outcome.error
    return outcome.rows


def duckdb_objects(server: Server) -> list[tuple]:
    return server.connection.execute(
        "SELECT database_name, schema_name, table_name FROM duckdb_tables() "
        "UNION ALL SELECT database_name, schema_name, NULL FROM duckdb_schemas() WHERE NOT internal ORDER BY ALL"
    ).fetchall()


def test_a_closed_servers_tables_go_with_it() -> None:
    first = Server(MYSQL_80, FIRST)
    connection = first.connection
    run(first, "CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(36)) ENGINE=InnoDB")
    run(first, "CREATE TEMPORARY TABLE tmp (a INT)")
    run(first, "INSERT INTO t VALUES (1, UUID())")
    first.storage.flush()  # DuckDB gets the tables and rows when SQL first reads them
    assert len(duckdb_objects(first)) == 3  # the schema, t and tmp
    first.close()

    second = Server(MYSQL_80, SECOND, schema="other")
    try:
        assert second.connection is connection
        assert duckdb_objects(second) == []
        run(second, "CREATE TABLE t (a INT) ENGINE=MyISAM")  # the same name, another definition
        assert run(second, "SELECT COUNT(*) FROM t") == [(0,)]  # DuckDB's to answer
        assert duckdb_objects(second) == [("memory", "other", "t"), ("memory", "other", None)]
    finally:
        second.close()


def test_a_connection_its_server_could_not_empty_is_emptied_by_the_pool() -> None:
    """A failed transaction left open: the server cannot drop its schema, so the pool
    rolls back and drops everything the connection holds."""
    first = Server(MYSQL_80, FIRST)
    connection = first.connection
    run(first, "CREATE TABLE t (a INT PRIMARY KEY) ENGINE=InnoDB")
    first.storage.flush()
    connection.execute("CREATE TEMPORARY TABLE duckdb_temporary (a INT)")
    connection.execute("CREATE TABLE main.duckdb_main (a INT)")
    connection.execute("BEGIN TRANSACTION")
    with pytest.raises(duckdb.ConversionException):
        connection.execute("SELECT CAST('x' AS INTEGER)")
    first.close()

    second = Server(MYSQL_80, SECOND, schema="other")
    try:
        assert second.connection is connection
        connection.execute("BEGIN TRANSACTION")  # which would fail inside one
        connection.execute("ROLLBACK")
        assert duckdb_objects(second) == []
    finally:
        second.close()


def test_sql_functions_call_the_server_holding_the_connection() -> None:
    expected = Server(MYSQL_80, SECOND)
    fresh = run(expected, "SELECT UUID(), UUID_SHORT(), SYSDATE(), RAND(), RAND(7)")
    expected.close()
    first = Server(MYSQL_80, FIRST)
    run(first, "SELECT UUID(), UUID_SHORT(), SYSDATE(), RAND(), RAND(7)")
    first.close()

    second = Server(MYSQL_80, SECOND)
    try:
        assert run(second, "SELECT UUID(), UUID_SHORT(), SYSDATE(), RAND(), RAND(7)") == fresh
    finally:
        second.close()


def test_closing_twice_returns_the_connection_once() -> None:
    first = Server(MYSQL_80, FIRST)
    first.close()
    first.close()
    second, third = Server(MYSQL_80, SECOND), Server(MYSQL_80, SECOND)
    try:
        assert second.connection is not third.connection
    finally:
        second.close()
        third.close()


def test_a_server_in_a_file_keeps_its_own_connection(tmp_path: Path) -> None:
    pooled = Server(MYSQL_80, FIRST)
    pooled.close()
    kept = Server(MYSQL_80, SECOND, database=tmp_path / "kept.duckdb")
    try:
        assert kept.connection is not pooled.connection
        assert run(kept, "SELECT UUID_SHORT()") == [((2 << 56) + 1,)]
    finally:
        kept.close()


# -- whole runs, back to back ------------------------------------------------------------


def scenario(name: str, schema: tuple[str, ...], steps: tuple[str, ...], binlog_format: str) -> Scenario:
    return Scenario(
        name,
        None,
        settings={"binlog_format": binlog_format},
        master_schema=schema,
        steps=tuple(Step(index, f"con{index % 2}", sql) for index, sql in enumerate(steps, 1)),
    )


FIRST_RUN = scenario(
    "first",
    ("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(36)) ENGINE=InnoDB", "CREATE TABLE m (a INT) ENGINE=MyISAM"),
    ("CREATE TEMPORARY TABLE tmp (a INT) ENGINE=InnoDB", "INSERT INTO t (u) VALUES (UUID()), (UUID())", "BEGIN", "INSERT INTO m VALUES (RAND() * 100)", "INSERT INTO tmp VALUES (1)"),
    "STATEMENT",
)
SECOND_RUN = scenario(
    "second",
    ("CREATE TABLE t (a INT NOT NULL, b INT, UNIQUE KEY (a)) ENGINE=MyISAM",),
    ("INSERT INTO t VALUES (1, 1), (2, 2)", "UPDATE t SET b = b + 1", "CREATE TEMPORARY TABLE tmp (a INT)", "INSERT INTO t SELECT a + 10, UUID_SHORT() FROM t"),
    "MIXED",
)


def outcome(record: RunRecord) -> dict[str, object]:
    """What a run produced, without where it wrote its binlog."""
    assert record.error is None, record.error
    return {
        "steps": [dataclasses.asdict(step) for step in [*record.schema_steps, *record.steps]],
        "binlog": record.binlog.read_bytes(),
        "slave": record.slave,
        "snapshots": (record.master_snapshot, record.slave_snapshot),
    }


def test_a_run_after_another_is_the_same_as_alone(tmp_path: Path) -> None:
    first_dir, alone_dir, after_dir = (tmp_path / name for name in ("first", "alone", "after"))
    for directory in (first_dir, alone_dir, after_dir):
        directory.mkdir()
    alone = run_variant(SECOND_RUN, SECOND_RUN.variants()[0], MYSQL_80, alone_dir)
    run_variant(FIRST_RUN, FIRST_RUN.variants()[0], MYSQL_80, first_dir)
    after = run_variant(SECOND_RUN, SECOND_RUN.variants()[0], MYSQL_80, after_dir)
    assert outcome(after) == outcome(alone)


def test_a_run_that_fails_midway_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone_dir, after_dir = tmp_path / "alone", tmp_path / "after"
    alone_dir.mkdir()
    after_dir.mkdir()
    alone = run_variant(SECOND_RUN, SECOND_RUN.variants()[0], MYSQL_80, alone_dir)

    def crash(self: EventApplier, *arguments: object) -> None:
        raise RuntimeError("the applier crashed")

    with monkeypatch.context() as patch:
        patch.setattr(EventApplier, "_rows", crash)
        failed = run_variant(dataclasses.replace(FIRST_RUN, settings={"binlog_format": "ROW"}), {"binlog_format": "ROW"}, MYSQL_80, tmp_path)
    assert failed.error is not None and "the applier crashed" in failed.error
    after = run_variant(SECOND_RUN, SECOND_RUN.variants()[0], MYSQL_80, after_dir)
    assert outcome(after) == outcome(alone)

