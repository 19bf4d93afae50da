"""Grouped SELECTs (server_sim/functions/grouping.py): a column outside a SELECT's groups
and aggregates is each server's error under ONLY_FULL_GROUP_BY (MySQL after its
functional-dependency analysis, MariaDB without one), refused without it; a column a key
in the GROUP BY determines runs where the server runs it. MariaDB's recorded answers:
scenarios/oracle/group-by-modes.yaml."""

from __future__ import annotations

import pytest

from server_sim.errors import ErrorCode
from server_sim.flavor import MARIADB_1011, MYSQL_80
from tests.support import Db

NOT_SUPPORTED = "This version of MySQL doesn't yet support '{}'"
ANY_ROW = "column '{}' in the {} of a grouped SELECT, neither grouped nor aggregated (the server takes it from any row of its group)"
DEPENDENCY = (
    "whether column '{}' is functionally dependent on the GROUP BY (MySQL's analysis follows the WHERE's and"
    " joins' equalities and derived tables; the simulator follows keys only)"
)


def _only_full_group_by(db: Db, on: bool) -> None:
    """The flavor's default sql_mode with ONLY_FULL_GROUP_BY (MySQL's has it, MariaDB's not) or without."""
    modes = [mode for mode in db.server.flavor.default_sql_mode.split(",") if mode != "ONLY_FULL_GROUP_BY"]
    db.session.variables["sql_mode"] = ",".join((["ONLY_FULL_GROUP_BY"] if on else []) + modes)


@pytest.fixture(params=[MYSQL_80, MARIADB_1011], ids=["mysql", "mariadb"])
def db(request: pytest.FixtureRequest) -> Db:
    db = Db(flavor=request.param)
    db.ok("CREATE TABLE t (a INT PRIMARY KEY, b INT, c INT, k INT NOT NULL, n INT, UNIQUE KEY (k), UNIQUE KEY (n))")
    db.ok("CREATE TABLE u (a INT PRIMARY KEY, b INT)")
    db.ok("INSERT INTO t VALUES (1, 1, 10, 100, 7), (2, 1, 20, 200, NULL), (3, 2, 30, 300, 9)")
    db.ok("INSERT INTO u VALUES (1, 5), (2, 6)")
    yield db
    db.close()


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        ("SELECT b, COUNT(*), SUM(c) FROM t GROUP BY b ORDER BY b", [(1, 2, 30), (2, 1, 30)]),
        ("SELECT b + 1 AS x, MAX(c) FROM t GROUP BY x ORDER BY x", [(2, 20), (3, 30)]),
        ("SELECT b + 1, MIN(c) FROM t GROUP BY b + 1 ORDER BY 1", [(2, 10), (3, 30)]),
        ("SELECT COUNT(*), MAX(c) FROM t", [(3, 30)]),
        ("SELECT b FROM t GROUP BY b HAVING MAX(c) > 20 ORDER BY b", [(2,)]),
        ("SELECT b AS x FROM t GROUP BY b HAVING x > 1", [(2,)]),
        ("SELECT b, (SELECT MAX(u.b) FROM u WHERE u.a = t.b) FROM t GROUP BY b ORDER BY b", [(1, 5), (2, 6)]),
    ],
)
@pytest.mark.parametrize("full", [True, False], ids=["only_full_group_by", "without"])
def test_a_grouped_select_of_groups_and_aggregates_runs_in_every_mode(db: Db, full: bool, sql: str, rows: list[tuple]) -> None:
    _only_full_group_by(db, full)
    assert db.query(sql) == rows


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a, c FROM t GROUP BY a ORDER BY a",
        "SELECT k, c FROM t GROUP BY k ORDER BY k",
        "SELECT * FROM t GROUP BY a ORDER BY a",
    ],
)
def test_a_column_a_key_in_the_group_by_determines(db: Db, sql: str) -> None:
    """MySQL follows the key under ONLY_FULL_GROUP_BY; MariaDB only without it."""
    rows = db.query(sql)
    assert [row[-1] if "*" not in sql else row[2] for row in rows] == [10, 20, 30]
    _only_full_group_by(db, db.server.flavor is MARIADB_1011)
    if db.server.flavor is MYSQL_80:
        assert db.query(sql) == rows
    else:
        assert db.error(sql).error is ErrorCode.ER_WRONG_FIELD_WITH_GROUP


