"""The executor's single-table DML: UPDATE (order, limits, scan order per engine,
subqueries), DELETE, INSERT ... SELECT, column lists and value counts.

Every test runs SQL the way the simulators do (parse_statement, then Executor.run with a
statement context from the server, through tests.support.Db) and states what a real MySQL 8.0
server does, in strict mode with the default sql_mode and the utf8mb4_0900_ai_ci collation.
Tests marked xfail(strict=True) document simulator bugs: they state MySQL's behaviour.
"""

from __future__ import annotations

import pytest

from server_sim.flavor import MARIADB_1011, MYSQL_80
from server_sim.storage import ROW_ID
from tests.support import Db, images


def test_update_set_is_evaluated_left_to_right(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT, b INT, c INT)")
    db.ok("INSERT INTO t VALUES (1, 0, 0)")
    outcome = db.ok("UPDATE t SET a = a + 1, b = a, c = a + b")
    assert images(outcome) == [("update", (1, 0, 0), (2, 2, 4))]
    outcome = db.ok("UPDATE t SET b = a, a = a + 1")  # b reads a before it changes
    assert images(outcome) == [("update", (2, 2, 4), (3, 2, 4))]


def test_update_of_unchanged_rows_produces_no_row_change(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 5), (2, 6), (3, 5)")
    outcome = db.ok("UPDATE t SET v = 5")
    assert images(outcome) == [("update", (2, 6), (2, 5))]
    assert outcome.affected_rows == 1
    outcome = db.ok("UPDATE t SET v = v")
    assert (outcome.changes, outcome.affected_rows) == ([], 0)


def test_update_of_float_to_its_own_value_is_unchanged(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, f FLOAT)")
    db.ok("INSERT INTO t VALUES (1, 0.1)")
    outcome = db.ok("UPDATE t SET f = 0.1")
    assert (outcome.changes, outcome.affected_rows) == ([], 0)


def test_update_order_by_limit_changes_the_first_rows_of_that_order(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 30), (2, 10), (3, 20), (4, 40)")
    outcome = db.ok("UPDATE t SET v = 0 ORDER BY v LIMIT 2")
    assert images(outcome) == [("update", (2, 10), (2, 0)), ("update", (3, 20), (3, 0))]
    outcome = db.ok("UPDATE t SET v = -1 WHERE v > 0 ORDER BY id DESC LIMIT 1")
    assert images(outcome) == [("update", (4, 40), (4, -1))]


@pytest.mark.parametrize(("engine", "first_scanned"), [("InnoDB", 1), ("MyISAM", 3)])
def test_scan_order_is_primary_key_for_innodb_and_insertion_for_myisam(db: Db, engine: str, first_scanned: int) -> None:
    db.ok(f"CREATE TABLE t (id INT PRIMARY KEY, v CHAR(1)) ENGINE={engine}")
    db.ok("INSERT INTO t VALUES (3, 'a'), (1, 'a'), (2, 'a')")
    outcome = db.ok("UPDATE t SET v = 'x' LIMIT 1")
    assert images(outcome) == [("update", (first_scanned, "a"), (first_scanned, "x"))]
    expected_order = [1, 2, 3] if engine == "InnoDB" else [3, 1, 2]
    assert [row[0] for row in db.rows("t")] == expected_order
    assert [row[0] for row in db.query("SELECT id FROM t")] in ([1, 2, 3], [3, 1, 2])


def test_same_update_limit_changes_different_rows_per_engine(db: Db) -> None:
    for name, engine in (("i", "InnoDB"), ("m", "MyISAM")):
        db.ok(f"CREATE TABLE {name} (id INT PRIMARY KEY, v INT) ENGINE={engine}")
        db.ok(f"INSERT INTO {name} VALUES (5, 0), (2, 0), (9, 0)")
    innodb = db.ok("UPDATE i SET v = 1 LIMIT 1")
    myisam = db.ok("UPDATE m SET v = 1 LIMIT 1")
    assert innodb.changes[0].after == (2, 1)
    assert myisam.changes[0].after == (5, 1)


_SELF_SUBQUERY_TABLES = ["CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CREATE TABLE m (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)", "INSERT INTO m VALUES (1, 1)"]


