"""Modifiers and hints that change how the server plans or buffers a statement, not what it
returns or changes: the statement runs as without them, and is logged as it was sent."""

from __future__ import annotations

import pytest

from server_sim.parser import parse_statement
from tests.support import Db


@pytest.mark.parametrize(
    ("sql", "plain"),
    [
        ("SELECT SQL_NO_CACHE a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a"),
        ("SELECT SQL_CACHE a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a"),
        ("SELECT STRAIGHT_JOIN SQL_BUFFER_RESULT a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a"),
        ("SELECT SQL_SMALL_RESULT b, COUNT(*) FROM t GROUP BY b ORDER BY b", "SELECT b, COUNT(*) FROM t GROUP BY b ORDER BY b"),
        ("SELECT DISTINCT SQL_BIG_RESULT b FROM t ORDER BY b", "SELECT DISTINCT b FROM t ORDER BY b"),
        ("SELECT /*+ MAX_EXECUTION_TIME(1000) */ a FROM t ORDER BY a", "SELECT a FROM t ORDER BY a"),
        ("SELECT /*+ NO_ICP(t) BKA(t) */ a FROM t WHERE b = 1 ORDER BY a", "SELECT a FROM t WHERE b = 1 ORDER BY a"),
        ("SELECT a FROM t WHERE a IN (SELECT SQL_NO_CACHE a FROM t WHERE b = 1) ORDER BY a", "SELECT a FROM t WHERE a IN (SELECT a FROM t WHERE b = 1) ORDER BY a"),
    ],
)
def test_a_select_modifier_changes_no_result(sql: str, plain: str) -> None:
    db = Db()
    db.run("CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB")
    db.run("INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)")
    assert db.run(sql).rows == db.run(plain).rows
    assert parse_statement(sql).sql == sql  # logged as sent


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("DELETE QUICK FROM t WHERE a = 1", [(2, 1), (3, 2)]),
        ("INSERT INTO t (a, b) SELECT SQL_NO_CACHE a + 10, b FROM t WHERE a = 3", [(1, 1), (2, 1), (3, 2), (13, 2)]),
        ("UPDATE /*+ NO_MERGE() */ t SET b = 5 WHERE a = 2", [(1, 1), (2, 5), (3, 2)]),
    ],
)
def test_a_write_with_a_neutral_modifier_changes_what_it_says(sql: str, rows: list[tuple[int, int]]) -> None:
    db = Db()
    db.run("CREATE TABLE t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB")
    db.run("INSERT INTO t VALUES (1, 1), (2, 1), (3, 2)")
    assert db.run(sql).error is None
    assert db.rows("t") == rows


def test_a_column_named_like_a_modifier_is_still_a_column() -> None:
    db = Db()
    db.run("CREATE TABLE q (`quick` INT, `sql_cache` INT)")
    db.run("INSERT INTO q VALUES (1, 2)")
    assert db.run("SELECT `quick`, `sql_cache` FROM q").rows == [(1, 2)]
