"""`rplharness replay` never applies a change twice: provisioning is bound to its binlog in
the same commit, a binlog that ends inside a transaction applies none of it, and a
statement DuckDB aborts inside a replayed transaction stops the slave cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.runner import RunRecord, run_variant
from scenarios.model import Scenario, Step
from server_sim.binlog.events import Query_log_event, Xid_log_event
from server_sim.binlog.file import PositionedEvent, read_binlog
from server_sim.flavor import MYSQL_80
from slave_sim.slave import Slave
from tests.support import applied_position, slave_tables

SCHEMA = (
    "CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b INT) ENGINE=InnoDB",
    "CREATE TABLE m (a INT NOT NULL PRIMARY KEY, b INT) ENGINE=MyISAM",
    "INSERT INTO t VALUES (1, 0), (2, 0)",
    "INSERT INTO m VALUES (1, 0)",
)
# One session: the transaction's InnoDB and MyISAM updates are one group of the binlog.
STEPS = ("BEGIN", "UPDATE t SET b = b + 1", "UPDATE m SET b = b + 10", "UPDATE t SET b = b + 10 WHERE a = 1", "COMMIT", "UPDATE t SET b = b + 100")


def one_session_binlog(tmp_path: Path, steps: tuple[str, ...] = STEPS, schema: tuple[str, ...] = SCHEMA) -> RunRecord:
    scenario = Scenario("cut", None, settings={"binlog_format": "STATEMENT"}, master_schema=schema, steps=tuple(Step(i, "con1", sql) for i, sql in enumerate(steps, 1)))
    record = run_variant(scenario, scenario.variants()[0], MYSQL_80, tmp_path)
    assert record.error is None, record.error
    return record


def logged(record: RunRecord, text: str) -> PositionedEvent:
    return next(p for p in read_binlog(record.binlog) if isinstance(p.event, Query_log_event) and p.event.query == text)


def group_end(record: RunRecord, text: str) -> int:
    """The position after the group (its Xid or COMMIT) of the statement logged as `text`."""
    after = logged(record, text).end_log_pos
    ends = (p for p in read_binlog(record.binlog) if p.position >= after and (isinstance(p.event, Xid_log_event) or getattr(p.event, "query", "") == "COMMIT"))
    return next(ends).end_log_pos


# -- provisioning and binding commit together ----------------------------------------------------


class Killed(BaseException):
    """The process dies: nothing after this point runs, what is committed stays."""


def test_a_kill_after_provisioning_leaves_a_bound_database_and_the_rerun_continues(tmp_path, monkeypatch, capsys) -> None:
    record = one_session_binlog(tmp_path)
    start = group_end(record, "INSERT INTO m VALUES (1, 0)")
    schema = tmp_path / "slave.sql"
    schema.write_text("\n".join(f"{sql};" for sql in SCHEMA) + "\nCREATE TABLE own (a INT PRIMARY KEY);\nINSERT INTO own VALUES (1);\n")
    command = ["replay", str(record.binlog), "--db", str(tmp_path / "slave.duckdb"), "--slave-schema", str(schema), "--start-position", str(start)]
    apply = Slave.apply

    def killed_before_applying(self: Slave, *arguments: object, **keywords: object) -> None:
        raise Killed

    monkeypatch.setattr(Slave, "apply", killed_before_applying)
    with pytest.raises(Killed):
        main(command)
    assert applied_position(tmp_path / "slave.duckdb") == (record.binlog.name, start)
    monkeypatch.setattr(Slave, "apply", apply)
    assert main(command) == 0, capsys.readouterr().err
    assert f"resumed at position {start}" in capsys.readouterr().out
    reference = tmp_path / "reference.duckdb"
    assert main([*command[:3], str(reference), *command[4:]]) == 0
    assert slave_tables(tmp_path / "slave.duckdb") == slave_tables(reference) == {"m": [(1, 10)], "own": [(1,)], "t": [(1, 111), (2, 101)]}


# -- a binlog that ends inside a transaction -----------------------------------------------------


@pytest.mark.parametrize(
    "cut",
    [
        pytest.param(lambda r: logged(r, "UPDATE m SET b = b + 10").end_log_pos, id="after-the-myisam-update"),
        pytest.param(lambda r: logged(r, "UPDATE m SET b = b + 10").end_log_pos + 7, id="inside-the-next-event-header"),
        pytest.param(lambda r: logged(r, "UPDATE t SET b = b + 10 WHERE a = 1").end_log_pos + 25, id="inside-the-xid-event"),
        pytest.param(lambda r: logged(r, "UPDATE t SET b = b + 10 WHERE a = 1").end_log_pos, id="before-the-xid"),
    ],
)
def test_a_binlog_cut_inside_a_transaction_applies_none_of_it_and_the_complete_binlog_applies_it_once(tmp_path, capsys, cut) -> None:
    record = one_session_binlog(tmp_path)
    transaction_start = group_end(record, "INSERT INTO m VALUES (1, 0)")
    whole = record.binlog.read_bytes()
    partial = tmp_path / "partial" / record.binlog.name  # the same file, still being written
    partial.parent.mkdir()
    partial.write_bytes(whole[: cut(record)])
    database = tmp_path / "slave.duckdb"
    assert main(["replay", str(partial), "--db", str(database)]) == 0
    output = capsys.readouterr().out
    assert f"the transaction at position {transaction_start} waits for the rest" in output
    assert applied_position(database) == (record.binlog.name, transaction_start)
    assert slave_tables(database) == {"m": [(1, 0)], "t": [(1, 0), (2, 0)]}
    partial.write_bytes(whole)
    assert main(["replay", str(partial), "--db", str(database)]) == 0
    assert "waiting" not in capsys.readouterr().out
    assert slave_tables(database) == {"m": [(1, 10)], "t": [(1, 111), (2, 101)]}


# -- a statement DuckDB aborts inside a replayed transaction -------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE t SET a = a + 10 WHERE b > 0",
        "DELETE FROM t WHERE b = 3",
        "INSERT INTO t SELECT a + 100, b FROM t WHERE b = 0",
    ],
)
def test_a_statement_duckdb_aborts_in_a_replayed_transaction_stops_the_slave_with_its_error(tmp_path, capsys, statement) -> None:
    """The slave's table lacks the column the master's statement reads: the slave stops with
    1054 at the statement's event, as `run` reports it, the transaction's start recorded."""
    record = one_session_binlog(tmp_path, ("BEGIN", "INSERT INTO t VALUES (3, 3)", statement, "COMMIT"), SCHEMA[:1] + SCHEMA[2:3])
    start = group_end(record, "INSERT INTO t VALUES (1, 0), (2, 0)")
    schema = tmp_path / "slave.sql"
    schema.write_text("CREATE TABLE t (a INT NOT NULL PRIMARY KEY, c INT);\n")
    database = tmp_path / "slave.duckdb"
    command = ["replay", str(record.binlog), "--db", str(database), "--slave-schema", str(schema), "--start-position", str(start)]
    assert main(command) == 1
    out, err = capsys.readouterr()
    position = logged(record, statement).position
    assert f"slave stopped at position {position} (Query): error 1054 (ER_BAD_FIELD_ERROR): Error 'Unknown column 'b'" in out, out + err
    assert applied_position(database) == (record.binlog.name, start)
    assert slave_tables(database) == {"t": []}
    assert main(command[:4]) == 1
    assert f"resumed at position {start}; applied 0 events" in capsys.readouterr().out