@pytest.mark.parametrize(
    ("flavor", "sql", "rows"),
    [
        # MySQL: a subquery may not read the table the statement changes (1093).
        (MYSQL_80, "UPDATE t SET v = 0 WHERE id IN (SELECT id FROM t)", None),
        (MYSQL_80, "UPDATE t SET v = (SELECT MAX(v) FROM t)", None),
        (MYSQL_80, "DELETE FROM t WHERE id = (SELECT MIN(id) FROM t)", None),
        (MYSQL_80, "UPDATE t, m SET t.v = 9 WHERE t.id = m.id AND t.id IN (SELECT id FROM t)", None),
        # MariaDB 10.3+: the subqueries see the table as it was before any row changed
        # (recorded, scenarios/oracle/update-self-subquery); a multi-table DELETE is 1093.
        (MARIADB_1011, "UPDATE t SET v = v + 1 WHERE v < (SELECT MAX(v) FROM t)", [(1, 2), (2, 3), (3, 3)]),
        (MARIADB_1011, "UPDATE t SET v = (SELECT MAX(v) FROM t) + id", [(1, 4), (2, 5), (3, 6)]),
        (MARIADB_1011, "DELETE FROM t WHERE v < (SELECT AVG(v) FROM t)", [(2, 2), (3, 3)]),
        (MARIADB_1011, "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE v > 1) ORDER BY id LIMIT 1", [(1, 1), (3, 3)]),
        (MARIADB_1011, "UPDATE t, m SET t.v = 9 WHERE t.id = m.id AND t.id IN (SELECT id FROM t)", [(1, 9), (2, 2), (3, 3)]),
        (MARIADB_1011, "DELETE t FROM t JOIN m ON t.id = m.id WHERE t.id IN (SELECT id FROM t)", None),
    ],
)
def test_subquery_on_the_target_table_per_flavor(flavor, sql: str, rows: list[tuple] | None) -> None:
    db = Db(flavor=flavor)
    try:
        for statement in _SELF_SUBQUERY_TABLES:
            db.ok(statement)
        outcome = db.run(sql)
        if rows is None:
            assert outcome.error is not None and (outcome.error.code, outcome.error.name) == (1093, "ER_UPDATE_TABLE_USED"), sql
            assert outcome.error.message == "You can't specify target table 't' for update in FROM clause"
            assert outcome.changes == []
            rows = [(1, 1), (2, 2), (3, 3)]
        else:
            assert outcome.error is None, outcome.error
        assert sorted(db.rows("t")) == rows
    finally:
        db.close()


def test_update_with_subquery_on_another_table_is_allowed(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("CREATE TABLE s (id INT PRIMARY KEY)")
    db.ok("INSERT INTO t VALUES (1, 1), (2, 2)")
    db.ok("INSERT INTO s VALUES (2)")
    outcome = db.ok("UPDATE t SET v = 0 WHERE id IN (SELECT id FROM s)")
    assert images(outcome) == [("update", (2, 2), (2, 0))]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        pytest.param("SELECT id FROM t WHERE id > 1 AND v = 7", [(3,)], id="select-and"),
        pytest.param("SELECT id FROM t WHERE id = 3 OR v = 8", [(2,), (3,)], id="select-or"),
        pytest.param("SELECT id FROM t WHERE (id = 3) XOR (v = 8)", [(2,), (3,)], id="select-xor"),
        pytest.param("SELECT id FROM t WHERE EXISTS (SELECT 1 FROM t AS x WHERE x.v = 8) AND id = 3", [(3,)], id="select-exists"),
        pytest.param("UPDATE t SET v = 0 WHERE id > 1 AND v = 7", 1, id="update-and"),
        pytest.param("DELETE FROM t WHERE id = 3 OR id = 4", 1, id="delete-or"),
    ],
)
def test_boolean_connectives_work_in_where(db: Db, sql: str, expected: object) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 7), (2, 8), (3, 7)")
    outcome = db.ok(sql)
    if outcome.rows is not None:
        assert sorted(outcome.rows) == expected
    else:
        assert outcome.affected_rows == expected


@pytest.mark.parametrize(
    "sql",
    [f"DELETE FROM t WHERE {ROW_ID} = 1", f"UPDATE t SET v = 9 WHERE {ROW_ID} = 1", f"UPDATE t SET v = {ROW_ID}", f"SELECT {ROW_ID} FROM t"],
)
def test_hidden_row_id_is_a_name_too_long_for_mysql(db: Db, sql: str) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 1)")
    assert (db.error(sql).code, len(ROW_ID) > 64) == (1059, True)  # ER_TOO_LONG_IDENT, as the server says of such a name
    assert db.rows("t") == [(1, 1)]


@pytest.mark.parametrize(
    "sql",
    ["DELETE FROM t WHERE _rpl_row = 1", "UPDATE t SET v = 9 WHERE _rpl_row = 1", "UPDATE t SET v = _rpl_row", "SELECT _rpl_row FROM t"],
)
def test_a_column_the_table_lacks_is_unknown(db: Db, sql: str) -> None:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (1, 1)")
    assert db.error(sql).code == 1054
    assert db.query("SELECT * FROM t") == [(1, 1)]


@pytest.mark.parametrize(
    ("schema", "statements", "table", "rows"),
    [
        ("CREATE TABLE c (a INT PRIMARY KEY, _rpl_row INT)", ["INSERT INTO c VALUES (1, 10)", "UPDATE c SET _rpl_row = _rpl_row + 1 WHERE _rpl_row = 10"], "c", [(1, 11)]),
        ("CREATE TABLE `mysql.general_log` (a INT)", ["INSERT INTO `mysql.general_log` VALUES (1)", "SELECT COUNT(*) FROM mysql.general_log"], "mysql.general_log", [(1,)]),
        ("CREATE TABLE `#tmp1_t` (a INT)", ["INSERT INTO `#tmp1_t` VALUES (5)", "CREATE TEMPORARY TABLE t (a INT)", "INSERT INTO t VALUES (7)"], "#tmp1_t", [(5,)]),
        ("CREATE TABLE `#sys:mysql.general_log` (a INT)", ["INSERT INTO `#sys:mysql.general_log` VALUES (3)", "SELECT COUNT(*) FROM mysql.general_log"], "#sys:mysql.general_log", [(3,)]),
    ],
)
def test_a_name_the_storage_uses_for_itself_is_an_ordinary_name(db: Db, schema: str, statements: list[str], table: str, rows: list[tuple]) -> None:
    db.ok(schema)
    for sql in statements:
        db.ok(sql)
    assert db.rows(table) == rows