@pytest.mark.parametrize(
    ("sql", "mysql", "mariadb"),
    [
        (
            "SELECT b, c FROM t GROUP BY b",
            "Expression #2 of SELECT list is not in GROUP BY clause and contains nonaggregated column 'test.t.c' which is not"
            " functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
            "'test.t.c' isn't in GROUP BY",
        ),
        (
            "SELECT x.b, UPPER(x.c) FROM t AS x GROUP BY x.b",
            "Expression #2 of SELECT list is not in GROUP BY clause and contains nonaggregated column 'test.x.c' which is not"
            " functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
            "'test.x.c' isn't in GROUP BY",
        ),
        (
            "SELECT b, (SELECT MAX(u.b) FROM u WHERE u.a = t.c) FROM t GROUP BY b",
            "Expression #2 of SELECT list is not in GROUP BY clause and contains nonaggregated column 'test.t.c' which is not"
            " functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
            "'test.t.c' isn't in GROUP BY",
        ),
        (
            "SELECT n, c FROM t GROUP BY n",  # n is unique but nullable: no key
            "Expression #2 of SELECT list is not in GROUP BY clause and contains nonaggregated column 'test.t.c' which is not"
            " functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
            "'test.t.c' isn't in GROUP BY",
        ),
        (
            "SELECT b, MAX(c) FROM t",
            "In aggregated query without GROUP BY, expression #1 of SELECT list contains nonaggregated column 'test.t.b';"
            " this is incompatible with sql_mode=only_full_group_by",
            "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns is illegal if there is no GROUP BY clause",
        ),
    ],
)
def test_a_column_outside_the_groups_is_the_servers_error_under_only_full_group_by(db: Db, sql: str, mysql: str, mariadb: str) -> None:
    _only_full_group_by(db, True)
    error = db.error(sql)
    assert error.code in (1055, 1140)
    assert error.message == (mysql if db.server.flavor is MYSQL_80 else mariadb)


@pytest.mark.parametrize(
    ("sql", "column", "clause"),
    [
        ("SELECT b, c FROM t GROUP BY b", "test.t.c", "SELECT list"),
        ("SELECT b, MAX(c) FROM t", "test.t.b", "SELECT list"),
        ("SELECT COUNT(*), c FROM t GROUP BY b", "test.t.c", "SELECT list"),
    ],
)
def test_without_only_full_group_by_a_value_from_any_row_is_refused(db: Db, sql: str, column: str, clause: str) -> None:
    _only_full_group_by(db, False)
    assert db.error(sql).message == NOT_SUPPORTED.format(ANY_ROW.format(column, clause))


def test_a_grouped_selects_order_by_follows_each_server(db: Db) -> None:
    """MySQL checks a grouped SELECT's ORDER BY (1055, 'ORDER BY clause'); MariaDB does not
    (recorded): the order of groups by a column of any of their rows is refused."""
    _only_full_group_by(db, True)
    sql = "SELECT b, COUNT(*) FROM t GROUP BY b ORDER BY c"
    if db.server.flavor is MYSQL_80:
        assert db.error(sql).message.startswith("Expression #1 of ORDER BY clause is not in GROUP BY clause and contains nonaggregated column 'test.t.c'")
    else:
        assert db.error(sql).message == NOT_SUPPORTED.format(ANY_ROW.format("test.t.c", "ORDER BY clause"))
    assert db.query("SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY c DESC") == [(3, 1), (2, 1), (1, 1)]  # determined by the key


def test_a_window_functions_argument_follows_each_server(db: Db) -> None:
    """MariaDB does not check it, and reads a row of the group (recorded); MySQL's answer
    is not recorded here."""
    _only_full_group_by(db, True)
    error = db.error("SELECT b, SUM(c) OVER () FROM t GROUP BY b")
    if db.server.flavor is MYSQL_80:
        assert error.message == NOT_SUPPORTED.format("column 'test.t.c' in a window function of a grouped SELECT, outside its groups (MySQL's answer is not recorded here)")
    else:
        assert error.message == NOT_SUPPORTED.format(ANY_ROW.format("test.t.c", "SELECT list"))
    assert db.query("SELECT a, SUM(c) OVER () FROM t GROUP BY a ORDER BY a") == [(1, 60), (2, 60), (3, 60)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT b, c FROM t WHERE c = 10 GROUP BY b",
        "SELECT t.b, u.b FROM t JOIN u ON t.a = u.a GROUP BY t.b",
        "SELECT d.b, d.c FROM (SELECT b, c FROM t) AS d GROUP BY d.b",
    ],
)
def test_mysql_dependencies_through_equalities_or_derived_tables_are_refused(sql: str) -> None:
    db = Db(flavor=MYSQL_80)
    db.ok("CREATE TABLE t (a INT PRIMARY KEY, b INT, c INT)")
    db.ok("CREATE TABLE u (a INT PRIMARY KEY, b INT)")
    message = db.error(sql).message
    assert message.startswith(NOT_SUPPORTED.format("")[:-1] + "whether column "), message
    db.close()


@pytest.mark.parametrize(("sql", "name"), [("SELECT b FROM t GROUP BY b HAVING c > 1", "c"), ("SELECT a FROM t GROUP BY a HAVING t.c > 1", "t.c")])
def test_a_having_names_the_select_list_and_the_group_by(db: Db, sql: str, name: str) -> None:
    error = db.error(sql)
    clause = "having clause" if db.server.flavor is MYSQL_80 else "HAVING"
    assert (error.error, error.message) == (ErrorCode.ER_BAD_FIELD_ERROR, f"Unknown column '{name}' in '{clause}'")


def test_with_rollup_and_a_having_without_grouping_are_refused(db: Db) -> None:
    assert db.error("SELECT b, COUNT(*) FROM t GROUP BY b WITH ROLLUP").message == NOT_SUPPORTED.format("GROUP BY ... WITH ROLLUP (and other grouping sets)")
    refused = "HAVING in a SELECT without GROUP BY or an aggregate (a filter of its rows by their SELECT list)"
    assert db.error("SELECT a FROM t HAVING a > 1").message == NOT_SUPPORTED.format(refused)
