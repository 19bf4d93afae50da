"""Stored functions inside statements: a RETURN body evaluated per row, a compound body run
once where the server calls it once, the errors of a call, and what the simulator refuses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server_sim.flavor import MARIADB_1011
from tests.support import Db

FUNCTIONS = [
    "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2",
    "CREATE FUNCTION half(x INT) RETURNS INT DETERMINISTIC RETURN x / 2",
    "CREATE FUNCTION tag(s VARCHAR(10)) RETURNS VARCHAR(20) DETERMINISTIC RETURN CONCAT('<', s, '>')",
    "CREATE FUNCTION logged(x INT) RETURNS INT MODIFIES SQL DATA DETERMINISTIC BEGIN INSERT INTO log VALUES (x); RETURN x + 1; END",
    "CREATE FUNCTION pick(x INT) RETURNS VARCHAR(5) DETERMINISTIC BEGIN IF x > 0 THEN RETURN 'pos'; END IF; RETURN 'neg'; END",
    "CREATE FUNCTION none(x INT) RETURNS INT DETERMINISTIC BEGIN IF x > 0 THEN RETURN 1; END IF; END",
    "CREATE FUNCTION self(x INT) RETURNS INT DETERMINISTIC RETURN self(x)",
    "CREATE FUNCTION touch_t(x INT) RETURNS INT MODIFIES SQL DATA DETERMINISTIC BEGIN UPDATE t SET b = 0; RETURN x; END",
]


@pytest.fixture
def db() -> Iterator[Db]:
    server = Db(flavor=MARIADB_1011, sorted_rows=True)
    server.ok("CREATE TABLE t (a INT PRIMARY KEY, b INT, s VARCHAR(20)) ENGINE=InnoDB")
    server.ok("CREATE TABLE log (x INT) ENGINE=InnoDB")
    server.ok("INSERT INTO t VALUES (1, 10, 'a'), (2, 21, 'b')")
    for sql in FUNCTIONS:
        server.ok(sql)
    yield server
    server.server.close()


@pytest.mark.parametrize(
    ("statement", "rows"),
    [
        ("UPDATE t SET b = twice(b)", [(1, 20, "a"), (2, 42, "b")]),
        ("UPDATE t SET b = half(b)", [(1, 5, "a"), (2, 11, "b")]),  # the INT result rounds 10.5
        ("UPDATE t SET s = tag(s) WHERE twice(a) = 4", [(1, 10, "a"), (2, 21, "<b>")]),
        ("INSERT INTO t VALUES (3, logged(4), pick(-1))", [(1, 10, "a"), (2, 21, "b"), (3, 5, "neg")]),
        ("DELETE FROM t WHERE b = twice(5)", [(2, 21, "b")]),
    ],
)
def test_a_function_call_runs_inside_the_statement(db: Db, statement: str, rows: list[tuple]) -> None:
    db.ok(statement)
    assert db.rows("t") == rows


def test_a_compound_function_changes_rows_as_part_of_the_statement(db: Db) -> None:
    outcome = db.ok("INSERT INTO t VALUES (3, logged(7), 'c')")
    assert [change.table.name for change in outcome.changes] == ["log", "t"]
    assert db.rows("log") == [(7,)]


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        ("SELECT twice(1, 2)", 1318),
        ("SELECT none(0)", 1321),
        ("SELECT self(1)", 1424),
        ("INSERT INTO t VALUES (5, touch_t(1), 'x')", 1442),
        ("UPDATE t SET b = logged(b)", 1235),  # a compound body called per row
        ("SELECT logged(1)", 1235),  # a SELECT calling a function that changes data
        ("INSERT INTO t VALUES (5, logged(1), 'x'), (6, 1, 'y')", 1235),
    ],
)
def test_function_call_errors_and_refusals(db: Db, statement: str, code: int) -> None:
    assert db.error(statement).code == code


def test_drop_function_forgets_it(db: Db) -> None:
    db.ok("DROP FUNCTION twice")
    assert db.error("DROP FUNCTION twice").code == 1305
    assert db.ok("DROP FUNCTION IF EXISTS twice").warnings[0].code == 1305