# -- DELETE ---------------------------------------------------------------------------------


@pytest.fixture
def five(db: Db) -> Db:
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    db.ok("INSERT INTO t VALUES (4, 40), (2, 20), (5, 10), (1, 50), (3, 30)")
    return db


def test_delete_with_where(five: Db) -> None:
    outcome = five.ok("DELETE FROM t WHERE v >= 40")
    assert images(outcome) == [("delete", (1, 50), None), ("delete", (4, 40), None)]
    assert outcome.affected_rows == 2
    assert five.rows("t") == [(2, 20), (3, 30), (5, 10)]


def test_delete_order_by_limit(five: Db) -> None:
    outcome = five.ok("DELETE FROM t ORDER BY v DESC LIMIT 2")
    assert [change.before for change in outcome.changes] == [(1, 50), (4, 40)]
    outcome = five.ok("DELETE FROM t WHERE id > 1 ORDER BY v LIMIT 1")
    assert [change.before for change in outcome.changes] == [(5, 10)]
    assert five.rows("t") == [(2, 20), (3, 30)]


def test_delete_limit_without_order_follows_the_scan_order(five: Db) -> None:
    outcome = five.ok("DELETE FROM t LIMIT 2")
    assert [change.before for change in outcome.changes] == [(1, 50), (2, 20)]


def test_delete_without_match_changes_nothing(five: Db) -> None:
    outcome = five.ok("DELETE FROM t WHERE id = 99")
    assert (outcome.changes, outcome.affected_rows) == ([], 0)
    assert len(five.rows("t")) == 5


# -- INSERT ... SELECT, column lists, value counts -------------------------------------------


@pytest.fixture
def source(db: Db) -> Db:
    db.ok("CREATE TABLE s (id INT PRIMARY KEY, v VARCHAR(5))")
    db.ok("INSERT INTO s VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    db.ok("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))")
    return db


def test_insert_select_star_copies_rows_without_the_hidden_row_id(source: Db) -> None:
    outcome = source.ok("INSERT INTO t SELECT * FROM s WHERE id < 3")
    assert images(outcome) == [("write", None, (1, "a")), ("write", None, (2, "b"))]
    assert source.rows("t") == [(1, "a"), (2, "b")]
    assert source.columns("t") == ["id", "v"]


def test_insert_select_with_a_column_list(source: Db) -> None:
    outcome = source.ok("INSERT INTO t (v, id) SELECT UPPER(v), id * 10 FROM s")
    assert [change.after for change in outcome.changes] == [(10, "A"), (20, "B"), (30, "C")]


def test_insert_select_from_the_target_table_is_allowed(source: Db) -> None:
    source.ok("INSERT INTO t VALUES (1, 'x')")
    outcome = source.ok("INSERT INTO t SELECT id + 100, v FROM t")
    assert [change.after for change in outcome.changes] == [(101, "x")]


def test_insert_column_list_in_any_order(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT, b VARCHAR(3), c INT DEFAULT 7)")
    outcome = db.ok("INSERT INTO t (b, a) VALUES ('x', 1), ('y', 2)")
    assert [change.after for change in outcome.changes] == [(1, "x", 7), (2, "y", 7)]


def test_insert_unknown_column_is_1054(db: Db) -> None:
    db.ok("CREATE TABLE t (a INT)")
    error = db.error("INSERT INTO t (nope) VALUES (1)")
    assert (error.code, error.message) == (1054, "Unknown column 'nope' in 'field list'")


@pytest.mark.parametrize(
    ("sql", "row"),
    [
        ("INSERT INTO t VALUES (1)", 1),
        ("INSERT INTO t VALUES (1, 'a', 3)", 1),
        ("INSERT INTO t (id) VALUES (1, 'a')", 1),
        ("INSERT INTO t VALUES (1, 'a'), (2)", 2),
        ("INSERT INTO t SELECT id FROM s", 1),
        ("INSERT INTO t (id) SELECT id, v FROM s", 1),
    ],
)
def test_value_count_mismatch_is_1136(source: Db, sql: str, row: int) -> None:
    error = source.error(sql)
    assert (error.code, error.name) == (1136, "ER_WRONG_VALUE_COUNT_ON_ROW")
    assert error.message == f"Column count doesn't match value count at row {row}"


def test_value_count_mismatch_inserts_no_row(db: Db) -> None:
    db.ok("CREATE TABLE t (id INT, v INT) ENGINE=MyISAM")
    outcome = db.run("INSERT INTO t VALUES (1, 1), (2)")
    assert outcome.error is not None and outcome.error.code == 1136
    assert outcome.changes == []
    assert db.rows("t") == []
