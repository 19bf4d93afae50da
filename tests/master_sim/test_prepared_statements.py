"""PREPARE / EXECUTE / DEALLOCATE PREPARE on the master: what EXECUTE logs per format, its
unsafe reasons, and the errors (the oracle scenario prepared-statements checks them on
MariaDB 10.11)."""

from __future__ import annotations

import pytest

from server_sim.binlog.events import Query_log_event
from server_sim.binlog.file import read_binlog

SCHEMA = ["CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(40)) ENGINE=InnoDB"]


def queries(master) -> list[str]:
    return [p.event.query for p in read_binlog(master.binlog_path) if isinstance(p.event, Query_log_event)]


@pytest.mark.parametrize(
    ("steps", "logged"),
    [
        (["PREPARE s FROM 'INSERT INTO t VALUES (?, ?)'", "SET @a = 1, @b = 'x''y'", "EXECUTE s USING @a, @b"], "INSERT INTO t VALUES (1, 'x\\'y')"),
        (["PREPARE s FROM 'INSERT INTO t VALUES (?, ?)'", "EXECUTE s USING 2, NULL"], "INSERT INTO t VALUES (2, NULL)"),
        (["SET @q = 'INSERT INTO t (a) VALUES (?)'", "PREPARE s FROM @q", "EXECUTE s USING 1 + 2"], "INSERT INTO t (a) VALUES (3)"),
        (["PREPARE s FROM 'INSERT INTO t VALUES (5, CONCAT(''?'', ?))'", "EXECUTE s USING @unset"], "INSERT INTO t VALUES (5, CONCAT('?', NULL))"),
    ],
)
def test_execute_logs_the_text_with_the_values_under_statement(new_master, steps: list[str], logged: str) -> None:
    master = new_master(SCHEMA, "STATEMENT")
    results = [master.submit("con1", sql, index) for index, sql in enumerate(steps, 1)]
    master.finish()
    assert [result.error for result in results[:-1]] == [None] * (len(steps) - 1)
    assert logged in queries(master)
    assert not any(query.startswith(("PREPARE", "EXECUTE", "SET")) for query in queries(master))


@pytest.mark.parametrize(("binlog_format", "unsafe", "logged_as"), [("STATEMENT", ["SYSTEM_FUNCTION"], "STATEMENT"), ("MIXED", ["SYSTEM_FUNCTION"], "ROW"), ("ROW", ["SYSTEM_FUNCTION"], "ROW")])
def test_the_prepared_statements_unsafe_reasons_apply_at_execute(new_master, binlog_format: str, unsafe: list[str], logged_as: str) -> None:
    master = new_master(SCHEMA, binlog_format)
    prepared = master.submit("con1", "PREPARE s FROM 'INSERT INTO t VALUES (?, UUID())'", 1)
    executed = master.submit("con1", "EXECUTE s USING 1", 2)
    master.finish()
    assert prepared.unsafe == [] and prepared.logged_as == "none"
    assert (executed.unsafe, executed.logged_as) == (unsafe, logged_as)


@pytest.mark.parametrize(
    ("steps", "code"),
    [
        (["EXECUTE nosuch"], 1243),
        (["DEALLOCATE PREPARE nosuch"], 1243),
        (["PREPARE s FROM 'SELECT ?'", "DEALLOCATE PREPARE s", "EXECUTE s USING 1"], 1243),
        (["PREPARE s FROM 'SELECT ?, ?'", "EXECUTE s USING 1"], 1210),
        (["PREPARE s FROM 'SELECT 1'", "EXECUTE s USING 1"], 1210),
        (["PREPARE s FROM 'PREPARE x FROM ''SELECT 1'''"], 1295),
        (["PREPARE s FROM 'EXECUTE x'"], 1295),
        (["PREPARE s FROM 'CREATE TABLE ? (a INT)'"], 1064),
        (["PREPARE s FROM 'SELEC 1'"], 1064),
        (["PREPARE s FROM 'SELECT 1'", "PREPARE s FROM 'SELEC 1'", "EXECUTE s"], 1243),  # a failed PREPARE drops the old one
    ],
)
def test_errors(new_master, steps: list[str], code: int) -> None:
    master = new_master(SCHEMA, "STATEMENT")
    results = [master.submit("con1", sql, index) for index, sql in enumerate(steps, 1)]
    master.finish()
    assert results[-1].error is not None and results[-1].error.code == code
