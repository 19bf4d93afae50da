"""Stored functions inside statements: a RETURN body evaluated per row, a compound body run
once where the server calls it once, the errors of a call, and what the simulator refuses."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

FUNCTIONS = [
    "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2",
    "CREATE FUNCTION half(x INT) RETURNS INT DETERMINISTIC RETURN x / 2",
    "CREATE FUNCTION tag(s VARCHAR(10)) RETURNS VARCHAR(20) DETERMINISTIC RETURN CONCAT('<', s, '>')",
    "CREATE FUNCTION logged(x INT) RETURNS INT MODIFIES SQL DATA DETERMINISTIC BEGIN INSERT INTO log VALUES (x); RETURN x + 1; END",
    "CREATE FUNCTION pick(x INT) RETURNS VARCHAR(5) DETERMINISTIC BEGIN IF x > 0 THEN RETURN 'pos'; END IF; RETURN 'neg'; END",
    "CREATE FUNCTION none(x INT) RETURNS INT DETERMINISTIC BEGIN IF x > 0 THEN RETURN 1; END IF; END",
    "CREATE FUNCTION self(x INT) RETURNS INT DETERMINISTIC RETURN self(x)",
    "CREATE FUNCTION via(x INT) RETURNS INT READS SQL DATA BEGIN DECLARE r INT; SET r = logged(1); RETURN r + x; END",
    "CREATE FUNCTION dice(x INT) RETURNS INT NO SQL BEGIN DECLARE r INT; SET r = FLOOR(RAND() * 6); RETURN r + x; END",
    "CREATE FUNCTION remember(x INT) RETURNS INT READS SQL DATA BEGIN SELECT b INTO @seen FROM t WHERE a = x; RETURN x; END",
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
        ("INSERT INTO log SELECT logged(a) FROM t", 1442),  # its body writes the table the statement writes
        ("UPDATE t SET b = via(b)", 1235),  # calling a function that changes data
        ("UPDATE t SET b = dice(a)", 1235),  # per row, its values depend on the order of its calls
        ("SELECT remember(a) FROM t", 1235),
        ("SELECT logged(1)", 1235),  # a SELECT calling a function that changes data
        ("INSERT INTO t VALUES (5, logged(1), 'x'), (6, 1, 'y')", 1235),
    ],
)
def test_function_call_errors_and_refusals(db: Db, statement: str, code: int) -> None:
    assert db.error(statement).code == code


@pytest.mark.parametrize("statement", ["UPDATE t, log SET t.b = logged(t.a)", "SELECT a FROM t WHERE logged(a) > 1"])
def test_a_function_that_changes_data_is_refused_for_a_set_of_rows(db: Db, statement: str) -> None:
    """Where the simulator reads a set of rows before writing any, its row events would not
    interleave with the caller's as the server's do: refused, naming it (where it runs per
    row: test_per_row_functions)."""
    error = db.error(statement)
    assert (error.code, error.message) == (1235, "This version of MySQL doesn't yet support 'stored function logged(), which changes data, called where it may run more than once, or with arguments that are not constants'")
    assert db.rows("log") == []


def test_drop_function_forgets_it(db: Db) -> None:
    db.ok("DROP FUNCTION twice")
    assert db.error("DROP FUNCTION twice").code == 1305
    assert db.ok("DROP FUNCTION IF EXISTS twice").warnings[0].code == 1305


# A parameter or result is stored as a column of its type stores a value (strict mode): too
# long 1406, out of range 1264; MariaDB follows an error of the RETURN with Note 4094 (its
# line in the definition as the server reads it back: header, DETERMINISTIC, body), not one
# of an argument (the body never ran); a
# DECIMAL rounded to fit is the server's Note 1265, refused; MySQL under IGNORE stores the
# value cut with a warning, refused. (Recorded: scenarios/oracle/function-return-type.yaml.)
TYPED = [
    "CREATE FUNCTION short_label(x VARCHAR(20)) RETURNS VARCHAR(3) DETERMINISTIC RETURN x",
    "CREATE FUNCTION small(x INT) RETURNS TINYINT DETERMINISTIC RETURN x",
    "CREATE FUNCTION money(x DECIMAL(6,3)) RETURNS DECIMAL(5,2) DETERMINISTIC RETURN x",
    "CREATE FUNCTION later(x INT)\nRETURNS TINYINT UNSIGNED DETERMINISTIC\nRETURN x - 1",
    "CREATE FUNCTION word(x INT) RETURNS VARCHAR(2) DETERMINISTIC\nBEGIN\n  IF x > 0 THEN\n    RETURN 'yes';\n  END IF;\n  RETURN 'no';\nEND",
]
_TOO_LONG, _OUT_OF_RANGE, _REFUSED = 1406, 1264, 1235


def _typed_db(flavor: object, fast_path: bool) -> Db:
    server = Db(flavor=flavor, sorted_rows=True, fast_path=fast_path)  # type: ignore[arg-type]
    server.ok("CREATE TABLE v (a INT PRIMARY KEY, s VARCHAR(10), n INT, d DECIMAL(6,3)) ENGINE=InnoDB")
    server.ok("INSERT INTO v VALUES (1, 'ab', 2, 1.005), (2, 'abc', 3, 2.5)")
    for sql in TYPED:
        server.ok(sql)
    return server


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize(
    ("flavor", "statement", "code", "notes"),
    [
        (MARIADB_1011, "INSERT INTO v VALUES (3, short_label('abcd'), 1, 1)", _TOO_LONG, ["At line 3 in test.short_label"]),
        (MYSQL_80, "INSERT INTO v VALUES (3, short_label('abcd'), 1, 1)", _TOO_LONG, []),
        (MARIADB_1011, "INSERT INTO v VALUES (3, 'x', small(128), 1)", _OUT_OF_RANGE, ["At line 3 in test.small"]),
        (MARIADB_1011, "UPDATE v SET s = short_label(CONCAT(s, 'z'))", _TOO_LONG, ["At line 3 in test.short_label"]),
        (MARIADB_1011, "UPDATE v SET n = small(n * 50)", _OUT_OF_RANGE, ["At line 3 in test.small"]),
        (MARIADB_1011, "UPDATE v SET n = later(n - 2)", _OUT_OF_RANGE, ["At line 3 in test.later"]),
        (MARIADB_1011, "SELECT short_label('abcd')", _TOO_LONG, ["At line 3 in test.short_label"]),
        (MARIADB_1011, "INSERT INTO v VALUES (3, word(1), 1, 1)", _TOO_LONG, ["At line 5 in test.word"]),
        (MARIADB_1011, "INSERT INTO v VALUES (3, short_label(REPEAT('a', 21)), 1, 1)", _TOO_LONG, []),
        (MARIADB_1011, "UPDATE v SET s = short_label(REPEAT(s, 11))", _TOO_LONG, []),
        (MARIADB_1011, "INSERT IGNORE INTO v VALUES (3, short_label('abcd'), 1, 1)", _TOO_LONG, ["At line 3 in test.short_label"]),
        (MYSQL_80, "INSERT IGNORE INTO v VALUES (3, short_label('abcd'), 1, 1)", _REFUSED, []),
        (MYSQL_80, "UPDATE IGNORE v SET n = small(n * 50)", _REFUSED, []),
        (MARIADB_1011, "INSERT INTO v VALUES (3, 'x', 1, money(1.005))", _REFUSED, []),
        (MARIADB_1011, "UPDATE v SET d = money(d)", _REFUSED, []),
        (MARIADB_1011, "SELECT `rpl returned`(1)", 1305, []),
        (MARIADB_1011, "SELECT `rpl body`(1)", 1305, []),
        (MARIADB_1011, "UPDATE v SET s = word(n)", _TOO_LONG, ["At line 5 in test.word"]),  # a compound body per row
        (MYSQL_80, "UPDATE v SET s = word(n)", _TOO_LONG, []),
        (MARIADB_1011, "SELECT word(n) FROM v", _TOO_LONG, ["At line 5 in test.word"]),
    ],
)
def test_a_value_that_does_not_fit_a_parameter_or_result(flavor: object, statement: str, code: int, notes: list[str], fast_path: bool) -> None:
    db = _typed_db(flavor, fast_path)
    outcome = db.run(statement)
    assert outcome.error is not None and outcome.error.code == code, outcome.error
    assert [note.message for note in outcome.warnings if note.code == 4094] == notes
    db.close()


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize(
    ("statement", "rows"),
    [
        ("UPDATE v SET s = short_label(s), n = small(n * 40), d = money(d * 2) WHERE a = 2", [(1, "ab", 2, Decimal("1.005")), (2, "abc", 120, Decimal("5.000"))]),
        ("UPDATE v SET n = small(1 = 1) + later(2), s = short_label(2 > 1) WHERE a = 1", [(1, "1", 2, Decimal("1.005")), (2, "abc", 3, Decimal("2.500"))]),
        ("INSERT INTO v VALUES (3, word(0), later(256), money(1.25))", [(1, "ab", 2, Decimal("1.005")), (2, "abc", 3, Decimal("2.500")), (3, "no", 255, Decimal("1.250"))]),
    ],
)
def test_a_value_that_fits_is_stored_as_returned(statement: str, rows: list[tuple], fast_path: bool) -> None:
    db = _typed_db(MARIADB_1011, fast_path)
    db.ok(statement)
    assert db.rows("v") == rows
    db.close()


# A compound body called per row (column arguments, several rows) runs for each row's values,
# in both evaluators; its own reads (SELECT ... INTO, another compound function) see the
# tables as the statement does. (Recorded: scenarios/oracle/function-compound-per-row.yaml.)
PER_ROW = [
    "CREATE FUNCTION triangle(n INT) RETURNS INT DETERMINISTIC BEGIN DECLARE i INT DEFAULT 0; DECLARE s INT DEFAULT 0; "
    "WHILE i < n DO SET i = i + 1; SET s = s + i; END WHILE; RETURN s; END",
    "CREATE FUNCTION size(x INT) RETURNS VARCHAR(5) DETERMINISTIC BEGIN IF x > 5 THEN RETURN 'big'; END IF; RETURN 'small'; END",
    "CREATE FUNCTION name_of(x INT) RETURNS VARCHAR(10) READS SQL DATA BEGIN DECLARE found VARCHAR(10) DEFAULT '?'; "
    "SELECT w INTO found FROM names WHERE names.a = x; RETURN CONCAT(found, '!'); END",
    "CREATE FUNCTION later(x INT) RETURNS VARCHAR(10) READS SQL DATA\nBEGIN\n  DECLARE found VARCHAR(10);\n  SELECT w INTO found FROM names WHERE names.a > x;\n  RETURN found;\nEND",
    "CREATE FUNCTION sized(x INT) RETURNS VARCHAR(20) READS SQL DATA BEGIN RETURN CONCAT(name_of(x), size(triangle(x))); END",
]


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize(
    ("statement", "table", "rows"),
    [
        ("INSERT INTO t2 SELECT a, triangle(a), name_of(a) FROM t1", "t2", [(1, 1, "one!"), (2, 3, "two!"), (3, 6, "three!")]),
        ("UPDATE t1 SET s = size(b)", "t1", [(1, 10, "big"), (2, 2, "small"), (3, 30, "big")]),
        ("UPDATE t1 SET b = triangle(b) WHERE size(a + 3) = 'big'", "t1", [(1, 10, "a"), (2, 2, "bb"), (3, 465, "ccc")]),
        ("UPDATE t1 SET s = sized(a)", "t1", [(1, 10, "one!small"), (2, 2, "two!small"), (3, 30, "three!big")]),
        ("DELETE FROM t1 WHERE triangle(a) > 2", "t1", [(1, 10, "a")]),
    ],
)
def test_a_compound_function_runs_for_each_row(statement: str, table: str, rows: list[tuple], fast_path: bool) -> None:
    db = _per_row_db(fast_path)
    assert db.ok("SELECT a, sized(a) FROM t1 WHERE triangle(a) < 4 ORDER BY a").rows == [(1, "one!small"), (2, "two!small")]
    db.ok(statement)
    assert db.rows(table) == rows
    db.close()


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize(
    ("query", "rows"),
    [
        ("SELECT size(b) FROM t1 GROUP BY size(b) ORDER BY size(b)", [("big",), ("small",)]),  # one call, written twice
        ("SELECT COUNT(*), SUM(triangle(a)) FROM t1", [(3, 10)]),
        ("SELECT (SELECT triangle(MAX(a)) FROM t1)", [(6,)]),
        ("SELECT name_of(NULL), triangle(NULL)", [("?!", 0)]),
    ],
)
def test_a_compound_function_in_a_query(query: str, rows: list[tuple], fast_path: bool) -> None:
    db = _per_row_db(fast_path)
    assert db.ok(query).rows == rows
    db.close()


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize("statement", ["UPDATE t1 SET s = name_of(a + 2)", "SELECT name_of(9)", "INSERT INTO t2 SELECT a + 5, 0, name_of(a + 5) FROM t1"])
def test_no_row_for_select_into_is_no_warning_of_the_caller(statement: str, fast_path: bool) -> None:
    """MySQL bug #20028 (sp.result's `select func_20028_a()`); MariaDB the same, recorded."""
    db = _per_row_db(fast_path)
    assert db.ok(statement).warnings == []
    db.close()


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize(
    ("statement", "code", "notes"),
    [
        ("UPDATE t1 SET s = later(a)", 1172, ["At line 5 in test.later"]),  # the SELECT ... INTO's line, as the server reads the definition back
        ("SELECT later(a) FROM t1", 1172, ["At line 5 in test.later"]),
        ("SELECT later(1)", 1172, ["At line 5 in test.later"]),
    ],
)
def test_an_error_of_a_compound_body_names_its_line(statement: str, code: int, notes: list[str], fast_path: bool) -> None:
    db = _per_row_db(fast_path)
    outcome = db.run(statement)
    assert outcome.error is not None and outcome.error.code == code
    assert [note.message for note in outcome.warnings if note.code == 4094] == notes
    assert db.rows("t1") == [(1, 10, "a"), (2, 2, "bb"), (3, 30, "ccc")]
    db.close()


def _per_row_db(fast_path: bool) -> Db:
    db = Db(flavor=MARIADB_1011, sorted_rows=True, fast_path=fast_path)
    db.ok("CREATE TABLE t1 (a INT PRIMARY KEY, b INT, s VARCHAR(20)) ENGINE=InnoDB")
    db.ok("CREATE TABLE names (a INT PRIMARY KEY, w VARCHAR(10)) ENGINE=InnoDB")
    db.ok("CREATE TABLE t2 (a INT PRIMARY KEY, total INT, w VARCHAR(10)) ENGINE=InnoDB")
    db.ok("INSERT INTO t1 VALUES (1, 10, 'a'), (2, 2, 'bb'), (3, 30, 'ccc')")
    db.ok("INSERT INTO names VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    for sql in PER_ROW:
        db.ok(sql)
    return db
